//! What both ends of the wire agree on beyond the messages themselves: the names of gRPC status
//! codes as `JobError.code_name` carries them, the HTTP/2 flow-control windows, and the default
//! largest message. They live here, in the contract crate, so that the server and the Rust client
//! share one definition without the client depending on the server.

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
