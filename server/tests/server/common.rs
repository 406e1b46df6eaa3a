//! Inputs and servers shared by the server's integration tests.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The rows of an open `n x n` grid with the policeman and the thief in opposite corners and no
/// exit: a cop-and-thief game of 2 n^4 states, long enough at n = 100 to be seen running.
pub fn open_grid_rows(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| match (i, j) {
                    (0, 0) => 'C',
                    _ if i == n - 1 && j == n - 1 => 'T',
                    _ => '.',
                })
                .collect()
        })
        .collect()
}

/// A server in this process (`orbit_server::run`) on a loopback port, with its shutdown trigger.
pub struct TestServer {
    pub url: String,
    stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<anyhow::Result<()>>,
}

impl TestServer {
    pub async fn start(config: ServerConfig) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(orbit_server::run(listener, config, async {
            let _ = stopped.await;
        }));
        Self {
            url,
            stop: Some(stop),
            task,
        }
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.url).await.expect("connect")
    }

    pub fn begin_shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    pub async fn stop(mut self) {
        self.begin_shutdown();
        tokio::time::timeout(Duration::from_secs(30), self.task)
            .await
            .expect("server stops in time")
            .expect("server task")
            .expect("server returns Ok");
    }
}

/// Starts the `orbit-server` binary on a free loopback port with one worker and JSON logs, its
/// batch store `store` (`None`: no store, so that nothing is written under $HOME), and `extra`
/// flags; returns the child, its URL and its log lines. The log is read to the end whether or
/// not anyone takes the lines, so the server never blocks on a full pipe.
pub fn spawn_orbit_server(
    store: Option<&str>,
    extra: &[&str],
) -> (Child, String, mpsc::Receiver<String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_orbit-server"));
    match store {
        Some(store) => command.args(["--store", store]),
        None => command.env("ORBIT_STORE", "none"),
    };
    let mut child = command
        .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(["--workers", "1"])
        .args(extra)
        .env("RUST_LOG", "info")
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
    (child, url, rx)
}

/// A game-graph job of `vertices` vertices and the moves `edges`, every vertex reported.
pub fn game_job(id: &str, vertices: u32, edges: &[(u32, u32)]) -> pb::Job {
    pb::Job {
        id: id.to_string(),
        options: None,
        kind: Some(pb::job::Kind::Game(pb::GameGraphJob {
            vertices,
            edges: edges
                .iter()
                .map(|&(from, to)| pb::Edge { from, to })
                .collect(),
            query: vec![],
            ..Default::default()
        })),
    }
}
