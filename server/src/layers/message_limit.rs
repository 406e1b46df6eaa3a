//! Reports an oversized request as RESOURCE_EXHAUSTED stating the limit (reason MESSAGE_TOO_LARGE,
//! with the limit and the size in its details: `error.rs`).
//!
//! tonic rejects a request message larger than `max_decoding_message_size` with OUT_OF_RANGE
//! ("decoded message length too large: found N bytes, the limit is: M bytes"). Orbit's contract
//! answers every configured size limit with RESOURCE_EXHAUSTED, so this layer rewrites that one
//! status (and nothing else) on trailers-only responses, which is how unary calls fail.
//! `SolveStream` maps the same error itself (`stream.rs`), since it arrives mid-stream.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::{Code, Status};

use crate::error::ServiceError;
use tower::{Layer, Service};

/// The layer: see the module docs.
#[derive(Debug, Clone, Copy)]
pub struct MessageLimitLayer {
    /// `--max-message-bytes`, as the services were given it.
    limit: usize,
}

impl MessageLimitLayer {
    /// The layer for services that decode at most `limit` bytes a message.
    pub fn new(limit: usize) -> Self {
        Self { limit }
    }
}

impl<S> Layer<S> for MessageLimitLayer {
    type Service = MessageLimit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        MessageLimit {
            inner,
            limit: self.limit,
        }
    }
}

/// The service the layer produces.
#[derive(Debug, Clone)]
pub struct MessageLimit<S> {
    inner: S,
    limit: usize,
}

impl<S, ReqBody, ResBody> Service<http::Request<ReqBody>> for MessageLimit<S>
where
    S: Service<http::Request<ReqBody>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<ReqBody>) -> Self::Future {
        let future = self.inner.call(request);
        let limit = self.limit;
        Box::pin(async move {
            let mut response = future.await?;
            if let Some(status) = rewritten(response.headers(), limit) {
                let headers = response.headers_mut();
                headers.remove("grpc-status");
                headers.remove("grpc-message");
                headers.remove("grpc-status-details-bin");
                // Adding a freshly built status to a header map only fails for a non-ASCII
                // message; ours is ASCII, and the original status would stay in place otherwise.
                let _ = status.add_header(headers);
            }
            Ok(response)
        })
    }
}

/// The status to report instead, if `headers` carry tonic's "message too large" error.
pub fn rewritten(headers: &http::HeaderMap, limit: usize) -> Option<Status> {
    let status = Status::from_header_map(headers)?;
    oversize_to_resource_exhausted(&status, limit)
}

/// RESOURCE_EXHAUSTED (MESSAGE_TOO_LARGE) for tonic's OUT_OF_RANGE "message length too large"
/// status of a service decoding at most `limit` bytes; `None` for any other status.
pub fn oversize_to_resource_exhausted(status: &Status, limit: usize) -> Option<Status> {
    (status.code() == Code::OutOfRange && status.message().contains("message length too large"))
        .then(|| {
            Status::from(ServiceError::MessageTooLarge {
                decoder: status.message().to_string(),
                bytes: found_bytes(status.message()),
                limit,
            })
        })
}

/// The size tonic's decoder reports ("... found 2000 bytes, the limit is: 1024 bytes"), if its
/// message says.
fn found_bytes(message: &str) -> Option<u64> {
    let (_, after) = message.split_once("found ")?;
    let digits = after.split(' ').next()?;
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_is_read_from_tonics_message() {
        assert_eq!(
            found_bytes(
                "decoded message length too large: found 2000 bytes, the limit is: 1024 bytes"
            ),
            Some(2000)
        );
        assert_eq!(found_bytes("message length too large"), None);
        let status = Status::out_of_range(
            "decoded message length too large: found 2000 bytes, the limit is: 1024 bytes",
        );
        let rewritten = oversize_to_resource_exhausted(&status, 1024).expect("rewritten");
        assert_eq!(rewritten.code(), Code::ResourceExhausted);
        assert!(oversize_to_resource_exhausted(&Status::out_of_range("other"), 1024).is_none());
    }
}
