//! Orbit's gRPC front server.
//!
//! [`run`] serves `orbit.v1.Orbit`, `grpc.health.v1.Health` and server reflection (v1 and v1alpha)
//! on a listener until `shutdown` resolves, then drains: health turns NOT_SERVING, new jobs are
//! refused with UNAVAILABLE, running jobs get the grace period to finish and are then cancelled,
//! open streams end, and the worker threads are joined. Tests bind port 0 and pass a channel as
//! `shutdown`; the binary passes SIGINT/SIGTERM.
//!
//! With a batch store (`--store`), it also serves `orbit.v1.Batches` and works through the stored
//! batches with the same worker pool ([`batches`]); online jobs keep priority.
//!
//! Operations: Prometheus metrics on their own HTTP port (`metrics`), TLS on the gRPC port
//! (`tls`), bearer-token authentication (`layers::auth`) and OpenTelemetry traces (`traces`,
//! `layers::trace_context`), all off unless configured.
//!
//! # Layout
//!
//! A job's path through the server, in the order the files are met:
//!
//! - [`service`]: the `orbit.v1.Orbit` handlers (`Solve`, `SolveStream`, `ServerInfo`), a few
//!   lines each: admit, submit, convert the answer back.
//! - [`stream`]: the `SolveStream` loop: reads jobs up to the stream window, forwards their
//!   events, ends a stalled stream, cancels what is left when the stream ends.
//! - [`admission`]: which jobs get in: proto → domain and validation against the limits
//!   ([`admission::accept`], also what the fuzz targets check), then a place in the shared queue
//!   (now for unary calls, waited for by streams); refusals once shutdown has begun.
//! - [`convert`]: protobuf ↔ the worker's domain types (`orbit_worker::JobSpec`), both ways: the
//!   dispatch over the job kinds in `convert/mod.rs`, each kind's conversions in its own file.
//! - [`dispatcher`]: hands admitted jobs to the worker pool (`orbit_worker::pool`) and their
//!   answers back; counts jobs in flight for the drain, logs each job in its span, counts it in
//!   the metrics.
//! - [`deadline`]: `JobOptions.deadline_ms`, one timer per job that has one, for unary calls and
//!   streams alike.
//! - [`batches`]: durable batches: the store (PostgreSQL or SQLite), the `orbit.v1.Batches`
//!   handlers, and the runner that claims stored jobs for idle workers.
//! - [`error`]: [`error::ServiceError`] and its one mapping to gRPC statuses with their
//!   `google.rpc` details ([`error::ErrorReport`], [`error::Reason`]), for calls and job errors.
//! - [`layers`]: tower layers around every service: a span per call continuing the caller's
//!   trace (W3C Trace Context), the standard gRPC metrics of every call, bearer-token
//!   authentication and the RESOURCE_EXHAUSTED answer for oversized requests.
//! - [`metrics`]: the Prometheus series and their `/metrics` endpoint.
//! - [`traces`]: the OpenTelemetry trace export to `--otlp-endpoint` (OTLP/gRPC).
//! - [`config`] ([`ServerConfig`], the flags), [`logging`], [`tls`]: set-up.
//! - this file: [`run`] and [`run_on`], which build the above, serve, and drain on shutdown.

pub mod admission;
pub mod batches;
pub mod config;
pub mod convert;
pub mod deadline;
pub mod dispatcher;
pub mod error;
pub mod layers;
pub mod logging;
pub mod metrics;
pub mod service;
pub mod stream;
pub mod tls;
pub mod traces;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use orbit_api::v1::batches_server::BatchesServer;
use orbit_api::v1::orbit_server::OrbitServer;
use orbit_api::wire::{HTTP2_CONNECTION_WINDOW, HTTP2_STREAM_WINDOW};
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic_health::ServingStatus;

pub use config::{LogFormat, ServerConfig};

use crate::batches::runner::BatchRunner;
use crate::batches::service::BatchesService;
use crate::batches::store::{Store, redact};
use crate::dispatcher::Dispatcher;
use crate::layers::auth::{AuthLayer, BearerToken};
use crate::layers::grpc_metrics::GrpcMetricsLayer;
use crate::layers::trace_context::TraceContextLayer;
use crate::metrics::endpoint::MetricsServer;
use crate::service::OrbitService;

/// How long connections may stay open after the drain before the server closes them anyway.
/// (tonic's graceful shutdown waits for every connection with no deadline of its own.)
const CLOSE_CONNECTIONS_WITHIN: Duration = Duration::from_secs(3);
/// How long cancelled jobs get to report back after the grace period.
const CANCEL_SETTLE: Duration = Duration::from_secs(2);

/// How often an idle connection is pinged, and how long the answer may take before the
/// connection is dropped.
const HTTP2_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
/// See [`HTTP2_KEEPALIVE_INTERVAL`].
const HTTP2_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

/// The fully qualified name health checks use for the Orbit service.
pub const SERVICE_NAME: &str = "orbit.v1.Orbit";

/// The sockets a server serves on, bound by the caller (tests bind port 0).
#[derive(Debug)]
pub struct Listeners {
    /// gRPC.
    pub grpc: TcpListener,
    /// The metrics endpoint; `None` serves no metrics.
    pub metrics: Option<TcpListener>,
}

/// Serves gRPC on `listener` (and metrics on `config.metrics_addr`, if set) until `shutdown`
/// resolves, then drains and returns.
///
/// # Errors
/// As [`run_on`], and if `config.metrics_addr` cannot be bound.
pub async fn run(
    listener: TcpListener,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let metrics = match config.metrics_addr {
        Some(addr) => Some(
            TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on --metrics-addr {addr}"))?,
        ),
        None => None,
    };
    let listeners = Listeners {
        grpc: listener,
        metrics,
    };
    run_on(listeners, config, shutdown).await
}

/// Serves on already-bound `listeners` (`config.listen` and `config.metrics_addr` are not used)
/// until `shutdown` resolves, then drains and returns.
///
/// # Errors
/// If the TLS files or the token file are missing or invalid, worker threads cannot be started,
/// reflection cannot be built, or the transport fails.
pub async fn run_on(
    listeners: Listeners,
    config: ServerConfig,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    // Files first: a wrong path stops the server before anything starts.
    let tls = tls::server_tls_config(config.tls_cert.as_deref(), config.tls_key.as_deref())?;
    let auth_token = config
        .auth_token_file
        .as_deref()
        .map(BearerToken::from_file)
        .transpose()?;
    let (tls_enabled, auth_enabled) = (tls.is_some(), auth_token.is_some());
    let mut builder = Server::builder();
    if let Some(tls) = tls {
        // Also where a key that does not match the certificate is found.
        builder = builder
            .tls_config(tls)
            .context("cannot set up TLS from --tls-cert and --tls-key")?;
    }

    let workers = config.worker_count();
    let dispatcher = Arc::new(
        Dispatcher::new(
            workers,
            config.queue_capacity,
            config.worker_nice,
            config.limits(),
        )?
        .with_test_panic_on_job_id(config.test_panic_on_job_id.clone()),
    );

    // The batch store: opened (and migrated) before serving, so a wrong URL stops the start.
    let store =
        match config.store_url(false) {
            Some(url) => Some(Store::connect(&url).await.with_context(|| {
                format!("cannot open the batch store --store {}", redact(&url))
            })?),
            None => None,
        };

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<OrbitServer<OrbitService>>().await;
    health.set_service_status("", ServingStatus::Serving).await;
    let batches_status = if store.is_some() {
        ServingStatus::Serving
    } else {
        ServingStatus::NotServing
    };
    health
        .set_service_status(batches::SERVICE_NAME, batches_status)
        .await;
    let batch_settings = config.batch_settings();
    // Jobs stored by a create on this replica wake its runner at once (other replicas poll).
    let jobs_stored = Arc::new(tokio::sync::Notify::new());
    let batches_service = BatchesServer::new(BatchesService::new(
        store.clone(),
        batch_settings.limits,
        config.max_message_bytes,
        Arc::clone(&jobs_stored),
    ))
    .max_decoding_message_size(config.max_message_bytes)
    .max_encoding_message_size(config.max_message_bytes);
    let runner = store.map(|store| {
        BatchRunner::start(
            store,
            Arc::clone(&dispatcher),
            batch_settings,
            health.clone(),
            jobs_stored,
        )
    });

    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(orbit_api::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;

    let (closing_tx, closing_rx) = watch::channel(false);
    let service = OrbitService::new(
        Arc::clone(&dispatcher),
        closing_rx,
        config.stream_settings(),
    );
    let orbit = OrbitServer::new(service)
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);

    // Dropped (and so aborted) on any early return; stopped after the drain otherwise.
    let metrics_server = listeners.metrics.map(|listener| {
        let dispatcher = Arc::clone(&dispatcher);
        MetricsServer::spawn(listener, Arc::new(move || dispatcher.metrics_text()))
    });

    let Listeners { grpc: listener, .. } = listeners;
    let local = listener.local_addr()?;
    tracing::info!(
        %local,
        workers,
        queue_capacity = config.queue_capacity,
        tls = tls_enabled,
        auth = auth_enabled,
        "orbit-server listening"
    );
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let serve = builder
        // Jobs are often a few hundred KB (puzzle targets, permutations): HTTP/2's default 64 KB
        // windows would cost a round trip per 64 KB.
        .initial_stream_window_size(HTTP2_STREAM_WINDOW)
        .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
        .max_frame_size(Some(1 << 20))
        // A peer that vanished without closing (a cut network, a frozen VM) is noticed by pings,
        // so its streams end and their jobs are cancelled instead of waiting for ever.
        .http2_keepalive_interval(Some(HTTP2_KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(HTTP2_KEEPALIVE_TIMEOUT))
        // The first layer is the outermost: every call is traced (when traces are exported) and
        // counted in the gRPC metrics, refused or not; a call without the token goes no further
        // than the auth layer.
        .layer(TraceContextLayer::new(config.otlp_endpoint.is_some()))
        .layer(GrpcMetricsLayer::new(dispatcher.metrics().grpc().clone()))
        .layer(AuthLayer::new(auth_token))
        .layer(layers::message_limit::MessageLimitLayer::new(
            config.max_message_bytes,
        ))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(orbit)
        .add_service(batches_service)
        .serve_with_incoming_shutdown(incoming, async {
            let _ = stop_rx.await;
        });
    tokio::pin!(serve);

    tokio::select! {
        result = &mut serve => {
            result?;
            return Ok(());
        }
        () = shutdown => {}
    }

    // Drain, while still serving health checks and the answers of running jobs.
    tracing::info!(
        grace_s = config.grace().as_secs_f64(),
        inflight = dispatcher.inflight(),
        "shutdown: draining"
    );
    health.set_not_serving::<OrbitServer<OrbitService>>().await;
    health
        .set_service_status("", ServingStatus::NotServing)
        .await;
    dispatcher.admission().start_draining();
    if let Some(runner) = &runner {
        runner.begin_drain().await;
    }
    let finished = tokio::select! {
        idle = dispatcher.wait_idle(config.grace()) => idle,
        result = &mut serve => { result?; return Ok(()); }
    };
    if !finished {
        tracing::warn!(
            inflight = dispatcher.inflight(),
            "shutdown: grace period over, cancelling running jobs"
        );
        dispatcher.cancel_all();
        tokio::select! {
            _ = dispatcher.wait_idle(CANCEL_SETTLE) => {}
            result = &mut serve => { result?; return Ok(()); }
        }
    }
    // Batch jobs that finished are committed, the rest handed back to the store for other
    // replicas (a drain spends no attempt).
    if let Some(runner) = runner {
        runner.finish().await;
    }
    let _ = closing_tx.send(true);
    let _ = stop_tx.send(());
    match tokio::time::timeout(CLOSE_CONNECTIONS_WITHIN, &mut serve).await {
        Ok(result) => result?,
        Err(_) => tracing::warn!("shutdown: connections still open, closing them"),
    }
    // Scrapes stay answered through the drain; the endpoint holds a handle on the dispatcher, so
    // it stops before the worker threads are joined.
    if let Some(metrics_server) = metrics_server {
        metrics_server.stop().await;
    }
    // Joining worker threads blocks; keep it off the runtime.
    tokio::task::spawn_blocking(move || drop(dispatcher)).await?;
    tracing::info!("shutdown: done");
    Ok(())
}
