//! The service spine benchmark: Orbit's gRPC path (tiny jobs through one `SolveStream`, and unary
//! calls from 32 concurrent callers) against a bare tonic echo server measured in the same run, the
//! worker pool's overhead against calling the solver in-process, and the time a worker takes to
//! be free after its caller drops a running job.
//!
//! Run: `cargo bench -p orbit-server --bench spine` (optionally `-- --jobs N`). Prints a markdown
//! table for BENCHMARKS.md. Everything runs on loopback, in this process, and stops by itself.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use orbit_api::bench::EchoMessage;
use orbit_api::bench::echo_client::EchoClient;
use orbit_api::bench::echo_server::{Echo, EchoServer};
use orbit_api::v1 as pb;
use orbit_client::Client;
use orbit_server::ServerConfig;
use orbit_worker::job::JobSpec;
use orbit_worker::{Limits, SolveContext};
use tokio::net::TcpListener;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};

/// The baseline: echoes messages, nothing else.
#[derive(Debug, Default)]
struct EchoService;

#[tonic::async_trait]
impl Echo for EchoService {
    async fn unary(&self, request: Request<EchoMessage>) -> Result<Response<EchoMessage>, Status> {
        Ok(Response::new(request.into_inner()))
    }

    type StreamStream = Pin<Box<dyn Stream<Item = Result<EchoMessage, Status>> + Send>>;

    async fn stream(
        &self,
        request: Request<Streaming<EchoMessage>>,
    ) -> Result<Response<Self::StreamStream>, Status> {
        let inbound = request.into_inner();
        Ok(Response::new(Box::pin(inbound)))
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

fn tiny_echo(i: u64) -> EchoMessage {
    // About the encoded size of `tiny_job`.
    EchoMessage {
        id: i.to_string(),
        payload: vec![0x52, 0x02, 0x08, 0x01],
    }
}

fn grid_job(id: u64, n: usize) -> pb::Job {
    let rows = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| match (r, c) {
                    (0, 0) => 'C',
                    _ if r == n - 1 && c == n - 1 => 'T',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    pb::Job {
        id: id.to_string(),
        options: None,
        kind: Some(pb::job::Kind::CopThief(pb::CopThiefJob {
            rows,
            queries: vec![],
            ..Default::default()
        })),
    }
}

async fn start_orbit(
    config: ServerConfig,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<anyhow::Result<()>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(orbit_server::run(listener, config, async {
        let _ = stopped.await;
    }));
    (url, stop, task)
}

async fn start_echo() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(EchoServer::new(EchoService))
            .serve_with_incoming(incoming),
    );
    url
}

/// Jobs per second through one `SolveStream`, counting final events.
async fn orbit_stream(client: &mut Client, jobs: u64) -> f64 {
    let start = Instant::now();
    let mut events = client
        .solve_stream(futures::stream::iter((0..jobs).map(tiny_job)))
        .await
        .expect("stream");
    let mut finals = 0;
    while let Some(event) = events.next().await {
        match event.expect("event").event {
            Some(pb::job_event::Event::Result(_)) => finals += 1,
            Some(pb::job_event::Event::Error(e)) => panic!("job failed: {e:?}"),
            _ => {}
        }
    }
    assert_eq!(finals, jobs);
    jobs as f64 / start.elapsed().as_secs_f64()
}

async fn echo_stream(url: &str, messages: u64) -> f64 {
    let mut client = EchoClient::connect(url.to_string()).await.expect("connect");
    let start = Instant::now();
    let mut back = client
        .stream(futures::stream::iter((0..messages).map(tiny_echo)))
        .await
        .expect("stream")
        .into_inner();
    let mut n = 0;
    while let Some(m) = back.next().await {
        m.expect("echo");
        n += 1;
    }
    assert_eq!(n, messages);
    messages as f64 / start.elapsed().as_secs_f64()
}

/// Calls per second from `callers` concurrent unary callers sharing one connection.
async fn orbit_unary(client: &Client, callers: u64, calls: u64) -> f64 {
    let start = Instant::now();
    let per = calls / callers;
    let tasks: Vec<_> = (0..callers)
        .map(|c| {
            let mut client = client.clone();
            tokio::spawn(async move {
                for i in 0..per {
                    client.solve(tiny_job(c * per + i)).await.expect("solve");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("caller");
    }
    (per * callers) as f64 / start.elapsed().as_secs_f64()
}

async fn echo_unary(url: &str, callers: u64, calls: u64) -> f64 {
    let client = EchoClient::connect(url.to_string()).await.expect("connect");
    let start = Instant::now();
    let per = calls / callers;
    let tasks: Vec<_> = (0..callers)
        .map(|c| {
            let mut client = client.clone();
            tokio::spawn(async move {
                for i in 0..per {
                    client.unary(tiny_echo(c * per + i)).await.expect("echo");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("caller");
    }
    (per * callers) as f64 / start.elapsed().as_secs_f64()
}

/// The grid size whose policeman-and-thief solve takes closest to `target` in process.
fn calibrate(target: Duration) -> (usize, Duration) {
    let limits = Limits {
        threads_per_job: 1,
        ..Limits::default()
    };
    let mut best = (4, Duration::ZERO);
    for n in (4..=40).step_by(2) {
        let spec = in_process_spec(n);
        let t = Instant::now();
        spec.run(&SolveContext::detached(), &limits).expect("solve");
        let took = t.elapsed();
        best = (n, took);
        if took >= target {
            break;
        }
    }
    best
}

fn in_process_spec(n: usize) -> JobSpec {
    let job = grid_job(0, n);
    orbit_server::convert::job_from_proto(job, &Limits::default())
        .expect("valid")
        .spec
}

/// Wall time for `jobs` grid jobs on `threads` plain threads, in process.
fn in_process(n: usize, jobs: u64, threads: u64) -> Duration {
    let limits = Arc::new(Limits {
        threads_per_job: 1,
        ..Limits::default()
    });
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let limits = Arc::clone(&limits);
            s.spawn(move || {
                for _ in 0..jobs / threads {
                    in_process_spec(n)
                        .run(&SolveContext::detached(), &limits)
                        .expect("solve");
                }
            });
        }
    });
    start.elapsed()
}

/// Wall time for the same jobs through the server (one stream).
async fn through_server(client: &mut Client, n: usize, jobs: u64) -> Duration {
    let start = Instant::now();
    let mut events = client
        .solve_stream(futures::stream::iter(
            (0..jobs).map(move |i| grid_job(i, n)),
        ))
        .await
        .expect("stream");
    let mut finals = 0;
    while let Some(event) = events.next().await {
        if let Some(pb::job_event::Event::Result(_)) = event.expect("event").event {
            finals += 1;
        }
    }
    assert_eq!(finals, jobs);
    start.elapsed()
}

/// Time from a caller dropping a long job to its worker being free, as `ServerInfo` reports it;
/// the job is cancelled `after` its start, a few times, and the worst case is returned.
async fn time_to_free(client: &mut Client, n: usize, delays_ms: &[u64]) -> Duration {
    let mut worst = Duration::ZERO;
    for &delay in delays_ms {
        let mut caller = client.clone();
        let call = tokio::spawn(async move { caller.solve(grid_job(0, n)).await });
        while client.info().await.expect("info").busy_workers == 0 {
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        tokio::time::sleep(Duration::from_millis(delay)).await;
        let dropped = Instant::now();
        call.abort();
        while client.info().await.expect("info").busy_workers > 0 {
            tokio::time::sleep(Duration::from_micros(200)).await;
        }
        worst = worst.max(dropped.elapsed());
    }
    worst
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let jobs: u64 = args
        .iter()
        .position(|a| a == "--jobs")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let config = ServerConfig { threads_per_job: Some(1), worker_nice: std::env::var("ORBIT_BENCH_WORKER_NICE").map_or(0, |v| v.parse().expect("ORBIT_BENCH_WORKER_NICE: a nice value")), ..ServerConfig::default() };
        let (url, stop, task) = start_orbit(config).await;
        let echo_url = start_echo().await;
        let mut client = Client::connect(&url).await.expect("connect");

        // Warm up both paths.
        orbit_stream(&mut client, 10_000).await;
        echo_stream(&echo_url, 10_000).await;

        let orbit_s = orbit_stream(&mut client, jobs).await;
        let echo_s = echo_stream(&echo_url, jobs).await;
        let unary_calls = (jobs / 2).max(32_000);
        let orbit_u = orbit_unary(&client, 32, unary_calls).await;
        let echo_u = echo_unary(&echo_url, 32, unary_calls).await;

        let (n, one) = calibrate(Duration::from_millis(10));
        let heavy = 200u64;
        let workers = cores as u64;
        let inproc = tokio::task::spawn_blocking(move || in_process(n, heavy, workers)).await.expect("in-process run");
        let served = through_server(&mut client, n, heavy).await;
        let overhead = served.as_secs_f64() / inproc.as_secs_f64() - 1.0;
        let delays = [0, 5, 20, 50, 100, 200, 400, 800];
        let freed = time_to_free(&mut client, 100, &delays).await;

        println!("| case | Orbit | bare tonic echo (same run) | ratio | target |");
        println!("|---|---|---|---|---|");
        println!(
            "| tiny jobs through one stream ({jobs}) | {orbit_s:.0} jobs/s | {echo_s:.0} msgs/s | {:.2} | >= 200,000 jobs/s |",
            orbit_s / echo_s
        );
        println!(
            "| unary, 32 concurrent callers ({unary_calls} calls) | {orbit_u:.0} jobs/s | {echo_u:.0} calls/s | {:.2} | >= 20,000 jobs/s |",
            orbit_u / echo_u
        );
        println!(
            "| pool overhead, {heavy} cop-thief {n}x{n} jobs (~{:.1} ms each), {workers} workers vs {workers} in-process threads | {:.3} s | {:.3} s in process | {:+.1}% | <= +10% |",
            one.as_secs_f64() * 1e3,
            served.as_secs_f64(),
            inproc.as_secs_f64(),
            overhead * 100.0
        );
        println!(
            "| time to free a worker after the caller drops a running cop-thief 100x100 job (worst of {} drops at 0-800 ms into the run) | {:.1} ms | — | — | <= 100 ms |",
            delays.len(),
            freed.as_secs_f64() * 1e3
        );
        let _ = stop.send(());
        let _ = task.await;
    });
}
