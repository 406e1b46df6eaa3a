//! The load test: an `orbit-server` process under 200 concurrent streams carrying
//! 100,000 mixed jobs — mostly small, some heavy, some over the limits, some malformed — while a
//! prober checks health every 20 ms and a sampler reads the server's RSS.
//!
//! Checks (the run exits 1 if one fails): every job gets exactly one final event, with the status
//! its kind calls for; health answers within 100 ms throughout; the server exits 0 on SIGTERM
//! afterwards. Reports: jobs/s, outcomes by code, health latency (p50/p99/max), peak RSS.
//!
//! Run: `cargo bench -p orbit-server --bench load` (options: `-- --streams N --jobs-per-stream M
//! --workers W --worker-nice K`). Loopback only; stops by itself (a 10-minute cap fails the run).

use std::collections::{BTreeMap, HashMap};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use orbit_api::v1 as pb;
use orbit_client::Client;

/// What a job of the mix is, and which final event it must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Mix {
    /// A few-vertex game, a small count or a small group: a result.
    Small,
    /// A 40x40 policeman-and-thief grid (5 million states): a result.
    Heavy,
    /// A 300x300 grid, 16 billion states, over `--max-states`: RESOURCE_EXHAUSTED.
    OverLimit,
    /// An edge to a vertex that does not exist: INVALID_ARGUMENT.
    BadEdge,
    /// No job kind at all: INVALID_ARGUMENT.
    NoKind,
}

impl Mix {
    fn of(i: usize) -> Self {
        // 499, not 500: the heavy jobs fall at a different place in each stream.
        match i % 499 {
            0 => Mix::Heavy,
            _ => match i % 50 {
                1 => Mix::OverLimit,
                2 => Mix::BadEdge,
                3 => Mix::NoKind,
                _ => Mix::Small,
            },
        }
    }

    fn expected_code(self) -> Option<tonic::Code> {
        match self {
            Mix::Small | Mix::Heavy => None,
            Mix::OverLimit => Some(tonic::Code::ResourceExhausted),
            Mix::BadEdge | Mix::NoKind => Some(tonic::Code::InvalidArgument),
        }
    }
}

fn grid(n: usize) -> pb::CopThiefJob {
    let mut rows = vec![".".repeat(n); n];
    rows[0].replace_range(0..1, "C");
    rows[n - 1].replace_range(n - 1..n, "T");
    pb::CopThiefJob {
        rows,
        queries: vec![],
        ..Default::default()
    }
}

fn job(id: String, i: usize) -> pb::Job {
    use pb::job::Kind;
    let game = |vertices: u32, edges: Vec<(u32, u32)>| {
        Kind::Game(pb::GameGraphJob {
            vertices,
            edges: edges
                .into_iter()
                .map(|(from, to)| pb::Edge { from, to })
                .collect(),
            query: vec![],
            ..Default::default()
        })
    };
    let kind = match Mix::of(i) {
        Mix::Heavy => Some(Kind::CopThief(grid(40))),
        Mix::OverLimit => Some(Kind::CopThief(grid(300))),
        Mix::BadEdge => Some(game(3, vec![(0, 1), (1, 7)])),
        Mix::NoKind => None,
        Mix::Small => Some(match i % 3 {
            0 => game(
                8,
                (0..8)
                    .map(|v| (v, (v * 3 + 1) % 8))
                    .chain([(2, 5)])
                    .collect(),
            ),
            1 => Kind::Count(pb::CountJob {
                modulus: String::new(),
                family: Some(pb::count_job::Family::Necklace(pb::NecklaceCount {
                    n: 10 + (i % 40) as u64,
                    k: 3,
                })),
            }),
            _ => Kind::Group(pb::GroupJob {
                degree: 12,
                generators: vec![
                    pb::Permutation {
                        images: vec![],
                        cycles: "(1,2,3,4,5,6,7,8,9,10,11,12)".into(),
                    },
                    pb::Permutation {
                        images: vec![],
                        cycles: "(1,2)".into(),
                    },
                ],
                ..Default::default()
            }),
        }),
    };
    pb::Job {
        id,
        options: None,
        kind,
    }
}

struct Args {
    streams: usize,
    jobs_per_stream: usize,
    workers: usize,
    /// The server's `--worker-nice` (its default, 10, unless given).
    worker_nice: usize,
    /// Send SIGTERM this many seconds into the load (the server drains under load).
    sigterm_after: Option<f64>,
}

fn args() -> Args {
    let mut args = Args {
        streams: 200,
        jobs_per_stream: 500,
        workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        worker_nice: 10,
        sigterm_after: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let known = [
            "--streams",
            "--jobs-per-stream",
            "--workers",
            "--worker-nice",
            "--sigterm-after",
        ];
        // cargo bench passes `--bench`; ignore anything else.
        if !known.contains(&flag.as_str()) {
            continue;
        }
        let value = it.next().unwrap_or_default();
        let number = || {
            value
                .parse::<usize>()
                .unwrap_or_else(|_| panic!("{flag} needs a number, not {value:?}"))
        };
        match flag.as_str() {
            "--streams" => args.streams = number(),
            "--jobs-per-stream" => args.jobs_per_stream = number(),
            "--workers" => args.workers = number(),
            "--worker-nice" => args.worker_nice = number(),
            _ => {
                args.sigterm_after = Some(
                    value
                        .parse::<f64>()
                        .unwrap_or_else(|_| panic!("{flag} needs seconds, not {value:?}")),
                )
            }
        }
    }
    args
}

/// A free loopback port (bound, read and released; the server binds it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

fn spawn_server(port: u16, args: &Args) -> Child {
    Command::new(env!("CARGO_BIN_EXE_orbit-server"))
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--workers", &args.workers.to_string()])
        .args(["--worker-nice", &args.worker_nice.to_string()])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn orbit-server")
}

/// `VmRSS` or `VmHWM` of a process, in KiB.
fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// One stream's outcome.
#[derive(Default)]
struct StreamReport {
    /// Final events by (mix, code name).
    outcomes: BTreeMap<(Mix, String), u64>,
    /// Problems found (missing or duplicate answers, wrong codes).
    problems: Vec<String>,
    /// Jobs a draining server never read (no event at all): the caller still has them to resend.
    not_accepted: u64,
}

async fn run_stream(
    mut client: Client,
    stream: usize,
    jobs: usize,
    draining: bool,
) -> StreamReport {
    let mut report = StreamReport::default();
    let ids: Vec<String> = (0..jobs).map(|i| format!("s{stream}-j{i}")).collect();
    let stream_jobs: Vec<pb::Job> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| job(id.clone(), stream * jobs + i))
        .collect();
    let index: HashMap<String, usize> = ids.iter().cloned().zip(0..).collect();
    let mut finals = vec![0u32; jobs];
    let mut accepted = vec![false; jobs];
    let mut events = match client
        .solve_stream(futures::stream::iter(stream_jobs))
        .await
    {
        Ok(events) => events,
        Err(status) if draining => {
            report.not_accepted += jobs as u64;
            report
                .outcomes
                .entry((Mix::Small, format!("stream refused: {}", status.code())))
                .or_default();
            return report;
        }
        Err(status) => {
            report.problems.push(format!("stream {stream}: {status}"));
            return report;
        }
    };
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            // A server shutting down closes its streams once its accepted jobs are answered.
            Err(_) if draining => break,
            Err(status) => {
                report
                    .problems
                    .push(format!("stream {stream} broke: {status}"));
                break;
            }
        };
        let Some(&i) = index.get(&event.id) else {
            report.problems.push(format!("unknown id {}", event.id));
            continue;
        };
        let code = match &event.event {
            Some(pb::job_event::Event::Result(_)) => None,
            Some(pb::job_event::Event::Error(e)) => Some(tonic::Code::from_i32(e.code)),
            Some(pb::job_event::Event::Queued(_)) => {
                accepted[i] = true;
                continue;
            }
            _ => continue,
        };
        finals[i] += 1;
        let mix = Mix::of(stream * jobs + i);
        // While draining, a job not yet accepted is refused UNAVAILABLE; one accepted but still
        // running when the grace period ends is CANCELLED.
        let drain_answer = draining
            && match code {
                Some(tonic::Code::Unavailable) => !accepted[i],
                Some(tonic::Code::Cancelled) => accepted[i],
                _ => false,
            };
        if code != mix.expected_code() && !drain_answer {
            report
                .problems
                .push(format!("{}: {mix:?} got {code:?}: {event:?}", event.id));
        }
        let name = code.map_or("OK", orbit_api::wire::code_name).to_string();
        *report.outcomes.entry((mix, name)).or_default() += 1;
    }
    for (i, &n) in finals.iter().enumerate() {
        match n {
            1 => {}
            // Never read by a server that was shutting down: not accepted, so not lost.
            0 if draining && !accepted[i] => report.not_accepted += 1,
            _ => report.problems.push(format!(
                "{}: {n} final events (accepted: {})",
                ids[i], accepted[i]
            )),
        }
    }
    report
}

/// One health check: when it started, how long it took, and the answer (None: no answer).
struct Check {
    at: Instant,
    latency: Duration,
    status: Option<tonic_health::pb::health_check_response::ServingStatus>,
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args = args();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let port = free_port();
    let mut server = spawn_server(port, &args);
    let pid = server.id();
    let url = format!("http://127.0.0.1:{port}");
    let ok = runtime.block_on(async {
        // Wait for the server to answer.
        let connect_deadline = Instant::now() + Duration::from_secs(30);
        let health_client = loop {
            match Client::connect(&url).await {
                Ok(c) => break c,
                Err(_) if Instant::now() < connect_deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await
                }
                Err(e) => panic!("the server does not come up: {e}"),
            }
        };
        let idle_rss = proc_status_kib(pid, "VmRSS:").unwrap_or(0);

        // Probes: health every 20 ms on its own connection, RSS every 20 ms.
        let done = Arc::new(AtomicBool::new(false));
        let peak_rss = Arc::new(AtomicU64::new(idle_rss));
        // The prober has a thread and a runtime of its own, so that its figures are the server's
        // latency and not time spent queued behind this process's 200 streams.
        drop(health_client);
        let prober = std::thread::spawn({
            let done = done.clone();
            let url = url.clone();
            move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a prober runtime");
                runtime.block_on(async move {
                    let mut client = Client::connect(&url).await.expect("connect");
                    let mut checks = Vec::new();
                    while !done.load(Ordering::Relaxed) {
                        let start = Instant::now();
                        let answer =
                            tokio::time::timeout(Duration::from_secs(5), client.health("")).await;
                        checks.push(Check {
                            at: start,
                            latency: start.elapsed(),
                            status: answer.ok().and_then(Result::ok),
                        });
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    checks
                })
            }
        });
        let sampler = std::thread::spawn({
            let done = done.clone();
            let peak_rss = peak_rss.clone();
            move || {
                while !done.load(Ordering::Relaxed) {
                    if let Some(rss) = proc_status_kib(pid, "VmRSS:") {
                        peak_rss.fetch_max(rss, Ordering::Relaxed);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        });

        // 200 streams over 20 connections.
        let connections = args.streams.div_ceil(10).max(1);
        let mut clients = Vec::new();
        for _ in 0..connections {
            clients.push(Client::connect(&url).await.expect("connect"));
        }
        let start = Instant::now();
        let sigterm_at: Arc<std::sync::Mutex<Option<Instant>>> = Arc::default();
        if let Some(after) = args.sigterm_after {
            let sigterm_at = sigterm_at.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs_f64(after));
                *sigterm_at.lock().expect("not poisoned") = Some(Instant::now());
                sigterm(pid);
            });
        }
        let tasks: Vec<_> = (0..args.streams)
            .map(|s| {
                let client = clients[s % connections].clone();
                tokio::spawn(run_stream(
                    client,
                    s,
                    args.jobs_per_stream,
                    args.sigterm_after.is_some(),
                ))
            })
            .collect();
        let mut outcomes: BTreeMap<(Mix, String), u64> = BTreeMap::new();
        let mut problems = Vec::new();
        let mut not_accepted = 0;
        let all =
            tokio::time::timeout(Duration::from_secs(600), futures::future::join_all(tasks)).await;
        let elapsed = start.elapsed();
        match all {
            Ok(reports) => {
                for report in reports {
                    let report = report.expect("a stream task");
                    for (k, v) in report.outcomes {
                        *outcomes.entry(k).or_default() += v;
                    }
                    problems.extend(report.problems);
                    not_accepted += report.not_accepted;
                }
            }
            Err(_) => problems.push("the load did not finish within 10 minutes".into()),
        }
        let hwm = proc_status_kib(pid, "VmHWM:").unwrap_or(0);
        done.store(true, Ordering::Relaxed);
        let checks = prober.join().expect("the prober");
        sampler.join().expect("the sampler");

        // Health: every check before SIGTERM answered SERVING within 100 ms; after it, the first
        // answer that is not SERVING is NOT_SERVING (the server says it is draining before it
        // stops answering).
        let sigterm_at = *sigterm_at.lock().expect("not poisoned");
        let before = |c: &&Check| sigterm_at.is_none_or(|t| c.at < t);
        let mut latencies: Vec<Duration> = checks
            .iter()
            .filter(before)
            .filter(|c| c.status.is_some())
            .map(|c| c.latency)
            .collect();
        latencies.sort();
        let health_failures = checks
            .iter()
            .filter(before)
            .filter(|c| c.status.is_none())
            .count();
        let max_health = latencies.last().copied().unwrap_or_default();
        let mut health_ok = max_health <= Duration::from_millis(100) && health_failures == 0;
        let drain_order = sigterm_at.map(|t| {
            use tonic_health::pb::health_check_response::ServingStatus;
            let after: Vec<&Check> = checks.iter().filter(|c| c.at >= t).collect();
            let first_change = after
                .iter()
                .find(|c| c.status != Some(ServingStatus::Serving))
                .map(|c| c.status);
            let not_serving = after
                .iter()
                .filter(|c| c.status == Some(ServingStatus::NotServing))
                .count();
            (first_change, not_serving)
        });
        if let Some((first_change, _)) = drain_order
            && first_change.is_some_and(|s| s.is_none())
        {
            health_ok = false;
            problems.push("after SIGTERM, health failed before it said NOT_SERVING".into());
        }

        let total = (args.streams * args.jobs_per_stream) as u64;
        let answered: u64 = outcomes.values().sum();
        println!("## Load test: mixed jobs over concurrent streams, with a health prober\n");
        println!(
            "{} streams x {} jobs = {total} jobs, {} workers at nice {}; {:.1} s, {:.0} jobs/s",
            args.streams,
            args.jobs_per_stream,
            args.workers,
            args.worker_nice,
            elapsed.as_secs_f64(),
            total as f64 / elapsed.as_secs_f64()
        );
        if let Some(after) = args.sigterm_after {
            println!("SIGTERM sent {after} s into the load");
        }
        println!("\n| job mix | final event | count |\n|---|---|---|");
        for ((mix, code), n) in &outcomes {
            println!("| {mix:?} | {code} | {n} |");
        }
        println!(
            "\nfinal events: {answered} of {total}; never read by the draining server: \
             {not_accepted}; problems: {}",
            problems.len()
        );
        for p in problems.iter().take(20) {
            println!("  problem: {p}");
        }
        println!(
            "health before SIGTERM: {} checks, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, failed \
             {health_failures}",
            latencies.len(),
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.99).as_secs_f64() * 1e3,
            max_health.as_secs_f64() * 1e3
        );
        if let Some((first_change, not_serving)) = drain_order {
            println!(
                "health after SIGTERM: first change {first_change:?}, {not_serving} NOT_SERVING \
                 answers before the server closed"
            );
        }
        println!(
            "server RSS: idle {:.0} MB, peak sampled {:.0} MB, VmHWM {:.0} MB",
            idle_rss as f64 / 1024.0,
            peak_rss.load(Ordering::Relaxed) as f64 / 1024.0,
            hwm as f64 / 1024.0
        );
        if !health_ok {
            println!("FAIL: health answered slower than 100 ms or failed");
        }
        problems.is_empty() && answered + not_accepted == total && health_ok
    });

    // SIGTERM (unless sent during the load): the server drains and exits 0.
    if args.sigterm_after.is_none() {
        sigterm(pid);
    }
    let exit = server.wait().expect("the server exits");
    println!("server after SIGTERM: {exit}");
    if !(ok && exit.success()) {
        println!("FAIL");
        std::process::exit(1);
    }
    println!("PASS");
}

fn sigterm(pid: u32) {
    let sent = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent, "kill -TERM {pid}");
}
