//! Reports an oversized request as RESOURCE_EXHAUSTED stating the limit.
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
use tower::{Layer, Service};

/// The layer: see the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct MessageLimitLayer;

impl<S> Layer<S> for MessageLimitLayer {
    type Service = MessageLimit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        MessageLimit { inner }
    }
}

/// The service the layer produces.
#[derive(Debug, Clone)]
pub struct MessageLimit<S> {
    inner: S,
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
        Box::pin(async move {
            let mut response = future.await?;
            if let Some(status) = rewritten(response.headers()) {
                let headers = response.headers_mut();
                headers.remove("grpc-status");
                headers.remove("grpc-message");
                // Adding a freshly built status to a header map only fails for a non-ASCII
                // message; ours is ASCII, and the original status would stay in place otherwise.
                let _ = status.add_header(headers);
            }
            Ok(response)
        })
    }
}

/// The status to report instead, if `headers` carry tonic's "message too large" error.
pub fn rewritten(headers: &http::HeaderMap) -> Option<Status> {
    let status = Status::from_header_map(headers)?;
    oversize_to_resource_exhausted(&status)
}

/// RESOURCE_EXHAUSTED for tonic's OUT_OF_RANGE "message length too large" status; `None` for any
/// other status.
pub fn oversize_to_resource_exhausted(status: &Status) -> Option<Status> {
    (status.code() == Code::OutOfRange && status.message().contains("message length too large"))
        .then(|| {
            Status::resource_exhausted(format!(
                "request message too large (the server's --max-message-bytes limit): {}",
                status.message()
            ))
        })
}
