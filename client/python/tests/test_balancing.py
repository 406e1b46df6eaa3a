"""Client-side balancing without Orbit's own client: examples/grpc-service-config.json gives a
plain gRPC channel round_robin over several addresses and retries of UNAVAILABLE for unary
calls. Three orbit-server processes behind one `ipv4:` target, one SIGKILLed mid-run: every
call is answered, and correctly."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import orbit_grpc
from orbit_grpc import pb

from conftest import EXAMPLES, start_server

CALLS = 300
THREADS = 4


def necklace(n: int) -> pb.Job:
    return pb.Job(id=f"n{n}", count=pb.CountJob(necklace=pb.NecklaceCount(n=n, k=2)))


def binary_necklaces(n: int) -> int:
    """Binary necklaces of n beads, (1/n) sum over d | n of phi(d) 2^(n/d) (OEIS A000031),
    computed here independently of the server."""

    def phi(m: int) -> int:
        return sum(1 for k in range(1, m + 1) if _gcd(k, m) == 1)

    return sum(phi(d) * 2 ** (n // d) for d in range(1, n + 1) if n % d == 0) // n


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def test_round_robin_with_retries_survives_a_killed_server() -> None:
    config = json.loads((EXAMPLES / "grpc-service-config.json").read_text(encoding="utf-8"))
    servers = [start_server("--workers", "1") for _ in range(3)]
    try:
        target = "ipv4:" + ",".join(s.address for s in servers)
        with orbit_grpc.connect(target, service_config=config) as client:
            killed = False

            def call(i: int) -> tuple[int, str]:
                nonlocal killed
                # A quarter of the way, the second server dies without a word (SIGKILL): calls
                # in flight to it fail UNAVAILABLE and are retried on the others.
                if i == CALLS // 4 and not killed:
                    killed = True
                    servers[1].kill()
                n = 1 + i % 40
                return n, client.solve(necklace(n), timeout=60).count.count

            with ThreadPoolExecutor(THREADS) as pool:
                answers = list(pool.map(call, range(CALLS)))
        assert killed
        assert len(answers) == CALLS
        for n, count in answers:
            assert int(count) == binary_necklaces(n), n
        # round_robin, not pick_first: every server answered calls (the killed one before it
        # died; its last log lines may be lost with it, so no total is checked).
        finished = [s.jobs_finished() for s in servers]
        assert all(f > 0 for f in finished), finished
    finally:
        for s in servers:
            s.stop()
