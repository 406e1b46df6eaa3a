//! The `orbit` command's trace: every call carries a W3C `traceparent` in the command's trace —
//! `TRACEPARENT`'s trace when it is set — seen by a server that records the headers it gets; and
//! with `--otlp-endpoint` the command's span and the embedded server's spans reach an OTLP
//! collector in this process as one trace.

use std::collections::HashSet;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use orbit_api::v1::orbit_server::OrbitServer;
use orbit_client::TraceContext;
use orbit_server::ServerConfig;
use orbit_server::dispatcher::Dispatcher;
use orbit_server::service::OrbitService;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

// The server's tests use all of it; these, a part.
#[allow(dead_code)]
#[path = "../../../../server/tests/server/otlp_collector.rs"]
mod otlp_collector;

use otlp_collector::Collector;

/// The context a parent process hands `orbit` (W3C Trace Context's own example).
const PARENT_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN: &str = "b7ad6b7169203331";
const TRACESTATE: &str = "congo=t61rcWkgMzE";

fn traceparent() -> String {
    format!("00-{PARENT_TRACE}-{PARENT_SPAN}-01")
}

/// Runs `orbit` with `args` and `env` (from the repository root, so `examples/` resolve), off the
/// async runtime, which serves meanwhile.
async fn orbit(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_orbit"));
    command
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("ORBIT_SERVER")
        .env_remove("ORBIT_OTLP_ENDPOINT")
        .env_remove("TRACEPARENT")
        .env_remove("TRACESTATE");
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("run orbit"))
        .await
        .expect("join")
}

/// The `traceparent` and `tracestate` headers of one call.
type CallHeaders = (Option<String>, Option<String>);

/// An Orbit server (the real service) on a loopback port that records the trace headers of every
/// call it gets.
async fn recording_server() -> (String, Arc<Mutex<Vec<CallHeaders>>>) {
    let config = ServerConfig {
        workers: Some(1),
        ..ServerConfig::default()
    };
    let dispatcher = Dispatcher::new(1, config.queue_capacity, 0, config.limits())
        .expect("worker threads start");
    let (closing_tx, closing_rx) = watch::channel(false);
    let service = OrbitService::new(Arc::new(dispatcher), closing_rx, config.stream_settings());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = {
        let seen = Arc::clone(&seen);
        move |request: tonic::Request<()>| {
            let header = |name| {
                request
                    .metadata()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let headers = (header("traceparent"), header("tracestate"));
            seen.lock().expect("lock").push(headers);
            Ok(request)
        }
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("bound"));
    tokio::spawn(async move {
        let _open = closing_tx;
        Server::builder()
            .add_service(OrbitServer::with_interceptor(service, record))
            .serve_with_incoming(TcpIncoming::from(listener))
            .await
    });
    (url, seen)
}

/// The contexts of the calls recorded since the last take; every call must have sent one.
fn take_contexts(seen: &Mutex<Vec<CallHeaders>>) -> Vec<(TraceContext, Option<String>)> {
    let calls = std::mem::take(&mut *seen.lock().expect("lock"));
    assert!(!calls.is_empty(), "no call reached the server");
    calls
        .into_iter()
        .map(|(traceparent, tracestate)| {
            let traceparent = traceparent.expect("every call sends a traceparent");
            let context = traceparent
                .parse::<TraceContext>()
                .unwrap_or_else(|e| panic!("{e}"));
            (context, tracestate)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_of_a_command_carries_its_trace_continuing_traceparent() {
    let (url, seen) = recording_server().await;
    let run = [
        "--server",
        url.as_str(),
        "cop-thief",
        "examples/cop-thief.txt",
    ];

    // TRACEPARENT set: the command's calls are in that trace, under a span of the command's own.
    let traceparent = traceparent();
    let out = orbit(
        &run,
        &[("TRACEPARENT", &traceparent), ("TRACESTATE", TRACESTATE)],
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "thief 2\n");
    assert!(out.stderr.is_empty(), "{out:?}");
    let calls = take_contexts(&seen);
    let command_span = calls[0].0.parent_id();
    for (context, tracestate) in &calls {
        assert_eq!(context.trace_id_hex(), PARENT_TRACE);
        assert!(context.sampled());
        assert_eq!(context.parent_id(), command_span, "one span per command");
        assert_eq!(tracestate.as_deref(), Some(TRACESTATE));
    }
    let parent: TraceContext = traceparent.parse().expect("valid");
    assert_ne!(
        command_span,
        parent.parent_id(),
        "the command's span is its own, a child of TRACEPARENT's"
    );

    // No TRACEPARENT: each command starts a trace of its own, still sent.
    let mut traces = HashSet::new();
    for _ in 0..2 {
        let out = orbit(&["--server", url.as_str(), "info"], &[]).await;
        assert!(out.status.success(), "{out:?}");
        for (context, tracestate) in take_contexts(&seen) {
            assert_ne!(context.trace_id_hex(), PARENT_TRACE);
            assert_eq!(tracestate, None);
            traces.insert(context.trace_id());
        }
    }
    assert_eq!(traces.len(), 2, "a new trace per command");

    // A TRACEPARENT that is not one is said so and ignored: a new trace, the command succeeds.
    let out = orbit(&run, &[("TRACEPARENT", "00-not-a-trace-01")]).await;
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("TRACEPARENT ignored"), "{stderr}");
    for (context, _) in take_contexts(&seen) {
        assert_ne!(context.trace_id_hex(), PARENT_TRACE);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_endpoint_exports_the_command_and_its_embedded_server_as_one_trace() {
    let collector = Collector::start().await;
    let traceparent = traceparent();
    let out = orbit(
        &[
            "--otlp-endpoint",
            &collector.url,
            "cop-thief",
            "examples/cop-thief.txt",
        ],
        &[("TRACEPARENT", &traceparent)],
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "thief 2\n");

    // The command flushes its spans before it exits.
    let spans = collector.spans();
    let find = |name: &str| {
        spans
            .iter()
            .find(|s| s.span.name == name)
            .unwrap_or_else(|| panic!("a span {name}: {spans:#?}"))
    };
    let command = find("orbit cop-thief");
    assert_eq!(command.service, "orbit");
    assert_eq!(command.trace_id(), PARENT_TRACE);
    assert_eq!(command.parent_id(), PARENT_SPAN);
    assert_eq!(command.string("process.executable.name"), Some("orbit"));
    assert_eq!(command.string("orbit.command"), Some("cop-thief"));
    assert_eq!(command.int("process.exit.code"), Some(0));
    let call = find("orbit.v1.Orbit/Solve");
    assert_eq!(call.trace_id(), PARENT_TRACE);
    assert_eq!(call.parent_id(), command.span_id());
    let job = find("job");
    assert_eq!(job.trace_id(), PARENT_TRACE);
    assert_eq!(job.parent_id(), call.span_id());
    assert_eq!(job.string("kind"), Some("cop_thief"));
}

#[tokio::test]
async fn a_bad_otlp_endpoint_is_refused_naming_the_flag() {
    let out = orbit(&["--otlp-endpoint", "localhost:4317", "info"], &[]).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--otlp-endpoint"), "{stderr}");
}
