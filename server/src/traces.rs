//! OpenTelemetry traces, exported over OTLP/gRPC to `--otlp-endpoint` (off when not given).
//!
//! What is exported is this crate's `tracing` spans, bridged by `tracing-opentelemetry` (the layer
//! [`crate::logging::init`] adds when given a [`TraceExport`]): the `grpc` span of each call
//! ([`crate::layers::trace_context`], which continues the caller's W3C Trace Context) and the `job`
//! span of each job ([`crate::dispatcher`]), a child of its call's span.
//!
//! Export stays off the request path: an ended span is queued for the SDK's batch span processor,
//! which sends batches from a thread of its own. A collector that is slow or unreachable only
//! fills that queue, after which spans are dropped; calls never wait for it. Failed exports are
//! logged once when they start and once when they stop ([`ReportingExporter`]), not per batch.
//! The SDK also reads the standard `OTEL_*` environment variables (`OTEL_EXPORTER_OTLP_HEADERS`
//! for a collector that wants a token, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_TRACES_SAMPLER`, ...).

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig, WithTonicConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider, SpanData, SpanExporter};

/// How long one export may take before it counts as failed.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(5);

/// A collector's OTLP/gRPC address, as `--otlp-endpoint` takes it: `http://HOST:PORT` or
/// `https://HOST:PORT` (the system's roots are trusted for https).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtlpEndpoint(String);

/// Why an `--otlp-endpoint` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{url}` is not an OTLP/gRPC endpoint: {reason} (expected http://HOST:PORT or \
     https://HOST:PORT, e.g. http://otel-collector:4317)"
)]
pub struct OtlpEndpointError {
    /// The value given.
    pub url: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl FromStr for OtlpEndpoint {
    type Err = OtlpEndpointError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = |reason| OtlpEndpointError {
            url: text.to_string(),
            reason,
        };
        let uri: http::Uri = text.trim().parse().map_err(|_| refuse("not a URL"))?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            Some(_) => return Err(refuse("the scheme must be http or https")),
            None => return Err(refuse("no scheme")),
        }
        match uri.host() {
            Some(host) if !host.is_empty() => {}
            _ => return Err(refuse("no host")),
        }
        Ok(Self(uri.to_string().trim_end_matches('/').to_string()))
    }
}

impl fmt::Display for OtlpEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl OtlpEndpoint {
    /// The URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn is_https(&self) -> bool {
        self.0.starts_with("https:")
    }
}

/// Why the trace export could not be set up or shut down.
#[derive(Debug, thiserror::Error)]
pub enum TraceExportError {
    /// The OTLP exporter refused its settings (e.g. TLS could not be set up).
    #[error("cannot export traces to --otlp-endpoint {endpoint}: {source}")]
    Build {
        endpoint: OtlpEndpoint,
        #[source]
        source: opentelemetry_otlp::ExporterBuildError,
    },
    /// Spans still queued at shutdown could not be sent in time; they are lost.
    #[error("traces: spans not sent to --otlp-endpoint {endpoint} within {within:?}: {reason}")]
    Shutdown {
        endpoint: OtlpEndpoint,
        within: Duration,
        reason: String,
    },
    /// Exports failed while the process ran (the collector was down, say): their spans are lost.
    #[error("traces: {spans} spans could not be sent to --otlp-endpoint {endpoint}: {reason}")]
    Dropped {
        endpoint: OtlpEndpoint,
        spans: u64,
        reason: String,
    },
}

/// A running trace export: the SDK's tracer provider with a batch span processor and the OTLP/gRPC
/// exporter. Give it to [`crate::logging::init`]; call [`shutdown`](Self::shutdown) before the
/// process exits, or the spans still queued are lost.
#[derive(Debug)]
pub struct TraceExport {
    provider: SdkTracerProvider,
    endpoint: OtlpEndpoint,
    failures: Arc<ExportFailures>,
    scope: &'static str,
}

impl TraceExport {
    /// Starts exporting to `endpoint`, the spans' resource naming the service `service_name`
    /// (`orbit-server`, or `orbit` for the CLI). Nothing is sent until spans end, and a collector
    /// that is down is not an error here: its spans are dropped later, with a warning.
    ///
    /// Must be called inside a tokio runtime: the exporter's gRPC channel runs its connection
    /// there.
    ///
    /// # Errors
    /// [`TraceExportError::Build`] if the exporter cannot be built.
    pub fn start(
        endpoint: &OtlpEndpoint,
        service_name: &'static str,
    ) -> Result<Self, TraceExportError> {
        let build_error = |source| TraceExportError::Build {
            endpoint: endpoint.clone(),
            source,
        };
        let mut builder = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .with_endpoint(endpoint.as_str())
            .with_timeout(EXPORT_TIMEOUT);
        if endpoint.is_https() {
            builder = builder
                .with_tls_config(tonic::transport::ClientTlsConfig::new().with_native_roots());
        }
        let exporter = builder.build().map_err(build_error)?;
        let failures = Arc::new(ExportFailures::default());
        let exporter = ReportingExporter {
            inner: exporter,
            endpoint: endpoint.clone(),
            failures: Arc::clone(&failures),
        };
        let provider = SdkTracerProvider::builder()
            .with_resource(Resource::builder().with_service_name(service_name).build())
            .with_batch_exporter(exporter)
            .build();
        Ok(Self {
            provider,
            endpoint: endpoint.clone(),
            failures,
            scope: service_name,
        })
    }

    /// The tracer spans are created with (its instrumentation scope named after the service).
    pub fn tracer(&self) -> SdkTracer {
        self.provider.tracer(self.scope)
    }

    /// Where spans go.
    pub fn endpoint(&self) -> &OtlpEndpoint {
        &self.endpoint
    }

    /// Sends the spans still queued and stops the exporter, waiting at most `within`. Blocking
    /// work, done off the async runtime (whose threads the exporter's channel needs meanwhile).
    ///
    /// # Errors
    /// [`TraceExportError::Shutdown`] if the queue could not be sent in time, else
    /// [`TraceExportError::Dropped`] if any export failed since the start.
    pub async fn shutdown(self, within: Duration) -> Result<(), TraceExportError> {
        let provider = self.provider;
        let result =
            tokio::task::spawn_blocking(move || provider.shutdown_with_timeout(within)).await;
        let reason = match result {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(reason) = reason {
            return Err(TraceExportError::Shutdown {
                endpoint: self.endpoint,
                within,
                reason,
            });
        }
        match self.failures.dropped.load(Ordering::Relaxed) {
            0 => Ok(()),
            spans => Err(TraceExportError::Dropped {
                endpoint: self.endpoint,
                spans,
                reason: self.failures.last_error().unwrap_or_default(),
            }),
        }
    }
}

/// Failed exports: how many spans were lost, whether exports fail now, and the last reason.
#[derive(Debug, Default)]
struct ExportFailures {
    dropped: AtomicU64,
    failing: AtomicBool,
    last_error: Mutex<Option<String>>,
}

impl ExportFailures {
    fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

/// The OTLP exporter, reporting failures: a warning when exports start failing (the spans of each
/// failed batch are dropped), a line when they succeed again. The SDK alone would say nothing
/// without its internal logs, or an error per batch with them.
#[derive(Debug)]
struct ReportingExporter {
    inner: opentelemetry_otlp::SpanExporter,
    endpoint: OtlpEndpoint,
    failures: Arc<ExportFailures>,
}

impl SpanExporter for ReportingExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len() as u64;
        let result = self.inner.export(batch).await;
        let failures = &self.failures;
        match &result {
            Ok(()) => {
                if failures.failing.swap(false, Ordering::Relaxed) {
                    tracing::info!(
                        endpoint = %self.endpoint,
                        dropped_total = failures.dropped.load(Ordering::Relaxed),
                        "traces: exporting again"
                    );
                }
            }
            Err(e) => {
                failures.dropped.fetch_add(spans, Ordering::Relaxed);
                *failures
                    .last_error
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(e.to_string());
                if !failures.failing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        endpoint = %self.endpoint,
                        error = %e,
                        "traces: cannot export to --otlp-endpoint; dropping spans until it answers"
                    );
                }
            }
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_must_be_http_or_https_urls_with_a_host() {
        let ok: OtlpEndpoint = "http://127.0.0.1:4317".parse().expect("valid");
        assert_eq!(ok.as_str(), "http://127.0.0.1:4317");
        let ok: OtlpEndpoint = " https://collector.example:4317/ ".parse().expect("valid");
        assert_eq!(ok.to_string(), "https://collector.example:4317");
        for (bad, reason) in [
            ("collector:4317", "no scheme"),
            ("ftp://collector:4317", "the scheme must be http or https"),
            ("not a url", "not a URL"),
            ("/v1/traces", "no scheme"),
        ] {
            let err = bad.parse::<OtlpEndpoint>().expect_err(bad);
            assert_eq!(err.reason, reason, "{bad}");
            assert!(err.to_string().contains(bad.trim()), "{err}");
        }
    }
}
