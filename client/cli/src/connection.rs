//! Where the servers are and how to reach them: `--server` (repeatable; with `--ca` and
//! `--auth-token-file`), or an embedded server started for this command.

use std::path::Path;

use anyhow::Context;
use orbit_client::batch::BatchEndpoint;
use orbit_client::{Client, ConnectOptions};
use orbit_server::ServerConfig;
use orbit_server::traces::TraceExport;

use crate::GlobalArgs;
use crate::embedded::EmbeddedServer;

/// Clients for every endpoint plus, when no `--server` was given, the embedded server.
pub struct Connection {
    /// One per endpoint, in the order given (names resolving to several addresses expanded).
    endpoints: Vec<BatchEndpoint>,
    embedded: Option<EmbeddedServer>,
}

impl Connection {
    /// Connects to the `--server`s, or starts an embedded server and connects to it; the
    /// embedded server's spans go to `traces`, if given (`--otlp-endpoint`).
    ///
    /// With one server, it is connected to at once, so that an unreachable server is reported
    /// as such; with several, each connects on first use, so that a batch goes ahead on the
    /// ones that are up.
    pub async fn open(args: &GlobalArgs, traces: Option<&TraceExport>) -> anyhow::Result<Self> {
        let (addresses, options, embedded) = if args.server.is_empty() {
            orbit_server::logging::init(orbit_server::LogFormat::Text, "warn", traces);
            let config = ServerConfig {
                workers: args.workers,
                max_message_bytes: args.max_message_bytes,
                // Continues the command's trace into its call and job spans.
                otlp_endpoint: traces.map(|traces| traces.endpoint().clone()),
                shutdown_grace: 0.0,
                // The solvers serve only this process: no reason to yield to anything.
                worker_nice: 0,
                ..ServerConfig::default()
            };
            let server = EmbeddedServer::start(config)
                .await
                .context("cannot start the embedded server")?;
            // The embedded server is plaintext and open: --ca and the token do not apply to it.
            let options = ConnectOptions {
                max_message_bytes: args.max_message_bytes,
                trace_context: args.trace_context.clone(),
                ..ConnectOptions::default()
            };
            let only = orbit_client::endpoints::ResolvedEndpoint {
                address: server.url(),
                tls_server_name: None,
            };
            (vec![only], options, Some(server))
        } else {
            let addresses = orbit_client::endpoints::expand(&args.server).await?;
            (addresses, connect_options(args)?, None)
        };
        let mut endpoints = Vec::with_capacity(addresses.len());
        for resolved in addresses.iter() {
            let address = &resolved.address;
            let client = match (&resolved.tls_server_name, addresses.len()) {
                (None, 1) => Client::connect_with(address, &options).await,
                (None, _) => Client::connect_lazy_with(address, &options),
                // An IP address a name resolved to: TLS checks the certificate against the name.
                (Some(name), _) => options
                    .endpoint_for(address, Some(name))
                    .and_then(|e| Client::from_channel_with(e.connect_lazy(), &options)),
            }
            .map_err(|e| anyhow::anyhow!(causes(&e)))?;
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

/// A client of the first `--server` (with `--ca`, `--auth-token-file`, `--max-message-bytes`),
/// for commands that need a real server and never the embedded one: `orbit batch`, whose batches
/// must outlive the command. `what` names the command in the error.
///
/// # Errors
/// If no `--server` (nor `ORBIT_SERVER`) was given — before anything is started — or the CA or
/// token file cannot be read, or the server cannot be reached.
pub async fn remote_client(args: &GlobalArgs, what: &str) -> anyhow::Result<Client> {
    let Some(address) = args.server.iter().find(|s| !s.trim().is_empty()) else {
        anyhow::bail!(
            "{what} needs --server URL (or ORBIT_SERVER): batches are kept by an orbit-server \
             with a store; the embedded server this command would start keeps none"
        );
    };
    let options = connect_options(args)?;
    Client::connect_with(address.trim(), &options)
        .await
        .map_err(|e| anyhow::anyhow!(causes(&e)))
}

/// The connect options `--max-message-bytes`, `--ca` and `--auth-token-file` ask for, with the
/// command's trace context, for any `--server` endpoint.
///
/// # Errors
/// If the CA or token file cannot be read, or the token file is empty.
pub fn connect_options(args: &GlobalArgs) -> anyhow::Result<ConnectOptions> {
    let ca_pem = args
        .ca
        .as_deref()
        .map(|path| {
            std::fs::read(path).with_context(|| format!("cannot read --ca {}", path.display()))
        })
        .transpose()?;
    let auth_token = args
        .auth_token_file
        .as_deref()
        .map(read_token)
        .transpose()?;
    Ok(ConnectOptions {
        max_message_bytes: args.max_message_bytes,
        ca_pem,
        auth_token,
        trace_context: args.trace_context.clone(),
    })
}

/// `error` and its causes on one line, `a: b: c`, each message once: tonic's transport errors
/// repeat themselves along the chain ("transport error: transport error: invalid peer
/// certificate: UnknownIssuer: invalid peer certificate: UnknownIssuer").
fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut messages: Vec<String> = Vec::new();
    let mut next = Some(error);
    while let Some(e) = next {
        let message = e.to_string();
        next = e.source();
        // A wrapper that prints its cause as well ("...: transport error") keeps its own part.
        if let Some(last) = messages.last_mut()
            && let Some(own) = last.strip_suffix(&message)
            && !own.is_empty()
        {
            *last = own.trim_end_matches([':', ' ']).to_string();
        }
        // "transport error" says nothing the next message does not.
        if message != "transport error" && !messages.contains(&message) {
            messages.push(message);
        }
    }
    messages.retain(|m| !m.is_empty());
    messages.join(": ")
}

/// The token in `path`, surrounding whitespace trimmed; an empty file is an error.
fn read_token(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read --auth-token-file {}", path.display()))?;
    let token = text.trim();
    anyhow::ensure!(
        !token.is_empty(),
        "--auth-token-file {} is empty",
        path.display()
    );
    Ok(token.to_string())
}

#[cfg(test)]
mod tests {
    use super::causes;

    /// An error with a message and an optional cause.
    #[derive(Debug)]
    struct Link(&'static str, Option<Box<Link>>);

    impl std::fmt::Display for Link {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Link {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as _)
        }
    }

    fn chain(messages: &[&'static str]) -> Link {
        messages
            .iter()
            .rev()
            .fold(None, |cause, m| Some(Link(m, cause.map(Box::new))))
            .expect("at least one message")
    }

    #[test]
    fn each_cause_is_said_once() {
        // The shape of a tonic TLS failure.
        let error = chain(&[
            "cannot connect to https://h:1: transport error",
            "transport error",
            "invalid peer certificate: UnknownIssuer",
            "invalid peer certificate: UnknownIssuer",
        ]);
        assert_eq!(
            causes(&error),
            "cannot connect to https://h:1: invalid peer certificate: UnknownIssuer"
        );
        assert_eq!(causes(&chain(&["a", "b", "c"])), "a: b: c");
        assert_eq!(causes(&chain(&["only"])), "only");
    }
}
