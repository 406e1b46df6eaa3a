//! The batch service of a server in this process, on a SQLite file in a temporary directory.

use std::time::Duration;

use futures::StreamExt;
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;

use crate::common::TestServer;

use super::{
    assert_same_answers, batches_client, check_exactly_once, counts, create, get, is_finished, job,
    random_jobs, slow_job, solve_alone, wait_for, watch,
};

/// A server with `workers` workers and a batch store in `dir`.
fn config(dir: &tempfile::TempDir, workers: usize) -> ServerConfig {
    ServerConfig {
        workers: Some(workers),
        shutdown_grace: 0.0,
        store: Some(format!(
            "sqlite:{}",
            dir.path().join("batches.db").display()
        )),
        ..ServerConfig::default()
    }
}

#[tokio::test]
async fn batch_answers_equal_each_job_solved_alone() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 2)).await;
    let mut jobs = random_jobs(1, 300, "mixed");
    // Ids need not be unique or present: each job is answered by position.
    jobs[10].id = "same".into();
    jobs[20].id = "same".into();
    jobs[30].id = String::new();
    // A job with no kind gets its own INVALID_ARGUMENT; the rest run.
    jobs[40].kind = None;
    let mut client = batches_client(&server.url).await;
    let created = create(&mut client, "round-trip", "mixed kinds", jobs.clone())
        .await
        .expect("CreateBatch");
    assert_eq!(created.name, "mixed kinds");
    assert_eq!(created.request_id, "round-trip");
    assert_eq!(counts(&created).jobs, 300);
    assert_eq!(
        created.id.len(),
        32,
        "128 random bits in hexadecimal: {}",
        created.id
    );

    let events = watch(&mut client, &created.id, 0, true).await;
    let answers = check_exactly_once(&jobs, &events);
    assert_same_answers(&answers, &solve_alone(&server.url, &jobs).await);

    let batch = get(&mut client, &created.id).await.expect("GetBatch");
    assert_eq!(batch.state(), pb::BatchState::Done);
    let failed = answers
        .iter()
        .filter(|e| matches!(e.event, Some(pb::job_event::Event::Error(_))))
        .count() as u64;
    assert!(failed >= 2, "the invalid jobs failed");
    let c = counts(&batch);
    assert_eq!(
        (c.jobs, c.finished, c.ok, c.failed, c.cancelled),
        (300, 300, 300 - failed, failed, 0)
    );
    assert!(batch.finish_time_unix_ms >= batch.create_time_unix_ms);
    assert!(batch.create_time_unix_ms > 0);
    assert!(batch.stored_bytes > 0);
    server.stop().await;
}

#[tokio::test]
async fn a_watcher_resuming_after_n_misses_nothing_and_repeats_nothing() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    let jobs = random_jobs(2, 400, "resume");
    let mut client = batches_client(&server.url).await;
    let batch = create(&mut client, "resume", "", jobs.clone())
        .await
        .expect("CreateBatch");
    // Read a few events while results are still being committed, then hang up.
    let mut seen = Vec::new();
    let mut stream = client
        .watch_batch(pb::WatchBatchRequest {
            batch_id: batch.id.clone(),
            after_sequence: 0,
            follow: true,
        })
        .await
        .expect("WatchBatch")
        .into_inner();
    while seen.len() < 37 {
        seen.push(
            stream
                .next()
                .await
                .expect("an event")
                .expect("not an error"),
        );
    }
    drop(stream);
    let after = seen.len() as u64;
    seen.extend(watch(&mut client, &batch.id, after, true).await);
    check_exactly_once(&jobs, &seen);
    // Without follow on a finished batch: what is committed after N, then the end.
    let tail = watch(&mut client, &batch.id, 390, false).await;
    assert_eq!(
        tail.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        (391..=400).collect::<Vec<_>>()
    );
    assert!(watch(&mut client, &batch.id, 400, false).await.is_empty());
    server.stop().await;
}

// The first create is broken off with a reset (RST_STREAM CANCEL), which hyper hands the handler
// as a clean end of the request body: the server must still not seal it as complete.
#[tokio::test]
async fn a_create_retried_with_the_same_request_id_never_duplicates_a_job() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    let jobs = random_jobs(3, 3000, "retried");
    let mut client = batches_client(&server.url).await;

    // The first create sends the header and 2,500 jobs, then the connection drops.
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    // A connection of its own, so that aborting the call drops the connection.
    let mut first = batches_client(&server.url).await;
    let call = tokio::spawn(async move {
        first
            .create_batch(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
    });
    tx.send(pb::CreateBatchRequest {
        item: Some(pb::create_batch_request::Item::Header(pb::BatchHeader {
            request_id: "retried".into(),
            name: "broke off".into(),
        })),
    })
    .await
    .expect("send the header");
    for job in &jobs[..2500] {
        tx.send(pb::CreateBatchRequest {
            item: Some(pb::create_batch_request::Item::Job(job.clone())),
        })
        .await
        .expect("send a job");
    }
    // Wait until the first groups are stored, then break the call off.
    let listed = loop {
        let page = client
            .list_batches(pb::ListBatchesRequest::default())
            .await
            .expect("ListBatches")
            .into_inner();
        if let Some(batch) = page.batches.into_iter().find(|b| b.request_id == "retried")
            && counts(&batch).jobs >= 2000
        {
            break batch;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(listed.state(), pb::BatchState::Open);
    // Break the call off by dropping its connection; the job channel stays open to the end of
    // the test, since a closed channel would end the stream cleanly: a complete create.
    call.abort();
    let _ = call.await;
    // The server keeps what arrived whole: at least the stored groups, at most what was sent.
    let broken = wait_for(
        &mut client,
        &listed.id,
        Duration::from_secs(10),
        "the broken create to be flushed",
        |b| counts(b).jobs >= 2000,
    )
    .await;
    assert!(counts(&broken).jobs <= 2500);

    // The retry sends everything again, from the first job.
    let retried = create(&mut client, "retried", "broke off", jobs.clone())
        .await
        .expect("the retried create");
    assert_eq!(retried.id, listed.id, "the same batch");
    assert_eq!(counts(&retried).jobs, 3000);
    let events = watch(&mut client, &retried.id, 0, true).await;
    check_exactly_once(&jobs, &events);
    // A create retried after it completed returns the batch as it is, adding nothing.
    let again = create(&mut client, "retried", "broke off", jobs.clone())
        .await
        .expect("a create retried after it completed");
    assert_eq!(again.id, retried.id);
    assert_eq!(counts(&again).jobs, 3000);
    assert_eq!(again.state(), pb::BatchState::Done);
    drop(tx);
    server.stop().await;
}

#[tokio::test]
async fn cancel_answers_every_unfinished_job_with_cancelled() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    // One long job first, so that the rest are still queued when the cancel comes.
    let mut jobs = vec![slow_job("long", 100)];
    jobs.extend(random_jobs(4, 50, "queued"));
    let mut client = batches_client(&server.url).await;
    let batch = create(&mut client, "cancel", "", jobs.clone())
        .await
        .expect("CreateBatch");
    let mut online = Client::connect(&server.url).await.expect("connect");
    // Wait until the long job runs (the one worker is busy).
    wait_busy(
        &mut online,
        true,
        Duration::from_secs(20),
        "the long job starts",
    )
    .await;
    let cancelled = client
        .cancel_batch(pb::CancelBatchRequest {
            batch_id: batch.id.clone(),
        })
        .await
        .expect("CancelBatch")
        .into_inner();
    assert_eq!(cancelled.state(), pb::BatchState::Cancelled);
    assert!(cancelled.finish_time_unix_ms > 0);
    let events = watch(&mut client, &batch.id, 0, true).await;
    let answers = check_exactly_once(&jobs, &events);
    match &answers[0].event {
        Some(pb::job_event::Event::Error(e)) => assert_eq!(e.code, Code::Cancelled as i32),
        other => panic!("the long job was cancelled, not {other:?}"),
    }
    let c = counts(&get(&mut client, &batch.id).await.expect("GetBatch"));
    assert_eq!(c.finished, 51);
    assert_eq!(c.ok + c.failed + c.cancelled, 51);
    assert!(c.cancelled >= 1);
    // The running job is stopped within a second or so: the worker is free again.
    wait_busy(
        &mut online,
        false,
        Duration::from_secs(10),
        "the cancelled job stops",
    )
    .await;
    // Cancelling a finished batch changes nothing.
    let again = client
        .cancel_batch(pb::CancelBatchRequest {
            batch_id: batch.id.clone(),
        })
        .await
        .expect("CancelBatch again")
        .into_inner();
    assert_eq!(counts(&again), c);
    server.stop().await;
}

#[tokio::test]
async fn delete_while_jobs_run_removes_the_batch() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    let mut jobs = vec![slow_job("long", 100)];
    jobs.extend(random_jobs(5, 20, "doomed"));
    let mut client = batches_client(&server.url).await;
    let batch = create(&mut client, "delete", "", jobs.clone())
        .await
        .expect("CreateBatch");
    let mut online = Client::connect(&server.url).await.expect("connect");
    wait_busy(
        &mut online,
        true,
        Duration::from_secs(20),
        "the long job starts",
    )
    .await;
    client
        .delete_batch(pb::DeleteBatchRequest {
            batch_id: batch.id.clone(),
        })
        .await
        .expect("DeleteBatch");
    let status = get(&mut client, &batch.id).await.expect_err("gone");
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    let status = client
        .watch_batch(pb::WatchBatchRequest {
            batch_id: batch.id.clone(),
            after_sequence: 0,
            follow: false,
        })
        .await
        .expect_err("no batch to watch");
    assert_eq!(status.code(), Code::NotFound);
    let status = client
        .delete_batch(pb::DeleteBatchRequest {
            batch_id: batch.id.clone(),
        })
        .await
        .expect_err("deleted already");
    assert_eq!(status.code(), Code::NotFound);
    // Its running job is stopped and the worker serves online calls again.
    wait_busy(&mut online, false, Duration::from_secs(10), "the job stops").await;
    let listed = client
        .list_batches(pb::ListBatchesRequest::default())
        .await
        .expect("ListBatches")
        .into_inner();
    assert!(listed.batches.iter().all(|b| b.id != batch.id));
    // A create retried with the deleted batch's request id is refused, not run again.
    let status = create(&mut client, "delete", "", jobs)
        .await
        .expect_err("the request id of a deleted batch");
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert!(
        status.message().contains(&batch.id) && status.message().contains("deleted"),
        "{status:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn finished_batches_are_deleted_after_the_retention() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(ServerConfig {
        batch_retention: 1.0,
        ..config(&dir, 1)
    })
    .await;
    let mut client = batches_client(&server.url).await;
    let batch = create(&mut client, "short-lived", "", random_jobs(6, 5, "brief"))
        .await
        .expect("CreateBatch");
    wait_for(
        &mut client,
        &batch.id,
        Duration::from_secs(20),
        "the batch to finish",
        is_finished,
    )
    .await;
    let start = std::time::Instant::now();
    loop {
        match get(&mut client, &batch.id).await {
            Err(status) if status.code() == Code::NotFound => break,
            Ok(_) => {}
            Err(status) => panic!("GetBatch: {status:?}"),
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the finished batch outlived its retention"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn a_batch_job_deadline_counts_from_when_a_worker_takes_it() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    // How long one job runs here, alone.
    let mut online = Client::connect(&server.url).await.expect("connect");
    let probe = online
        .solve(slow_job("probe", 24))
        .await
        .expect("the probe job");
    let run_ms = probe.timing.expect("timing").run_ms.max(1.0);
    // A deadline each job meets by far, but the batch as a whole takes three times as long.
    let deadline_ms = (run_ms * 20.0).max(300.0) as u64;
    let count = (3 * deadline_ms) as f64 / run_ms;
    let count = (count.ceil() as usize).clamp(3, 2000);
    let jobs: Vec<pb::Job> = (0..count)
        .map(|i| pb::Job {
            options: Some(pb::JobOptions {
                deadline_ms,
                progress: false,
            }),
            ..slow_job(&format!("timed-{i}"), 24)
        })
        .collect();
    let mut client = batches_client(&server.url).await;
    let batch = create(&mut client, "deadlines", "", jobs.clone())
        .await
        .expect("CreateBatch");
    let answers = check_exactly_once(&jobs, &watch(&mut client, &batch.id, 0, true).await);
    for event in &answers {
        assert!(
            matches!(event.event, Some(pb::job_event::Event::Result(_))),
            "{count} jobs of {run_ms} ms, deadline {deadline_ms} ms each: {event:?}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn online_calls_are_answered_while_a_batch_waits() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    let jobs: Vec<pb::Job> = (0..200).map(|i| slow_job(&format!("b{i}"), 16)).collect();
    let mut client = batches_client(&server.url).await;
    let batch = create(&mut client, "busy", "", jobs)
        .await
        .expect("CreateBatch");
    wait_for(
        &mut client,
        &batch.id,
        Duration::from_secs(20),
        "batch work to start",
        |b| counts(b).finished > 0,
    )
    .await;
    // An online job goes ahead of every batch job still waiting: it is answered while most of
    // the batch is still to come.
    let mut online = Client::connect(&server.url).await.expect("connect");
    for i in 0..5 {
        online
            .solve(job(
                format!("online-{i}"),
                pb::job::Kind::Count(pb::CountJob {
                    family: Some(pb::count_job::Family::Necklace(pb::NecklaceCount {
                        n: 6,
                        k: 2,
                    })),
                    modulus: String::new(),
                }),
            ))
            .await
            .expect("an online Solve beside a batch");
        let batch = get(&mut client, &batch.id).await.expect("GetBatch");
        assert!(
            counts(&batch).finished < 150,
            "the online job waited for the batch: {batch:?}"
        );
    }
    client
        .cancel_batch(pb::CancelBatchRequest {
            batch_id: batch.id.clone(),
        })
        .await
        .expect("CancelBatch");
    server.stop().await;
}

#[tokio::test]
async fn limits_refuse_the_rest_of_a_create_and_seal_what_was_stored() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(ServerConfig {
        max_batch_jobs: 1500,
        ..config(&dir, 1)
    })
    .await;
    let jobs = random_jobs(7, 2100, "limited");
    let mut client = batches_client(&server.url).await;
    let status = create(&mut client, "limited", "", jobs.clone())
        .await
        .expect_err("over --max-batch-jobs");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("--max-batch-jobs"),
        "{}",
        status.message()
    );
    // Whole groups are stored or refused: the batch holds the groups stored before the one
    // that would pass the limit (here none: the 2,100 jobs arrive as one group), counted, and
    // finishes with them.
    let batch = listed_by_request_id(&mut client, "limited").await;
    let stored = counts(&batch).jobs as usize;
    assert!(stored <= 1500, "{stored} jobs stored");
    let events = watch(&mut client, &batch.id, 0, true).await;
    check_exactly_once(&jobs[..stored], &events);
    let batch = get(&mut client, &batch.id).await.expect("GetBatch");
    assert_eq!(batch.state(), pb::BatchState::Done);
    server.stop().await;
}

#[tokio::test]
async fn malformed_requests_get_invalid_argument_or_not_found() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    let mut client = batches_client(&server.url).await;
    // A stream that starts with a job instead of the header.
    let items = vec![pb::CreateBatchRequest {
        item: Some(pb::create_batch_request::Item::Job(pb::Job::default())),
    }];
    let status = client
        .create_batch(tokio_stream::iter(items))
        .await
        .expect_err("no header");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("header"),
        "{}",
        status.message()
    );
    let status = create(&mut client, "", "", vec![])
        .await
        .expect_err("an empty request id");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().starts_with("header.request_id"),
        "{}",
        status.message()
    );
    let status = get(&mut client, "0123").await.expect_err("no such batch");
    assert_eq!(status.code(), Code::NotFound);
    let status = get(&mut client, "").await.expect_err("an empty id");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().starts_with("batch_id"));
    let status = client
        .list_batches(pb::ListBatchesRequest {
            page_size: 10,
            page_token: "not a token".into(),
        })
        .await
        .expect_err("a bad page token");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(
        status.message().contains("page_token"),
        "{}",
        status.message()
    );
    server.stop().await;
}

#[tokio::test]
async fn list_pages_through_every_batch_newest_first() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let server = TestServer::start(config(&dir, 1)).await;
    let mut client = batches_client(&server.url).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let batch = create(
            &mut client,
            &format!("list-{i}"),
            "",
            random_jobs(i, 2, "l"),
        )
        .await
        .expect("CreateBatch");
        ids.push(batch.id);
        // Distinct creation times, so newest-first is a strict order.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut listed = Vec::new();
    let mut token = String::new();
    loop {
        let page = client
            .list_batches(pb::ListBatchesRequest {
                page_size: 2,
                page_token: token.clone(),
            })
            .await
            .expect("ListBatches")
            .into_inner();
        assert!(page.batches.len() <= 2);
        listed.extend(page.batches.into_iter().map(|b| b.id));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    ids.reverse();
    assert_eq!(listed, ids);
    server.stop().await;
}

#[tokio::test]
async fn a_server_without_a_store_says_so() {
    let server = TestServer::start(ServerConfig {
        workers: Some(1),
        shutdown_grace: 0.0,
        ..ServerConfig::default()
    })
    .await;
    let mut client = batches_client(&server.url).await;
    let status = create(&mut client, "r", "", vec![])
        .await
        .expect_err("no store");
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert!(status.message().contains("--store"), "{}", status.message());
    let mut online = Client::connect(&server.url).await.expect("connect");
    assert_eq!(
        online.health("orbit.v1.Batches").await.expect("health"),
        ServingStatus::NotServing
    );
    assert_eq!(
        online.health("orbit.v1.Orbit").await.expect("health"),
        ServingStatus::Serving
    );
    // The online service is unchanged.
    let result = online
        .solve(job(
            "online",
            pb::job::Kind::Game(pb::GameGraphJob {
                vertices: 1,
                edges: vec![],
                query: vec![],
                ..Default::default()
            }),
        ))
        .await
        .expect("Solve");
    match result.result {
        Some(pb::job_result::Result::Game(game)) => assert_eq!(game.vertices.len(), 1),
        other => panic!("a game result, not {other:?}"),
    }
    server.stop().await;
}

/// Polls `ServerInfo` until a worker is busy (`busy`) or every worker is idle (`!busy`).
async fn wait_busy(online: &mut Client, busy: bool, limit: Duration, what: &str) {
    let start = std::time::Instant::now();
    while (online.info().await.expect("ServerInfo").busy_workers > 0) != busy {
        assert!(start.elapsed() < limit, "{what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A tmpfs of `bytes` mounted on `path` for as long as it lives (`mount` needs root, as CI has).
struct SmallFileSystem(std::path::PathBuf);

impl SmallFileSystem {
    /// `None` when this process may not mount (not root).
    fn mount(path: &std::path::Path, bytes: u64) -> Option<Self> {
        std::fs::create_dir_all(path).expect("mount point");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        mounted.then(|| SmallFileSystem(path.to_path_buf()))
    }
}

impl Drop for SmallFileSystem {
    fn drop(&mut self) {
        // Lazy: the server's last handles may still be closing.
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// Fills the file system holding `filler` until a write fails for lack of space, then gives
/// `leave` bytes back.
fn fill_leaving(filler: &std::path::Path, leave: u64) {
    use std::io::Write;
    let mut file = std::fs::File::create(filler).expect("filler file");
    let chunk = vec![0xa5u8; 64 << 10];
    let mut written = 0u64;
    loop {
        match file.write(&chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => written += n as u64,
        }
    }
    file.set_len(written.saturating_sub(leave))
        .expect("shrink the filler");
}

// Needs root (a tmpfs mount); skipped with a message otherwise. After SQLITE_FULL, SQLite has
// rolled the transaction back by itself: the store must not hand that connection out again.
#[tokio::test]
async fn a_full_disk_refuses_the_rest_of_a_create_and_counts_only_what_was_stored() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let small = dir.path().join("small");
    let Some(_mounted) = SmallFileSystem::mount(&small, 64 << 20) else {
        // Without root there is no way to make a small file system here; CI runs as root.
        let uid = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Uid:"))
                    .map(|v| v.split_whitespace().next() == Some("0"))
            })
            .unwrap_or(false);
        assert!(!uid, "running as root, yet mounting a tmpfs failed");
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    };
    let server = TestServer::start(ServerConfig {
        workers: Some(1),
        shutdown_grace: 0.0,
        store: Some(format!("sqlite:{}", small.join("batches.db").display())),
        ..ServerConfig::default()
    })
    .await;
    let filler = small.join("filler");
    fill_leaving(&filler, 6 << 20);

    // About 13 MB of jobs (games of 2,000 edges, 16 KB each), twice the 6 MiB left: the first
    // groups are stored, a later one meets the full disk.
    let jobs: Vec<pb::Job> = (0..800u32)
        .map(|i| {
            job(
                format!("big-{i}"),
                pb::job::Kind::Game(pb::GameGraphJob {
                    vertices: 1_000,
                    edges: (0..2_000u32)
                        .map(|e| pb::Edge {
                            from: (e * 7 + i) % 1_000,
                            to: (e * 13 + 1) % 1_000,
                        })
                        .collect(),
                    query: vec![0],
                    ..Default::default()
                }),
            )
        })
        .collect();
    let mut client = batches_client(&server.url).await;
    let status = create(&mut client, "full-disk", "", jobs.clone())
        .await
        .expect_err("the disk fills up");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("full"),
        "the message says why: {}",
        status.message()
    );
    {
        use tonic_types::StatusExt;
        let details = status.check_error_details().expect("details decode");
        let info = details.error_info().expect("an ErrorInfo");
        assert_eq!(info.reason, "STORE_FULL", "{status:?}");
    }

    // The batch counts exactly the jobs it holds: what a watcher gets once there is room again.
    let batch = listed_by_request_id(&mut client, "full-disk").await;
    let stored = counts(&batch).jobs as usize;
    assert!(stored < jobs.len(), "{stored} jobs stored");
    assert_eq!(batch.state(), pb::BatchState::Open, "a retry may finish it");

    // Room again: the same request id finishes the create, and every job is answered once.
    std::fs::remove_file(&filler).expect("free the disk");
    let finished = create(&mut client, "full-disk", "", jobs.clone())
        .await
        .expect("the retried create");
    assert_eq!(finished.id, batch.id);
    assert_eq!(counts(&finished).jobs as usize, jobs.len());
    let events = watch(&mut client, &batch.id, 0, true).await;
    check_exactly_once(&jobs, &events);
    server.stop().await;
}

/// The batch of `request_id`, as `ListBatches` shows it (its id is unknown to a refused create).
async fn listed_by_request_id(
    client: &mut orbit_api::v1::batches_client::BatchesClient<tonic::transport::Channel>,
    request_id: &str,
) -> pb::Batch {
    client
        .list_batches(pb::ListBatchesRequest::default())
        .await
        .expect("ListBatches")
        .into_inner()
        .batches
        .into_iter()
        .find(|b| b.request_id == request_id)
        .expect("the batch")
}
