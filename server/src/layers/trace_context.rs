//! A span per call that continues the caller's trace (W3C Trace Context), when the server exports
//! traces (`--otlp-endpoint`).
//!
//! Each call gets a `grpc` span, named and described as OpenTelemetry's semantic conventions for
//! RPC spans say: name `package.Service/Method`, kind SERVER, `rpc.system` = `grpc`,
//! `rpc.service`, `rpc.method`, and `rpc.grpc.status_code` once the call's status is known. A
//! status that means the server failed (UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL,
//! UNAVAILABLE, DATA_LOSS, the conventions' list for servers) also marks the span as an error;
//! the caller's mistakes do not.
//!
//! The span's parent is the context the caller sent in the `traceparent` and `tracestate` headers
//! (W3C Trace Context), read by OpenTelemetry's `TraceContextPropagator`. A missing or malformed
//! `traceparent` starts a new trace, as the standard asks of a receiver; the call goes on either
//! way. The handler runs inside the span, so the job spans it creates (`dispatcher::job_span`)
//! are its children, and the span ends when the response's status goes out (for a stream, when
//! the stream ends).
//!
//! This is the outermost layer: calls refused by the layers inside it (a missing token, an
//! oversized request) are traced too. Health checks are not: probes every few seconds would be
//! most of the traces, and say nothing about the work. Without an exporter the layer passes calls
//! through untouched; the span would only cost time.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tonic::Code;
use tonic::body::Body;
use tower::{Layer, Service};
use tracing::instrument::Instrument;
use tracing::{Metadata, Span};
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::grpc_status;

/// The name of the call spans.
const CALL_SPAN: &str = "grpc";

/// Calls that get no span: see the module docs.
const UNTRACED_SERVICES: &[&str] = &["/grpc.health.v1.Health/"];

/// Whether `metadata` is a call span's: the log lines leave them out
/// ([`crate::logging::init`]).
pub fn is_call_span(metadata: &Metadata<'_>) -> bool {
    metadata.is_span() && metadata.name() == CALL_SPAN && metadata.target() == module_path!()
}

/// The layer: see the module docs.
#[derive(Debug, Clone, Default)]
pub struct TraceContextLayer {
    enabled: bool,
}

impl TraceContextLayer {
    /// Traces calls if `enabled` (the server exports traces); otherwise passes them through.
    pub fn new(enabled: bool) -> Self {
        Self { enabled }
    }
}

impl<S> Layer<S> for TraceContextLayer {
    type Service = TraceContext<S>;

    fn layer(&self, inner: S) -> Self::Service {
        TraceContext {
            inner,
            enabled: self.enabled,
        }
    }
}

/// The service the layer produces.
#[derive(Debug, Clone)]
pub struct TraceContext<S> {
    inner: S,
    enabled: bool,
}

impl<S, ResBody> Service<http::Request<Body>> for TraceContext<S>
where
    S: Service<http::Request<Body>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    ResBody: HttpBody<Data = Bytes> + Send + 'static,
    ResBody::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<TracedBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let path = request.uri().path();
        let span = if self.enabled && !UNTRACED_SERVICES.iter().any(|s| path.starts_with(s)) {
            call_span(path, request.headers())
        } else {
            Span::none()
        };
        if span.is_none() {
            let future = self.inner.call(request);
            return Box::pin(async move {
                let response = future.await?;
                Ok(response.map(|body| TracedBody {
                    inner: Body::new(body),
                    call: None,
                }))
            });
        }
        // Layers inside may answer at once (a refused token): their events belong to the call.
        let future = span.in_scope(|| self.inner.call(request));
        let mut call = OpenCall(Some(span));
        Box::pin(async move {
            let span = call.0.clone().unwrap_or_else(Span::none);
            // If this future is dropped first (the client went away), `call` ends as Cancelled.
            let response = future.instrument(span).await?;
            // A trailers-only response (how a refused call ends): the status is in the headers.
            if let Some(code) = grpc_status(response.headers()) {
                call.finish(code);
            }
            Ok(response.map(|body| TracedBody {
                inner: Body::new(body),
                call: Some(call),
            }))
        })
    }
}

/// The span of a call to `path` (`/package.Service/Method`), its parent the caller's context
/// in `headers`.
fn call_span(path: &str, headers: &http::HeaderMap) -> Span {
    let name = path.trim_start_matches('/');
    let (service, method) = name.split_once('/').unwrap_or((name, ""));
    let span = tracing::info_span!(
        CALL_SPAN,
        otel.name = name,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        rpc.system = "grpc",
        rpc.service = service,
        rpc.method = method,
        rpc.grpc.status_code = tracing::field::Empty,
    );
    let parent = TraceContextPropagator::new().extract(&HeaderExtractor(headers));
    // Fails only when spans are not exported at all (no OpenTelemetry layer): nothing to continue.
    let _ = span.set_parent(parent);
    span
}

/// A traced call until its status is known; dropped before, it ends as cancelled (as the
/// standard gRPC metrics count it).
#[derive(Debug)]
struct OpenCall(Option<Span>);

impl OpenCall {
    /// Records the call's final status on its span, once, and lets the span end.
    fn finish(&mut self, code: Code) {
        let Some(span) = self.0.take() else {
            return;
        };
        span.record("rpc.grpc.status_code", code as i64);
        if matches!(
            code,
            Code::Unknown
                | Code::DeadlineExceeded
                | Code::Unimplemented
                | Code::Internal
                | Code::Unavailable
                | Code::DataLoss
        ) {
            span.record("otel.status_code", "error");
        }
    }
}

impl Drop for OpenCall {
    fn drop(&mut self) {
        self.finish(Code::Cancelled);
    }
}

/// The request headers as OpenTelemetry's propagators read them.
struct HeaderExtractor<'a>(&'a http::HeaderMap);

impl Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// A response body that holds its call's span until the status goes out.
#[derive(Debug)]
pub struct TracedBody {
    inner: Body,
    /// `None` for calls not traced.
    call: Option<OpenCall>,
}

impl HttpBody for TracedBody {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Some(call) = &mut this.call {
            match &polled {
                Poll::Ready(Some(Ok(frame))) => {
                    if let Some(trailers) = frame.trailers_ref() {
                        call.finish(grpc_status(trailers).unwrap_or(Code::Unknown));
                    }
                }
                // The body failed, or ended without a status: the client gets none either.
                Poll::Ready(Some(Err(_)) | None) => call.finish(Code::Unknown),
                Poll::Pending => {}
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
