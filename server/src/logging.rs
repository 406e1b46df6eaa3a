//! Log set-up: tracing-subscriber with an `RUST_LOG` filter (default `info`) and text or JSON lines
//! on stderr. Each job runs in a span (`job{id, kind, queue_ms, run_ms, outcome}`).
//!
//! With a [`TraceExport`] (`--otlp-endpoint`), the same spans also go to OpenTelemetry through
//! `tracing-opentelemetry`, under a filter of their own: `RUST_LOG` chooses log lines, not what is
//! traced. Traces take this crate's spans down to debug level, so stored batches' jobs (whose
//! spans are at debug to keep them out of the logs, see `dispatcher::batch_job_span`) are traced
//! too, and the debug events inside spans become span events. The call spans
//! ([`crate::layers::trace_context`]) are for traces only: the log lines stay as they are
//! without an exporter.

use std::io::IsTerminal;

use tracing::Level;
use tracing_subscriber::filter::{FilterExt, LevelFilter, Targets, filter_fn};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::config::LogFormat;
use crate::layers::trace_context;
use crate::traces::TraceExport;

/// Installs the global subscriber, exporting spans to `traces` if given. Safe to call more than
/// once (later calls do nothing), so tests and the CLI's embedded server can share it.
pub fn init(format: LogFormat, default_filter: &str, traces: Option<&TraceExport>) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        // Colour codes only for a terminal, not in files or log collectors.
        .with_ansi(std::io::stderr().is_terminal());
    let lines = match format {
        LogFormat::Text => lines.boxed(),
        LogFormat::Json => lines
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .boxed(),
    };
    // No level of its own: the filter's level hint stays `RUST_LOG`'s, so disabled log macros
    // still cost a single comparison.
    let not_a_call_span = filter_fn(|metadata| !trace_context::is_call_span(metadata))
        .with_max_level_hint(LevelFilter::TRACE);
    let spans = traces.map(|traces| {
        tracing_opentelemetry::layer()
            .with_tracer(traces.tracer())
            // Attributes are the spans' own fields; no source locations, threads or busy/idle
            // times.
            .with_location(false)
            .with_threads(false)
            .with_tracked_inactivity(false)
            .with_filter(Targets::new().with_target(env!("CARGO_CRATE_NAME"), Level::DEBUG))
    });
    let _ = tracing_subscriber::registry()
        .with(lines.with_filter(filter.and(not_a_call_span)))
        .with(spans)
        .try_init();
}
