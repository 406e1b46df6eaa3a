"""solve_stream / solve_each: every job answered once, and no more than the window in flight."""

from __future__ import annotations

import threading
from typing import Iterator

import orbit_grpc
from orbit_grpc import pb


def necklace(i: int) -> pb.Job:
    return pb.Job(id=f"n{i}", count=pb.CountJob(necklace=pb.NecklaceCount(n=1 + i % 30, k=2)))


def test_window_bounds_the_jobs_in_flight(client: orbit_grpc.Client) -> None:
    window = 3
    lock = threading.Lock()
    sent = 0
    finals = 0
    most_ahead = 0

    def jobs() -> Iterator[pb.Job]:
        nonlocal sent, most_ahead
        for i in range(60):
            with lock:
                sent += 1
                # A final event frees its slot just before the consumer sees it: one more.
                most_ahead = max(most_ahead, sent - finals)
            yield necklace(i)

    ids = []
    for event in client.solve_stream(jobs(), window=window):
        if event.WhichOneof("event") in ("result", "error"):
            with lock:
                finals += 1
            ids.append(event.id)
    assert sorted(ids) == sorted(f"n{i}" for i in range(60))
    assert most_ahead <= window + 1, most_ahead


def test_default_window_is_the_servers(client: orbit_grpc.Client) -> None:
    assert client.stream_window() == client.server_info().stream_window == 256  # the default


def test_solve_each_answers_every_job(client: orbit_grpc.Client) -> None:
    outcomes = dict(client.solve_each([necklace(i) for i in range(6)] + [pb.Job(id="bad")]))
    # Binary necklaces of 1..6 beads (OEIS A000031).
    assert [outcomes[f"n{i}"].count.count for i in range(6)] == ["2", "3", "4", "6", "8", "14"]
    assert isinstance(outcomes["bad"], orbit_grpc.InvalidArgumentError)


def test_closing_the_stream_early_cancels_it(client: orbit_grpc.Client) -> None:
    events = client.solve_stream(necklace(i) for i in range(1000))
    first = next(events)
    assert first.id.startswith("n")
    events.close()  # cancels the call; the server goes on serving
    assert client.solve(necklace(5)).count.count == "14"  # 6 beads
