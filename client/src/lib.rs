//! Rust client for Orbit: a thin wrapper over the generated gRPC client ([`Client`]), how to reach
//! a server ([`ConnectOptions`]: TLS trust, the bearer token of [`auth`], the message limit), the
//! expansion of server names into addresses ([`endpoints`]), a batch spread over several servers
//! with retries ([`batch`]), durable batches stored by the server ([`batches`],
//! [`Client::batches`]), the caller's W3C trace context sent on every call ([`trace_context`]),
//! and checks of the witnesses answers carry ([`witness`]). It depends on the API crate
//! (`orbit-api`) and tonic only, not
//! on the server or the solvers; the `orbit` CLI, its text formats and the embedded server it
//! starts are the `orbit-cli` crate.
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
//!         ..Default::default()
//!     })),
//! };
//! let result = client.solve(job).await?;
//! println!("{result:?}");
//! # Ok(()) }
//! ```
//!
//! For TLS (`https://` with a private CA) or a server that wants a bearer token, connect with
//! [`Client::connect_with`] and [`ConnectOptions`].

pub mod auth;
pub mod batch;
pub mod batches;
pub mod endpoints;
pub mod trace_context;
pub mod witness;

pub use orbit_api::v1 as pb;
/// Default largest message, matching the server's default (defined with the contract).
pub use orbit_api::wire::DEFAULT_MAX_MESSAGE_BYTES;

pub use crate::auth::BearerAuth;
pub use crate::trace_context::{TraceContext, TracePropagation};

use futures::Stream;
use orbit_api::v1::batches_client::BatchesClient as RawBatchesClient;
use orbit_api::v1::orbit_client::OrbitClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Status, Streaming};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

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
    /// The CA certificate is not usable.
    #[error("invalid CA certificate: {reason}")]
    BadCa { reason: String },
    /// A CA certificate was given for an address that does not use TLS.
    #[error(
        "a CA certificate was given but '{address}' is not an https:// address (TLS needs https://)"
    )]
    CaWithoutTls { address: String },
    /// The TLS settings could not be applied (e.g. the CA file holds no PEM certificate).
    #[error("invalid TLS settings for {address}: {source}")]
    Tls {
        address: String,
        #[source]
        source: tonic::transport::Error,
    },
    /// The bearer token cannot be sent.
    #[error("invalid auth token: {reason}")]
    BadToken { reason: String },
}

/// How to reach a server: message size, TLS trust, the bearer token, and the trace context.
///
/// ```
/// let options = orbit_client::ConnectOptions {
///     auth_token: Some("s3cr3t".into()),
///     ..Default::default()
/// };
/// assert_eq!(options.max_message_bytes, orbit_client::DEFAULT_MAX_MESSAGE_BYTES);
/// ```
#[derive(Clone)]
pub struct ConnectOptions {
    /// Largest message either way, bytes.
    pub max_message_bytes: usize,
    /// PEM of the CA certificate(s) to trust for an `https://` address. When given, only these
    /// are trusted (no system roots); when `None`, `https://` trusts the system's roots.
    pub ca_pem: Option<Vec<u8>>,
    /// Sent as `authorization: Bearer <token>` on every call.
    pub auth_token: Option<String>,
    /// Sent as `traceparent` (and `tracestate`) on every call, so a server that exports traces
    /// makes its spans children of the caller's span; see [`trace_context`].
    pub trace_context: Option<TraceContext>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            ca_pem: None,
            auth_token: None,
            trace_context: None,
        }
    }
}

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("max_message_bytes", &self.max_message_bytes)
            .field("ca_pem", &self.ca_pem.as_ref().map(|pem| pem.len()))
            .field(
                "auth_token",
                &self.auth_token.as_ref().map(|_| "<redacted>"),
            )
            .field("trace_context", &self.trace_context)
            .finish()
    }
}

impl ConnectOptions {
    /// A tonic endpoint for `address` with these options' TLS settings and Orbit's transport
    /// tuning, e.g. for building a balanced channel over several servers; wrap the channel with
    /// [`Client::from_channel_with`] so the token is sent too.
    ///
    /// # Errors
    /// [`ClientError::BadAddress`], [`ClientError::CaWithoutTls`] or [`ClientError::Tls`].
    pub fn endpoint(&self, address: &str) -> Result<Endpoint, ClientError> {
        self.endpoint_for(address, None)
    }

    /// Like [`endpoint`](Self::endpoint); for `https://`, `tls_server_name` (when given) is the
    /// name the server's certificate is checked against instead of the address's host — for an
    /// IP address that a name resolved to (see [`crate::endpoints`]).
    ///
    /// # Errors
    /// As [`endpoint`](Self::endpoint).
    pub fn endpoint_for(
        &self,
        address: &str,
        tls_server_name: Option<&str>,
    ) -> Result<Endpoint, ClientError> {
        let mut endpoint = Endpoint::from_shared(address.to_string())
            .map_err(|e| ClientError::BadAddress {
                address: address.to_string(),
                reason: e.to_string(),
            })?
            .tcp_nodelay(true)
            // A refused or unreachable server should fail the call soon, not after the OS timeout.
            .connect_timeout(std::time::Duration::from_secs(5))
            // Large jobs would otherwise wait a round trip per 64 KB of HTTP/2 window.
            .initial_stream_window_size(orbit_api::wire::HTTP2_STREAM_WINDOW)
            .initial_connection_window_size(orbit_api::wire::HTTP2_CONNECTION_WINDOW);
        let https = endpoint.uri().scheme_str() == Some("https");
        let tls = match (&self.ca_pem, https) {
            (None, false) => None,
            (None, true) => Some(ClientTlsConfig::new().with_native_roots()),
            (Some(_), false) => {
                return Err(ClientError::CaWithoutTls {
                    address: address.to_string(),
                });
            }
            (Some(ca_pem), true) => {
                check_ca_pem(ca_pem)?;
                // Only this CA: no system roots.
                Some(ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca_pem)))
            }
        };
        let tls = match (tls, tls_server_name) {
            (Some(tls), Some(name)) => Some(tls.domain_name(name)),
            (tls, _) => tls,
        };
        if let Some(tls) = tls {
            endpoint = endpoint
                .tls_config(tls)
                .map_err(|source| ClientError::Tls {
                    address: address.to_string(),
                    source,
                })?;
        }
        Ok(endpoint)
    }

    /// The interceptor that sends the token.
    ///
    /// # Errors
    /// [`ClientError::BadToken`] if the token is empty or not visible ASCII.
    pub fn bearer_auth(&self) -> Result<BearerAuth, ClientError> {
        BearerAuth::new(self.auth_token.as_deref())
            .map_err(|reason| ClientError::BadToken { reason })
    }
}

/// Checks that `pem` holds at least one certificate, and nothing malformed: tonic would otherwise
/// ignore a non-PEM file and every server would then fail as "unknown issuer".
fn check_ca_pem(pem: &[u8]) -> Result<(), ClientError> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;
    let mut certificates = 0;
    for certificate in CertificateDer::pem_slice_iter(pem) {
        certificate.map_err(|e| ClientError::BadCa {
            reason: e.to_string(),
        })?;
        certificates += 1;
    }
    if certificates == 0 {
        return Err(ClientError::BadCa {
            reason: "no PEM certificate (BEGIN CERTIFICATE) in it".into(),
        });
    }
    Ok(())
}

/// A channel whose calls carry the bearer token.
pub type AuthenticatedChannel = InterceptedService<Channel, BearerAuth>;

/// The transport under the generated clients: a channel whose calls carry the bearer token and
/// the caller's trace context.
pub type OrbitChannel = InterceptedService<AuthenticatedChannel, TracePropagation>;

/// The former name of [`OrbitChannel`].
#[deprecated(note = "renamed `OrbitChannel`: its calls carry the trace context too")]
pub type AuthChannel = OrbitChannel;

/// A connection to one Orbit server.
#[derive(Debug, Clone)]
pub struct Client {
    orbit: OrbitClient<OrbitChannel>,
    batches: RawBatchesClient<OrbitChannel>,
    health: HealthClient<OrbitChannel>,
    /// What the clients above are built on, for [`Client::with_trace_context`].
    channel: AuthenticatedChannel,
    max_message_bytes: usize,
}

impl Client {
    /// Connects to `address` (e.g. `http://127.0.0.1:50051`).
    ///
    /// # Errors
    /// [`ClientError`] if the address is malformed or the server cannot be reached.
    pub async fn connect(address: &str) -> Result<Self, ClientError> {
        Self::connect_with(address, &ConnectOptions::default()).await
    }

    /// Connects with a custom largest message size.
    ///
    /// # Errors
    /// As [`connect`](Self::connect).
    pub async fn connect_with_limit(
        address: &str,
        max_message_bytes: usize,
    ) -> Result<Self, ClientError> {
        let options = ConnectOptions {
            max_message_bytes,
            ..ConnectOptions::default()
        };
        Self::connect_with(address, &options).await
    }

    /// Connects with `options`: TLS trust for `https://`, the bearer token, the message limit.
    ///
    /// # Errors
    /// [`ClientError`] if the address or options are invalid, or the server cannot be reached
    /// (including a TLS handshake that fails, e.g. a server certificate the CA did not sign).
    pub async fn connect_with(
        address: &str,
        options: &ConnectOptions,
    ) -> Result<Self, ClientError> {
        let endpoint = options.endpoint(address)?;
        // Checked before connecting, so a bad token is reported as such.
        let auth = options.bearer_auth()?;
        let channel = endpoint
            .connect()
            .await
            .map_err(|source| ClientError::Connect {
                address: address.to_string(),
                source,
            })?;
        Ok(Self::with_transport(
            InterceptedService::new(channel, auth),
            options.trace_context.as_ref(),
            options.max_message_bytes,
        ))
    }

    /// Like [`connect_with`](Self::connect_with), but connects on the first call (and reconnects
    /// after a failure) instead of now: for spreading work over several servers, some of which
    /// may be down at the start.
    ///
    /// # Errors
    /// [`ClientError`] if the address or options are invalid.
    pub fn connect_lazy_with(address: &str, options: &ConnectOptions) -> Result<Self, ClientError> {
        let channel = options.endpoint(address)?.connect_lazy();
        Ok(Self::with_transport(
            InterceptedService::new(channel, options.bearer_auth()?),
            options.trace_context.as_ref(),
            options.max_message_bytes,
        ))
    }

    /// Wraps an existing channel (no token, no trace context).
    pub fn from_channel(channel: Channel, max_message_bytes: usize) -> Self {
        Self::with_transport(
            InterceptedService::new(channel, BearerAuth::default()),
            None,
            max_message_bytes,
        )
    }

    /// Wraps an existing channel (e.g. from [`ConnectOptions::endpoint`]) with `options`' token,
    /// trace context and message limit.
    ///
    /// # Errors
    /// [`ClientError::BadToken`].
    pub fn from_channel_with(
        channel: Channel,
        options: &ConnectOptions,
    ) -> Result<Self, ClientError> {
        let auth = options.bearer_auth()?;
        Ok(Self::with_transport(
            InterceptedService::new(channel, auth),
            options.trace_context.as_ref(),
            options.max_message_bytes,
        ))
    }

    /// This client over the same connection, its calls sending `trace_context` instead (`None`:
    /// no trace context): for a caller whose operations are spans of their own, e.g.
    /// `client.with_trace_context(Some(span_context)).solve(job)`.
    pub fn with_trace_context(&self, trace_context: Option<TraceContext>) -> Self {
        Self::with_transport(
            self.channel.clone(),
            trace_context.as_ref(),
            self.max_message_bytes,
        )
    }

    fn with_transport(
        channel: AuthenticatedChannel,
        trace_context: Option<&TraceContext>,
        max_message_bytes: usize,
    ) -> Self {
        let transport =
            InterceptedService::new(channel.clone(), TracePropagation::new(trace_context));
        let orbit = OrbitClient::new(transport.clone())
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        let batches = RawBatchesClient::new(transport.clone())
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(max_message_bytes);
        Self {
            orbit,
            batches,
            health: HealthClient::new(transport),
            channel,
            max_message_bytes,
        }
    }

    /// The durable-batch calls (`orbit.v1.Batches`) over the same connection, token and message
    /// limit; see [`crate::batches`].
    pub fn batches(&self) -> batches::BatchesClient {
        batches::BatchesClient::new(self.batches.clone())
    }

    /// The generated client, for anything this wrapper does not cover.
    pub fn raw(&mut self) -> &mut OrbitClient<OrbitChannel> {
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
