//! The trace of one `orbit` command: a span for the command, whose W3C trace context every call of
//! the command sends (`traceparent`, through `orbit_client::TracePropagation`), so a server that
//! exports traces puts its call and job spans under it.
//!
//! The command continues the trace in the `TRACEPARENT` environment variable (and passes
//! `TRACESTATE` on), as OpenTelemetry's "environment variables as context propagation carriers"
//! specification has a parent process hand its context to a child; a value that is not a valid
//! W3C `traceparent` is reported and ignored. Otherwise the command starts a new trace.
//!
//! With `--otlp-endpoint` the command's span is exported (service `orbit`), shaped as
//! OpenTelemetry's semantic conventions for CLI programs say: kind INTERNAL, attributes
//! `process.executable.name`, `process.pid`, `process.exit.code` (and `error.type` when it is not
//! 0), named `orbit COMMAND` (e.g. `orbit group`, the conventions allowing a documented,
//! low-cardinality name that says more than the executable's), with the command in
//! `orbit.command`. The embedded server's spans go to the same collector. Without it nothing is
//! exported and no exporter is started: the ids are made here, which costs nothing.

use std::process::ExitCode;
use std::time::Duration;

use opentelemetry::trace::{
    Span as _, SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId,
    TraceState, Tracer as _,
};
use opentelemetry::{Context, KeyValue};
use orbit_client::TraceContext;
use orbit_server::traces::{OtlpEndpoint, TraceExport, TraceExportError};

/// The environment variables a parent process hands its trace context in.
const TRACEPARENT_VAR: &str = "TRACEPARENT";
const TRACESTATE_VAR: &str = "TRACESTATE";

/// How long the command's spans may take to reach the collector when it ends: a command never
/// waits longer on a collector that is down.
const FLUSH_WITHIN: Duration = Duration::from_secs(3);

/// A command's trace, from its start to [`finish`](Self::finish).
#[derive(Debug)]
pub struct CommandTrace {
    /// What the command's calls send: the command's span as their parent.
    context: TraceContext,
    /// With `--otlp-endpoint`: the exporter and the command's span.
    exported: Option<(TraceExport, opentelemetry_sdk::trace::Span)>,
}

impl CommandTrace {
    /// Starts the trace of `command` (its name, e.g. `group`), exporting it to `otlp_endpoint`
    /// if given. Reads `TRACEPARENT` and `TRACESTATE`.
    ///
    /// # Errors
    /// If the exporter cannot be set up (e.g. TLS for an https:// endpoint).
    pub fn start(
        command: &'static str,
        otlp_endpoint: Option<&OtlpEndpoint>,
    ) -> Result<Self, TraceExportError> {
        let parent = parent_from_environment();
        let Some(endpoint) = otlp_endpoint else {
            let context = match &parent {
                Some(parent) => parent.child(),
                None => TraceContext::new_root(),
            };
            return Ok(Self {
                context,
                exported: None,
            });
        };
        let export = TraceExport::start(endpoint, "orbit")?;
        let tracer = export.tracer();
        let span = tracer
            .span_builder(format!("orbit {command}"))
            .with_kind(SpanKind::Internal)
            .with_attributes([
                KeyValue::new("process.executable.name", "orbit"),
                KeyValue::new("process.pid", i64::from(std::process::id())),
                KeyValue::new("orbit.command", command),
            ])
            .start_with_context(&tracer, &otel_parent(parent.as_ref()));
        let ids = span.span_context();
        let context = TraceContext::from_parts(
            ids.trace_id().to_bytes(),
            ids.span_id().to_bytes(),
            ids.is_sampled(),
        )
        // The SDK never makes all-zero ids; should it, the calls still carry a valid context.
        .unwrap_or_else(|_| TraceContext::new_root());
        let context = match parent.as_ref().and_then(TraceContext::tracestate) {
            Some(state) => context.with_tracestate(state),
            None => context,
        };
        Ok(Self {
            context,
            exported: Some((export, span)),
        })
    }

    /// The context the command's calls send.
    pub fn context(&self) -> &TraceContext {
        &self.context
    }

    /// The exporter, with `--otlp-endpoint`: the embedded server's spans go there too.
    pub fn export(&self) -> Option<&TraceExport> {
        self.exported.as_ref().map(|(export, _)| export)
    }

    /// Ends the command's span with its outcome and sends what is left to export, reporting on
    /// stderr spans that could not be sent.
    pub async fn finish(self, outcome: &anyhow::Result<ExitCode>) {
        let Some((export, mut span)) = self.exported else {
            return;
        };
        let exit_code = match outcome {
            Ok(code) => exit_code_number(*code),
            Err(_) => 1,
        };
        span.set_attribute(KeyValue::new("process.exit.code", exit_code));
        if exit_code != 0 {
            span.set_attribute(KeyValue::new("error.type", exit_code.to_string()));
            let description = match outcome {
                Err(e) => format!("{e:#}"),
                Ok(_) => format!("exit status {exit_code}"),
            };
            span.set_status(Status::error(description));
        }
        span.end();
        if let Err(e) = export.shutdown(FLUSH_WITHIN).await {
            eprintln!("orbit: {e}");
        }
    }
}

/// The trace context in `TRACEPARENT` (with `TRACESTATE`), if set and valid; an invalid one is
/// reported on stderr and ignored.
fn parent_from_environment() -> Option<TraceContext> {
    let traceparent = std::env::var(TRACEPARENT_VAR).ok()?;
    match traceparent.parse::<TraceContext>() {
        Ok(parent) => Some(match std::env::var(TRACESTATE_VAR) {
            Ok(state) => parent.with_tracestate(&state),
            Err(_) => parent,
        }),
        Err(e) => {
            eprintln!("orbit: {TRACEPARENT_VAR} ignored, starting a new trace: {e}");
            None
        }
    }
}

/// `parent` as the OpenTelemetry context a span is started in (an empty one: a new trace).
fn otel_parent(parent: Option<&TraceContext>) -> Context {
    let Some(parent) = parent else {
        return Context::new();
    };
    let flags = if parent.sampled() {
        TraceFlags::SAMPLED
    } else {
        TraceFlags::default()
    };
    let state = parent
        .tracestate()
        .and_then(|state| state.parse::<TraceState>().ok())
        .unwrap_or_default();
    Context::new().with_remote_span_context(SpanContext::new(
        TraceId::from_bytes(parent.trace_id()),
        SpanId::from_bytes(parent.parent_id()),
        flags,
        true,
        state,
    ))
}

/// The number a process exit code stands for (`ExitCode` does not say).
fn exit_code_number(code: ExitCode) -> i64 {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .map_or(1, i64::from)
}
