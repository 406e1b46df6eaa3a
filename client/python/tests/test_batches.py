"""Durable batches through the Python package, against orbit-server with a SQLite store."""

from __future__ import annotations

import json
import pathlib
from collections import Counter

import grpc
import pytest
from google.protobuf import json_format

import orbit_grpc
from orbit_grpc import batches_pb, pb

from conftest import EXAMPLES, OrbitServer, start_server

# Answers known independently of Orbit (as .ci/check_batch_answers.py checks them).
KNOWN = {
    "necklaces": lambda r: r.count.count == "14",  # binary necklaces of length 6 (OEIS A000031)
    "graphs-11": lambda r: r.count.count == "1018997864",  # graphs on 11 vertices (OEIS A000088)
    "m11": lambda r: r.group.order == "7920",  # the Mathieu group M11
    "puzzle-sample": lambda r: list(r.puzzle.reachable) == [True, True, False],
    "petersen": lambda r: r.graph.order == "120",  # |Aut| of the Petersen graph (S5)
}


def example_jobs() -> list[pb.Job]:
    lines = (EXAMPLES / "batch.jsonl").read_text(encoding="utf-8").splitlines()
    return [json_format.Parse(line, pb.Job()) for line in lines if line.strip()]


def small_jobs(count: int, prefix: str = "n") -> list[pb.Job]:
    """Necklaces of i + 1 beads in 2 colours."""
    return [
        pb.Job(id=f"{prefix}{i}", count=pb.CountJob(necklace=pb.NecklaceCount(n=i + 1, k=2)))
        for i in range(count)
    ]


def open_grid(id: str, n: int) -> pb.Job:
    rows = ["C" + "." * (n - 1)] + ["." * n] * (n - 2) + ["." * (n - 1) + "T"]
    return pb.Job(id=id, cop_thief=pb.CopThiefJob(rows=rows))


def test_create_watch_get(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        jobs = example_jobs()
        batch = c.batches.create_batch(iter(jobs), name="examples")
        assert batch.name == "examples" and len(batch.id) == 32
        assert batch.counts.jobs == len(jobs) == 11
        events = list(c.batches.watch_batch(batch.id, follow=True))
        # One final event per job, sequences 1..11 in order, positions a permutation.
        assert [e.sequence for e in events] == list(range(1, 12))
        assert sorted(e.position for e in events) == list(range(11))
        assert sorted(e.event.id for e in events) == sorted(j.id for j in jobs)
        for e in events:
            assert e.event.WhichOneof("event") == "result", e
            assert e.event.id == jobs[e.position].id
            check = KNOWN.get(e.event.id)
            assert check is None or check(e.event.result), e.event
        done = c.batches.get_batch(batch.id)
        assert orbit_grpc.is_finished(done)
        assert done.state == batches_pb.BATCH_STATE_DONE
        assert (done.counts.finished, done.counts.ok, done.counts.failed) == (11, 11, 0)
        # after_sequence: only the later events.
        assert [e.sequence for e in c.batches.watch_batch(batch.id, after=7)] == [8, 9, 10, 11]


def test_bad_jobs_get_their_own_errors(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        bad = [
            pb.Job(id="no-kind"),
            pb.Job(id="bad-edge", game=pb.GameGraphJob(vertices=2, edges=[pb.Edge(to=5)])),
        ]
        batch = c.batches.create_batch(bad + small_jobs(1))
        outcomes = {}
        for e in c.batches.watch_batch(batch.id, follow=True):
            if e.event.WhichOneof("event") == "error":
                outcomes[e.event.id] = orbit_grpc.OrbitError.from_job_error(e.event.error)
            else:
                outcomes[e.event.id] = e.event.result
        assert isinstance(outcomes["no-kind"], orbit_grpc.InvalidArgumentError)
        assert isinstance(outcomes["bad-edge"], orbit_grpc.InvalidArgumentError)
        assert outcomes["bad-edge"].message == "game.edges[0]: vertex 5 out of range 0..1"
        assert outcomes["n0"].count.count == "2"
        assert c.batches.get_batch(batch.id).counts.failed == 2


def test_request_id_makes_create_idempotent(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        first = c.batches.create_batch(small_jobs(3), request_id="same-request")
        again = c.batches.create_batch(small_jobs(3), request_id="same-request")
        assert again.id == first.id and again.request_id == "same-request"
        assert again.counts.jobs == 3


def test_list_pages(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        ids = [c.batches.create_batch(small_jobs(1), name=f"b{i}").id for i in range(3)]
        page = c.batches.list_batches(page_size=2)
        assert len(page.batches) == 2 and page.next_page_token
        rest = c.batches.list_batches(page_size=2, page_token=page.next_page_token)
        listed = [b.id for b in list(page.batches) + list(rest.batches)]
        assert listed == ids[::-1]  # newest first
        assert not rest.next_page_token
        assert [b.id for b in c.batches.list_all_batches()] == ids[::-1]


def test_cancel_and_delete(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        batch = c.batches.create_batch([open_grid(f"long{i}", 60) for i in range(4)])
        cancelled = c.batches.cancel_batch(batch.id)
        assert cancelled.state == batches_pb.BATCH_STATE_CANCELLED
        events = list(c.batches.watch_batch(batch.id, follow=True))
        assert len(events) == 4
        errors = [orbit_grpc.OrbitError.from_job_error(e.event.error) for e in events]
        assert all(isinstance(e, orbit_grpc.CancelledError) for e in errors), errors
        c.batches.delete_batch(batch.id)
        with pytest.raises(orbit_grpc.NotFoundError):
            c.batches.get_batch(batch.id)
        with pytest.raises(orbit_grpc.NotFoundError):
            c.batches.delete_batch(batch.id)


def test_unknown_batch(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        with pytest.raises(orbit_grpc.NotFoundError) as raised:
            c.batches.get_batch("0" * 32)
        with pytest.raises(orbit_grpc.NotFoundError):
            list(c.batches.watch_batch("0" * 32))
    assert raised.value.code == grpc.StatusCode.NOT_FOUND


def test_resuming_watch_rides_out_a_restart(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server is killed while a follower watches an unfinished batch and started again on
    the same port and store: the watch reconnects after the last sequence it saw, and every job's
    event arrives exactly once."""
    watches: list[int] = []  # the `after` of every WatchBatch call the resuming watch makes
    watch_batch = orbit_grpc.BatchesClient.watch_batch

    def recorded(self, batch_id, after=0, follow=False, **kwargs):  # type: ignore[no-untyped-def]
        watches.append(after)
        return watch_batch(self, batch_id, after, follow, **kwargs)

    monkeypatch.setattr(orbit_grpc.BatchesClient, "watch_batch", recorded)
    store = f"sqlite:{tmp_path / 'b.db'}"
    args = ["--workers", "1", "--lease-timeout", "1"]
    server = start_server(*args, store=store)
    try:
        with server.client() as c:
            jobs = small_jobs(5) + [open_grid("long1", 50), open_grid("long2", 50)]
            batch = c.batches.create_batch(jobs)
            seen = []
            for event in c.batches.watch_batch_resuming(
                batch.id, follow=True, attempts=100, delay=0.1
            ):
                seen.append(event)
                if len(seen) == 1:
                    server.kill()
                    server = OrbitServer(["--listen", server.address, *args], store=store)
        assert [e.sequence for e in seen] == list(range(1, 8))
        # It did reconnect, after the events it had seen.
        assert len(watches) >= 2 and watches[0] == 0 and watches[-1] >= 1, watches
        assert Counter(e.event.id for e in seen) == Counter(j.id for j in jobs)
    finally:
        server.stop()
