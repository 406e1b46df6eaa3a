"""Durable batches (`orbit.v1.Batches`): submit jobs, disconnect, come back for the answers.

The same operations as the Rust client's `orbit_client::batches::BatchesClient`: create (a
header, then the jobs, idempotent by request id), get, list (paged), watch (once, or resuming
after transient breaks with `after_sequence`), cancel, delete. Every failure raises an
`OrbitError` (e.g. `NotFoundError` with reason BATCH_NOT_FOUND, `FailedPreconditionError` with
NO_STORE on a server without a store).
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Iterable, Iterator, Optional

import grpc

from .errors import OrbitError
from .v1 import batches_pb2, orbit_pb2

if TYPE_CHECKING:
    from .client import Client


def is_finished(batch: batches_pb2.Batch) -> bool:
    """Whether `batch` is DONE or CANCELLED: it gets no more events."""
    return batch.state in (batches_pb2.BATCH_STATE_DONE, batches_pb2.BATCH_STATE_CANCELLED)


def is_transient(error: OrbitError) -> bool:
    """Whether a call that failed with `error` is worth making again as it is: the server was
    unreachable or draining (UNAVAILABLE), or the stream broke under the call (UNKNOWN,
    CANCELLED, ABORTED, as gRPC reports a connection reset or closed, or an HTTP/2 error). The
    server's own answers (NOT_FOUND, INVALID_ARGUMENT, FAILED_PRECONDITION, ...) are not."""
    return error.code in (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.ABORTED,
    ) or (error.code == grpc.StatusCode.INTERNAL and "RST_STREAM" in error.message)


class BatchesClient:
    """The `orbit.v1.Batches` calls of a `Client` (`client.batches`)."""

    def __init__(self, client: "Client") -> None:
        self._stub = client.batches_stub
        self._metadata = client.call_metadata

    def create_batch(
        self,
        jobs: Iterable[orbit_pb2.Job],
        *,
        request_id: Optional[str] = None,
        name: str = "",
        timeout: Optional[float] = None,
    ) -> batches_pb2.Batch:
        """Creates a batch: sends the header, then `jobs` in order (read lazily, so they may be
        far more than fit in memory), and returns the sealed batch.

        Idempotent by `request_id` (default: 128 random bits, as `str(uuid4())`): if the call
        fails, call again with the same request id and the same jobs from the first, and the
        server skips the jobs it already stored; a call repeated after the batch was created
        returns it. Keep the request id (it is `Batch.request_id`) to be able to do so.
        """
        header = batches_pb2.BatchHeader(request_id=request_id or str(uuid.uuid4()), name=name)

        def requests() -> Iterator[batches_pb2.CreateBatchRequest]:
            yield batches_pb2.CreateBatchRequest(header=header)
            for item in jobs:
                yield batches_pb2.CreateBatchRequest(job=item)

        try:
            return self._stub.CreateBatch(requests(), timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as e:
            raise OrbitError.from_rpc_error(e) from None

    def get_batch(self, batch_id: str, *, timeout: Optional[float] = None) -> batches_pb2.Batch:
        """The batch: state, counts, times."""
        return self._unary(
            self._stub.GetBatch, batches_pb2.GetBatchRequest(batch_id=batch_id), timeout
        )

    def list_batches(
        self, page_size: int = 0, page_token: str = "", *, timeout: Optional[float] = None
    ) -> batches_pb2.ListBatchesResponse:
        """One page of batches, newest first (`page_size` 0: the server's default, 100; at most
        1000); pass `next_page_token` for the next page, empty on the last."""
        request = batches_pb2.ListBatchesRequest(page_size=page_size, page_token=page_token)
        return self._unary(self._stub.ListBatches, request, timeout)

    def list_all_batches(self) -> list[batches_pb2.Batch]:
        """Every batch, newest first, following the page tokens to the last page."""
        batches: list[batches_pb2.Batch] = []
        token = ""
        while True:
            page = self.list_batches(0, token)
            batches.extend(page.batches)
            if not page.next_page_token:
                return batches
            if page.next_page_token == token:
                raise OrbitError.make(
                    grpc.StatusCode.INTERNAL,
                    f"ListBatches returned its own page token {token!r} as the next one",
                )
            token = page.next_page_token

    def watch_batch(
        self,
        batch_id: str,
        after: int = 0,
        follow: bool = False,
        *,
        timeout: Optional[float] = None,
    ) -> Iterator[batches_pb2.BatchEvent]:
        """The batch's final job events with a sequence number above `after`, in commit order;
        with `follow`, then each one as it is committed, until the batch is finished. Raises an
        `OrbitError` if the call or the stream fails (see `watch_batch_resuming`)."""
        request = batches_pb2.WatchBatchRequest(
            batch_id=batch_id, after_sequence=after, follow=follow
        )
        call = self._stub.WatchBatch(request, timeout=timeout, metadata=self._metadata)
        try:
            yield from call
        except grpc.RpcError as e:
            raise OrbitError.from_rpc_error(e) from None
        finally:
            call.cancel()

    def watch_batch_resuming(
        self,
        batch_id: str,
        after: int = 0,
        follow: bool = False,
        *,
        attempts: int = 10,
        delay: float = 1.0,
    ) -> Iterator[batches_pb2.BatchEvent]:
        """Like `watch_batch`, but a call or stream that fails with a transient error
        (`is_transient`: the server restarting, the connection broken) is made again after
        `delay` seconds with `after` = the last sequence number received, so that no event is
        missed and none is delivered twice. Raises a non-transient error at once, and the last
        transient one after `attempts` reconnects in a row without an event in between."""
        last = after
        failures = 0
        while True:
            try:
                for event in self.watch_batch(batch_id, last, follow):
                    if event.sequence <= last:
                        continue  # already delivered before a reconnect
                    last = event.sequence
                    failures = 0
                    yield event
                return
            except OrbitError as e:
                if not is_transient(e) or failures >= attempts:
                    raise
                failures += 1
                time.sleep(delay)

    def cancel_batch(self, batch_id: str, *, timeout: Optional[float] = None) -> batches_pb2.Batch:
        """Cancels the batch: its unfinished jobs get a CANCELLED error; returns the batch."""
        return self._unary(
            self._stub.CancelBatch, batches_pb2.CancelBatchRequest(batch_id=batch_id), timeout
        )

    def delete_batch(self, batch_id: str, *, timeout: Optional[float] = None) -> None:
        """Deletes the batch, its jobs and its results (cancelling what still runs)."""
        self._unary(
            self._stub.DeleteBatch, batches_pb2.DeleteBatchRequest(batch_id=batch_id), timeout
        )

    def _unary(self, method, request, timeout):  # type: ignore[no-untyped-def]
        try:
            return method(request, timeout=timeout, metadata=self._metadata)
        except grpc.RpcError as e:
            raise OrbitError.from_rpc_error(e) from None
