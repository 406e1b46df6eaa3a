"""Group words from a real server, checked by the package (`orbit_grpc.witness`, which multiplies
every word out) and against the CLI's `--words` output; damage to a correct answer is caught."""

from __future__ import annotations

import random
import subprocess

import pytest

import orbit_grpc
from orbit_grpc import pb, witness
from orbit_grpc import text_formats as tf

from conftest import EXAMPLES, cli_binary


def group_result(client: orbit_grpc.Client, job: pb.GroupJob) -> pb.GroupResult:
    return client.solve(orbit_grpc.job(job, "words")).group


def test_words_of_the_example_check_out_and_match_the_cli(client: orbit_grpc.Client, server) -> None:  # type: ignore[no-untyped-def]
    job = tf.group_job((EXAMPLES / "group.txt").read_text())
    job.words = True
    result = group_result(client, job)
    witness.check_group_words(job, result)
    expected = [result.order] + [
        f"Yes {witness.format_word(w)}" if m else "No" for m, w in zip(result.members, result.words)
    ]
    cli = subprocess.run(
        [str(cli_binary()), "--server", f"http://{server.address}", "group", "--words", str(EXAMPLES / "group.txt")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.splitlines() == expected
    # The identity (the example's second candidate) has the empty word, and says it has one.
    assert result.words[1].has_word and not result.words[1].generators


def test_random_groups_words_check_out_and_damage_is_caught(client: orbit_grpc.Client) -> None:
    rng = random.Random(16)
    members = 0
    for _ in range(40):
        d = rng.randint(2, 7)
        gens = [rng.sample(range(d), d) for _ in range(rng.randint(1, 3))]
        candidates = []
        for _ in range(4):
            x = list(range(d))
            for _ in range(rng.randint(0, 15)):
                g = rng.choice(gens)
                x = [g[p] for p in x]
            candidates.append(x)
            candidates.append(rng.sample(range(d), d))
        job = pb.GroupJob(
            degree=d,
            generators=[pb.Permutation(images=g) for g in gens],
            candidates=[pb.Permutation(images=c) for c in candidates],
            words=True,
        )
        result = group_result(client, job)
        witness.check_group_words(job, result)
        members += sum(result.members)
        # Every word is a product equal to its candidate (recomputed here once more, by hand).
        for m, w, c in zip(result.members, result.words, candidates):
            if m:
                assert witness.multiply_word(w, gens, d) == c
    assert members >= 160
    # Damage: a member's word with its first exponent negated (wrong unless that letter is an
    # involution) or a non-member given a word.
    job = pb.GroupJob(
        degree=4,
        generators=[pb.Permutation(cycles="(1,2,3,4)"), pb.Permutation(cycles="(1,2)")],
        candidates=[pb.Permutation(cycles="(1,2,3,4)"), pb.Permutation(cycles="(1,4,3,2)")],
        words=True,
    )
    result = group_result(client, job)
    witness.check_group_words(job, result)
    bad = pb.GroupResult()
    bad.CopyFrom(result)
    bad.words[0].exponents[0] = -bad.words[0].exponents[0]
    with pytest.raises(witness.WitnessError) as caught:
        witness.check_group_words(job, bad)
    assert caught.value.candidate == 0
    bad.CopyFrom(result)
    bad.members[1] = False
    with pytest.raises(witness.WitnessError):
        witness.check_group_words(job, bad)


def test_word_limits_read_back_as_errors(client: orbit_grpc.Client) -> None:
    job = pb.GroupJob(
        degree=3,
        generators=[pb.Permutation(cycles="(1,2)")],
        candidates=[pb.Permutation(cycles="()")],
        words=True,
        word_effort=101,
    )
    with pytest.raises(orbit_grpc.InvalidArgumentError) as caught:
        group_result(client, job)
    assert "group.word_effort" in str(caught.value)
