"""Orbit's errors as Python exceptions: the error contract's reasons and details, from a unary
call's status (`grpc-status-details-bin`) and from a stream's `JobError`, against real servers.

The per-reason expectations are the error contract (README "Errors": the reasons, their details
and metadata keys), written from the contract's table, not from the server's code.
"""

from __future__ import annotations

import glob
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Iterator

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import orbit_grpc
from orbit_grpc import pb

from conftest import REPO, OrbitServer, start_server, wait_until


def game(id: str, vertices: int, edges: list[tuple[int, int]]) -> pb.Job:
    return pb.Job(
        id=id,
        game=pb.GameGraphJob(
            vertices=vertices, edges=[pb.Edge(to=v, **{"from": u}) for u, v in edges]
        ),
    )


def open_grid(id: str, n: int, deadline_ms: int = 0) -> pb.Job:
    """An open n x n grid, policeman and thief in opposite corners, no exit: 2 n^4 states, long
    enough at n = 100 to be seen running (the server's own tests use it)."""
    rows = ["C" + "." * (n - 1)] + ["." * n] * (n - 2) + ["." * (n - 1) + "T"]
    return pb.Job(
        id=id,
        options=pb.JobOptions(deadline_ms=deadline_ms),
        cop_thief=pb.CopThiefJob(rows=rows),
    )


def fields(error: orbit_grpc.OrbitError) -> tuple:
    return (
        type(error),
        error.code,
        error.code_name,
        error.message,
        error.reason,
        error.metadata,
        error.field_violations,
        error.quota_violations,
        error.retry_delay,
    )


def unary_error(client: orbit_grpc.Client, job: pb.Job) -> orbit_grpc.OrbitError:
    with pytest.raises(orbit_grpc.OrbitError) as raised:
        client.solve(job)
    return raised.value


def stream_error(client: orbit_grpc.Client, job: pb.Job) -> orbit_grpc.OrbitError:
    outcomes = list(client.solve_each([job]))
    assert len(outcomes) == 1
    job_id, outcome = outcomes[0]
    assert job_id == job.id
    assert isinstance(outcome, orbit_grpc.OrbitError), outcome
    return outcome


# What works whatever the server sends -------------------------------------------------------


def test_codes_and_messages_unary_and_stream(client: orbit_grpc.Client) -> None:
    bad_edge = game("bad-edge", 2, [(0, 1), (1, 5)])
    for error in (unary_error(client, bad_edge), stream_error(client, bad_edge)):
        assert isinstance(error, orbit_grpc.InvalidArgumentError)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert error.code_name == "INVALID_ARGUMENT"
        assert error.message == "game.edges[1]: vertex 5 out of range 0..1"
        assert str(error) == "INVALID_ARGUMENT: game.edges[1]: vertex 5 out of range 0..1"
    no_kind = pb.Job(id="no-kind")
    for error in (unary_error(client, no_kind), stream_error(client, no_kind)):
        assert isinstance(error, orbit_grpc.InvalidArgumentError)
        assert error.message.startswith("kind: no job kind set")


def test_unary_and_stream_give_the_same_fields(
    client: orbit_grpc.Client, small_server: OrbitServer
) -> None:
    with small_server.client() as small:
        cases = [
            (client, game("bad-edge", 2, [(0, 1), (1, 5)])),
            (client, pb.Job(id="no-kind")),
            (small, game("big", 11, [])),
            (small, open_grid("memory", 100)),
        ]
        for c, job in cases:
            assert fields(unary_error(c, job)) == fields(stream_error(c, job)), job.id


def test_no_server_is_unavailable() -> None:
    with orbit_grpc.connect("127.0.0.1:1") as nowhere:
        with pytest.raises(orbit_grpc.UnavailableError) as raised:
            nowhere.server_info(timeout=10)
    assert raised.value.reason == ""


def test_a_job_error_event_becomes_the_error_it_describes() -> None:
    event = pb.JobError(
        code=8,
        code_name="RESOURCE_EXHAUSTED",
        message="game vertices 11 exceeds the limit of 10",
        reason="LIMIT_EXCEEDED",
        metadata={"limit_name": "max_vertices", "limit": "10", "requested": "11"},
        retry_delay_ms=1500,
    )
    error = orbit_grpc.OrbitError.from_job_error(event)
    assert isinstance(error, orbit_grpc.LimitExceededError)
    assert (error.limit_name, error.limit, error.requested) == ("max_vertices", 10, 11)
    assert error.quota_violations == [("max_vertices", event.message)]
    assert error.retry_delay == 1.5


def test_the_internal_reasons_become_internal_errors() -> None:
    for reason in ("SOLVER_PANICKED", "INTERNAL_ERROR"):
        event = pb.JobError(code=13, code_name="INTERNAL", message="a fault", reason=reason)
        error = orbit_grpc.OrbitError.from_job_error(event)
        assert isinstance(error, orbit_grpc.InternalError), reason
        assert (error.code, error.reason, error.retry_delay) == (
            grpc.StatusCode.INTERNAL,
            reason,
            None,
        )


# The contract's reasons ----------------------------------------------------------------------


def test_invalid_field_names_the_path(client: orbit_grpc.Client) -> None:
    for error in (
        unary_error(client, game("bad-edge", 2, [(0, 1), (1, 5)])),
        stream_error(client, game("bad-edge", 2, [(0, 1), (1, 5)])),
    ):
        assert error.reason == "INVALID_FIELD"
        assert [f for f, _ in error.field_violations] == ["game.edges[1]"]
        assert "vertex 5 out of range 0..1" in error.field_violations[0][1]
    group = pb.Job(
        id="bad-images",
        group=pb.GroupJob(degree=3, generators=[pb.Permutation(images=[0, 0, 1])]),
    )
    error = unary_error(client, group)
    assert error.reason == "INVALID_FIELD"
    assert error.field_violations[0][0].startswith("group.generators[0]")
    error = unary_error(client, pb.Job(id="no-kind"))
    assert (error.reason, [f for f, _ in error.field_violations]) == ("INVALID_FIELD", ["kind"])


def test_limit_exceeded_names_the_limit(small_server: OrbitServer) -> None:
    with small_server.client() as small:
        limit = small.server_info().limits.max_vertices
        assert limit == 10  # the fixture's --max-vertices
        for error in (unary_error(small, game("big", 11, [])), stream_error(small, game("big", 11, []))):
            assert isinstance(error, orbit_grpc.LimitExceededError)
            assert error.reason == "LIMIT_EXCEEDED"
            assert (error.limit_name, error.limit, error.requested) == ("max_vertices", 10, 11)
            assert error.quota_violations == [("max_vertices", error.message)]


def test_memory_estimate_exceeded(small_server: OrbitServer) -> None:
    with small_server.client() as small:
        limit = small.server_info().limits.max_job_memory
        assert limit == 16 << 20  # the fixture's --max-job-memory 16M
        for error in (
            unary_error(small, open_grid("memory", 100)),
            stream_error(small, open_grid("memory", 100)),
        ):
            assert isinstance(error, orbit_grpc.LimitExceededError)
            assert error.reason == "MEMORY_ESTIMATE_EXCEEDED"
            assert (error.limit_name, error.limit) == ("max_job_memory", limit)
            assert error.requested is not None and error.requested > limit
            assert error.quota_violations == [("max_job_memory", error.message)]


@pytest.fixture()
def queue_server() -> Iterator[OrbitServer]:
    s = start_server("--workers", "1", "--queue-capacity", "1")
    yield s
    s.stop()


def test_queue_full_says_when_to_retry(queue_server: OrbitServer) -> None:
    with queue_server.client() as c:
        running = c.orbit.Solve.future(open_grid("running", 100))
        queued = None
        try:
            wait_until(lambda: c.server_info().busy_workers == 1, "the first job to run")
            queued = c.orbit.Solve.future(open_grid("queued", 100))
            wait_until(lambda: c.server_info().queue_depth == 1, "the second job to queue")
            error = unary_error(c, game("refused", 1, []))
        finally:
            running.cancel()
            if queued is not None:
                queued.cancel()
    assert isinstance(error, orbit_grpc.QueueFullError)
    assert error.reason == "QUEUE_FULL"
    assert error.retry_delay is not None and error.retry_delay > 0
    assert (error.metadata.get("limit_name"), error.metadata.get("limit")) == ("queue_capacity", "1")


def test_deadline_exceeded_states_the_deadline(client: orbit_grpc.Client) -> None:
    for error in (
        unary_error(client, open_grid("slow", 100, deadline_ms=50)),
        stream_error(client, open_grid("slow", 100, deadline_ms=50)),
    ):
        assert isinstance(error, orbit_grpc.DeadlineExceededError)
        assert (error.reason, error.metadata.get("deadline_ms")) == ("DEADLINE_EXCEEDED", "50")


def test_batches_without_a_store(client: orbit_grpc.Client) -> None:
    with pytest.raises(orbit_grpc.FailedPreconditionError) as raised:
        client.batches.list_batches()
    assert raised.value.reason == "NO_STORE"


@pytest.fixture()
def token_server(tmp_path: pathlib.Path) -> Iterator[OrbitServer]:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token\n", encoding="utf-8")
    s = start_server("--workers", "1", "--auth-token-file", str(token_file))
    yield s
    s.stop()


def test_token(token_server: OrbitServer) -> None:
    with token_server.client(token="s3cret-token") as good:
        assert good.solve(game("ok", 2, [(0, 1)])).game.wins == 1
    for token in (None, "wrong"):
        with token_server.client(token=token) as bad:
            with pytest.raises(orbit_grpc.UnauthenticatedError):
                bad.solve(game("ok", 2, [(0, 1)]))


def test_unauthenticated_reason(token_server: OrbitServer) -> None:
    with token_server.client(token="wrong") as bad:
        with pytest.raises(orbit_grpc.UnauthenticatedError) as raised:
            bad.solve(game("ok", 2, [(0, 1)]))
    assert raised.value.reason == "UNAUTHENTICATED"


def test_tls_and_token(tmp_path: pathlib.Path) -> None:
    """The README's TLS recipe (a private CA, a certificate for localhost) with a token."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=tmp_path, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Orbit CA")  # fmt: skip
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")  # fmt: skip
    (tmp_path / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.pem")  # fmt: skip
    (tmp_path / "token").write_text("tls-token\n", encoding="utf-8")
    s = start_server(
        "--workers", "1",
        "--tls-cert", str(tmp_path / "server.pem"),
        "--tls-key", str(tmp_path / "server.key"),
        "--auth-token-file", str(tmp_path / "token"),
    )  # fmt: skip
    try:
        url = f"https://localhost:{s.port}"
        with orbit_grpc.connect(url, ca=str(tmp_path / "ca.pem"), token="tls-token") as c:
            assert c.solve(game("ok", 2, [(0, 1)])).game.wins == 1
        with orbit_grpc.connect(url, ca=str(tmp_path / "ca.pem")) as no_token:
            with pytest.raises(orbit_grpc.UnauthenticatedError):
                no_token.solve(game("ok", 2, [(0, 1)]))
    finally:
        s.stop()


@pytest.fixture()
def small_message_server() -> Iterator[OrbitServer]:
    s = start_server("--workers", "1", "--max-message-bytes", "65536")
    yield s
    s.stop()


def test_message_too_large(small_message_server: OrbitServer) -> None:
    # 20,000 targets of 2 tokens, packed: 160,000 bytes, over the 65,536 the server takes.
    puzzle = pb.PuzzleJob(
        n=2,
        edges=[pb.Edge(to=1)],
        start=pb.Arrangement(tokens=[0, 1]),
        targets_packed=bytes([1, 0, 0, 0, 0, 0, 0, 0]) * 20_000,
    )
    with small_message_server.client() as c:
        error = unary_error(c, pb.Job(id="big-request", puzzle=puzzle))
    assert isinstance(error, orbit_grpc.LimitExceededError)
    assert error.reason == "MESSAGE_TOO_LARGE"
    assert (error.limit_name, error.limit) == ("max_message_bytes", 65536)


def test_answer_too_large(small_message_server: OrbitServer) -> None:
    # 20,000 vertices and no moves: a request of a few bytes, an answer of one VertexOutcome per
    # vertex, well over 65,536 bytes.
    path = game("big-answer", 20_000, [])
    with small_message_server.client() as c:
        for error in (unary_error(c, path), stream_error(c, path)):
            assert isinstance(error, orbit_grpc.LimitExceededError)
            assert error.reason == "ANSWER_TOO_LARGE"
            assert (error.limit_name, error.limit) == ("max_message_bytes", 65536)


def test_batch_not_found(batch_server: OrbitServer) -> None:
    with batch_server.client() as c:
        with pytest.raises(orbit_grpc.NotFoundError) as raised:
            c.batches.get_batch("0" * 32)
    assert raised.value.reason == "BATCH_NOT_FOUND"
    assert raised.value.metadata.get("batch_id") == "0" * 32


def test_batch_limit_exceeded(tmp_path: pathlib.Path) -> None:
    s = start_server("--workers", "1", "--max-batch-jobs", "2", store=f"sqlite:{tmp_path / 'b.db'}")
    try:
        with s.client() as c:
            with pytest.raises(orbit_grpc.LimitExceededError) as raised:
                c.batches.create_batch([game(f"g{i}", 2, [(0, 1)]) for i in range(3)])
    finally:
        s.stop()
    error = raised.value
    assert error.reason == "BATCH_LIMIT_EXCEEDED"
    assert (error.limit_name, error.limit) == ("max_batch_jobs", 2)


def test_draining_says_when_to_retry() -> None:
    s = start_server("--workers", "1", "--shutdown-grace", "20")
    try:
        with s.client() as c:
            c.server_info()  # the connection is up before the drain begins
            running = c.orbit.Solve.future(open_grid("running", 100))
            try:
                wait_until(lambda: c.server_info().busy_workers == 1, "the long job to run")
                s.process.terminate()  # SIGTERM: drain, serving the connections that are open
                wait_until(lambda: any("shutdown: draining" in line for line in s.lines), "drain")
                errors = [
                    unary_error(c, game("late", 2, [(0, 1)])),
                    next(e for _, e in c.solve_each([game("late", 2, [(0, 1)])], window=1)),
                ]
            finally:
                running.cancel()
    finally:
        s.stop()
    for error in errors:
        assert isinstance(error, orbit_grpc.UnavailableError), error
        assert error.reason == "DRAINING"
        assert error.retry_delay is not None and error.retry_delay > 0


# SOLVER_PANICKED: the server's test-only hook makes one job's solver panic --------------------

#: The job whose solver panics (`--test-panic-on-job-id`, a hidden flag for tests only).
PANICKING_JOB = "panics"
#: Its message: the panic's, as the server reports any solver panic.
PANIC_MESSAGE = "solver panicked: --test-panic-on-job-id panics: the solver panics on purpose"


@pytest.fixture()
def panic_server() -> Iterator[OrbitServer]:
    s = start_server("--workers", "1", "--test-panic-on-job-id", PANICKING_JOB)
    yield s
    s.stop()


def path_game(id: str) -> pb.Job:
    """The path 0 -> 1 -> 2: 1 win (vertex 1), 2 losses (0 and 2)."""
    return game(id, 3, [(0, 1), (1, 2)])


def test_solver_panicked(panic_server: OrbitServer) -> None:
    with panic_server.client() as c:
        job = path_game(PANICKING_JOB)
        for error in (unary_error(c, job), stream_error(c, job)):
            assert isinstance(error, orbit_grpc.InternalError), error
            assert (error.code, error.code_name, error.message) == (
                grpc.StatusCode.INTERNAL,
                "INTERNAL",
                PANIC_MESSAGE,
            )
            assert error.reason == "SOLVER_PANICKED"
            assert (error.metadata, error.field_violations, error.quota_violations) == ({}, [], [])
            assert error.retry_delay is None

        # The status itself, read with grpc_status as any Python client would.
        with pytest.raises(grpc.RpcError) as raised:
            c.orbit.Solve(path_game(PANICKING_JOB), metadata=c.call_metadata)
        status = rpc_status.from_call(raised.value)
        assert status is not None
        assert (status.code, status.message) == (13, PANIC_MESSAGE)
        assert len(status.details) == 1  # an ErrorInfo, nothing else
        info = error_details_pb2.ErrorInfo()
        assert status.details[0].Unpack(info)
        assert (info.reason, info.domain) == ("SOLVER_PANICKED", "orbit.v1")
        assert dict(info.metadata) == {}

        # The worker that panicked (the only one) goes on; the stream's other jobs are answered.
        jobs = [path_game("first"), path_game(PANICKING_JOB), path_game("last")]
        outcomes = dict(c.solve_each(jobs))
        assert sorted(outcomes) == ["first", "last", PANICKING_JOB]
        for job_id in ("first", "last"):
            result = outcomes[job_id]
            assert isinstance(result, pb.JobResult), result
            assert (result.game.wins, result.game.losses) == (1, 2)
        panicked = outcomes[PANICKING_JOB]
        assert isinstance(panicked, orbit_grpc.InternalError)
        assert panicked.reason == "SOLVER_PANICKED"


# The batch store's refusals: PostgreSQL stopped, a full file system --------------------------


def postgres_installed() -> bool:
    """The server binaries .ci/postgres needs (Debian's postgresql package)."""
    debian = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    return bool(debian) or shutil.which("initdb") is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A throwaway PostgreSQL cluster (.ci/postgres), in a directory of /tmp: as root the cluster
    runs as the `postgres` user, who cannot enter pytest's own temporary directories."""

    SCRIPT = REPO / ".ci" / "postgres"

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="orbit-pg", dir="/tmp")
        self.url = self._run("start", self.dir, str(free_port()))

    def _run(self, *args: str) -> str:
        done = subprocess.run(
            ["bash", str(self.SCRIPT), *args], capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            pytest.fail(f".ci/postgres {' '.join(args)} failed:\n{done.stderr}")
        return done.stdout.strip()

    def stop(self) -> None:
        """As a crash looks to clients: connections drop at once."""
        self._run("stop", self.dir, "--immediate")

    def remove(self) -> None:
        subprocess.run(
            ["bash", str(self.SCRIPT), "stop", self.dir, "--immediate"], capture_output=True
        )
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture()
def postgres() -> Iterator[Postgres]:
    if not postgres_installed():
        pytest.skip(
            "no PostgreSQL server binaries (Debian's postgresql package; .ci/run installs it)"
        )
    pg = Postgres()
    yield pg
    pg.remove()


def test_store_unavailable_says_when_to_retry(postgres: Postgres) -> None:
    s = start_server("--workers", "1", store=postgres.url)
    try:
        with s.client() as c:
            batch = c.batches.create_batch([game("g", 2, [(0, 1)])])
            postgres.stop()
            # The first call after the stop may still find its connection's end: wait for the
            # store's refusal (the pool gives up on a connection within a few seconds).
            start = time.monotonic()
            while True:
                try:
                    c.batches.get_batch(batch.id, timeout=30)
                except orbit_grpc.UnavailableError as e:
                    error = e
                    break
                assert time.monotonic() - start < 30, "GetBatch kept answering without a database"
                time.sleep(0.1)
    finally:
        s.stop()
    assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
    assert error.retry_delay == 2.0  # the contract's RetryInfo (2 s)
    assert (error.metadata, error.field_violations, error.quota_violations) == ({}, [], [])


class SmallFileSystem:
    """A tmpfs of `size` bytes on `path` (mounting needs root)."""

    def __init__(self, path: pathlib.Path, size: int) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.path = path
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            text=True,
        )
        if mounted.returncode != 0:
            why = "needs root" if os.geteuid() != 0 else mounted.stderr.strip()
            pytest.skip(f"cannot mount a small tmpfs for STORE_FULL ({why})")

    def fill_leaving(self, leave: int) -> None:
        """Fills it until a write fails for lack of space, then gives `leave` bytes back."""
        filler = self.path / "filler"
        written = 0
        with open(filler, "wb", buffering=0) as f:
            chunk = b"\xa5" * (64 << 10)
            try:
                while True:
                    n = f.write(chunk)
                    if not n:
                        break
                    written += n
            except OSError:
                pass
            f.truncate(max(written - leave, 0))

    def unmount(self) -> None:
        # Lazy: the server's last handles may still be closing.
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)


def big_game(i: int) -> pb.Job:
    """A game of 2,000 edges: about 16 KB encoded."""
    edges = [((e * 7 + i) % 1000, (e * 13 + 1) % 1000) for e in range(2000)]
    job = game(f"big-{i}", 1000, edges)
    job.game.query.append(0)
    return job


def test_store_full(tmp_path: pathlib.Path) -> None:
    small = SmallFileSystem(tmp_path / "small", 32 << 20)
    try:
        s = start_server("--workers", "1", store=f"sqlite:{small.path / 'batches.db'}")
        try:
            small.fill_leaving(2 << 20)
            with s.client() as c:
                # About 5 MB of jobs, over twice the 2 MiB left.
                with pytest.raises(orbit_grpc.ResourceExhaustedError) as raised:
                    c.batches.create_batch(big_game(i) for i in range(300))
        finally:
            s.stop()
    finally:
        small.unmount()
    error = raised.value
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL")
    assert "full" in error.message
    assert (error.metadata, error.field_violations, error.quota_violations) == ({}, [], [])
    assert error.retry_delay is None
