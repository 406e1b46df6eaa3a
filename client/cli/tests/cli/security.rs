//! The `orbit` binary against a server with TLS and a bearer token (certificates made here with
//! rcgen): `--ca` and `--auth-token-file`, and the errors when either is missing or wrong.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use orbit_server::{Listeners, ServerConfig};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A CA named `ca_name` and a server certificate it signed for `localhost`: (CA PEM,
/// certificate PEM, key PEM).
fn certificates(ca_name: &str) -> (String, String, String) {
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, ca_name);
    let ca_cert = ca_params.self_signed(&ca_key).expect("CA certificate");
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().expect("server key");
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
        .expect("server params")
        .signed_by(&key, &issuer)
        .expect("server certificate");
    (ca_cert.pem(), cert.pem(), key.serialize_pem())
}

fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).expect("write file");
    path
}

/// Runs `orbit` with `args` (from the repository root, so `examples/` resolve).
fn orbit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_orbit"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("ORBIT_SERVER")
        .env_remove("ORBIT_CA")
        .env_remove("ORBIT_AUTH_TOKEN_FILE")
        .output()
        .expect("run orbit")
}

fn stderr_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orbit_reaches_a_tls_server_with_its_ca_and_token() {
    let dir = std::env::temp_dir().join(format!("orbit-cli-security-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let (ca, cert, key) = certificates("Orbit test CA");
    let (other_ca, _, _) = certificates("Another CA");
    let ca = write(&dir, "ca.pem", ca);
    let other_ca = write(&dir, "other-ca.pem", other_ca);
    let token = write(&dir, "token", "0123456789abcdef\n");
    let wrong_token = write(&dir, "wrong-token", "fedcba9876543210\n");
    let empty_token = write(&dir, "empty-token", "");
    let config = ServerConfig {
        workers: Some(1),
        threads_per_job: Some(1),
        tls_cert: Some(write(&dir, "server.pem", cert)),
        tls_key: Some(write(&dir, "server.key", key)),
        auth_token_file: Some(token.clone()),
        ..ServerConfig::default()
    };
    let grpc = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!(
        "https://localhost:{}",
        grpc.local_addr().expect("bound").port()
    );
    let (stop, stopped) = oneshot::channel::<()>();
    let listeners = Listeners {
        grpc,
        metrics: None,
    };
    let server = tokio::spawn(orbit_server::run_on(listeners, config, async {
        let _ = stopped.await;
    }));

    let path = |p: &PathBuf| p.to_str().expect("utf-8 path").to_string();
    let (ca, other_ca) = (path(&ca), path(&other_ca));
    let (token, wrong_token, empty_token) = (path(&token), path(&wrong_token), path(&empty_token));
    let cases = tokio::task::spawn_blocking(move || {
        let base = ["--server", url.as_str()];
        let with = |extra: &[&str]| -> Vec<String> {
            base.iter().chain(extra).map(|s| s.to_string()).collect()
        };
        let run = |args: Vec<String>| orbit(&args.iter().map(String::as_str).collect::<Vec<_>>());

        // The whole example batch, over TLS with the token: one result line per job.
        let solved = run(with(&[
            "--ca",
            &ca,
            "--auth-token-file",
            &token,
            "solve",
            "examples/batch.jsonl",
        ]));
        assert!(solved.status.success(), "{}", stderr_line(&solved));
        let stdout = String::from_utf8(solved.stdout).expect("utf-8");
        let jobs = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/batch.jsonl"
        ))
        .expect("batch");
        assert_eq!(
            stdout.lines().count(),
            jobs.lines().filter(|l| !l.trim().is_empty()).count()
        );
        assert!(stdout.lines().all(|l| l.contains("\"result\"")), "{stdout}");

        // Health needs no token.
        let health = run(with(&["--ca", &ca, "health"]));
        assert_eq!(String::from_utf8_lossy(&health.stdout), "SERVING\n");

        let refused = |args: Vec<String>, expected: &str| {
            let out = run(args);
            assert_eq!(out.status.code(), Some(1));
            let line = stderr_line(&out);
            assert!(
                line.starts_with("orbit: ") && line.contains(expected),
                "{line}"
            );
        };
        refused(
            with(&["--ca", &ca, "info"]),
            "UNAUTHENTICATED: missing `authorization: Bearer <token>`",
        );
        refused(
            with(&["--ca", &ca, "--auth-token-file", &wrong_token, "info"]),
            "UNAUTHENTICATED: invalid bearer token",
        );
        refused(
            with(&["--ca", &ca, "--auth-token-file", &empty_token, "info"]),
            "is empty",
        );
        refused(
            with(&["--ca", &other_ca, "--auth-token-file", &token, "info"]),
            "invalid peer certificate: UnknownIssuer",
        );
        refused(
            with(&["--ca", &token, "--auth-token-file", &token, "info"]),
            "invalid CA certificate",
        );
        refused(
            with(&["--ca", "no/such/ca.pem", "info"]),
            "cannot read --ca no/such/ca.pem",
        );
    });
    cases.await.expect("CLI cases pass");
    let _ = stop.send(());
    server
        .await
        .expect("server task")
        .expect("server returns Ok");
    std::fs::remove_dir_all(&dir).expect("clean up");
}
