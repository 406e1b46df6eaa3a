//! The `/metrics` HTTP endpoint: a small HTTP/1.1 server on its own port, on the server's tokio
//! runtime. Separate from the gRPC port so scrapers need neither TLS client set-up nor the bearer
//! token, and so it can be firewalled apart.
//!
//! `GET /metrics` answers the exposition text; any other path is 404, any other method 405.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

/// The content type of OpenMetrics text, which `prometheus-client` writes.
const OPENMETRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A scraper that has not sent its request headers by then is disconnected.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// After a failed `accept` (e.g. out of file descriptors), wait this long before the next, so the
/// loop does not spin.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// Produces the exposition text for one scrape.
pub type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// The running endpoint. [`stop`](Self::stop) ends it; dropping it aborts it (and its open
/// connections), so an early return from the server never leaves it behind.
#[derive(Debug)]
pub struct MetricsServer {
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Serves `render()` at `/metrics` on `listener` until stopped.
    pub fn spawn(listener: TcpListener, render: Render) -> Self {
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, render, async {
            let _ = stopped.await;
        }));
        Self {
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops accepting, closes open connections, and waits for the task to end.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take()
            && let Err(e) = task.await
        {
            tracing::warn!(error = %e, "metrics endpoint task failed");
        }
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The accept loop. Connections run in a `JoinSet`, so they all end when the loop returns.
async fn serve(listener: TcpListener, render: Render, shutdown: impl Future<Output = ()>) {
    match listener.local_addr() {
        Ok(local) => tracing::info!(%local, "metrics endpoint listening at /metrics"),
        Err(e) => tracing::warn!(error = %e, "metrics endpoint: no local address"),
    }
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            // Reap finished connections so the set does not grow.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let render = Arc::clone(&render);
                    connections.spawn(async move {
                        let service = service_fn(move |request| {
                            let response = respond(&request, &render);
                            async move { Ok::<_, Infallible>(response) }
                        });
                        let served = http1::Builder::new()
                            .timer(TokioTimer::new())
                            .header_read_timeout(HEADER_READ_TIMEOUT)
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                        if let Err(e) = served {
                            tracing::debug!(%peer, error = %e, "metrics connection ended with an error");
                        }
                    });
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics endpoint: accept failed");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            },
        }
    }
}

/// The answer to one request.
fn respond(request: &Request<Incoming>, render: &Render) -> Response<Full<Bytes>> {
    let (status, content_type, body) = if request.uri().path() != "/metrics" {
        (
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "not found: metrics are at /metrics\n".to_string(),
        )
    } else if request.method() != Method::GET && request.method() != Method::HEAD {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain; charset=utf-8",
            "only GET /metrics\n".to_string(),
        )
    } else {
        (StatusCode::OK, OPENMETRICS_CONTENT_TYPE, render())
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}
