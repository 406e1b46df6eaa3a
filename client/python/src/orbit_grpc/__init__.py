"""orbit-grpc: a Python client for Orbit, the exact combinatorial group and game solver.

    import orbit_grpc
    from orbit_grpc import pb

    with orbit_grpc.connect("127.0.0.1:50051") as client:
        result = client.solve(pb.Job(id="n", count=pb.CountJob(necklace=pb.NecklaceCount(n=6, k=2))))
        print(result.count.count)  # 14

- `connect(target, ca=..., token=..., service_config=...)` -> `Client`: `solve`,
  `solve_stream` / `solve_each` (a batch through `SolveStream`, at most the server's stream
  window in flight), `server_info`, `batches` (durable batches, `BatchesClient`).
- `OrbitError` and its subclasses: the status code and the `google.rpc` details (reason,
  metadata, field violations, quota violations, retry delay) of a failed call or job.
- `text_formats`: the `orbit` CLI's text formats -> jobs; `job(kind, id)` wraps a kind.
- `witness`: the words of group members multiplied out and checked (`check_group_words`), and
  printed as the CLI prints them (`format_word`).
- `pb` (`orbit_grpc.v1.orbit_pb2`) and `batches_pb` (`orbit_grpc.v1.batches_pb2`): the
  generated messages.
"""

from . import text_formats, witness
from .batches import BatchesClient, is_finished, is_transient
from .client import DEFAULT_MAX_MESSAGE_BYTES, Client, connect, job
from .errors import (
    AbortedError,
    CancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    LimitExceededError,
    NotFoundError,
    OrbitError,
    QueueFullError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
)
from .text_formats import TextFormatError, TextLimitError
from .v1 import batches_pb2 as batches_pb
from .v1 import orbit_pb2 as pb

__all__ = [
    "AbortedError",
    "BatchesClient",
    "CancelledError",
    "Client",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "LimitExceededError",
    "NotFoundError",
    "OrbitError",
    "QueueFullError",
    "ResourceExhaustedError",
    "TextFormatError",
    "TextLimitError",
    "UnauthenticatedError",
    "UnavailableError",
    "batches_pb",
    "connect",
    "is_finished",
    "is_transient",
    "job",
    "pb",
    "text_formats",
    "witness",
]

__version__ = "0.1.0"
