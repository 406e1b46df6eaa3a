//! Durable batches (`orbit.v1.Batches`) against `SolveStream`, on one `orbit-server` process per
//! run: submit and drain rates of tiny jobs (1-vertex games) on SQLite and on PostgreSQL, the
//! overhead on ~10 ms jobs, the server's peak RSS at two batch sizes, and the bytes stored per job.
//!
//! For each store and each batch size (`--small`, then `--jobs`), a fresh server and store:
//! 1. both workers are kept busy by an online `SolveStream` of ~10 ms jobs (online work has
//!    priority, so the batch runner claims next to nothing meanwhile): the submit rate is the
//!    create's own;
//! 2. `CreateBatch` of the tiny jobs; the store's size is read (bytes per queued job);
//! 3. the online stream is dropped: the drain rate counts from then until `GetBatch` says done;
//! 4. `WatchBatch` from 0 reads every event (checked: sequences 1..N in order, each position
//!    once, every job a result); the store's size again (bytes per answered job);
//! 5. the server's peak RSS (`VmHWM`) so far, then the same tiny jobs through one `SolveStream`.
//!
//! Then, on each store, `--ten-ms-jobs` jobs of ~10 ms (a cop-thief grid calibrated on the
//! server) as a batch (create to done) and through one `SolveStream`.
//!
//! The workers run at nice 19 (`--worker-nice 19`) in every phase, so that the blocking stream of
//! step 1 takes no CPU from the submit; both paths of each comparison run under the same setting.
//!
//! Run: `cargo bench -p orbit-server --bench batches` (options: `-- --jobs N --small N
//! --ten-ms-jobs N --stores sqlite,postgres`). PostgreSQL is a throwaway cluster from
//! `.ci/postgres` (Debian's postgresql package). The run checks the free disk first and exits 1
//! if there is too little.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use orbit_api::v1 as pb;
use orbit_client::Client;
use orbit_client::batches::is_finished;
use sqlx::Connection;

/// Free disk the run needs per million tiny jobs (stores, WAL, PostgreSQL's dead rows), bytes.
const DISK_PER_MILLION: u64 = 4 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    Sqlite,
    Postgres,
}

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Sqlite => "SQLite",
            Engine::Postgres => "PostgreSQL",
        }
    }
}

struct Args {
    jobs: u64,
    small: u64,
    ten_ms_jobs: u64,
    stores: Vec<Engine>,
}

impl Args {
    fn parse() -> Self {
        let args: Vec<String> = std::env::args().collect();
        let value = |flag: &str| {
            args.iter()
                .position(|a| a == flag)
                .and_then(|i| args.get(i + 1))
                .cloned()
        };
        let number = |flag: &str, default: u64| {
            value(flag).map_or(default, |v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("{flag}: a number, not {v}"))
            })
        };
        let stores = value("--stores")
            .unwrap_or_else(|| "sqlite,postgres".into())
            .split(',')
            .map(|s| match s {
                "sqlite" => Engine::Sqlite,
                "postgres" => Engine::Postgres,
                other => panic!("--stores: sqlite or postgres, not {other}"),
            })
            .collect();
        Args {
            jobs: number("--jobs", 1_000_000),
            small: number("--small", 100_000),
            ten_ms_jobs: number("--ten-ms-jobs", 1000),
            stores,
        }
    }
}

fn tiny_job(i: u64) -> pb::Job {
    pb::Job {
        id: i.to_string(),
        options: None,
        kind: Some(pb::job::Kind::Game(pb::GameGraphJob {
            vertices: 1,
            edges: vec![],
            query: vec![],
            ..Default::default()
        })),
    }
}

/// A policeman-and-thief game on an open n x n grid: its run time grows as n^4.
fn grid_job(i: u64, n: usize) -> pb::Job {
    let mut rows = vec![".".repeat(n); n];
    rows[0].replace_range(0..1, "C");
    rows[n - 1].replace_range(n - 1..n, "T");
    pb::Job {
        id: i.to_string(),
        options: None,
        kind: Some(pb::job::Kind::CopThief(pb::CopThiefJob {
            rows,
            queries: vec![],
            ..Default::default()
        })),
    }
}

/// Free bytes on the file system holding `path` (`df -Pk`).
fn free_bytes(path: &Path) -> u64 {
    let out = Command::new("df")
        .arg("-Pk")
        .arg(path)
        .output()
        .expect("run df");
    let text = String::from_utf8_lossy(&out.stdout);
    let kib: u64 = text
        .lines()
        .nth(1)
        .and_then(|line| line.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("df -Pk {}: cannot read {text}", path.display()));
    kib * 1024
}

/// A throwaway PostgreSQL cluster from `.ci/postgres`; stopped when dropped.
struct Postgres {
    dir: tempfile::TempDir,
    url: String,
}

impl Postgres {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/postgres")
    }

    fn start(parent: &Path) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("orbit-bench-pg")
            .tempdir_in(parent)
            .expect("a directory for the cluster");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let out = Command::new("bash")
            .arg(Self::script())
            .args([
                "start",
                &dir.path().display().to_string(),
                &port.to_string(),
            ])
            .output()
            .expect("run .ci/postgres");
        assert!(
            out.status.success(),
            ".ci/postgres start failed (install Debian's postgresql package): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let url = String::from_utf8(out.stdout)
            .expect("UTF-8")
            .trim()
            .to_string();
        Postgres { dir, url }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(Self::script())
            .args(["stop", &self.dir.path().display().to_string()])
            .status();
    }
}

/// Where one run keeps its batches.
enum Store {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Store {
    fn url(&self) -> String {
        match self {
            Store::Sqlite(path) => format!("sqlite:{}", path.display()),
            Store::Postgres(url) => url.clone(),
        }
    }

    /// Bytes the batch tables take now: SQLite's used pages (the free list left out; the WAL's
    /// pages count as they will after a checkpoint), PostgreSQL's relation sizes with indexes
    /// and TOAST (dead rows not yet vacuumed included).
    async fn size(&self) -> u64 {
        match self {
            Store::Sqlite(path) => {
                let url = format!("sqlite:{}?mode=ro", path.display());
                let mut conn = sqlx::SqliteConnection::connect(&url)
                    .await
                    .expect("open the SQLite store");
                let (pages, free, page): (i64, i64, i64) = sqlx::query_as(
                    "SELECT (SELECT page_count FROM pragma_page_count()), \
                     (SELECT freelist_count FROM pragma_freelist_count()), \
                     (SELECT page_size FROM pragma_page_size())",
                )
                .fetch_one(&mut conn)
                .await
                .expect("page counts");
                ((pages - free) * page) as u64
            }
            Store::Postgres(url) => {
                let mut conn = sqlx::PgConnection::connect(url)
                    .await
                    .expect("connect to PostgreSQL");
                let bytes: i64 = sqlx::query_scalar(
                    "SELECT (pg_total_relation_size('batches') \
                     + pg_total_relation_size('batch_jobs') \
                     + pg_total_relation_size('batch_results'))::bigint",
                )
                .fetch_one(&mut conn)
                .await
                .expect("relation sizes");
                bytes as u64
            }
        }
    }
}

/// An `orbit-server` process; killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn spawn(store: &Store, data_dir: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_orbit-server"))
            .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
            .args(["--store", &store.url()])
            .arg("--data-dir")
            .arg(data_dir)
            .args(["--worker-nice", "19"])
            .env(
                "RUST_LOG",
                std::env::var("ORBIT_BENCH_SERVER_LOG")
                    .unwrap_or_else(|_| "warn,orbit_server=info".into()),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn orbit-server");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let url = loop {
            let line = rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the server logs its address");
            let v: serde_json::Value = serde_json::from_str(&line).expect("JSON log line");
            if let Some(addr) = v["fields"]["local"].as_str() {
                break format!("http://{addr}");
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || while rx.recv().is_ok() {});
        Server { child, url }
    }

    /// The process's peak resident set (`VmHWM`), bytes.
    fn peak_rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/PID/status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("VmHWM")
            * 1024
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Final events of `jobs` through one `SolveStream`, all results; the time it took.
async fn solve_stream(client: &mut Client, jobs: Vec<pb::Job>) -> Duration {
    let n = jobs.len();
    let start = Instant::now();
    let mut events = client
        .solve_stream(futures::stream::iter(jobs))
        .await
        .expect("SolveStream");
    let mut finals = 0;
    while let Some(event) = events.next().await {
        match event.expect("event").event {
            Some(pb::job_event::Event::Result(_)) => finals += 1,
            Some(pb::job_event::Event::Error(e)) => panic!("job failed: {e:?}"),
            _ => {}
        }
    }
    assert_eq!(finals, n, "every job of the stream answered");
    start.elapsed()
}

/// The grid size whose job takes about `target` on this server (median of 5 calls).
async fn calibrate(client: &mut Client, target: Duration) -> (usize, Duration) {
    let mut n = 6;
    loop {
        let mut times = Vec::new();
        for _ in 0..5 {
            let start = Instant::now();
            client.solve(grid_job(0, n)).await.expect("Solve");
            times.push(start.elapsed());
        }
        times.sort();
        if times[2] >= target || n >= 200 {
            return (n, times[2]);
        }
        n += 2;
    }
}

/// Keeps the workers busy with online ~10 ms jobs until stopped: a `SolveStream` with a few
/// jobs in flight, one sent for each answer, so that stopping it leaves at most those few to run.
struct Blocker(tokio::task::JoinHandle<()>);

/// The blocking stream's jobs in flight: one for each worker and one more waiting for each.
const BLOCKER_IN_FLIGHT: u64 = 4;

impl Blocker {
    async fn start(url: &str, n: usize) -> Self {
        let mut client = Client::connect(url).await.expect("connect");
        let (mut jobs, requests) = futures::channel::mpsc::channel(BLOCKER_IN_FLIGHT as usize);
        for i in 0..BLOCKER_IN_FLIGHT {
            jobs.send(grid_job(i, n)).await.expect("queue a job");
        }
        let task = tokio::spawn(async move {
            let mut events = client.solve_stream(requests).await.expect("SolveStream");
            let mut next = BLOCKER_IN_FLIGHT;
            while let Some(Ok(event)) = events.next().await {
                if matches!(event.event, Some(pb::job_event::Event::Result(_))) {
                    if jobs.send(grid_job(next, n)).await.is_err() {
                        break;
                    }
                    next += 1;
                }
            }
        });
        let mut probe = Client::connect(url).await.expect("connect");
        let start = Instant::now();
        while probe.info().await.expect("ServerInfo").busy_workers == 0 {
            assert!(start.elapsed() < Duration::from_secs(30), "blocker starts");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Blocker(task)
    }

    /// Ends the stream (its sender and its answers dropped): the jobs in flight finish or are
    /// cancelled, and no more come.
    async fn stop(self) {
        self.0.abort();
        let _ = self.0.await;
    }
}

async fn wait_done(batches: &mut orbit_client::batches::BatchesClient, id: &str) -> pb::Batch {
    loop {
        let batch = batches.get_batch(id).await.expect("GetBatch");
        if is_finished(&batch) {
            return batch;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads every event of the batch from 0 and checks them; the time it took.
async fn watch_all(
    batches: &mut orbit_client::batches::BatchesClient,
    id: &str,
    n: u64,
) -> Duration {
    let start = Instant::now();
    let mut events = batches.watch_batch(id, 0, false).await.expect("WatchBatch");
    let mut seen = HashSet::with_capacity(n as usize);
    let mut sequence = 0;
    while let Some(event) = events.next().await {
        let event = event.expect("event");
        sequence += 1;
        assert_eq!(event.sequence, sequence, "gapless sequences in order");
        assert!(
            event.position < n && seen.insert(event.position),
            "each position once"
        );
        let job = event.event.expect("a job event");
        assert_eq!(
            job.id,
            event.position.to_string(),
            "the id sent at that position"
        );
        assert!(
            matches!(job.event, Some(pb::job_event::Event::Result(_))),
            "job {} answered with a result: {job:?}",
            job.id
        );
    }
    assert_eq!(sequence, n, "every job once");
    start.elapsed()
}

struct TinyRun {
    jobs: u64,
    submit: Duration,
    claimed_during_submit: u64,
    drain: Duration,
    watch: Duration,
    stream: Duration,
    rss: u64,
    queued_bytes: u64,
    answered_bytes: u64,
}

async fn tiny_run(store: &Store, data_dir: &Path, jobs: u64) -> TinyRun {
    let server = Server::spawn(store, data_dir);
    let mut client = Client::connect(&server.url).await.expect("connect");
    let mut batches = client.batches();
    let empty = store.size().await;
    let (blocker_n, _) = calibrate(&mut client, Duration::from_millis(10)).await;
    let blocker = Blocker::start(&server.url, blocker_n).await;
    let start = Instant::now();
    let batch = batches
        .create_batch(
            &format!("bench-{jobs}"),
            "tiny",
            futures::stream::iter((0..jobs).map(tiny_job)),
        )
        .await
        .expect("CreateBatch");
    let submit = start.elapsed();
    let queued_bytes = store.size().await.saturating_sub(empty);
    let claimed_during_submit = batches
        .get_batch(&batch.id)
        .await
        .expect("GetBatch")
        .counts
        .map_or(0, |c| c.finished);
    blocker.stop().await;
    let start = Instant::now();
    let done = wait_done(&mut batches, &batch.id).await;
    let drain = start.elapsed();
    let counts = done.counts.expect("counts");
    assert_eq!((counts.jobs, counts.ok), (jobs, jobs), "every job answered");
    let watch = watch_all(&mut batches, &batch.id, jobs).await;
    let answered_bytes = store.size().await.saturating_sub(empty);
    let rss = server.peak_rss();
    let stream = solve_stream(&mut client, (0..jobs).map(tiny_job).collect()).await;
    TinyRun {
        jobs,
        submit,
        claimed_during_submit,
        drain,
        watch,
        stream,
        rss,
        queued_bytes,
        answered_bytes,
    }
}

struct TenMsRun {
    n: usize,
    one: Duration,
    jobs: u64,
    batch: Duration,
    stream: Duration,
}

async fn ten_ms_run(store: &Store, data_dir: &Path, jobs: u64) -> TenMsRun {
    let server = Server::spawn(store, data_dir);
    let mut client = Client::connect(&server.url).await.expect("connect");
    let mut batches = client.batches();
    let (n, one) = calibrate(&mut client, Duration::from_millis(10)).await;
    let make = || (0..jobs).map(|i| grid_job(i, n)).collect::<Vec<_>>();
    // Alternate the two paths, best of two each: the machine is shared.
    let mut batch_best = Duration::MAX;
    let mut stream_best = Duration::MAX;
    for round in 0..2 {
        let start = Instant::now();
        let batch = batches
            .create_batch(
                &format!("ten-ms-{round}"),
                "10 ms",
                futures::stream::iter(make()),
            )
            .await
            .expect("CreateBatch");
        let done = wait_done(&mut batches, &batch.id).await;
        batch_best = batch_best.min(start.elapsed());
        assert_eq!(done.counts.expect("counts").ok, jobs);
        stream_best = stream_best.min(solve_stream(&mut client, make()).await);
    }
    TenMsRun {
        n,
        one,
        jobs,
        batch: batch_best,
        stream: stream_best,
    }
}

fn rate(jobs: u64, took: Duration) -> String {
    let r = jobs as f64 / took.as_secs_f64();
    let whole = r.round() as u64;
    // Thousands separators, as in BENCHMARKS.md.
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn main() {
    let args = Args::parse();
    let work = tempfile::Builder::new()
        .prefix("orbit-bench-batches")
        .tempdir_in(std::env::temp_dir())
        .expect("a work directory");
    let need = DISK_PER_MILLION * (args.jobs + args.small).div_ceil(1_000_000);
    let free = free_bytes(work.path());
    if free < need {
        eprintln!(
            "batches bench: {} GiB free under {}, {} GiB needed for {} + {} jobs; free some disk \
             or pass a smaller --jobs",
            free >> 30,
            work.path().display(),
            need >> 30,
            args.small,
            args.jobs
        );
        std::process::exit(1);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let mut tiny = Vec::new();
        let mut ten_ms = Vec::new();
        for &engine in &args.stores {
            let postgres = (engine == Engine::Postgres).then(|| Postgres::start(work.path()));
            for (k, jobs) in [args.small, args.jobs].into_iter().enumerate() {
                let data_dir = work.path().join(format!("{}-{k}", engine.name()));
                let store = match &postgres {
                    Some(pg) => {
                        // A fresh database per run: the sizes and the RSS are this run's.
                        let mut conn = sqlx::PgConnection::connect(&pg.url)
                            .await
                            .expect("connect to PostgreSQL");
                        let db = format!("bench{k}");
                        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
                            .execute(&mut conn)
                            .await
                            .expect("CREATE DATABASE");
                        let base = pg.url.rsplit_once('/').expect("a database in the URL").0;
                        Store::Postgres(format!("{base}/{db}"))
                    }
                    None => Store::Sqlite(data_dir.join("batches.db")),
                };
                let run = tiny_run(&store, &data_dir, jobs).await;
                eprintln!(
                    "{}: {} jobs: submit {:.2} s, drain {:.2} s",
                    engine.name(),
                    jobs,
                    run.submit.as_secs_f64(),
                    run.drain.as_secs_f64()
                );
                tiny.push((engine, run));
            }
            let store = match &postgres {
                Some(pg) => Store::Postgres(pg.url.clone()),
                None => Store::Sqlite(work.path().join("ten-ms").join("batches.db")),
            };
            ten_ms.push((
                engine,
                ten_ms_run(&store, &work.path().join("ten-ms"), args.ten_ms_jobs).await,
            ));
        }

        println!(
            "| store | jobs | submit (CreateBatch) | drain (to done) | WatchBatch read | SolveStream, same jobs | drain / SolveStream | finished during submit | server peak RSS | bytes per job queued / answered |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for (engine, r) in &tiny {
            println!(
                "| {} | {} | {} jobs/s | {} jobs/s | {} events/s | {} jobs/s | {:.2} | {} | {} MiB | {} / {} |",
                engine.name(),
                r.jobs,
                rate(r.jobs, r.submit),
                rate(r.jobs, r.drain),
                rate(r.jobs, r.watch),
                rate(r.jobs, r.stream),
                r.stream.as_secs_f64() / r.drain.as_secs_f64(),
                r.claimed_during_submit,
                r.rss >> 20,
                r.queued_bytes / r.jobs,
                r.answered_bytes / r.jobs,
            );
        }
        println!();
        println!(
            "| store | ~10 ms jobs | batch, create to done | SolveStream | overhead | target |"
        );
        println!("|---|---|---|---|---|---|");
        for (engine, r) in &ten_ms {
            println!(
                "| {} | {} cop-thief {n}x{n} ({:.1} ms each) | {:.3} s | {:.3} s | {:+.1}% | <= +5% |",
                engine.name(),
                r.jobs,
                r.one.as_secs_f64() * 1e3,
                r.batch.as_secs_f64(),
                r.stream.as_secs_f64(),
                (r.batch.as_secs_f64() / r.stream.as_secs_f64() - 1.0) * 100.0,
                n = r.n,
            );
        }
    });
}
