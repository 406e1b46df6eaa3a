//! Operations over real sockets: the Prometheus endpoint, TLS (certificates made here with rcgen),
//! and bearer-token authentication. Servers come from `orbit_server::run_on` on port 0.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::game_job;
use orbit_client::{Client, ClientError, ConnectOptions, pb};
use orbit_server::{Listeners, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
use tonic_reflection::pb::v1::{ServerReflectionRequest, ServerReflectionResponse};

/// Bounds every wait on the network so a broken server fails the test instead of hanging it.
const PATIENCE: Duration = Duration::from_secs(30);

/// A server on loopback ports with its shutdown trigger.
struct TestServer {
    grpc: SocketAddr,
    metrics: Option<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl TestServer {
    async fn start(config: ServerConfig, with_metrics: bool) -> Self {
        let grpc = TcpListener::bind("127.0.0.1:0").await.expect("bind grpc");
        let metrics = if with_metrics {
            Some(
                TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind metrics"),
            )
        } else {
            None
        };
        let grpc_addr = grpc.local_addr().expect("bound");
        let metrics_addr = metrics.as_ref().map(|l| l.local_addr().expect("bound"));
        let (stop, stopped) = oneshot::channel::<()>();
        let listeners = Listeners { grpc, metrics };
        let task = tokio::spawn(orbit_server::run_on(listeners, config, async {
            let _ = stopped.await;
        }));
        Self {
            grpc: grpc_addr,
            metrics: metrics_addr,
            stop: Some(stop),
            task,
        }
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(PATIENCE, self.task)
            .await
            .expect("server stops in time")
            .expect("server task")
            .expect("server returns Ok");
    }
}

fn config() -> ServerConfig {
    ServerConfig {
        workers: Some(1),
        threads_per_job: Some(1),
        queue_capacity: 8,
        ..ServerConfig::default()
    }
}

/// A fresh directory for this test's files.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("orbit-ops-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write file");
    path
}

/// A cop-and-thief job on an open `n x n` grid with no exit: 2 n^4 states, so at n = 100 it runs
/// long enough to be seen running (it is cancelled, never awaited).
fn long_job(id: &str) -> pb::Job {
    let n = 100;
    let rows = crate::common::open_grid_rows(n);
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

/// `GET path` over plain HTTP/1.1: (status code, body).
async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.expect("connect metrics");
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .expect("send request");
        let mut raw = String::new();
        stream
            .read_to_string(&mut raw)
            .await
            .expect("read response");
        raw
    };
    let raw = tokio::time::timeout(PATIENCE, exchange)
        .await
        .expect("metrics endpoint answers");
    let (head, body) = raw.split_once("\r\n\r\n").expect("HTTP head and body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("status code");
    (status, body.to_string())
}

/// Scrapes until `wanted` is one of the lines (gauges follow the pool a moment later), or panics.
async fn scrape_until(addr: SocketAddr, wanted: &str) -> String {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, body) = http_get(addr, "/metrics").await;
        assert_eq!(status, 200, "{body}");
        if body.lines().any(|l| l == wanted) {
            return body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never saw {wanted:?}; last scrape:\n{body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn assert_lines(body: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            body.lines().any(|l| l == *line),
            "missing {line:?} in:\n{body}"
        );
    }
}

#[tokio::test]
async fn metrics_count_jobs_by_kind_and_outcome_and_show_the_pool() {
    let server = TestServer::start(config(), true).await;
    let metrics = server.metrics.expect("metrics listener");
    let mut client = Client::connect(&format!("http://{}", server.grpc))
        .await
        .expect("connect");

    // Before any job: the pool sizes, nothing queued or busy, no job series yet.
    let body = scrape_until(metrics, "orbit_busy_workers 0").await;
    assert_lines(
        &body,
        &[
            "orbit_workers 1",
            "orbit_queue_capacity 8",
            "orbit_queue_depth 0",
            "# EOF",
        ],
    );
    assert!(!body.contains("orbit_jobs_total{"), "{body}");

    // One good game job; one with an edge to a vertex that does not exist.
    client
        .solve(game_job("ok", 3, &[(0, 1), (1, 2)]))
        .await
        .expect("solve");
    let err = client
        .solve(game_job("bad", 2, &[(0, 5)]))
        .await
        .expect_err("vertex 5 of 2 is invalid");
    assert_eq!(err.code(), Code::InvalidArgument);
    // A job with no kind at all.
    let err = client
        .solve(pb::Job {
            id: "empty".into(),
            options: None,
            kind: None,
        })
        .await
        .expect_err("no kind");
    assert_eq!(err.code(), Code::InvalidArgument);

    let body = scrape_until(metrics, "orbit_busy_workers 0").await;
    assert_lines(
        &body,
        &[
            r#"orbit_jobs_total{kind="game",outcome="ok"} 1"#,
            r#"orbit_jobs_total{kind="game",outcome="INVALID_ARGUMENT"} 1"#,
            r#"orbit_jobs_total{kind="none",outcome="INVALID_ARGUMENT"} 1"#,
            // Only the job that reached a worker is timed.
            r#"orbit_job_queue_wait_seconds_count{kind="game"} 1"#,
            r#"orbit_job_run_seconds_count{kind="game"} 1"#,
            r#"orbit_job_run_seconds_bucket{le="+Inf",kind="game"} 1"#,
            "# TYPE orbit_jobs counter",
            "# TYPE orbit_job_queue_wait_seconds histogram",
            "# TYPE orbit_job_run_seconds histogram",
            "# TYPE orbit_queue_depth gauge",
            "# TYPE orbit_busy_workers gauge",
            "orbit_queue_depth 0",
        ],
    );

    // The gauges follow the pool: one long job running on the only worker, one waiting.
    let (jobs_tx, jobs_rx) = tokio::sync::mpsc::channel(4);
    let events = client
        .solve_stream(tokio_stream::wrappers::ReceiverStream::new(jobs_rx))
        .await
        .expect("stream starts");
    jobs_tx.send(long_job("long-1")).await.expect("send");
    jobs_tx.send(long_job("long-2")).await.expect("send");
    let body = scrape_until(metrics, "orbit_queue_depth 1").await;
    assert_lines(&body, &["orbit_busy_workers 1"]);

    // Ending the stream cancels both; they are counted as CANCELLED.
    drop(jobs_tx);
    drop(events);
    let body = scrape_until(
        metrics,
        r#"orbit_jobs_total{kind="cop_thief",outcome="CANCELLED"} 2"#,
    )
    .await;
    assert_lines(
        &body,
        &[r#"orbit_job_run_seconds_count{kind="cop_thief"} 2"#],
    );
    let body = scrape_until(metrics, "orbit_busy_workers 0").await;
    assert_lines(&body, &["orbit_queue_depth 0"]);

    // Anything but GET /metrics is refused.
    assert_eq!(http_get(metrics, "/").await.0, 404);
    assert_eq!(http_get(metrics, "/metrics/extra").await.0, 404);

    server.stop().await;
    // The endpoint is gone with the server.
    assert!(TcpStream::connect(metrics).await.is_err());
}

/// The value of the series line that starts with `series` (name and labels), or a panic naming it.
fn series_value(body: &str, series: &str) -> u64 {
    body.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no series {series} in:\n{body}"))
        .parse()
        .unwrap_or_else(|e| panic!("{series}: {e}"))
}

/// The labels go-grpc-prometheus gives a method's series.
fn method_labels(grpc_type: &str, service: &str, method: &str) -> String {
    format!(r#"grpc_type="{grpc_type}",grpc_service="{service}",grpc_method="{method}""#)
}

#[tokio::test]
async fn grpc_metrics_count_calls_messages_and_codes_with_the_standard_names() {
    let dir = scratch_dir("grpc-metrics");
    let token = "grpc-metrics-token";
    let config = ServerConfig {
        auth_token_file: Some(write(&dir, "token", token)),
        max_message_bytes: 1 << 20,
        ..config()
    };
    let server = TestServer::start(config, true).await;
    let metrics = server.metrics.expect("metrics listener");
    let url = format!("http://{}", server.grpc);
    let options = ConnectOptions {
        auth_token: Some(token.to_string()),
        ..ConnectOptions::default()
    };
    let mut client = Client::connect_with(&url, &options).await.expect("connect");

    // Every served method has its series from the start, at zero, like go-grpc-prometheus's
    // pre-registration; the kinds of call are the .proto files' `stream` keywords.
    let (_, body) = http_get(metrics, "/metrics").await;
    let create = method_labels("client_stream", "orbit.v1.Batches", "CreateBatch");
    let watch = method_labels("server_stream", "grpc.health.v1.Health", "Watch");
    let reflect = method_labels(
        "bidi_stream",
        "grpc.reflection.v1.ServerReflection",
        "ServerReflectionInfo",
    );
    assert_lines(
        &body,
        &[
            "# TYPE grpc_server_started counter",
            "# TYPE grpc_server_handled counter",
            "# TYPE grpc_server_msg_received counter",
            "# TYPE grpc_server_msg_sent counter",
            "# TYPE grpc_server_handling_seconds histogram",
            &format!("grpc_server_started_total{{{create}}} 0"),
            &format!(r#"grpc_server_handled_total{{{watch},grpc_code="Canceled"}} 0"#),
            &format!(r#"grpc_server_handled_total{{{reflect},grpc_code="DataLoss"}} 0"#),
            &format!("grpc_server_msg_sent_total{{{watch}}} 0"),
            // prometheus.DefBuckets, go-grpc-prometheus's default.
            &format!(r#"grpc_server_handling_seconds_bucket{{le="0.005",{create}}} 0"#),
            &format!(r#"grpc_server_handling_seconds_bucket{{le="10.0",{create}}} 0"#),
        ],
    );

    // Two good Solve calls, one invalid.
    for id in ["ok-1", "ok-2"] {
        client
            .solve(game_job(id, 3, &[(0, 1), (1, 2)]))
            .await
            .expect("solve");
    }
    let err = client
        .solve(game_job("bad", 2, &[(0, 5)]))
        .await
        .expect_err("vertex 5 of 2 is invalid");
    assert_eq!(err.code(), Code::InvalidArgument);
    // One stream of three jobs; the client counts the events it gets.
    let jobs: Vec<_> = (0..3)
        .map(|i| game_job(&format!("s{i}"), 3, &[(0, 1), (1, 2)]))
        .collect();
    let mut events = client
        .solve_stream(tokio_stream::iter(jobs))
        .await
        .expect("stream");
    let mut events_received = 0;
    while let Some(event) = events.next().await {
        event.expect("event");
        events_received += 1;
    }
    // A queued event and a result per job.
    assert_eq!(events_received, 6);
    // A health check.
    assert_eq!(
        client.health("").await.expect("health"),
        ServingStatus::Serving
    );
    // Refused by the layers: a call without the token, and one over --max-message-bytes (2 MB of
    // grid against 1 MiB: it arrives in more than one HTTP/2 frame of at most 1 MiB, and is
    // refused on its length prefix, before it is complete).
    let mut stranger = Client::connect(&url).await.expect("connect");
    let err = stranger
        .solve(game_job("no-token", 2, &[(0, 1)]))
        .await
        .expect_err("no token");
    assert_eq!(err.code(), Code::Unauthenticated);
    let oversized = pb::Job {
        id: "big".into(),
        options: None,
        kind: Some(pb::job::Kind::CopThief(pb::CopThiefJob {
            rows: vec![".".repeat(2_000_000)],
            queries: vec![],
            ..Default::default()
        })),
    };
    let err = client.solve(oversized).await.expect_err("too large");
    assert_eq!(err.code(), Code::ResourceExhausted);

    let (_, body) = http_get(metrics, "/metrics").await;
    let solve = method_labels("unary", "orbit.v1.Orbit", "Solve");
    let stream = method_labels("bidi_stream", "orbit.v1.Orbit", "SolveStream");
    let check = method_labels("unary", "grpc.health.v1.Health", "Check");
    for (series, expected) in [
        // Solve: five calls, each handled with its code.
        (format!("grpc_server_started_total{{{solve}}}"), 5),
        (
            format!(r#"grpc_server_handled_total{{{solve},grpc_code="OK"}}"#),
            2,
        ),
        (
            format!(r#"grpc_server_handled_total{{{solve},grpc_code="InvalidArgument"}}"#),
            1,
        ),
        (
            format!(r#"grpc_server_handled_total{{{solve},grpc_code="Unauthenticated"}}"#),
            1,
        ),
        (
            format!(r#"grpc_server_handled_total{{{solve},grpc_code="ResourceExhausted"}}"#),
            1,
        ),
        (
            format!(r#"grpc_server_handled_total{{{solve},grpc_code="Unknown"}}"#),
            0,
        ),
        // The refused calls' requests were never read whole; only the answered ones got a reply.
        (format!("grpc_server_msg_received_total{{{solve}}}"), 3),
        (format!("grpc_server_msg_sent_total{{{solve}}}"), 2),
        (format!("grpc_server_handling_seconds_count{{{solve}}}"), 5),
        (
            format!(r#"grpc_server_handling_seconds_bucket{{le="+Inf",{solve}}}"#),
            5,
        ),
        // SolveStream: one call, three jobs in, six events out.
        (format!("grpc_server_started_total{{{stream}}}"), 1),
        (
            format!(r#"grpc_server_handled_total{{{stream},grpc_code="OK"}}"#),
            1,
        ),
        (format!("grpc_server_msg_received_total{{{stream}}}"), 3),
        (
            format!("grpc_server_msg_sent_total{{{stream}}}"),
            events_received,
        ),
        (format!("grpc_server_handling_seconds_count{{{stream}}}"), 1),
        // Health: one check, one answer.
        (format!("grpc_server_started_total{{{check}}}"), 1),
        (
            format!(r#"grpc_server_handled_total{{{check},grpc_code="OK"}}"#),
            1,
        ),
        (format!("grpc_server_msg_received_total{{{check}}}"), 1),
        (format!("grpc_server_msg_sent_total{{{check}}}"), 1),
        (format!("grpc_server_handling_seconds_count{{{check}}}"), 1),
        // Nothing else was called.
        (format!("grpc_server_started_total{{{create}}}"), 0),
    ] {
        assert_eq!(series_value(&body, &series), expected, "{series}");
    }
    // The job series count jobs, not calls: the stream's three are there too.
    assert_lines(&body, &[r#"orbit_jobs_total{kind="game",outcome="ok"} 5"#]);
    // A client that gives up on a running call: counted as Canceled once the server sees it go.
    let mut quitter = Client::connect_with(&url, &options).await.expect("connect");
    let call = tokio::spawn(async move { quitter.solve(long_job("quit")).await });
    scrape_until(metrics, "orbit_busy_workers 1").await;
    call.abort();
    scrape_until(
        metrics,
        &format!(r#"grpc_server_handled_total{{{solve},grpc_code="Canceled"}} 1"#),
    )
    .await;

    server.stop().await;
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[tokio::test]
async fn the_metrics_address_must_be_free() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let grpc = TcpListener::bind("127.0.0.1:0").await.expect("bind grpc");
    let config = ServerConfig {
        metrics_addr: Some(taken.local_addr().expect("bound")),
        ..config()
    };
    let err = orbit_server::run(grpc, config, std::future::pending())
        .await
        .expect_err("address in use");
    assert!(
        format!("{err:#}").contains("cannot listen on --metrics-addr"),
        "{err:#}"
    );
}

/// A CA named `ca_name`, and a server certificate it signed for `localhost` and 127.0.0.1: (CA
/// PEM, server certificate PEM, server key PEM).
fn certificates(ca_name: &str) -> (String, String, String) {
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, ca_name);
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca_params.self_signed(&ca_key).expect("CA certificate");
    let issuer = rcgen::Issuer::new(ca_params, ca_key);

    let server_key = rcgen::KeyPair::generate().expect("server key");
    let mut server_params =
        rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("server params");
    server_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    server_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let server_cert = server_params
        .signed_by(&server_key, &issuer)
        .expect("server certificate");
    (ca_cert.pem(), server_cert.pem(), server_key.serialize_pem())
}

/// Reflection's service list, asked over `channel`.
async fn reflection_services<T>(
    mut client: ServerReflectionClient<T>,
) -> Result<Vec<String>, tonic::Status>
where
    T: tonic::client::GrpcService<tonic::body::Body>,
    T::Error: Into<tonic::codegen::StdError>,
    T::ResponseBody: tonic::codegen::Body<Data = tonic::codegen::Bytes> + Send + 'static,
    <T::ResponseBody as tonic::codegen::Body>::Error: Into<tonic::codegen::StdError> + Send,
{
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = client
        .server_reflection_info(tokio_stream::once(request))
        .await?
        .into_inner();
    let ServerReflectionResponse {
        message_response, ..
    } = responses.next().await.expect("one reflection answer")?;
    let Some(MessageResponse::ListServicesResponse(list)) = message_response else {
        panic!("a service list, got {message_response:?}");
    };
    Ok(list.service.into_iter().map(|s| s.name).collect())
}

#[tokio::test]
async fn tls_serves_clients_that_trust_the_ca_and_refuses_the_others() {
    let dir = scratch_dir("tls");
    let (ca, cert, key) = certificates("Orbit test CA");
    let config = ServerConfig {
        tls_cert: Some(write(&dir, "server.pem", &cert)),
        tls_key: Some(write(&dir, "server.key", &key)),
        ..config()
    };
    let server = TestServer::start(config, false).await;
    let port = server.grpc.port();
    let trusting = ConnectOptions {
        ca_pem: Some(ca.into_bytes()),
        ..ConnectOptions::default()
    };

    // A client trusting the CA: jobs, health and reflection all work over TLS, by name and by IP.
    for host in ["localhost", "127.0.0.1"] {
        let url = format!("https://{host}:{port}");
        let mut client = Client::connect_with(&url, &trusting)
            .await
            .expect("TLS connect");
        let result = client
            .solve(game_job("tls", 2, &[(0, 1)]))
            .await
            .expect("solve over TLS");
        let Some(pb::job_result::Result::Game(game)) = result.result else {
            panic!("game result");
        };
        // Vertex 0 moves to 1, which has no move: 0 wins in 1, 1 loses at once.
        let outcomes: Vec<_> = game.vertices.iter().map(|v| (v.outcome, v.depth)).collect();
        assert_eq!(
            outcomes,
            vec![
                (pb::Outcome::Win as i32, Some(1)),
                (pb::Outcome::Lose as i32, Some(0))
            ]
        );
        assert_eq!(
            client.health("").await.expect("health"),
            ServingStatus::Serving
        );
    }
    let channel = trusting
        .endpoint(&format!("https://localhost:{port}"))
        .expect("endpoint")
        .connect()
        .await
        .expect("TLS channel");
    let services = reflection_services(ServerReflectionClient::new(channel))
        .await
        .expect("reflection over TLS");
    assert!(
        services.contains(&"orbit.v1.Orbit".to_string()),
        "{services:?}"
    );

    // A plaintext client fails cleanly (an error, not a hang).
    let plaintext = async {
        let mut client = Client::connect(&format!("http://localhost:{port}")).await?;
        client
            .info()
            .await
            .map_err(|status| anyhow::anyhow!("{status}"))?;
        anyhow::Ok(())
    };
    let outcome = tokio::time::timeout(PATIENCE, plaintext)
        .await
        .expect("a plaintext client gets an answer, not a hang");
    assert!(outcome.is_err(), "plaintext must not work against TLS");

    // A client trusting only another CA refuses the server's certificate.
    let (other_ca, _, _) = certificates("Another CA");
    let distrusting = ConnectOptions {
        ca_pem: Some(other_ca.into_bytes()),
        ..ConnectOptions::default()
    };
    let err = tokio::time::timeout(
        PATIENCE,
        Client::connect_with(&format!("https://localhost:{port}"), &distrusting),
    )
    .await
    .expect("an answer, not a hang")
    .expect_err("unknown issuer");
    let chain = format!("{:#}", anyhow::Error::from(err));
    assert!(chain.contains("UnknownIssuer"), "{chain}");

    // A CA for an http:// address is a mistake, said so.
    let err = Client::connect_with(&format!("http://localhost:{port}"), &trusting)
        .await
        .expect_err("CA needs https");
    assert!(matches!(err, ClientError::CaWithoutTls { .. }), "{err}");

    server.stop().await;
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[tokio::test]
async fn tls_files_are_checked_before_start() {
    let dir = scratch_dir("tls-files");
    let (_, cert, key) = certificates("Orbit test CA");
    let cert = write(&dir, "server.pem", &cert);
    let key = write(&dir, "server.key", &key);
    let not_pem = write(&dir, "junk.txt", "not a certificate\n");
    let (_, _, other_key) = certificates("Orbit test CA");
    let other_key = write(&dir, "other.key", &other_key);
    let cases: [(Option<&Path>, Option<&Path>, &str); 5] = [
        (Some(&cert), None, "--tls-cert and --tls-key go together"),
        (
            Some(&cert),
            Some(&other_key),
            "cannot set up TLS from --tls-cert and --tls-key",
        ),
        (
            Some(&dir.join("missing.pem")),
            Some(&key),
            "cannot read --tls-cert",
        ),
        (Some(&not_pem), Some(&key), "no PEM certificate"),
        (Some(&cert), Some(&not_pem), "no PEM private key"),
    ];
    for (cert, key, expected) in cases {
        let grpc = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let config = ServerConfig {
            tls_cert: cert.map(Path::to_path_buf),
            tls_key: key.map(Path::to_path_buf),
            ..config()
        };
        let err = orbit_server::run(grpc, config, std::future::pending())
            .await
            .expect_err("refused");
        assert!(format!("{err:#}").contains(expected), "{err:#}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[tokio::test]
async fn auth_requires_the_token_except_for_health() {
    let dir = scratch_dir("auth");
    let token_file = write(&dir, "token", "correct-horse-battery-staple\n");
    let config = ServerConfig {
        auth_token_file: Some(token_file),
        ..config()
    };
    let server = TestServer::start(config, false).await;
    let url = format!("http://{}", server.grpc);
    let with_token = |token: Option<&str>| ConnectOptions {
        auth_token: token.map(str::to_string),
        ..ConnectOptions::default()
    };

    for token in [
        None,
        Some("wrong-token"),
        Some("correct-horse-battery-stapl"),
    ] {
        let mut client = Client::connect_with(&url, &with_token(token))
            .await
            .expect("connect");
        let err = client
            .solve(game_job("g", 2, &[(0, 1)]))
            .await
            .expect_err("no access");
        assert_eq!(
            err.code(),
            Code::Unauthenticated,
            "token {token:?}: {err:?}"
        );
        let err = client.info().await.expect_err("no access");
        assert_eq!(
            err.code(),
            Code::Unauthenticated,
            "token {token:?}: {err:?}"
        );
        let err = client
            .solve_stream(tokio_stream::iter(vec![game_job("s", 2, &[(0, 1)])]))
            .await
            .expect_err("no access");
        assert_eq!(
            err.code(),
            Code::Unauthenticated,
            "token {token:?}: {err:?}"
        );
        // Health stays open: Kubernetes probes send no headers.
        assert_eq!(
            client.health("").await.expect("health"),
            ServingStatus::Serving
        );
        assert_eq!(
            client.health("orbit.v1.Orbit").await.expect("health"),
            ServingStatus::Serving
        );
    }
    // Reflection needs the token too.
    let channel = tonic::transport::Endpoint::from_shared(url.clone())
        .expect("url")
        .connect()
        .await
        .expect("channel");
    let err = reflection_services(ServerReflectionClient::new(channel))
        .await
        .expect_err("reflection without the token");
    assert_eq!(err.code(), Code::Unauthenticated);

    // The right token: everything works, reflection included.
    let options = with_token(Some("correct-horse-battery-staple"));
    let mut client = Client::connect_with(&url, &options).await.expect("connect");
    let result = client
        .solve(game_job("g", 2, &[(0, 1)]))
        .await
        .expect("solve with the token");
    assert_eq!(result.id, "g");
    assert_eq!(client.info().await.expect("info").workers, 1);
    let mut events = client
        .solve_stream(tokio_stream::iter(vec![game_job("s", 2, &[(0, 1)])]))
        .await
        .expect("stream with the token");
    let mut finals = 0;
    while let Some(event) = events.next().await {
        let event = event.expect("event");
        assert_eq!(event.id, "s");
        if matches!(event.event, Some(pb::job_event::Event::Result(_))) {
            finals += 1;
        }
    }
    assert_eq!(finals, 1);
    let channel = options
        .endpoint(&url)
        .expect("endpoint")
        .connect()
        .await
        .expect("channel");
    let auth = options.bearer_auth().expect("token");
    let reflection = ServerReflectionClient::with_interceptor(channel, auth);
    let services = reflection_services(reflection)
        .await
        .expect("reflection with the token");
    assert!(
        services.contains(&"orbit.v1.Orbit".to_string()),
        "{services:?}"
    );

    server.stop().await;
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[tokio::test]
async fn the_server_refuses_to_start_without_a_usable_token() {
    let dir = scratch_dir("auth-files");
    let empty = write(&dir, "empty", "  \n");
    let spaced = write(&dir, "spaced", "two words\n");
    let cases = [
        (dir.join("missing"), "cannot read --auth-token-file"),
        (empty, "the token is empty"),
        (spaced, "visible ASCII"),
    ];
    for (file, expected) in cases {
        let grpc = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let config = ServerConfig {
            auth_token_file: Some(file),
            ..config()
        };
        let err = orbit_server::run(grpc, config, std::future::pending())
            .await
            .expect_err("refused");
        assert!(format!("{err:#}").contains(expected), "{err:#}");
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn the_binary_reports_a_bad_token_file_in_one_line_and_exits_1() {
    let dir = scratch_dir("binary");
    let empty = write(&dir, "empty", "\n");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_orbit-server"))
        // No batch store: these tests are about the online service, and must not write under $HOME.
        .env("ORBIT_STORE", "none")
        .args(["--listen", "127.0.0.1:0", "--auth-token-file"])
        .arg(&empty)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .expect("run orbit-server");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = format!(
        "orbit-server: --auth-token-file {}: the token is empty",
        empty.display()
    );
    assert!(stderr.lines().any(|l| l == expected), "{stderr}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}
