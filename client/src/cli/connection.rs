//! Where the servers are: `--server` (repeatable), or an embedded server started for this
//! command.

use anyhow::Context;
use orbit_client::Client;
use orbit_client::batch::BatchEndpoint;
use orbit_client::embedded::EmbeddedServer;
use orbit_server::ServerConfig;

use super::GlobalArgs;

/// Clients for every endpoint plus, when no `--server` was given, the embedded server.
pub struct Connection {
    /// One per endpoint, in the order given (names resolving to several addresses expanded).
    endpoints: Vec<BatchEndpoint>,
    embedded: Option<EmbeddedServer>,
}

impl Connection {
    /// Connects to the `--server`s, or starts an embedded server and connects to it.
    ///
    /// With one server, it is connected to at once, so that an unreachable server is reported
    /// as such; with several, each connects on first use, so that a batch goes ahead on the
    /// ones that are up.
    pub async fn open(args: &GlobalArgs) -> anyhow::Result<Self> {
        let (addresses, embedded) = if args.server.is_empty() {
            orbit_server::logging::init(orbit_server::LogFormat::Text, "warn");
            let config = ServerConfig {
                workers: args.workers,
                max_message_bytes: args.max_message_bytes,
                shutdown_grace: 0.0,
                // The solvers serve only this process: no reason to yield to anything.
                worker_nice: 0,
                ..ServerConfig::default()
            };
            let server = EmbeddedServer::start(config)
                .await
                .context("cannot start the embedded server")?;
            (vec![server.url()], Some(server))
        } else {
            (orbit_client::endpoints::expand(&args.server).await?, None)
        };
        let mut endpoints = Vec::with_capacity(addresses.len());
        for address in addresses.iter() {
            let client = if addresses.len() == 1 {
                Client::connect_with_limit(address, args.max_message_bytes).await?
            } else {
                Client::connect_lazy_with_limit(address, args.max_message_bytes)?
            };
            endpoints.push(BatchEndpoint {
                address: address.clone(),
                client,
            });
        }
        Ok(Self {
            endpoints,
            embedded,
        })
    }

    /// The first endpoint's client, for commands that talk to one server.
    pub fn client(&self) -> &Client {
        &self.endpoints[0].client
    }

    /// Every endpoint.
    pub fn endpoints(&self) -> &[BatchEndpoint] {
        &self.endpoints
    }

    /// Stops the embedded server, if any.
    pub async fn close(self) {
        let Self {
            endpoints,
            embedded,
        } = self;
        drop(endpoints);
        if let Some(server) = embedded
            && let Err(e) = server.stop().await
        {
            eprintln!("orbit: embedded server: {e:#}");
        }
    }
}
