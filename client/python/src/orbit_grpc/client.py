"""A connection to orbit-server: solve one job, stream a batch, ask for ServerInfo."""

from __future__ import annotations

import json
import threading
from typing import Any, Iterable, Iterator, Optional, Sequence, Union

import grpc

from .errors import OrbitError
from .v1 import batches_pb2_grpc, orbit_pb2, orbit_pb2_grpc

#: orbit-server's default `--max-message-bytes`; gRPC Python's own default (4 MiB) would refuse
#: large answers, such as a big game's per-vertex results.
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

#: The job kinds by the message type that fills them: `job(GameGraphJob(...))` sets `game`.
_KIND_FIELDS = {
    orbit_pb2.GameGraphJob: "game",
    orbit_pb2.GroupJob: "group",
    orbit_pb2.CountJob: "count",
    orbit_pb2.PuzzleJob: "puzzle",
    orbit_pb2.CopThiefJob: "cop_thief",
    orbit_pb2.GraphJob: "graph",
}

_FINAL_EVENTS = ("result", "error")


def job(
    kind: Union[
        orbit_pb2.GameGraphJob,
        orbit_pb2.GroupJob,
        orbit_pb2.CountJob,
        orbit_pb2.PuzzleJob,
        orbit_pb2.CopThiefJob,
        orbit_pb2.GraphJob,
    ],
    id: str = "",
    *,
    deadline_ms: int = 0,
    progress: bool = False,
) -> orbit_pb2.Job:
    """An `orbit.v1.Job` of the kind of `kind` (the field is chosen by its type).

    >>> from orbit_grpc import text_formats
    >>> job(text_formats.game_job("2 1\\n1 2\\n"), "g").WhichOneof("kind")
    'game'
    """
    field = _KIND_FIELDS.get(type(kind))
    if field is None:
        raise TypeError(f"not a job kind: {type(kind).__name__}")
    options = orbit_pb2.JobOptions(deadline_ms=deadline_ms, progress=progress)
    return orbit_pb2.Job(id=id, options=options, **{field: kind})


def _grpc_target(target: str) -> tuple[str, bool]:
    """(gRPC target, TLS?) from `HOST:PORT`, `http://HOST:PORT`, `https://HOST:PORT` (the forms
    `orbit --server` takes) or any gRPC target name (`dns:///name:port`, `ipv4:a:p,b:p`)."""
    if target.startswith("https://"):
        return target[len("https://") :].rstrip("/"), True
    if target.startswith("http://"):
        return target[len("http://") :].rstrip("/"), False
    return target, False


def _default_authority(address: str) -> Optional[str]:
    """For a target of several addresses (`ipv4:10.0.0.1:50051,10.0.0.2:50051`), the first one:
    gRPC would otherwise send the whole list as the HTTP/2 `:authority`, which is not a valid
    authority (RFC 3986, section 3.2), and orbit-server's HTTP/2 layer resets every stream that
    carries it (RST_STREAM PROTOCOL_ERROR). None for other targets, whose authority is right."""
    scheme, _, rest = address.partition(":")
    if scheme in ("ipv4", "ipv6") and "," in rest:
        return rest.split(",", 1)[0]
    return None


class Client:
    """Orbit's calls over one gRPC channel. Build it with `connect`; close it (or use `with`).

    `orbit` and `batches_stub` are the generated stubs, for anything this class does not cover;
    pass `metadata=client.call_metadata` to their calls so that the token goes along.
    """

    def __init__(self, channel: grpc.Channel, *, token: Optional[str] = None) -> None:
        self.channel = channel
        self.orbit = orbit_pb2_grpc.OrbitStub(channel)
        self.batches_stub = batches_pb2_grpc.BatchesStub(channel)
        self.call_metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {token}"),) if token else ()
        )
        self._window: Optional[int] = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the channel; calls in progress are cancelled."""
        self.channel.close()

    # orbit.v1.Orbit ---------------------------------------------------------------------------

    def server_info(self, *, timeout: Optional[float] = None) -> orbit_pb2.ServerInfoResponse:
        """The server's version, pool, queue, stream window, limits and job kinds."""
        try:
            return self.orbit.ServerInfo(
                orbit_pb2.ServerInfoRequest(), timeout=timeout, metadata=self.call_metadata
            )
        except grpc.RpcError as e:
            raise OrbitError.from_rpc_error(e) from None

    def solve(self, job: orbit_pb2.Job, *, timeout: Optional[float] = None) -> orbit_pb2.JobResult:
        """Solves one job (`Solve`); raises an `OrbitError` with the status's details."""
        try:
            return self.orbit.Solve(job, timeout=timeout, metadata=self.call_metadata)
        except grpc.RpcError as e:
            raise OrbitError.from_rpc_error(e) from None

    def stream_window(self) -> int:
        """The jobs one stream may have in flight (`ServerInfo.stream_window`, asked once)."""
        if self._window is None:
            self._window = self.server_info().stream_window or 1
        return self._window

    def solve_stream(
        self,
        jobs: Iterable[orbit_pb2.Job],
        *,
        window: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> Iterator[orbit_pb2.JobEvent]:
        """Streams `jobs` through one `SolveStream` and yields every `JobEvent` (`queued`,
        `progress`, then one `result` or `error` per job, in completion order).

        At most `window` jobs (default: the server's `stream_window`) are sent ahead of their
        final events, so a long or endless `jobs` iterator is read only as fast as the server
        answers, and the client never buffers more than one window. A job's failure is its
        `error` event (`OrbitError.from_job_error` reads it); a failure of the whole call (e.g.
        UNAUTHENTICATED, a message over the server's limit, the server gone) raises an
        `OrbitError`. Closing the generator early cancels the call and the jobs in flight.
        """
        window = window if window is not None else self.stream_window()
        if window < 1:
            raise ValueError(f"window must be at least 1, got {window}")
        slots = threading.Semaphore(window)
        finished = threading.Event()

        def requests() -> Iterator[orbit_pb2.Job]:
            # gRPC reads this on a thread of its own; it waits for a free slot, checking now and
            # then whether the call is over so that it never outlives it.
            for item in jobs:
                while not slots.acquire(timeout=0.1):
                    if finished.is_set():
                        return
                if finished.is_set():
                    return
                yield item

        call = self.orbit.SolveStream(requests(), timeout=timeout, metadata=self.call_metadata)
        try:
            for event in call:
                if event.WhichOneof("event") in _FINAL_EVENTS:
                    slots.release()
                yield event
        except grpc.RpcError as e:
            raise OrbitError.from_rpc_error(e) from None
        finally:
            finished.set()
            call.cancel()

    def solve_each(
        self,
        jobs: Iterable[orbit_pb2.Job],
        *,
        window: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> Iterator[tuple[str, Union[orbit_pb2.JobResult, OrbitError]]]:
        """Like `solve_stream`, but yields only each job's final outcome: `(id, JobResult)` or
        `(id, OrbitError)` (not raised; a failed job does not stop the others)."""
        for event in self.solve_stream(jobs, window=window, timeout=timeout):
            kind = event.WhichOneof("event")
            if kind == "result":
                yield event.id, event.result
            elif kind == "error":
                yield event.id, OrbitError.from_job_error(event.error)

    # orbit.v1.Batches -------------------------------------------------------------------------

    @property
    def batches(self) -> "BatchesClient":
        """Durable batches (`orbit.v1.Batches`) on this channel."""
        from .batches import BatchesClient

        return BatchesClient(self)


def connect(
    target: str,
    *,
    ca: Union[bytes, str, None] = None,
    token: Optional[str] = None,
    tls: Optional[bool] = None,
    service_config: Union[dict, str, None] = None,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    options: Sequence[tuple[str, Any]] = (),
) -> Client:
    """Opens a channel to orbit-server (connecting lazily, on the first call).

    target: `HOST:PORT` or `http://HOST:PORT` (plaintext), `https://HOST:PORT` (TLS), or any
      gRPC target name: `dns:///orbit-server.default.svc.cluster.local:50051`,
      `ipv4:10.0.0.1:50051,10.0.0.2:50051` (several addresses; see `service_config`).
    ca: the CA certificate(s) to check the server against, PEM bytes or a file name; implies
      TLS. Without it, TLS uses the system's roots.
    token: the bearer token (`orbit-server --auth-token-file`), sent with every call. Send it
      over TLS only.
    tls: force TLS on or off (default: on for `https://` or when `ca` is given).
    service_config: a gRPC service config (dict or JSON text), e.g. the round-robin and retry
      config of examples/grpc-service-config.json.
    max_message_bytes: the largest message sent or received (default: the server's default).
    options: further gRPC channel options.
    """
    address, https = _grpc_target(target)
    if isinstance(ca, str):
        with open(ca, "rb") as f:
            ca = f.read()
    use_tls = tls if tls is not None else (https or ca is not None)
    channel_options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        *options,
    ]
    authority = _default_authority(address)
    if authority is not None and not any(k == "grpc.default_authority" for k, _ in options):
        channel_options.append(("grpc.default_authority", authority))
    if service_config is not None:
        text = service_config if isinstance(service_config, str) else json.dumps(service_config)
        channel_options.append(("grpc.service_config", text))
        channel_options.append(("grpc.enable_retries", 1))
    if use_tls:
        credentials = grpc.ssl_channel_credentials(root_certificates=ca)
        channel = grpc.secure_channel(address, credentials, options=channel_options)
    else:
        channel = grpc.insecure_channel(address, options=channel_options)
    return Client(channel, token=token)
