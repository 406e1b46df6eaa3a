//! `orbit-server`: serves Orbit's gRPC API until SIGINT or SIGTERM, then drains and exits 0.

use std::process::ExitCode;

use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use orbit_server::ServerConfig;
use orbit_server::traces::TraceExport;

/// How long the spans still queued at exit may take to reach `--otlp-endpoint`.
const TRACE_FLUSH_WITHIN: Duration = Duration::from_secs(5);

/// Orbit gRPC solver server.
#[derive(Debug, Parser)]
#[command(name = "orbit-server", version, about)]
struct Cli {
    #[command(flatten)]
    config: ServerConfig,
}

#[tokio::main]
async fn main() -> ExitCode {
    let Cli { mut config } = Cli::parse();
    // The binary keeps batches by default, in a SQLite file under the data directory; a server
    // built in code (the CLI's embedded one) keeps none unless told.
    config.store = Some(config.store_url(true).unwrap_or_else(|| "none".to_string()));
    // Started on the runtime: the exporter's gRPC channel runs there.
    let traces = match config
        .otlp_endpoint
        .as_ref()
        .map(|endpoint| TraceExport::start(endpoint, "orbit-server"))
        .transpose()
    {
        Ok(traces) => traces,
        Err(e) => {
            eprintln!("orbit-server: {e}");
            return ExitCode::FAILURE;
        }
    };
    orbit_server::logging::init(config.log_format, "info", traces.as_ref());
    let served = serve(config).await;
    // After the drain: the last jobs' spans are sent before the process exits.
    if let Some(traces) = traces
        && let Err(e) = traces.shutdown(TRACE_FLUSH_WITHIN).await
    {
        tracing::warn!("{e}");
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line naming the cause (e.g. which file is wrong), as the `orbit` CLI reports.
            eprintln!("orbit-server: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: ServerConfig) -> anyhow::Result<()> {
    let listen = config.listen;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on --listen {listen}"))?;
    orbit_server::run(listener, config, shutdown_signal()).await
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received"),
        () = terminate => tracing::info!("SIGTERM received"),
    }
}
