"""Fixtures: real orbit-server processes on free loopback ports.

The binary is $ORBIT_SERVER_BIN, else target/debug/orbit-server of this repository (build it with
`cargo build -p orbit-server --bin orbit-server`). Each server listens on port 0 and says where in
its JSON log line "orbit-server listening". Servers run without a batch store
(`ORBIT_STORE=none`) unless a test gives one, so nothing is written under $HOME.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import threading
import time
from typing import Iterator, Optional, Sequence

import pytest

import orbit_grpc

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"


def server_binary() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("ORBIT_SERVER_BIN", REPO / "target/debug/orbit-server"))
    if not path.is_file():
        pytest.fail(
            f"no orbit-server at {path}: run `cargo build -p orbit-server --bin orbit-server` "
            "or set ORBIT_SERVER_BIN"
        )
    return path


def cli_binary() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("ORBIT_CLI_BIN", REPO / "target/debug/orbit"))
    if not path.is_file():
        pytest.fail(
            f"no orbit CLI at {path}: run `cargo build -p orbit-cli --bin orbit` or set ORBIT_CLI_BIN"
        )
    return path


class OrbitServer:
    """One orbit-server process; `address` is its HOST:PORT once it listens."""

    def __init__(self, args: Sequence[str] = (), store: Optional[str] = None) -> None:
        env = dict(os.environ)
        env["ORBIT_STORE"] = store or "none"
        self.args = list(args)
        self.lines: list[str] = []
        self._listening = threading.Event()
        self.address = ""
        self.process = subprocess.Popen(
            [str(server_binary()), "--log-format", "json", *self.args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        # Read the log to its end whatever happens, so the server never blocks on a full pipe.
        threading.Thread(target=self._read_log, daemon=True).start()
        if not self._listening.wait(30) or not self.address:
            self.kill()
            raise RuntimeError("orbit-server did not listen:\n" + "".join(self.lines[-20:]))

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)
            try:
                fields = json.loads(line).get("fields", {})
            except ValueError:
                continue
            if fields.get("message") == "orbit-server listening" and not self.address:
                self.address = fields["local"]
                self._listening.set()
        self._listening.set()

    @property
    def port(self) -> int:
        return int(self.address.rsplit(":", 1)[1])

    def client(self, **kwargs) -> orbit_grpc.Client:  # type: ignore[no-untyped-def]
        return orbit_grpc.connect(self.address, **kwargs)

    def jobs_finished(self) -> int:
        """Jobs it finished so far, by its log's "job finished" lines."""
        return sum(1 for line in list(self.lines) if '"message":"job finished"' in line)

    def kill(self) -> None:
        """SIGKILL: no drain, connections cut."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)


def start_server(*args: str, store: Optional[str] = None) -> OrbitServer:
    # A short grace unless the test gives one, so that stopping a server with a long job still
    # running takes no 10 s.
    grace = [] if "--shutdown-grace" in args else ["--shutdown-grace", "1"]
    return OrbitServer(["--listen", "127.0.0.1:0", *grace, *args], store=store)


@pytest.fixture(scope="session")
def server() -> Iterator[OrbitServer]:
    """The default server: two workers, default limits, no store."""
    s = start_server("--workers", "2")
    yield s
    s.stop()


@pytest.fixture(scope="session")
def client(server: OrbitServer) -> Iterator[orbit_grpc.Client]:
    with server.client() as c:
        yield c


@pytest.fixture(scope="session")
def small_server() -> Iterator[OrbitServer]:
    """Small limits, to be exceeded on purpose: 10 vertices, 16 MiB of job memory, one worker
    and a queue of one (for QUEUE_FULL)."""
    s = start_server(
        "--workers", "1",
        "--queue-capacity", "1",
        "--max-vertices", "10",
        "--max-job-memory", "16M",
    )  # fmt: skip
    yield s
    s.stop()


@pytest.fixture()
def batch_server(tmp_path: pathlib.Path) -> Iterator[OrbitServer]:
    """A server with a SQLite batch store in the test's temporary directory."""
    s = start_server("--workers", "2", store=f"sqlite:{tmp_path / 'b.db'}")
    yield s
    s.stop()


def wait_until(predicate, what: str, within: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    """Polls `predicate` until it holds; fails the test after `within` seconds."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > within:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.005)
