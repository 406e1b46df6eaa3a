//! The `orbit-server` binary as an operator runs it: JSON logs with one span per job, and SIGTERM
//! draining to a clean exit 0.

use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::Duration;

use orbit_client::{Client, pb};

/// Starts the binary on a free loopback port (no batch store); returns the child, its URL and
/// its stderr lines.
fn spawn_server(extra: &[&str]) -> (Child, String, mpsc::Receiver<String>) {
    crate::common::spawn_orbit_server(None, extra)
}

fn sigterm(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

#[tokio::test]
async fn json_logs_carry_one_span_per_job_and_sigterm_exits_zero() {
    let (mut child, url, logs) = spawn_server(&[]);
    let mut client = Client::connect(&url).await.expect("connect");
    let job = pb::Job {
        id: "logged-job".into(),
        options: None,
        kind: Some(pb::job::Kind::Game(pb::GameGraphJob {
            vertices: 2,
            edges: vec![pb::Edge { from: 0, to: 1 }],
            query: vec![],
            ..Default::default()
        })),
    };
    client.solve(job).await.expect("solve");
    // The job's log line carries its span: id, kind, queue wait, run time, outcome.
    let span = loop {
        let line = logs
            .recv_timeout(Duration::from_secs(10))
            .expect("a job log line");
        let v: serde_json::Value = serde_json::from_str(&line).expect("JSON log line");
        if v["fields"]["message"] == "job finished" {
            break v["span"].clone();
        }
    };
    assert_eq!(span["id"], "logged-job");
    assert_eq!(span["kind"], "game");
    assert_eq!(span["outcome"], "ok");
    assert!(
        span["queue_ms"].is_number() && span["run_ms"].is_number(),
        "{span}"
    );

    sigterm(&child);
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .expect("join")
        .expect("wait");
    assert_eq!(status.code(), Some(0));
}

#[tokio::test]
async fn sigterm_lets_a_running_job_finish_within_the_grace_period() {
    let (mut child, url, _logs) = spawn_server(&["--shutdown-grace", "30"]);
    let mut client = Client::connect(&url).await.expect("connect");
    let rows: Vec<String> = (0..40)
        .map(|r| {
            (0..40)
                .map(|c| {
                    if (r, c) == (0, 0) {
                        'C'
                    } else if (r, c) == (39, 39) {
                        'T'
                    } else {
                        '.'
                    }
                })
                .collect()
        })
        .collect();
    let job = pb::Job {
        id: "drained".into(),
        options: None,
        kind: Some(pb::job::Kind::CopThief(pb::CopThiefJob {
            rows,
            queries: vec![],
            ..Default::default()
        })),
    };
    let mut caller = client.clone();
    let running = tokio::spawn(async move { caller.solve(job).await });
    // Wait until it runs, then ask the server to stop.
    loop {
        if client.info().await.expect("info").busy_workers == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    sigterm(&child);
    let result = running
        .await
        .expect("task")
        .expect("the running job is answered");
    assert_eq!(result.id, "drained");
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .expect("join")
        .expect("wait");
    assert_eq!(status.code(), Some(0));
}

/// The test-only fault hooks are flags of the binary but stay out of the operator's `--help`.
#[test]
fn the_test_hooks_stay_out_of_the_help() {
    let output = Command::new(env!("CARGO_BIN_EXE_orbit-server"))
        .arg("--help")
        .output()
        .expect("orbit-server --help runs");
    assert!(output.status.success(), "{output:?}");
    let help = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(help.contains("--workers"), "{help}");
    for hidden in ["--test-abort-on-job-id", "--test-panic-on-job-id"] {
        assert!(!help.contains(hidden), "{hidden} in {help}");
    }
}
