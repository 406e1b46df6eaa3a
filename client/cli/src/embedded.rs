//! An Orbit server inside the current process, on a loopback port, reached over real gRPC. The CLI
//! uses it when no `--server` is given; tests use it as a fixture.

use std::net::SocketAddr;

use orbit_server::ServerConfig;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A running embedded server. Call [`stop`](Self::stop) to drain it; dropping it without `stop`
/// aborts the server task.
#[derive(Debug)]
pub struct EmbeddedServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl EmbeddedServer {
    /// Starts a server with `config` on 127.0.0.1, on a port the OS picks (`config.listen` is
    /// ignored).
    ///
    /// # Errors
    /// If the port cannot be bound.
    pub async fn start(config: ServerConfig) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(orbit_server::run(listener, config, async {
            let _ = stopped.await;
        }));
        Ok(Self {
            addr,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// The server's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`, for [`orbit_client::Client::connect`].
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Asks the server to shut down and waits for it.
    ///
    /// # Errors
    /// Whatever the server returned.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await?,
            None => Ok(()),
        }
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}
