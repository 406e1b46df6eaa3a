//! Tower layers wrapped around every gRPC service, one per file.

pub mod auth;
pub mod grpc_metrics;
pub mod message_limit;
pub mod trace_context;

use tonic::Code;

/// The code in a header map's `grpc-status` (response headers of a trailers-only response, or the
/// trailers), if it has one.
fn grpc_status(headers: &http::HeaderMap) -> Option<Code> {
    headers
        .get("grpc-status")
        .map(|value| Code::from_bytes(value.as_bytes()))
}
