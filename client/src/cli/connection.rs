//! Where the server is: `--server`, or an embedded one started for this command.

use anyhow::Context;
use orbit_client::Client;
use orbit_client::embedded::EmbeddedServer;
use orbit_server::ServerConfig;

use super::GlobalArgs;

/// A client plus, when no `--server` was given, the embedded server it talks to.
pub struct Connection {
    client: Client,
    embedded: Option<EmbeddedServer>,
}

impl Connection {
    /// Connects to `--server`, or starts an embedded server and connects to it.
    pub async fn open(args: &GlobalArgs) -> anyhow::Result<Self> {
        let (url, embedded) = match &args.server {
            Some(url) => (url.clone(), None),
            None => {
                orbit_server::logging::init(orbit_server::LogFormat::Text, "warn");
                let config = ServerConfig {
                    workers: args.workers,
                    max_message_bytes: args.max_message_bytes,
                    shutdown_grace: 0.0,
                    ..ServerConfig::default()
                };
                let server = EmbeddedServer::start(config)
                    .await
                    .context("cannot start the embedded server")?;
                (server.url(), Some(server))
            }
        };
        let client = Client::connect_with_limit(&url, args.max_message_bytes).await?;
        Ok(Self { client, embedded })
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Stops the embedded server, if any.
    pub async fn close(self) {
        let Self { client, embedded } = self;
        drop(client);
        if let Some(server) = embedded
            && let Err(e) = server.stop().await
        {
            eprintln!("orbit: embedded server: {e:#}");
        }
    }
}
