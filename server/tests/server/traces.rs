//! Traces: the `orbit-server` binary with `--otlp-endpoint` pointing at an OTLP/gRPC collector in
//! this process (`otlp_collector.rs`). A call continues the caller's W3C `traceparent`; its job is a child span with
//! the kind, queue wait and run time; a malformed `traceparent` starts a new trace; stored
//! batches' jobs are traced; a collector that is down holds nothing up.
//!
//! The server runs as a process of its own because its spans go through the process's global
//! `tracing` subscriber. Spans are read after SIGTERM: the server sends what it still holds
//! before it exits, so the collector has everything once the process is gone.

use std::collections::{BTreeSet, HashMap};
use std::process::{Child, Command};
use std::time::Duration;

use futures::StreamExt;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use orbit_client::Client;

use crate::common::{game_job, spawn_orbit_server};
use crate::otlp_collector::{Collector, Received};

/// The caller's context the tests send: trace id and the caller's span id.
const TRACE_ID: &str = "5a3ec2f1d0b9a8776655443322110fed";
const CALLER_SPAN_ID: &str = "1f2e3d4c5b6a7988";

/// How long a stopped server may take to flush its spans and exit.
const EXIT_WITHIN: Duration = Duration::from_secs(20);

/// Stops the server with SIGTERM and waits for its exit status, which must be 0.
async fn stop(child: Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let mut child = child;
    let exit = tokio::time::timeout(
        EXIT_WITHIN,
        tokio::task::spawn_blocking(move || child.wait()),
    )
    .await
    .expect("the server exits in time")
    .expect("join")
    .expect("wait");
    assert_eq!(exit.code(), Some(0));
}

/// A request carrying `traceparent`.
fn with_traceparent<T>(message: T, traceparent: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("traceparent", traceparent.parse().expect("ASCII header"));
    request
}

#[tokio::test]
async fn a_call_continues_the_callers_trace_and_its_job_is_a_child_span() {
    let collector = Collector::start().await;
    let (child, url, _logs) = spawn_orbit_server(None, &["--otlp-endpoint", &collector.url]);
    let mut client = Client::connect(&url).await.expect("connect");
    let traceparent = format!("00-{TRACE_ID}-{CALLER_SPAN_ID}-01");

    let answer = client
        .raw()
        .solve(with_traceparent(
            game_job("traced", 2, &[(0, 1)]),
            &traceparent,
        ))
        .await
        .expect("solve")
        .into_inner();
    assert_eq!(answer.id, "traced");

    // A stream's jobs are children of the stream's call span too.
    let jobs = futures::stream::iter([game_job("streamed", 2, &[(0, 1)])]);
    let events: Vec<_> = client
        .raw()
        .solve_stream(with_traceparent(jobs, &traceparent))
        .await
        .expect("SolveStream")
        .into_inner()
        .collect()
        .await;
    assert!(events.iter().all(Result::is_ok), "{events:?}");

    // Health checks are not traced.
    client.health("").await.expect("health");
    stop(child).await;

    let spans = collector.spans();
    let calls: HashMap<&str, &Received> = spans
        .iter()
        .filter(|s| s.span.kind == SpanKind::Server as i32)
        .map(|s| (s.span.name.as_str(), s))
        .collect();
    assert_eq!(
        calls.keys().copied().collect::<BTreeSet<_>>(),
        ["orbit.v1.Orbit/Solve", "orbit.v1.Orbit/SolveStream"].into(),
        "{spans:#?}"
    );
    for (name, call) in &calls {
        assert_eq!(call.service, "orbit-server");
        assert_eq!(call.trace_id(), TRACE_ID, "{name}: the caller's trace");
        assert_eq!(
            call.parent_id(),
            CALLER_SPAN_ID,
            "{name}: the caller's span"
        );
        assert_eq!(call.string("rpc.system"), Some("grpc"));
        assert_eq!(call.string("rpc.service"), Some("orbit.v1.Orbit"));
        assert_eq!(call.int("rpc.grpc.status_code"), Some(0), "{name}: OK");
    }
    assert_eq!(
        calls["orbit.v1.Orbit/Solve"].string("rpc.method"),
        Some("Solve")
    );

    for (job_id, call) in [
        ("traced", "orbit.v1.Orbit/Solve"),
        ("streamed", "orbit.v1.Orbit/SolveStream"),
    ] {
        let job = spans
            .iter()
            .find(|s| s.span.name == "job" && s.string("id") == Some(job_id))
            .unwrap_or_else(|| panic!("a span for job {job_id}: {spans:#?}"));
        assert_eq!(job.trace_id(), TRACE_ID, "{job_id}: in the caller's trace");
        assert_eq!(
            job.parent_id(),
            calls[call].span_id(),
            "{job_id}: a child of its call"
        );
        assert_eq!(job.string("kind"), Some("game"));
        assert_eq!(job.string("outcome"), Some("ok"));
        let queue_ms = job.double("queue_ms").expect("queue wait recorded");
        let run_ms = job.double("run_ms").expect("run time recorded");
        assert!(queue_ms >= 0.0 && run_ms >= 0.0, "{queue_ms} {run_ms}");
    }
}

#[tokio::test]
async fn a_malformed_traceparent_is_ignored_and_starts_a_new_trace() {
    let collector = Collector::start().await;
    let (child, url, _logs) = spawn_orbit_server(None, &["--otlp-endpoint", &collector.url]);
    let mut client = Client::connect(&url).await.expect("connect");
    // Upper-case hex: not a traceparent (W3C Trace Context wants lowercase).
    let malformed = format!("00-{}-{CALLER_SPAN_ID}-01", TRACE_ID.to_uppercase());
    let answer = client
        .raw()
        .solve(with_traceparent(
            game_job("untraced", 2, &[(0, 1)]),
            &malformed,
        ))
        .await
        .expect("the call goes on")
        .into_inner();
    assert_eq!(answer.id, "untraced");
    stop(child).await;

    let spans = collector.spans();
    let call = spans
        .iter()
        .find(|s| s.span.name == "orbit.v1.Orbit/Solve")
        .unwrap_or_else(|| panic!("the call's span: {spans:#?}"));
    assert!(call.span.parent_span_id.is_empty(), "a root span: {call:?}");
    assert_ne!(call.trace_id(), TRACE_ID);
    assert_ne!(call.trace_id(), "0".repeat(32));
    let job = spans
        .iter()
        .find(|s| s.span.name == "job")
        .expect("the job's span");
    assert_eq!(job.trace_id(), call.trace_id());
    assert_eq!(job.parent_id(), call.span_id());
}

#[tokio::test]
async fn stored_batch_jobs_are_traced() {
    let collector = Collector::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let store = format!("sqlite:{}", dir.path().join("batches.db").display());
    let (child, url, _logs) =
        spawn_orbit_server(Some(&store), &["--otlp-endpoint", &collector.url]);
    let client = Client::connect(&url).await.expect("connect");
    let mut batches = client.batches();
    let batch = batches
        .create_batch(
            "traced-batch",
            "traced",
            futures::stream::iter([game_job("batch-job", 2, &[(0, 1)])]),
        )
        .await
        .expect("CreateBatch");
    let events: Vec<_> = batches
        .watch_batch(&batch.id, 0, true)
        .await
        .expect("WatchBatch")
        .collect()
        .await;
    assert_eq!(events.len(), 1, "{events:?}");
    stop(child).await;

    let spans = collector.spans();
    let job = spans
        .iter()
        .find(|s| s.span.name == "job" && s.string("id") == Some("batch-job"))
        .unwrap_or_else(|| panic!("the batch job's span: {spans:#?}"));
    assert_eq!(job.string("kind"), Some("game"));
    assert_eq!(job.string("outcome"), Some("ok"));
    assert!(job.double("queue_ms").is_some() && job.double("run_ms").is_some());
}

#[tokio::test]
async fn a_collector_that_is_down_holds_no_call_up() {
    // A port nobody listens on any more.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("http://{}", listener.local_addr().expect("bound"))
    };
    let (child, url, logs) = spawn_orbit_server(None, &["--otlp-endpoint", &closed]);
    let mut client = Client::connect(&url).await.expect("connect");
    let started = std::time::Instant::now();
    for i in 0..5 {
        let answer = client
            .solve(game_job(&format!("j{i}"), 2, &[(0, 1)]))
            .await
            .expect("answered");
        assert_eq!(answer.id, format!("j{i}"));
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    stop(child).await;
    // The lost spans are reported (the log is read to its end: the process is gone).
    let warned = logs.iter().any(|line| {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        v["level"] == "WARN" && line.contains("--otlp-endpoint")
    });
    assert!(warned, "no warning about the spans not sent");
}

#[test]
fn a_bad_otlp_endpoint_stops_the_start_naming_the_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_orbit-server"))
        .args([
            "--otlp-endpoint",
            "collector:4317",
            "--listen",
            "127.0.0.1:0",
        ])
        .env("ORBIT_STORE", "none")
        .output()
        .expect("orbit-server runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--otlp-endpoint"), "{stderr}");
    assert!(stderr.contains("collector:4317"), "{stderr}");
}
