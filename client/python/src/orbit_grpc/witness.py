"""Checks of the words a server sends for group members, made by the client alone from the job
it sent: every word is multiplied out here, so an answer need not be trusted.

    from orbit_grpc import pb, text_formats, witness

    job = text_formats.group_job(open("examples/group.txt").read())
    job.words = True
    result = client.solve(orbit_grpc.job(job, "g")).group
    witness.check_group_words(job, result)          # raises WitnessError if a word is wrong
    print([witness.format_word(w) for w in result.words if w.has_word])
"""

from __future__ import annotations

from typing import Sequence

from .v1 import orbit_pb2 as pb

__all__ = ["WitnessError", "check_group_words", "format_word", "images_of", "multiply_word"]


class WitnessError(Exception):
    """A wrong witness: `candidate` (0-based; -1 for the answer as a whole) and `reason`."""

    def __init__(self, candidate: int, reason: str) -> None:
        super().__init__(f"candidate {candidate}: {reason}")
        self.candidate = candidate
        self.reason = reason


def images_of(p: pb.Permutation, degree: int) -> list[int]:
    """The 0-based image list of `p`: its `images`, or its `cycles` in GAP notation (1-based).

    >>> images_of(pb.Permutation(cycles="(1,3)(2,4,5)"), 5)
    [2, 3, 0, 4, 1]
    """
    if p.images:
        if len(p.images) != degree:
            raise ValueError(f"{len(p.images)} images, not {degree}")
        return list(p.images)
    images = list(range(degree))
    text = "".join(p.cycles.split())
    for cycle in filter(None, text.split(")")):
        if not cycle.startswith("("):
            raise ValueError(f"cannot read the cycles {p.cycles!r}")
        if cycle == "(":
            continue
        points = [int(x) - 1 for x in cycle[1:].split(",")]
        if any(not 0 <= x < degree for x in points):
            raise ValueError(f"a point out of range in {p.cycles!r}")
        for i, x in enumerate(points):
            images[x] = points[(i + 1) % len(points)]
    return images


def _power(images: Sequence[int], exponent: int) -> list[int]:
    """`images` raised to `exponent` (any sign), by walking each cycle."""
    out = list(range(len(images)))
    seen = [False] * len(images)
    for start in range(len(images)):
        if seen[start]:
            continue
        cycle = []
        x = start
        while not seen[x]:
            seen[x] = True
            cycle.append(x)
            x = images[x]
        for i, x in enumerate(cycle):
            out[x] = cycle[(i + exponent) % len(cycle)]
    return out


def multiply_word(word: pb.GroupWord, generators: Sequence[Sequence[int]], degree: int) -> list[int]:
    """The image list of `word`, multiplied left to right as GAP does (a point goes through the
    first letter first).

    >>> w = pb.GroupWord(has_word=True, generators=[0, 1], exponents=[-1, 1])
    >>> multiply_word(w, [[1, 2, 0], [1, 0, 2]], 3)  # (1,2,3)^-1 * (1,2) = (1,3)
    [2, 1, 0]
    """
    images = list(range(degree))
    # A long word repeats few letters (a giant's word of millions of letters uses a handful of
    # powers): each power is computed once.
    powers: dict[tuple[int, int], list[int]] = {}
    for g, e in zip(word.generators, word.exponents):
        step = powers.get((g, e))
        if step is None:
            step = powers[(g, e)] = _power(generators[g], e)
        images = [step[x] for x in images]
    return images


def check_group_words(job: pb.GroupJob, result: pb.GroupResult) -> None:
    """Checks `result.words` against `job`: one word per candidate when `job.words`, a word
    exactly for the members, freely reduced, indexing the job's generators, and multiplying out
    to its candidate. Raises `WitnessError` naming the first wrong candidate."""
    if not job.words:
        if result.words:
            raise WitnessError(-1, "words that were not asked for")
        return
    q = len(job.candidates)
    if len(result.words) != q or len(result.members) != q:
        raise WitnessError(
            -1, f"{len(result.words)} words and {len(result.members)} memberships for {q} candidates"
        )
    degree = job.degree
    generators = [images_of(g, degree) for g in job.generators]
    for i, (word, member, candidate) in enumerate(zip(result.words, result.members, job.candidates)):
        if word.has_word != member:
            raise WitnessError(i, f"member {member} but has_word {word.has_word}")
        if len(word.generators) != len(word.exponents):
            raise WitnessError(i, "as many generators as exponents expected")
        if not member:
            if word.generators:
                raise WitnessError(i, "a non-member with letters")
            continue
        for j, (g, e) in enumerate(zip(word.generators, word.exponents)):
            if g >= len(generators):
                raise WitnessError(i, f"letter {j}: no generator {g}")
            if e == 0:
                raise WitnessError(i, f"letter {j}: exponent 0")
            if j > 0 and word.generators[j - 1] == g:
                raise WitnessError(i, f"letters {j - 1} and {j}: not freely reduced")
        if multiply_word(word, generators, degree) != images_of(candidate, degree):
            raise WitnessError(i, f"{format_word(word)} does not multiply out to the candidate")


def format_word(word: pb.GroupWord) -> str:
    """A word as `orbit group --words` prints it (1-based, GAP style).

    >>> format_word(pb.GroupWord(has_word=True, generators=[0, 2, 1], exponents=[1, -1, 2]))
    'g1*g3^-1*g2^2'
    >>> format_word(pb.GroupWord(has_word=True))
    '<identity>'
    """
    if not word.generators:
        return "<identity>"
    return "*".join(
        f"g{g + 1}" if e == 1 else f"g{g + 1}^{e}" for g, e in zip(word.generators, word.exponents)
    )
