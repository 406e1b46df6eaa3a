//! Rust client for Orbit: a thin wrapper over the generated gRPC client, plus an embedded server
//! for tools (like the `orbit` CLI) that want to solve without a separate server process.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use orbit_client::{Client, pb};
//! let mut client = Client::connect("http://127.0.0.1:50051").await?;
//! let job = pb::Job {
//!     id: "j1".into(),
//!     options: None,
//!     kind: Some(pb::job::Kind::Game(pb::GameGraphJob {
//!         vertices: 2,
//!         edges: vec![pb::Edge { from: 0, to: 1 }],
//!         query: vec![],
//!     })),
//! };
//! let result = client.solve(job).await?;
//! println!("{result:?}");
//! # Ok(()) }
//! ```

pub mod embedded;
pub mod text_formats;

pub use orbit_api::v1 as pb;

use futures::Stream;
use orbit_api::v1::orbit_client::OrbitClient;
use tonic::transport::{Channel, Endpoint};
use tonic::{Status, Streaming};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

/// Default largest message, matching the server's default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Why the client could not talk to a server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The endpoint is not a valid URI.
    #[error("invalid server address '{address}': {reason}")]
    BadAddress { address: String, reason: String },
    /// Connecting failed.
    #[error("cannot connect to {address}: {source}")]
    Connect {
        address: String,
        #[source]
        source: tonic::transport::Error,
    },
}

/// A connection to one Orbit server.
#[derive(Debug, Clone)]
pub struct Client {
    orbit: OrbitClient<Channel>,
    health: HealthClient<Channel>,
}

impl Client {
    /// Connects to `address` (e.g. `http://127.0.0.1:50051`).
    ///
    /// # Errors
    /// [`ClientError`] if the address is malformed or the server cannot be reached.
    pub async fn connect(address: &str) -> Result<Self, ClientError> {
        Self::connect_with_limit(address, DEFAULT_MAX_MESSAGE_BYTES).await
    }

    /// Connects with a custom largest message size.
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn connect_with_limit(
        address: &str,
        max_message_bytes: usize,
    ) -> Result<Self, ClientError> {
        let endpoint = Endpoint::from_shared(address.to_string())
            .map_err(|e| ClientError::BadAddress {
                address: address.to_string(),
                reason: e.to_string(),
            })?
            .tcp_nodelay(true)
            // Large jobs would otherwise wait a round trip per 64 KB of HTTP/2 window.
            .initial_stream_window_size(orbit_server::HTTP2_STREAM_WINDOW)
            .initial_connection_window_size(orbit_server::HTTP2_CONNECTION_WINDOW);
        let channel = endpoint
            .connect()
            .await
            .map_err(|source| ClientError::Connect {
                address: address.to_string(),
                source,
            })?;
        Ok(Self::from_channel(channel, max_message_bytes))
    }

    /// Wraps an existing channel.
    pub fn from_channel(channel: Channel, max_message_bytes: usize) -> Self {
        let orbit = OrbitClient::new(channel.clone())
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        Self {
            orbit,
            health: HealthClient::new(channel),
        }
    }

    /// The generated client, for anything this wrapper does not cover.
    pub fn raw(&mut self) -> &mut OrbitClient<Channel> {
        &mut self.orbit
    }

    /// Solves one job (unary `Solve`).
    ///
    /// # Errors
    /// The server's status: INVALID_ARGUMENT naming the field, RESOURCE_EXHAUSTED, ...
    pub async fn solve(&mut self, job: pb::Job) -> Result<pb::JobResult, Status> {
        Ok(self.orbit.solve(job).await?.into_inner())
    }

    /// Solves a batch over one `SolveStream`; returns the event stream.
    ///
    /// # Errors
    /// If the call cannot start.
    pub async fn solve_stream(
        &mut self,
        jobs: impl Stream<Item = pb::Job> + Send + 'static,
    ) -> Result<Streaming<pb::JobEvent>, Status> {
        Ok(self.orbit.solve_stream(jobs).await?.into_inner())
    }

    /// The server's `ServerInfo`.
    ///
    /// # Errors
    /// The call's status.
    pub async fn info(&mut self) -> Result<pb::ServerInfoResponse, Status> {
        Ok(self
            .orbit
            .server_info(pb::ServerInfoRequest {})
            .await?
            .into_inner())
    }

    /// `grpc.health.v1` Check for `service` ("" for the whole server).
    ///
    /// # Errors
    /// The call's status.
    pub async fn health(&mut self, service: &str) -> Result<ServingStatus, Status> {
        let response = self
            .health
            .check(HealthCheckRequest {
                service: service.to_string(),
            })
            .await?;
        Ok(response.into_inner().status())
    }
}
