//! `orbit-server` processes sharing a batch store: the only replica on SQLite killed and
//! restarted, a job that kills every replica that runs it, three replicas on one PostgreSQL with
//! one SIGKILLed, and PostgreSQL stopped for ten seconds under a running batch.
//!
//! PostgreSQL comes from `.ci/postgres` (Debian's postgresql package, a throwaway cluster in a
//! temporary directory on a free loopback port).

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use orbit_api::v1::batches_client::BatchesClient;
use orbit_client::{Client, pb};
use tonic_health::pb::health_check_response::ServingStatus;

use super::{
    assert_same_answers, batches_client, check_exactly_once, counts, create, get, random_jobs,
    slow_job, solve_alone, wait_for, watch,
};

/// One `orbit-server` process; killed when dropped.
struct Replica {
    child: Child,
    url: String,
}

impl Replica {
    /// Starts `orbit-server --store STORE` with one worker on a free loopback port.
    fn spawn(store: &str, extra: &[&str]) -> Self {
        let flags: Vec<&str> = ["--shutdown-grace", "0"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let (child, url, _logs) = crate::common::spawn_orbit_server(Some(store), &flags);
        Self { child, url }
    }

    /// SIGKILL: no drain, leases left to expire.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the process has exited.
    fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A loopback port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A throwaway PostgreSQL cluster; stopped and removed when dropped.
struct Postgres {
    dir: tempfile::TempDir,
    port: u16,
    url: String,
}

impl Postgres {
    fn script() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.ci/postgres"))
    }

    fn start() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("orbit-pg")
            .tempdir_in("/tmp")
            .expect("a directory for the cluster");
        let port = free_port();
        let url = Self::run(&[
            "start",
            &dir.path().display().to_string(),
            &port.to_string(),
        ]);
        Self { dir, port, url }
    }

    /// `.ci/postgres ARGS`; its stdout.
    fn run(args: &[&str]) -> String {
        let output = Command::new("bash")
            .arg(Self::script())
            .args(args)
            .output()
            .expect("run .ci/postgres");
        assert!(
            output.status.success(),
            ".ci/postgres {args:?} failed (the tests need Debian's postgresql package; .ci/run \
             installs it): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout)
            .expect("UTF-8")
            .trim()
            .to_string()
    }

    fn stop(&self) {
        Self::run(&[
            "stop",
            &self.dir.path().display().to_string(),
            "--immediate",
        ]);
    }

    fn restart(&self) {
        let url = Self::run(&[
            "start",
            &self.dir.path().display().to_string(),
            &self.port.to_string(),
        ]);
        assert_eq!(url, self.url);
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(Self::script())
            .args([
                "stop",
                &self.dir.path().display().to_string(),
                "--immediate",
            ])
            .output();
    }
}

/// Mixed small jobs with every third one a few milliseconds long, so that a batch of a thousand
/// or two runs for seconds on one worker.
fn mixed_jobs(seed: u64, n: usize, prefix: &str) -> Vec<pb::Job> {
    random_jobs(seed, n, prefix)
        .into_iter()
        .enumerate()
        .map(|(i, job)| {
            if i % 3 == 0 {
                slow_job(&job.id, 14)
            } else {
                job
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_only_replica_on_sqlite_killed_and_restarted_finishes_the_batch() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = format!("sqlite:{}", dir.path().join("batches.db").display());
    let lease = ["--lease-timeout", "1"];
    let mut replica = Replica::spawn(&store, &lease);
    let jobs = mixed_jobs(11, 1500, "restart");
    let mut client = batches_client(&replica.url).await;
    let batch = create(&mut client, "restart", "", jobs.clone())
        .await
        .expect("CreateBatch");
    let before = wait_for(
        &mut client,
        &batch.id,
        Duration::from_secs(60),
        "some jobs to finish",
        |b| counts(b).finished >= 100,
    )
    .await;
    replica.kill();
    assert!(
        counts(&before).finished < 1500,
        "the batch finished before the kill: the test needs longer jobs"
    );

    let replica = Replica::spawn(&store, &lease);
    let mut client = batches_client(&replica.url).await;
    let events = watch(&mut client, &batch.id, 0, true).await;
    let answers = check_exactly_once(&jobs, &events);
    assert_same_answers(&answers, &solve_alone(&replica.url, &jobs).await);
    let batch = get(&mut client, &batch.id).await.expect("GetBatch");
    assert_eq!(batch.state(), pb::BatchState::Done);
    assert_eq!(counts(&batch).finished, 1500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_kills_its_replica_fails_after_max_attempts() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = format!("sqlite:{}", dir.path().join("batches.db").display());
    let flags = [
        "--lease-timeout",
        "1",
        "--max-attempts",
        "2",
        "--test-abort-on-job-id",
        "poison",
    ];
    let mut jobs = random_jobs(12, 30, "healthy");
    jobs[10].id = "poison".into();
    let mut replica = Replica::spawn(&store, &flags);
    let mut lives = 1;
    // The replica may die before the create is answered: a create retried with the same request
    // id goes on where it stopped.
    // It may also die while the client connects (the connection reset): then it is started
    // again as well.
    let batch = loop {
        let Ok(mut client) = BatchesClient::connect(replica.url.clone()).await else {
            if replica.exited() {
                replica = Replica::spawn(&store, &flags);
                lives += 1;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        match create(&mut client, "poison", "", jobs.clone()).await {
            Ok(batch) => break batch,
            Err(_) => {
                while !replica.exited() {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                replica = Replica::spawn(&store, &flags);
                lives += 1;
            }
        }
    };
    // A supervisor, as Kubernetes would be: a replica that dies is started again.
    let start = Instant::now();
    let finished = loop {
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "the batch finishes"
        );
        if replica.exited() {
            replica = Replica::spawn(&store, &flags);
            lives += 1;
        }
        // (Connecting fails when the replica dies meanwhile: it is started again above.)
        if let Ok(mut client) = BatchesClient::connect(replica.url.clone()).await
            && let Ok(batch) = get(&mut client, &batch.id).await
            && batch.state() == pb::BatchState::Done
        {
            break batch;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        lives, 3,
        "two runs of the poison job, each killing its replica"
    );
    let mut client = batches_client(&replica.url).await;
    let answers = check_exactly_once(&jobs, &watch(&mut client, &finished.id, 0, false).await);
    match &answers[10].event {
        Some(pb::job_event::Event::Error(e)) => {
            assert_eq!(e.code, tonic::Code::Aborted as i32, "{e:?}");
            assert!(e.message.contains("--max-attempts"), "{}", e.message);
            // The google.rpc details as typed fields: the reason and the flag's value.
            assert_eq!(e.reason, "ATTEMPTS_EXHAUSTED", "{e:?}");
            assert_eq!(
                e.metadata.get("max_attempts").map(String::as_str),
                Some("2"),
                "{e:?}"
            );
        }
        other => panic!("the poison job failed, not {other:?}"),
    }
    let mut others = jobs.clone();
    others.remove(10);
    let mut other_answers = answers.clone();
    other_answers.remove(10);
    assert_same_answers(&other_answers, &solve_alone(&replica.url, &others).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_on_postgres_share_a_batch_and_survive_a_sigkill() {
    let postgres = Postgres::start();
    let lease = ["--lease-timeout", "2"];
    let submitter = Replica::spawn(&postgres.url, &lease);
    let watcher = Replica::spawn(&postgres.url, &lease);
    let mut victim = Replica::spawn(&postgres.url, &lease);
    let jobs = random_jobs(13, 10_000, "shared");
    let mut client = batches_client(&submitter.url).await;
    let batch = create(&mut client, "shared", "10,000 mixed jobs", jobs.clone())
        .await
        .expect("CreateBatch");
    // Watched through a replica other than the submitter, from the start.
    let mut watching = batches_client(&watcher.url).await;
    let watched = {
        let id = batch.id.clone();
        tokio::spawn(async move { watch(&mut watching, &id, 0, true).await })
    };
    let before = wait_for(
        &mut client,
        &batch.id,
        Duration::from_secs(120),
        "a fifth of the batch",
        |b| counts(b).finished >= 2000,
    )
    .await;
    victim.kill();
    assert!(counts(&before).finished < 10_000, "killed mid-batch");
    let _replacement = Replica::spawn(&postgres.url, &lease);
    let events = tokio::time::timeout(Duration::from_secs(300), watched)
        .await
        .expect("the batch finishes")
        .expect("the watcher");
    let answers = check_exactly_once(&jobs, &events);
    assert_same_answers(&answers, &solve_alone(&watcher.url, &jobs).await);
    let batch = get(&mut client, &batch.id).await.expect("GetBatch");
    assert_eq!(batch.state(), pb::BatchState::Done);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stopped_for_ten_seconds_pauses_batch_work_and_nothing_is_lost() {
    let postgres = Postgres::start();
    let replica = Replica::spawn(&postgres.url, &["--lease-timeout", "2"]);
    let jobs = mixed_jobs(14, 1500, "outage");
    let mut client = batches_client(&replica.url).await;
    let batch = create(&mut client, "outage", "", jobs.clone())
        .await
        .expect("CreateBatch");
    let before = wait_for(
        &mut client,
        &batch.id,
        Duration::from_secs(60),
        "some jobs to finish",
        |b| counts(b).finished >= 100,
    )
    .await;
    postgres.stop();
    let stopped = Instant::now();
    assert!(counts(&before).finished < 1500, "stopped mid-batch");

    let mut online = Client::connect(&replica.url).await.expect("connect");
    // Batches turns NOT_SERVING; the server and the online service stay SERVING.
    loop {
        if online.health("orbit.v1.Batches").await.expect("health") == ServingStatus::NotServing {
            break;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "orbit.v1.Batches turns NOT_SERVING"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        online.health("").await.expect("health"),
        ServingStatus::Serving
    );
    assert_eq!(
        online.health("orbit.v1.Orbit").await.expect("health"),
        ServingStatus::Serving
    );
    let answer = online.solve(jobs[1].clone()).await;
    assert!(
        answer.is_ok()
            || answer
                .as_ref()
                .is_err_and(|s| s.code() == tonic::Code::InvalidArgument),
        "online calls go on: {answer:?}"
    );
    let status = get(&mut client, &batch.id).await.expect_err("no store");
    assert_eq!(status.code(), tonic::Code::Unavailable, "{status:?}");
    // The standard details say why and when to try again.
    {
        use tonic_types::StatusExt;
        let details = status.check_error_details().expect("details decode");
        let info = details.error_info().expect("an ErrorInfo");
        assert_eq!(info.reason, "STORE_UNAVAILABLE", "{status:?}");
        let delay = details.retry_info().and_then(|r| r.retry_delay);
        assert!(
            delay.is_some_and(|d| !d.is_zero()),
            "a RetryInfo: {status:?}"
        );
    }
    tokio::time::sleep(Duration::from_secs(10).saturating_sub(stopped.elapsed())).await;

    postgres.restart();
    let back = Instant::now();
    loop {
        if online.health("orbit.v1.Batches").await.expect("health") == ServingStatus::Serving {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(30),
            "orbit.v1.Batches is SERVING again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let events = watch(&mut client, &batch.id, 0, true).await;
    let answers = check_exactly_once(&jobs, &events);
    assert_same_answers(&answers, &solve_alone(&replica.url, &jobs).await);
}
