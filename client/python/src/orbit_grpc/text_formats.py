"""The `orbit` CLI's text formats, turned into the same `orbit.v1` jobs the CLI sends.

Each function mirrors one parser of the Rust CLI (`orbit_cli::text_formats`, which uses the
solvers' parsers in `orbit-worker`): the same input is accepted or refused, and a refusal is a
`TextFormatError` (a `ValueError`) with the CLI's message, naming the line:

    >>> game_job("2 1\\n1 3\\n")
    Traceback (most recent call last):
    ...
    orbit_grpc.text_formats.TextFormatError: line 2: vertex 3 out of range 1..2

| function | CLI command | input |
|---|---|---|
| `game_job(text)` | `orbit game` | `n m`, then m lines `u v` (1-based; a move from u to v) |
| `cop_thief_job(text)` | `orbit cop-thief` | `n m`, then n rows of `. * C T E` |
| `group_job(text)` | `orbit group` | `d k q`, then k generators and q candidates in GAP cycle notation |
| `puzzle_job(text)` | `orbit puzzle` | `n m q`, m edges `u v`, the start, q targets (tokens 0..n-1) |
| `count_group_family(text, k, content, cycle_index)` | `orbit count group` | the `orbit group` format (candidates ignored) |

Vertices and points are 1-based in the text and 0-based in the jobs. Blank lines are skipped;
line numbers count every line of the text.
"""

from __future__ import annotations

import re
import struct
from typing import Iterable, Iterator, Optional, Sequence, Union

from .v1 import orbit_pb2

_U32_MAX = 2**32 - 1
_U64_MAX = 2**64 - 1
# The default limits of orbit-worker (`Limits::default()`), which the CLI's group parser checks
# before it allocates any permutation.
MAX_DEGREE = 100_000
MAX_PERMUTATION_ENTRIES = 50_000_000

# Rust's `u32`/`u64` `from_str`: an optional `+`, then ASCII digits only.
_UNSIGNED = re.compile(r"\+?[0-9]+\Z")
# Rust's `split_ascii_whitespace` (space, \t, \n, \x0c, \r).
_ASCII_WHITESPACE = re.compile(r"[ \t\n\x0c\r]+")


class TextFormatError(ValueError):
    """Malformed text: `field` names the place (`line 3`, `line 2 (generator 1)`,
    `count.content[1]`), `reason` what is wrong; the message is `field: reason`, as the CLI
    prints it after `orbit: `."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class TextLimitError(ValueError):
    """A size in the text beyond the CLI's default limits (message: `... exceeds the limit of N`),
    refused before anything is allocated."""


# Helpers that behave as Rust's str methods do -------------------------------------------------


def _lines(text: str) -> list[str]:
    """`str::lines`: split at `\\n`, drop one `\\r` before it, no last empty line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _split_ascii(line: str) -> list[str]:
    return [w for w in _ASCII_WHITESPACE.split(line) if w]


def _unsigned(word: str, bits: int) -> Optional[int]:
    if not _UNSIGNED.match(word):
        return None
    value = int(word)
    return value if value < 2**bits else None


def _numbered(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of every non-blank line."""
    for number, line in enumerate(_lines(text), start=1):
        if line.strip():
            yield number, line


# orbit game ------------------------------------------------------------------------------------


def _two_numbers(line: str) -> tuple[int, int]:
    tokens = _split_ascii(line)
    out = []
    for i in range(2):
        if i >= len(tokens):
            raise _Reason("too few numbers")
        value = _unsigned(tokens[i], 64)
        if value is None:
            raise _Reason(f"`{tokens[i]}` is not a non-negative integer")
        out.append(value)
    if len(tokens) > 2:
        raise _Reason(f"unexpected `{tokens[2]}` after two numbers")
    return out[0], out[1]


class _Reason(Exception):
    """A reason without its line yet."""


def game_job(text: str) -> orbit_pb2.GameGraphJob:
    """`orbit game`'s input: `n m`, then m lines `u v` (1-based), one move from u to v each.

    >>> job = game_job("3 2\\n1 2\\n2 3\\n")
    >>> job.vertices, [(e.to) for e in job.edges]
    (3, [1, 2])
    """
    lines = ((n, line.strip()) for n, line in _numbered(text))
    header = next(lines, None)
    if header is None:
        raise TextFormatError("line 1", "empty input: expected a first line `n m`")
    hline, head = header
    try:
        n, m = _two_numbers(head)
    except _Reason as e:
        raise TextFormatError(f"line {hline}", f"{e} (expected `n m`)") from None
    if n >= _U32_MAX:
        raise TextFormatError(f"line {hline}", f"{n} vertices: at most {_U32_MAX - 1} supported")
    edges = []
    last_line = hline
    for lineno, line in lines:
        last_line = lineno
        if len(edges) == m:
            raise TextFormatError(
                f"line {lineno}", f"more edge lines than the {m} announced on line {hline}"
            )
        try:
            u, v = _two_numbers(line)
        except _Reason as e:
            raise TextFormatError(f"line {lineno}", f"{e} (expected `u v`)") from None
        for x in (u, v):
            if x == 0 or x > n:
                where = (
                    "out of range: the graph has no vertices" if n == 0 else f"out of range 1..{n}"
                )
                raise TextFormatError(f"line {lineno}", f"vertex {x} {where}")
        edges.append(orbit_pb2.Edge(to=v - 1, **{"from": u - 1}))
    if len(edges) < m:
        raise TextFormatError(
            f"line {last_line + 1}",
            f"end of input after {len(edges)} edge lines; line {hline} announced {m}",
        )
    return orbit_pb2.GameGraphJob(vertices=n, edges=edges)


# orbit cop-thief -------------------------------------------------------------------------------

_PIECES = {"C": "policeman `C`", "T": "thief `T`", "E": "exit `E`"}


def _rust_char_debug(c: str) -> str:
    """A char as Rust's `{:?}` prints it: `'x'`, `'\\t'`, `'\\''`, `'\\u{1f}'`."""
    escapes = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "'": "\\'", "\\": "\\\\", "\0": "\\0"}
    if c in escapes:
        return f"'{escapes[c]}'"
    if c.isprintable():
        return f"'{c}'"
    return "'\\u{%x}'" % ord(c)


def cop_thief_job(text: str) -> orbit_pb2.CopThiefJob:
    """`orbit cop-thief`'s input: `n m`, then n rows of m characters from `. * C T E` (exactly
    one C and one T, at most one E).

    >>> list(cop_thief_job("1 3\\nC.T\\n").rows)
    ['C.T']
    """
    lines = [(n, line.rstrip()) for n, line in enumerate(_lines(text), start=1)]
    lines = [(n, line) for n, line in lines if line.lstrip()]
    if not lines:
        raise TextFormatError("line 1", "empty input: expected a first line `n m`")
    (hline, header), body = lines[0], lines[1:]
    tokens = _split_ascii(header)
    dims = []
    for i in range(2):
        if i >= len(tokens):
            raise TextFormatError(f"line {hline}", "too few numbers (expected `n m`)")
        value = _unsigned(tokens[i], 64)
        if value is None:
            raise TextFormatError(
                f"line {hline}",
                f"`{tokens[i]}` is not a non-negative integer (expected `n m`)",
            )
        dims.append(value)
    if len(tokens) > 2:
        raise TextFormatError(
            f"line {hline}", f"unexpected `{tokens[2]}` after two numbers (expected `n m`)"
        )
    n, m = dims
    if n == 0 or m == 0:
        raise TextFormatError(f"line {hline}", f"a {n} x {m} grid has no cells")
    if len(body) > n:
        raise TextFormatError(
            f"line {body[n][0]}", f"more rows than the {n} announced on line {hline}"
        )
    if len(body) < n:
        following = (body[-1][0] if body else hline) + 1
        raise TextFormatError(
            f"line {following}", f"end of input after {len(body)} rows; line {hline} announced {n}"
        )
    seen: dict[str, str] = {}
    for lineno, row in body:
        field = f"line {lineno}"
        if len(row) != m:
            raise TextFormatError(field, f"row has {len(row)} characters, expected {m}")
        for column, ch in enumerate(row, start=1):
            if ch in ".*":
                continue
            if ch not in _PIECES:
                raise TextFormatError(
                    field,
                    f"unknown character {_rust_char_debug(ch)} in column {column} "
                    "(expected one of . * C T E)",
                )
            if ch in seen:
                raise TextFormatError(
                    field,
                    f"a second {_PIECES[ch]} in column {column} (the first is in {seen[ch]})",
                )
            seen[ch] = field
    whole = f"lines {hline}-{body[n - 1][0]}"
    if "C" not in seen:
        raise TextFormatError(whole, "no policeman `C` on the grid")
    if "T" not in seen:
        raise TextFormatError(whole, "no thief `T` on the grid")
    return orbit_pb2.CopThiefJob(rows=[row for _, row in body])


# orbit group, orbit count group ---------------------------------------------------------------


class _CycleError(Exception):
    def __init__(self, column0: int, reason: str) -> None:
        super().__init__(f"{reason} (column {column0 + 1})")


def parse_cycles(text: str, degree: int) -> list[int]:
    """GAP cycle notation, 1-based (`(1,2,3)(4,5)`, `()` the identity), as a 0-based image
    list of length `degree`; errors name the column, as the CLI's do.

    >>> parse_cycles("(1,2,3)(4,5)", 6)
    [1, 2, 0, 4, 3, 5]
    """
    try:
        return _CycleParser(text, degree).parse()
    except _CycleError as e:
        raise ValueError(str(e)) from None


class _CycleParser:
    def __init__(self, text: str, degree: int) -> None:
        self.text = text
        self.degree = degree
        self.at = 0

    def _skip_ws(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def _next_token(self) -> Optional[tuple[int, str]]:
        self._skip_ws()
        if self.at >= len(self.text):
            return None
        self.at += 1
        return self.at - 1, self.text[self.at - 1]

    def _expected(self, what: str, got: Optional[tuple[int, str]]) -> _CycleError:
        if got is None:
            return _CycleError(len(self.text), f"expected {what}, found the end of the text")
        return _CycleError(got[0], f"expected {what}, found '{got[1]}'")

    def _point(self) -> tuple[int, int]:
        self._skip_ws()
        if self.at >= len(self.text):
            raise self._expected("a point", None)
        column = self.at
        if not ("0" <= self.text[column] <= "9"):
            raise self._expected("a point", (column, self.text[column]))
        while self.at < len(self.text) and "0" <= self.text[self.at] <= "9":
            self.at += 1
        digits = self.text[column : self.at]
        value = int(digits)
        if value == 0 or value > self.degree:
            raise _CycleError(column, f"point {digits} outside 1..{self.degree}")
        return column, value - 1

    def parse(self) -> list[int]:
        images = list(range(self.degree))
        seen = [False] * self.degree
        cycles = 0
        while True:
            token = self._next_token()
            if token is None:
                if cycles > 0:
                    break
                raise self._expected("'('", None)
            if token[1] != "(":
                raise self._expected("'('", token)
            self._skip_ws()
            if self.at < len(self.text) and self.text[self.at] == ")":
                column = self.at
                self.at += 1
                if cycles > 0 or self._next_token() is not None:
                    raise _CycleError(column, "empty cycle '()' is only allowed alone")
                return images
            cycle = []
            while True:
                column, x = self._point()
                if seen[x]:
                    raise _CycleError(column, f"point {x + 1} repeated")
                seen[x] = True
                cycle.append(x)
                token = self._next_token()
                if token is not None and token[1] == ",":
                    continue
                if token is not None and token[1] == ")":
                    break
                raise self._expected("',' or ')'", token)
            for k, x in enumerate(cycle):
                images[x] = cycle[(k + 1) % len(cycle)]
            cycles += 1
        return images


def _parse_group_text(text: str) -> tuple[int, list[list[int]], list[list[int]]]:
    """The `orbit group` format: (degree, generators, candidates) as 0-based image lists."""
    lines = _numbered(text)
    total_lines = len(_lines(text))
    header = next(lines, None)
    if header is None:
        raise TextFormatError("line 1", "expected `d k q`, found an empty input")
    hline, head = header
    words = head.split()
    numbers = [_unsigned(w, 64) for w in words]
    if len(numbers) != 3 or None in numbers:
        raise TextFormatError(
            f"line {hline}",
            f"expected `d k q` (three non-negative integers), found `{head.strip()}`",
        )
    d, k, q = numbers
    if d > MAX_DEGREE:
        raise TextLimitError(f"group degree {d} exceeds the limit of {MAX_DEGREE}")
    permutations = min(k + q, _U64_MAX)
    entries = min(d * permutations, _U64_MAX)
    if entries > MAX_PERMUTATION_ENTRIES:
        raise TextLimitError(
            f"permutation entries {entries} (degree {d} x {permutations} permutations) "
            f"exceeds the limit of {MAX_PERMUTATION_ENTRIES}"
        )

    def read(what: str, count: int) -> list[list[int]]:
        out = []
        for i in range(1, count + 1):
            line = next(lines, None)
            if line is None:
                raise TextFormatError(
                    f"line {total_lines + 1} ({what} {i})",
                    f"missing: the input ends after {i - 1} {what}s of {count}",
                )
            lineno, content = line
            try:
                out.append(_CycleParser(content, d).parse())
            except _CycleError as e:
                raise TextFormatError(f"line {lineno} ({what} {i})", str(e)) from None
        return out

    generators = read("generator", k)
    candidates = read("candidate", q)
    extra = next(lines, None)
    if extra is not None:
        raise TextFormatError(
            f"line {extra[0]}",
            f"unexpected text after the {k} generators and {q} candidates",
        )
    return d, generators, candidates


def group_job(text: str) -> orbit_pb2.GroupJob:
    """`orbit group`'s input: `d k q`, then k generator lines and q candidate lines in 1-based
    GAP cycle notation (`()` the identity); the permutations as 0-based image arrays.

    >>> list(group_job("3 1 1\\n(1,2,3)\\n()\\n").generators[0].images)
    [1, 2, 0]
    """
    degree, generators, candidates = _parse_group_text(text)
    return orbit_pb2.GroupJob(
        degree=degree,
        generators=[orbit_pb2.Permutation(images=g) for g in generators],
        candidates=[orbit_pb2.Permutation(images=c) for c in candidates],
    )


def parse_content(text: str) -> list[int]:
    """A content list such as `4,3,1` (commas and/or spaces), as `orbit count group --content`.

    >>> parse_content("4,3,1")
    [4, 3, 1]
    """
    words = [w for w in re.split(r"[,\s]", text) if w]
    out = []
    for i, word in enumerate(words):
        value = _unsigned(word, 64)
        if value is None:
            raise TextFormatError(f"count.content[{i}]", f"`{word}` is not a non-negative integer")
        out.append(value)
    return out


def count_group_family(
    text: str,
    k: int = 0,
    content: Union[str, Sequence[int], None] = None,
    cycle_index: bool = False,
) -> orbit_pb2.GroupCount:
    """`orbit count group FILE --k K [--content C] [--cycle-index]`: the group in the `orbit
    group` format (candidate lines are ignored); `content` as the flag's text (`"2,2"`) or a
    list of counts. Put it in a job as `CountJob(group=...)`.

    >>> family = count_group_family("4 1 0\\n(1,2,3,4)\\n", k=2, content="2,2")
    >>> family.degree, list(family.content)
    (4, [2, 2])
    """
    degree, generators, _ = _parse_group_text(text)
    if isinstance(content, str):
        counts = parse_content(content)
    else:
        counts = list(content or [])
    return orbit_pb2.GroupCount(
        degree=degree,
        generators=[orbit_pb2.Permutation(images=g) for g in generators],
        k=k,
        content=counts,
        cycle_index=cycle_index,
    )


# orbit puzzle ----------------------------------------------------------------------------------


def _numbers(lineno: int, line: str, count: int, what: str) -> list[int]:
    out = []
    for word in _split_ascii(line):
        if len(out) == count:
            raise TextFormatError(f"line {lineno}", f"{what}: more than {count} numbers")
        value = _unsigned(word, 32)
        if value is None:
            raise TextFormatError(
                f"line {lineno}", f"{what}: `{word}` is not a non-negative 32-bit integer"
            )
        out.append(value)
    if len(out) != count:
        raise TextFormatError(
            f"line {lineno}", f"{what}: expected {count} numbers, found {len(out)}"
        )
    return out


def _arrangement(lineno: int, line: str, n: int, what: str) -> list[int]:
    out: list[int] = []
    vertex_of: dict[int, int] = {}
    for word in _split_ascii(line):
        if len(out) == n:
            raise TextFormatError(f"line {lineno}", f"{what}: more than n = {n} tokens")
        vertex = len(out) + 1
        token = _unsigned(word, 32)
        if token is None:
            raise TextFormatError(
                f"line {lineno}",
                f"{what}, vertex {vertex}: `{word}` is not a non-negative 32-bit integer",
            )
        if token >= n:
            raise TextFormatError(
                f"line {lineno}", f"{what}, vertex {vertex}: token {token} out of range 0..{n - 1}"
            )
        first = vertex_of.setdefault(token, vertex)
        if first != vertex:
            raise TextFormatError(
                f"line {lineno}",
                f"{what}, vertex {vertex}: token {token} appears twice (also on vertex {first})",
            )
        out.append(token)
    if len(out) != n:
        raise TextFormatError(f"line {lineno}", f"{what}: expected n = {n} tokens, found {len(out)}")
    return out


def puzzle_job(text: str) -> orbit_pb2.PuzzleJob:
    """`orbit puzzle`'s input, the contest format: `n m q`; m lines `u v` (an undirected edge,
    1-based); a line of n tokens (the token on vertex 1..n, a permutation of 0..n-1); q target
    lines of the same form. The targets go in `targets_packed` (4 bytes little-endian per token),
    as the CLI sends them. (The CLI also splits a puzzle too big for one message into several
    jobs; this builds one.)

    >>> job = puzzle_job("3 2 1\\n1 2\\n2 3\\n0 1 2\\n1 0 2\\n")
    >>> job.n, list(job.start.tokens), len(job.targets_packed)
    (3, [0, 1, 2], 12)
    """
    lines = _numbered(text)
    end_line = len(_lines(text)) + 1

    def next_line(what: str) -> tuple[int, str]:
        line = next(lines, None)
        if line is None:
            raise TextFormatError(f"line {end_line}", f"expected {what}, found the end of the input")
        return line

    lineno, header = next_line("the header `n m q`")
    n, m, q = _numbers(lineno, header, 3, "the header `n m q`")
    if n == 0:
        raise TextFormatError(f"line {lineno}", "n must be at least 1")
    edges = []
    for e in range(1, m + 1):
        lineno, line = next_line(f"edge {e} of {m} (`u v`)")
        u, v = _numbers(lineno, line, 2, f"edge {e} (`u v`)")
        for x in (u, v):
            if x == 0 or x > n:
                raise TextFormatError(f"line {lineno}", f"edge {e}: vertex {x} out of range 1..{n}")
        edges.append(orbit_pb2.Edge(to=v - 1, **{"from": u - 1}))
    lineno, line = next_line(f"the start arrangement ({n} tokens)")
    start = _arrangement(lineno, line, n, "start")
    packed = bytearray()
    for t in range(1, q + 1):
        lineno, line = next_line(f"target {t} of {q} ({n} tokens)")
        target = _arrangement(lineno, line, n, f"target {t}")
        packed += struct.pack(f"<{n}I", *target)
    extra = next(lines, None)
    if extra is not None:
        raise TextFormatError(
            f"line {extra[0]}", f"unexpected input after the {q} targets announced in the header"
        )
    return orbit_pb2.PuzzleJob(
        n=n,
        edges=edges,
        start=orbit_pb2.Arrangement(tokens=start),
        targets_packed=bytes(packed),
    )


def puzzle_targets(job: orbit_pb2.PuzzleJob) -> list[list[int]]:
    """The targets of a puzzle job, from `targets` or unpacked from `targets_packed`."""
    if job.targets:
        return [list(t.tokens) for t in job.targets]
    flat: Iterable[int] = struct.unpack(f"<{len(job.targets_packed) // 4}I", job.targets_packed)
    flat = list(flat)
    return [flat[i : i + job.n] for i in range(0, len(flat), job.n)] if job.n else []
