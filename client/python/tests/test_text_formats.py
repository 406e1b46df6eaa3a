"""The text-format helpers against the Rust CLI: the same answers from the server for the
examples/ files, the same error messages for malformed text, and hand-made cases whose jobs are
known by construction."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

import orbit_grpc
from orbit_grpc import pb
from orbit_grpc import text_formats as tf

from conftest import EXAMPLES, cli_binary


def run_cli(address: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(cli_binary()), "--server", f"http://{address}", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


# What the CLI prints for each answer, written here from the README's CLI table.


def game_lines(result: pb.JobResult) -> list[str]:
    out = []
    for v in result.game.vertices:
        if v.outcome == pb.OUTCOME_WIN:
            out.append(f"win {v.depth}")
        elif v.outcome == pb.OUTCOME_LOSE:
            out.append(f"lose {v.depth}")
        else:
            out.append("draw")
    return out


def cop_thief_lines(result: pb.JobResult) -> list[str]:
    r = result.cop_thief
    if r.winner == pb.WINNER_COP:
        return [f"cop {r.half_moves}"]
    if r.winner == pb.WINNER_THIEF:
        return [f"thief {r.half_moves}"]
    return ["draw"]


def yes_no(values) -> list[str]:  # type: ignore[no-untyped-def]
    return ["Yes" if v else "No" for v in values]


def test_examples_give_the_cli_answers(client: orbit_grpc.Client, server) -> None:  # type: ignore[no-untyped-def]
    cases = [
        ("game", "game.txt", lambda t: tf.game_job(t), game_lines),
        ("cop-thief", "cop-thief.txt", lambda t: tf.cop_thief_job(t), cop_thief_lines),
        (
            "group",
            "group.txt",
            lambda t: tf.group_job(t),
            lambda r: [r.group.order, *yes_no(r.group.members)],
        ),
        ("puzzle", "puzzle.txt", lambda t: tf.puzzle_job(t), lambda r: yes_no(r.puzzle.reachable)),
    ]
    for command, name, build, lines in cases:
        text = (EXAMPLES / name).read_text(encoding="utf-8")
        result = client.solve(orbit_grpc.job(build(text), name))
        cli = run_cli(server.address, command, str(EXAMPLES / name))
        assert cli.returncode == 0, cli.stderr
        assert lines(result) == cli.stdout.splitlines(), name


def test_examples_known_answers(client: orbit_grpc.Client) -> None:
    text = (EXAMPLES / "group.txt").read_text(encoding="utf-8")
    group = client.solve(orbit_grpc.job(tf.group_job(text))).group
    # (1,2,...,8) and (1,2) generate S_8: order 8! = 40320, every candidate a member.
    assert (group.order, list(group.members)) == ("40320", [True, True, True])
    text = (EXAMPLES / "puzzle.txt").read_text(encoding="utf-8")
    puzzle = client.solve(orbit_grpc.job(tf.puzzle_job(text))).puzzle
    assert list(puzzle.reachable) == [True, True, False]  # the published sample's answer


def test_count_group_gives_the_cli_answer(client: orbit_grpc.Client, server) -> None:  # type: ignore[no-untyped-def]
    path = EXAMPLES / "group.txt"
    family = tf.count_group_family(path.read_text(encoding="utf-8"), k=0, content="4,3,1")
    result = client.solve(orbit_grpc.job(pb.CountJob(group=family)))
    cli = run_cli(server.address, "count", "group", str(path), "--content", "4,3,1")
    assert cli.returncode == 0, cli.stderr
    # S_8 on 8 points, content 4,3,1: one orbit per multiset arrangement... all 8!/(4!3!1!) = 280
    # colourings are one orbit under S_8: the count is 1.
    assert [result.count.count] == cli.stdout.splitlines() == ["1"]
    # The square's rotations, 2 colours: 6 colourings up to rotation (necklaces of 4 beads).
    family = tf.count_group_family("4 1 0\n(1,2,3,4)\n", k=2)
    assert client.solve(orbit_grpc.job(pb.CountJob(group=family))).count.count == "6"


# Malformed text: every case is run through `orbit` too, whose message must be the same.
BAD_INPUTS = [
    ("game", "", "line 1: empty input: expected a first line `n m`"),
    ("game", "2 1\n1 3\n", "line 2: vertex 3 out of range 1..2"),
    ("game", "2 x\n", "line 1: `x` is not a non-negative integer (expected `n m`)"),
    ("game", "2\n", "line 1: too few numbers (expected `n m`)"),
    ("game", "2 1 7\n", "line 1: unexpected `7` after two numbers (expected `n m`)"),
    ("game", "\n2 2\n1 2\n", "line 4: end of input after 1 edge lines; line 2 announced 2"),
    ("game", "2 1\n1 2\n2 1\n", "line 3: more edge lines than the 1 announced on line 1"),
    ("game", "0 1\n1 1\n", "line 2: vertex 1 out of range: the graph has no vertices"),
    ("game", "2 1\n1 +x\n", "line 2: `+x` is not a non-negative integer (expected `u v`)"),
    ("cop-thief", "2 3\nC.E\n*.E\n", "line 3: a second exit `E` in column 3 (the first is in line 2)"),
    ("cop-thief", "2 3\nC.T\n*x.\n", "line 3: unknown character 'x' in column 2 (expected one of . * C T E)"),
    ("cop-thief", "2 3\nC.T\n*.\n", "line 3: row has 2 characters, expected 3"),
    ("cop-thief", "2 3\n...\n..T\n", "lines 1-3: no policeman `C` on the grid"),
    ("cop-thief", "2 3\nC..\n...\n", "lines 1-3: no thief `T` on the grid"),
    ("cop-thief", "3 3\nC.T\n", "line 3: end of input after 1 rows; line 1 announced 3"),
    ("cop-thief", "1 3\nC.T\n...\n", "line 3: more rows than the 1 announced on line 1"),
    ("cop-thief", "0 3\n", "line 1: a 0 x 3 grid has no cells"),
    ("group", "", "line 1: expected `d k q`, found an empty input"),
    ("group", "5 x 1\n", "line 1: expected `d k q` (three non-negative integers), found `5 x 1`"),
    ("group", "8 2 0\n(1,2)\n(1,9)\n", "line 3 (generator 2): point 9 outside 1..8 (column 4)"),
    ("group", "5 1 0\n(1,2,2)\n", "line 2 (generator 1): point 2 repeated (column 6)"),
    ("group", "5 1 1\n(1,2)\n(1,2\n", "line 3 (candidate 1): expected ',' or ')', found the end of the text (column 5)"),
    ("group", "5 2 0\n(1,2)\n", "line 3 (generator 2): missing: the input ends after 1 generators of 2"),
    ("group", "5 1 0\n(1,2)\n(3,4)\n", "line 3: unexpected text after the 1 generators and 0 candidates"),
    ("group", "5 1 0\n(1,2)()\n", "line 2 (generator 1): empty cycle '()' is only allowed alone (column 7)"),
    ("group", "5 1 0\n1,2)\n", "line 2 (generator 1): expected '(', found '1' (column 1)"),
    ("group", "200000 1 0\n()\n", "group degree 200000 exceeds the limit of 100000"),
    ("puzzle", "3 2 1\n1 2\n2 4\n0 1 2\n1 0 2\n", "line 3: edge 2: vertex 4 out of range 1..3"),
    ("puzzle", "0 0 0\n", "line 1: n must be at least 1"),
    ("puzzle", "3 1 1\n1 2\n0 1 2\n1 1 2\n", "line 4: target 1, vertex 2: token 1 appears twice (also on vertex 1)"),
    ("puzzle", "3 1 1\n1 2\n0 1 3\n1 0 2\n", "line 3: start, vertex 3: token 3 out of range 0..2"),
    ("puzzle", "3 1 1\n1 2\n0 1\n", "line 3: start: expected n = 3 tokens, found 2"),
    ("puzzle", "3 1 1\n1 2\n0 1 2 0\n", "line 3: start: more than n = 3 tokens"),
    ("puzzle", "3 1 2\n1 2\n0 1 2\n1 0 2\n", "line 5: expected target 2 of 2 (3 tokens), found the end of the input"),
    ("puzzle", "3 1 0\n1 2\n0 1 2\n0 1 2\n", "line 4: unexpected input after the 0 targets announced in the header"),
    ("puzzle", "3 1\n", "line 1: the header `n m q`: expected 3 numbers, found 2"),
    ("puzzle", "3 1 0\n1 -2\n", "line 2: edge 1 (`u v`): `-2` is not a non-negative 32-bit integer"),
]

BUILDERS = {
    "game": tf.game_job,
    "cop-thief": tf.cop_thief_job,
    "group": tf.group_job,
    "puzzle": tf.puzzle_job,
}


@pytest.mark.parametrize(("command", "text", "message"), BAD_INPUTS)
def test_malformed_text_is_refused_as_the_cli_refuses_it(
    command: str, text: str, message: str, tmp_path: pathlib.Path, server  # type: ignore[no-untyped-def]
) -> None:
    with pytest.raises(ValueError) as refused:
        BUILDERS[command](text)
    assert str(refused.value) == message
    path = tmp_path / "input.txt"
    path.write_text(text, encoding="utf-8")
    cli = run_cli(server.address, command, str(path))
    assert (cli.returncode, cli.stderr.strip()) == (1, f"orbit: {message}")


def test_content_flag_errors_name_the_entry() -> None:
    with pytest.raises(tf.TextFormatError) as refused:
        tf.count_group_family("4 1 0\n(1,2,3,4)\n", k=0, content="4,x")
    assert str(refused.value) == "count.content[1]: `x` is not a non-negative integer"
    assert refused.value.field == "count.content[1]"


def test_hand_made_jobs() -> None:
    # 1-based text, 0-based jobs; blank lines skipped, CRLF accepted.
    game = tf.game_job("\r\n3 2\r\n\r\n1 2\r\n3 1\r\n")
    assert game.vertices == 3
    assert [(getattr(e, "from"), e.to) for e in game.edges] == [(0, 1), (2, 0)]
    grid = tf.cop_thief_job("\n2 3  \nC.*   \n.ET\n")
    assert list(grid.rows) == ["C.*", ".ET"]
    group = tf.group_job("\n5 2 2\n(1,2,3,4,5)\n\n(1,2)\n()\n(1,5) (2,3)\n")
    assert group.degree == 5
    assert [list(p.images) for p in group.generators] == [[1, 2, 3, 4, 0], [1, 0, 2, 3, 4]]
    assert [list(p.images) for p in group.candidates] == [[0, 1, 2, 3, 4], [4, 2, 1, 3, 0]]
    puzzle = tf.puzzle_job("3 2 2\n1 2\n2 3\n0 1 2\n1 0 2\n2 1 0\n")
    assert [(getattr(e, "from"), e.to) for e in puzzle.edges] == [(0, 1), (1, 2)]
    assert tf.puzzle_targets(puzzle) == [[1, 0, 2], [2, 1, 0]]
    # 4 bytes little-endian per token, as the proto documents targets_packed.
    assert puzzle.targets_packed[:12] == bytes([1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0])
    assert tf.parse_cycles("(1,8)(2,7,3)", 8) == [7, 6, 1, 3, 4, 5, 2, 0]


def test_docstring_examples() -> None:
    import doctest

    for module in (tf, orbit_grpc.client):
        failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert tried > 0 and failures == 0, module.__name__
