//! What both ends of the wire agree on beyond the messages themselves: the names of gRPC status
//! codes as `JobError.code_name` carries them, the HTTP/2 flow-control windows, the default
//! largest message, and how a status's `google.rpc` error details become a `JobError`'s typed
//! fields ([`job_error`](crate::wire::job_error)). They live here, in the contract crate, so that
//! the server and the Rust client share one definition without the client depending on the
//! server.

use tonic::Code;

/// HTTP/2 flow-control window (bytes) of every stream, set by the server and by the client.
///
/// Jobs and answers are often a few hundred KB (puzzle targets, permutations, a game's outcomes):
/// with HTTP/2's default window of 64 KB, a sender would wait a round trip per 64 KB. Each side
/// sets the windows it receives with, so both set them. The windows also bound what a server holds
/// of requests not yet read (BENCHMARKS.md, load test: peak RSS is bounded by the windows).
pub const HTTP2_STREAM_WINDOW: u32 = 4 << 20;

/// HTTP/2 flow-control window (bytes) of a whole connection, shared by its streams. See
/// [`HTTP2_STREAM_WINDOW`].
pub const HTTP2_CONNECTION_WINDOW: u32 = 16 << 20;

/// Default largest message either way, bytes: the server's `--max-message-bytes` default, which
/// the Rust client and the `orbit` CLI use too, so that what one side sends by default the other
/// accepts by default (gRPC's own default is 4 MiB).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The upper-case name of a gRPC code, as `JobError.code_name` carries it (e.g.
/// `"INVALID_ARGUMENT"`): the server fills it in, and clients print statuses the same way, so a
/// failed job reads alike whether it came back in a stream event or as a unary call's status.
///
/// ```
/// assert_eq!(orbit_api::wire::code_name(tonic::Code::InvalidArgument), "INVALID_ARGUMENT");
/// ```
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// `google.rpc.ErrorInfo.domain` of every error an Orbit server sends: the package of its API.
pub const ERROR_DOMAIN: &str = "orbit.v1";

/// The [`JobError`](crate::v1::JobError) that reports `status`: its code, code name and message,
/// and the `google.rpc` details it carries in `grpc-status-details-bin` (`ErrorInfo`'s reason
/// and metadata, `BadRequest`'s field violations, `RetryInfo`'s delay) as the typed fields.
///
/// The server makes a stream's job errors with it from the very status a unary call would return,
/// and clients make job errors of failed calls with it, so both carry the same details.
///
/// ```
/// use std::time::Duration;
/// use tonic::{Code, Status};
/// use tonic_types::{ErrorDetails, StatusExt};
///
/// let mut details = ErrorDetails::with_error_info("QUEUE_FULL", "orbit.v1", [("limit".to_string(), "4".to_string())]);
/// details.set_retry_info(Some(Duration::from_millis(1500)));
/// let status = Status::with_error_details(Code::ResourceExhausted, "the job queue is full", details);
/// let e = orbit_api::wire::job_error(&status);
/// assert_eq!((e.code, e.code_name.as_str(), e.reason.as_str()), (8, "RESOURCE_EXHAUSTED", "QUEUE_FULL"));
/// assert_eq!(e.metadata["limit"], "4");
/// assert_eq!(e.retry_delay_ms, 1500);
/// ```
pub fn job_error(status: &tonic::Status) -> crate::v1::JobError {
    use tonic_types::StatusExt;
    // Details that do not decode (a server of another make) leave the typed fields empty.
    let details = status.get_error_details();
    let (reason, metadata) = details
        .error_info()
        .map(|info| {
            (
                info.reason.clone(),
                info.metadata.clone().into_iter().collect(),
            )
        })
        .unwrap_or_default();
    let field_violations = details
        .bad_request()
        .map(|bad| {
            bad.field_violations
                .iter()
                .map(|v| crate::v1::FieldViolation {
                    field: v.field.clone(),
                    description: v.description.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let retry_delay_ms = details
        .retry_info()
        .and_then(|retry| retry.retry_delay)
        .map_or(0, |delay| {
            u32::try_from(delay.as_millis()).unwrap_or(u32::MAX)
        });
    crate::v1::JobError {
        code: status.code() as i32,
        code_name: code_name(status.code()).to_string(),
        message: status.message().to_string(),
        reason,
        metadata,
        field_violations,
        retry_delay_ms,
    }
}
