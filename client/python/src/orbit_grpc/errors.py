"""Orbit's errors as Python exceptions, with the `google.rpc` details as fields.

Every error status an orbit-server sends carries, in its `grpc-status-details-bin` trailer, a
`google.rpc.Status` whose details hold a `google.rpc.ErrorInfo` (domain `orbit.v1`, a stable
`reason`, `metadata`) and, depending on the reason, a `BadRequest` (field violations), a
`QuotaFailure` (the limit) or a `RetryInfo` (when to try again). A streamed job's error arrives
as an `orbit.v1.JobError` event with the same information in typed fields. Both become the same
`OrbitError`: `OrbitError.from_rpc_error(e)` for a failed call, `OrbitError.from_job_error(...)`
for an event. The class is chosen by the gRPC code, and for a few reasons by the reason
(`QueueFullError`, `LimitExceededError`), so that callers can `except` what they handle.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from .v1 import orbit_pb2

#: `ErrorInfo.domain` of every error Orbit sends.
DOMAIN = "orbit.v1"

#: The reasons whose metadata name a limit (`limit_name`, `limit`, `requested`) and which carry a
#: `QuotaFailure` whose subject is the limit's name.
LIMIT_REASONS = frozenset(
    {
        "LIMIT_EXCEEDED",
        "MEMORY_ESTIMATE_EXCEEDED",
        "ANSWER_TOO_LARGE",
        "MESSAGE_TOO_LARGE",
        "BATCH_LIMIT_EXCEEDED",
    }
)

_CODES_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


class OrbitError(Exception):
    """A failed call or job.

    Fields:
      code: the `grpc.StatusCode`.
      code_name: its name, e.g. "INVALID_ARGUMENT" (what `JobError.code_name` says).
      message: the server's message, naming the field for bad input.
      reason: `ErrorInfo.reason`, e.g. "INVALID_FIELD", "LIMIT_EXCEEDED", "QUEUE_FULL"; "" when
        the status carries no ErrorInfo (an error from gRPC itself, such as a refused connection).
      metadata: `ErrorInfo.metadata`, e.g. {"limit_name": "max_vertices", "limit": "10",
        "requested": "11"} (decimal strings).
      field_violations: [(field, description)] from `BadRequest`, e.g.
        [("game.edges[1]", "vertex 5 out of range 0..4")].
      quota_violations: [(subject, description)] from `QuotaFailure`: the limit's name and the
        message.
      retry_delay: `RetryInfo.retry_delay` in seconds, or None when the server gave no advice.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        metadata: Optional[Mapping[str, str]] = None,
        field_violations: Sequence[tuple[str, str]] = (),
        quota_violations: Sequence[tuple[str, str]] = (),
        retry_delay: Optional[float] = None,
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.code_name = code.name
        self.message = message
        self.reason = reason
        self.metadata = dict(metadata or {})
        self.field_violations = list(field_violations)
        self.quota_violations = list(quota_violations)
        self.retry_delay = retry_delay

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code_name}, reason={self.reason!r}, "
            f"message={self.message!r})"
        )

    # Construction ------------------------------------------------------------------------------

    @staticmethod
    def make(
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        metadata: Optional[Mapping[str, str]] = None,
        field_violations: Sequence[tuple[str, str]] = (),
        quota_violations: Sequence[tuple[str, str]] = (),
        retry_delay: Optional[float] = None,
    ) -> "OrbitError":
        """An error of the class that fits `code` and `reason`."""
        cls = _REASON_CLASSES.get(reason) or _CODE_CLASSES.get(code, OrbitError)
        return cls(
            code,
            message,
            reason=reason,
            metadata=metadata,
            field_violations=field_violations,
            quota_violations=quota_violations,
            retry_delay=retry_delay,
        )

    @staticmethod
    def from_status(status: status_pb2.Status) -> "OrbitError":
        """From a `google.rpc.Status` and its details (ErrorInfo, BadRequest, QuotaFailure,
        RetryInfo); details of other types are ignored."""
        reason = ""
        metadata: dict[str, str] = {}
        field_violations: list[tuple[str, str]] = []
        quota_violations: list[tuple[str, str]] = []
        retry_delay = None
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason
                metadata.update(info.metadata)
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                field_violations.extend((v.field, v.description) for v in bad.field_violations)
            elif detail.Is(error_details_pb2.QuotaFailure.DESCRIPTOR):
                quota = error_details_pb2.QuotaFailure()
                detail.Unpack(quota)
                quota_violations.extend((v.subject, v.description) for v in quota.violations)
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_delay = retry.retry_delay.ToTimedelta().total_seconds()
        code = _CODES_BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
        return OrbitError.make(
            code,
            status.message,
            reason=reason,
            metadata=metadata,
            field_violations=field_violations,
            quota_violations=quota_violations,
            retry_delay=retry_delay,
        )

    @staticmethod
    def from_rpc_error(error: grpc.RpcError) -> "OrbitError":
        """From a failed call (unary or stream): its status, with the rich details of its
        `grpc-status-details-bin` trailer when there are any."""
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        message = error.details() if hasattr(error, "details") else str(error)
        try:
            status = rpc_status.from_call(error)
        except ValueError:
            # The trailer contradicts the call's own code or message: trust the call's.
            status = None
        if status is None:
            return OrbitError.make(code, message or "")
        return OrbitError.from_status(status)

    @staticmethod
    def from_job_error(error: orbit_pb2.JobError) -> "OrbitError":
        """From a streamed job's `JobError` event (or a batch's): the same fields a unary call's
        status gives for the same job. `JobError` has no QuotaFailure of its own: its
        `quota_violations` are (metadata's `limit_name`, the message), which is what the
        QuotaFailure of a unary status holds."""
        code = _CODES_BY_NUMBER.get(error.code, grpc.StatusCode.UNKNOWN)
        metadata = dict(error.metadata)
        quota = []
        if "limit_name" in metadata and (
            error.reason in LIMIT_REASONS or error.reason == "QUEUE_FULL"
        ):
            quota.append((metadata["limit_name"], error.message))
        return OrbitError.make(
            code,
            error.message,
            reason=error.reason,
            metadata=metadata,
            field_violations=[(v.field, v.description) for v in error.field_violations],
            quota_violations=quota,
            retry_delay=error.retry_delay_ms / 1000 if error.retry_delay_ms else None,
        )


class InvalidArgumentError(OrbitError):
    """INVALID_ARGUMENT: a malformed job or request; `field_violations` name the fields."""


class ResourceExhaustedError(OrbitError):
    """RESOURCE_EXHAUSTED: a limit, a full queue or store, a stalled stream."""


class LimitExceededError(ResourceExhaustedError):
    """A size limit (LIMIT_EXCEEDED, MEMORY_ESTIMATE_EXCEEDED, ANSWER_TOO_LARGE,
    MESSAGE_TOO_LARGE, BATCH_LIMIT_EXCEEDED): `limit_name`, `limit`, `requested`."""

    @property
    def limit_name(self) -> str:
        """The limit, e.g. "max_vertices" (the server flag without its dashes)."""
        return self.metadata.get("limit_name", "")

    @property
    def limit(self) -> Optional[int]:
        """The limit's value."""
        return _int_or_none(self.metadata.get("limit"))

    @property
    def requested(self) -> Optional[int]:
        """What the job asked for; None when the server could not tell."""
        return _int_or_none(self.metadata.get("requested"))


class QueueFullError(ResourceExhaustedError):
    """QUEUE_FULL: a unary call while the server's queue is full; wait `retry_delay` seconds."""


class UnavailableError(OrbitError):
    """UNAVAILABLE: no server, a server draining (DRAINING), a store unreachable."""


class DeadlineExceededError(OrbitError):
    """DEADLINE_EXCEEDED: `JobOptions.deadline_ms` passed (or the call's own deadline)."""


class CancelledError(OrbitError):
    """CANCELLED: the job was cancelled."""


class InternalError(OrbitError):
    """INTERNAL: a solver panicked (SOLVER_PANICKED), another fault of the server itself
    (INTERNAL_ERROR, e.g. a damaged stored result), or the transport failed (no reason)."""


class UnauthenticatedError(OrbitError):
    """UNAUTHENTICATED: missing or wrong bearer token."""


class NotFoundError(OrbitError):
    """NOT_FOUND: e.g. no such batch (BATCH_NOT_FOUND; `metadata["batch_id"]`)."""


class FailedPreconditionError(OrbitError):
    """FAILED_PRECONDITION: NO_STORE, BATCH_CLOSED."""


class AbortedError(OrbitError):
    """ABORTED: ATTEMPTS_EXHAUSTED (a batch job whose runs kept dying)."""


_CODE_CLASSES: dict[grpc.StatusCode, type[OrbitError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.CANCELLED: CancelledError,
    grpc.StatusCode.INTERNAL: InternalError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.ABORTED: AbortedError,
}

_REASON_CLASSES: dict[str, type[OrbitError]] = {
    **{reason: LimitExceededError for reason in LIMIT_REASONS},
    "QUEUE_FULL": QueueFullError,
    # The contract's two INTERNAL reasons (README "Errors"): the server's own faults.
    "SOLVER_PANICKED": InternalError,
    "INTERNAL_ERROR": InternalError,
}


def _int_or_none(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
