//! `orbit-server`: serves Orbit's gRPC API until SIGINT or SIGTERM, then drains and exits 0.

use clap::Parser;
use orbit_server::ServerConfig;

/// Orbit gRPC solver server.
#[derive(Debug, Parser)]
#[command(name = "orbit-server", version, about)]
struct Cli {
    #[command(flatten)]
    config: ServerConfig,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let Cli { config } = Cli::parse();
    orbit_server::logging::init(config.log_format, "info");
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
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
