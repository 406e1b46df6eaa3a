//! Records the standard gRPC server series ([`crate::metrics::grpc`]) for every call of every
//! service, including calls that the layers inside it refuse (a missing token, an oversized
//! request): it is the outermost layer.
//!
//! What a call is, seen from HTTP/2 (gRPC over HTTP/2, the protocol's "PROTOCOL-HTTP2" spec):
//! the method is the request path `/package.Service/Method`; each message, either way, is a
//! length-prefixed frame (a compression flag byte and a 4-byte big-endian length, then the
//! message), which may be split across or share DATA frames; the status is `grpc-status` in the
//! response headers of a trailers-only response (how a call refused before any message ends), or
//! in the trailers at the end of the response body. A call is handled when that status is seen; a
//! response body dropped before its status (the client cancelled or went away) counts as
//! `Canceled`, as the call's context in grpc-go would be. Nothing here parses messages: counting
//! needs only the 5-byte prefixes, so the cost is a few comparisons per DATA frame.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use tonic::Code;
use tonic::body::Body;
use tower::{Layer, Service};

use super::grpc_status;
use crate::metrics::grpc::{GrpcMetrics, MethodSeries};

/// The layer: see the module docs.
#[derive(Debug, Clone)]
pub struct GrpcMetricsLayer {
    metrics: GrpcMetrics,
}

impl GrpcMetricsLayer {
    /// Records into `metrics`.
    pub fn new(metrics: GrpcMetrics) -> Self {
        Self { metrics }
    }
}

impl<S> Layer<S> for GrpcMetricsLayer {
    type Service = GrpcMetricsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        GrpcMetricsService {
            inner,
            metrics: self.metrics.clone(),
        }
    }
}

/// The service the layer produces.
#[derive(Debug, Clone)]
pub struct GrpcMetricsService<S> {
    inner: S,
    metrics: GrpcMetrics,
}

impl<S, ResBody> Service<http::Request<Body>> for GrpcMetricsService<S>
where
    S: Service<http::Request<Body>, Response = http::Response<ResBody>>,
    S::Future: Send + 'static,
    ResBody: HttpBody<Data = Bytes> + Send + 'static,
    ResBody::Error: Into<tonic::codegen::StdError>,
{
    type Response = http::Response<MeteredBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let Some(series) = self.metrics.method(request.uri().path()) else {
            // Not a method the server serves (the router answers UNIMPLEMENTED): not counted.
            let future = self.inner.call(request);
            return Box::pin(async move {
                let response = future.await?;
                Ok(response.map(|body| MeteredBody {
                    inner: Body::new(body),
                    call: None,
                }))
            });
        };
        series.started();
        let mut call = CallRecord {
            series: Arc::clone(&series),
            started_at: Instant::now(),
            frames: FrameCounter::default(),
            finished: false,
        };
        let request = request.map(|body| {
            Body::new(MeteredRequestBody {
                inner: body,
                frames: FrameCounter::default(),
                series,
            })
        });
        let future = self.inner.call(request);
        Box::pin(async move {
            // If this future is dropped first (the client went away), `call` counts it Canceled.
            let response = future.await?;
            // A trailers-only response: the status is already in the headers.
            if let Some(code) = grpc_status(response.headers()) {
                call.finish(code);
            }
            Ok(response.map(|body| MeteredBody {
                inner: Body::new(body),
                call: Some(call),
            }))
        })
    }
}

/// One call being recorded; dropped unfinished, it counts as cancelled.
#[derive(Debug)]
struct CallRecord {
    series: Arc<MethodSeries>,
    started_at: Instant,
    /// The response's message frames.
    frames: FrameCounter,
    finished: bool,
}

impl CallRecord {
    /// Counts the call handled with `code`, once.
    fn finish(&mut self, code: Code) {
        if !self.finished {
            self.finished = true;
            self.series.handled(code, self.started_at.elapsed());
        }
    }
}

impl Drop for CallRecord {
    fn drop(&mut self) {
        self.finish(Code::Cancelled);
    }
}

/// Counts the length-prefixed messages in a body's bytes, however they are split into chunks.
#[derive(Debug, Default)]
struct FrameCounter {
    /// The prefix bytes seen of the next message, while fewer than 5.
    prefix: [u8; 5],
    prefix_len: usize,
    /// Bytes still to come of the current message (after its prefix).
    remaining: u64,
}

impl FrameCounter {
    /// The prefix of every message: a compression flag, then the length as a big-endian u32.
    const PREFIX_LEN: usize = 5;

    /// Feeds the next chunk; returns how many messages it completed.
    fn feed(&mut self, mut data: &[u8]) -> u64 {
        let mut completed = 0;
        while !data.is_empty() {
            if self.remaining > 0 {
                let take = data
                    .len()
                    .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
                self.remaining -= take as u64;
                data = &data[take..];
                if self.remaining == 0 {
                    completed += 1;
                }
                continue;
            }
            let take = data.len().min(Self::PREFIX_LEN - self.prefix_len);
            self.prefix[self.prefix_len..self.prefix_len + take].copy_from_slice(&data[..take]);
            self.prefix_len += take;
            data = &data[take..];
            if self.prefix_len == Self::PREFIX_LEN {
                self.prefix_len = 0;
                let [_, a, b, c, d] = self.prefix;
                self.remaining = u64::from(u32::from_be_bytes([a, b, c, d]));
                if self.remaining == 0 {
                    completed += 1;
                }
            }
        }
        completed
    }
}

/// A request body that counts its messages as they are read.
struct MeteredRequestBody {
    inner: Body,
    frames: FrameCounter,
    series: Arc<MethodSeries>,
}

impl HttpBody for MeteredRequestBody {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            this.series.messages_received(this.frames.feed(data));
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

/// A response body that counts its messages, and the call handled when its status goes out.
#[derive(Debug)]
pub struct MeteredBody {
    inner: Body,
    /// `None` for calls not recorded.
    call: Option<CallRecord>,
}

impl HttpBody for MeteredBody {
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
                    if let Some(data) = frame.data_ref() {
                        call.series.messages_sent(call.frames.feed(data));
                    } else if let Some(trailers) = frame.trailers_ref() {
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

#[cfg(test)]
mod tests {
    use super::FrameCounter;

    /// gRPC's length-prefixed message framing: flag byte, 4-byte big-endian length, payload.
    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for payload in payloads {
            out.push(0);
            out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
            out.extend_from_slice(payload);
        }
        out
    }

    #[test]
    fn counts_messages_however_the_bytes_are_split() {
        let payloads: [&[u8]; 4] = [b"abc", b"", &[7; 300], b"z"];
        let bytes = framed(&payloads);
        // Whole, then every chunk size from 1 byte up: always 4 messages, each counted when its
        // last byte arrives.
        for chunk in 1..=bytes.len() {
            let mut counter = FrameCounter::default();
            let total: u64 = bytes.chunks(chunk).map(|c| counter.feed(c)).sum();
            assert_eq!(total, 4, "chunks of {chunk}");
        }
        // A message not yet complete is not counted.
        let mut counter = FrameCounter::default();
        assert_eq!(counter.feed(&bytes[..5 + 3 + 5 + 5 + 10]), 2);
    }
}
