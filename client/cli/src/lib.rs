//! `orbit`, the Orbit command-line client, as a library: the command line ([`Cli`]) and [`run`],
//! which the `orbit` binary (`main.rs`) calls; the text formats ([`text_formats`]) that the fuzz
//! targets share; and the embedded server ([`embedded`]) that commands start when no `--server`
//! is given, also a fixture for tests.
//!
//! Each command turns its input into protobuf jobs, sends them over gRPC through `orbit-client`
//! and prints the answers; `connection.rs` decides where the server is.
//!
//! # Layout
//! - `kinds/`: one file per job kind (game, group, count, puzzle, cop_thief, graph), each holding the
//!   kind's text format (text → protobuf job), its domain → protobuf conversions and its command.
//! - `text_formats.rs`: the text → job functions of every kind, gathered under one path.
//! - `solve.rs` (`orbit solve`, JSON lines of any kind), `service.rs` (`orbit health`, `info`).
//! - `batch.rs` (`orbit batch submit|status|list|results|cancel|delete`: durable batches kept by
//!   an `orbit-server` with a store; needs `--server`, never starts the embedded server).
//! - `connection.rs` (`--server`s or the embedded server; `remote_client`, the first `--server`
//!   only), `unary.rs` (one job through `Solve`, or on a terminal through `SolveStream` with a
//!   progress bar once it has run a second),
//!   `input.rs` (reading a file or stdin, printing a status).
//! - `embedded.rs`: an Orbit server in this process on a loopback port.
//! - `command_trace.rs`: the command's trace: a span whose W3C trace context every call sends
//!   (continuing `TRACEPARENT` if set), exported with `--otlp-endpoint`.

mod batch;
pub mod command_trace;
mod connection;
pub mod embedded;
mod input;
pub mod kinds;
mod service;
mod solve;
pub mod text_formats;
mod unary;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use orbit_client::TraceContext;
use orbit_server::traces::OtlpEndpoint;

use crate::command_trace::CommandTrace;

/// Orbit: exact combinatorial group and game solving over gRPC.
// `orbit --help` opens with `about`. It used to be the description of the package that held the
// binary (orbit-client); it is spelled out here so that the help text stays the same.
#[derive(Debug, Parser)]
#[command(
    name = "orbit",
    version,
    about = "Rust client for Orbit (a wrapper over the generated gRPC client) and the `orbit` CLI.",
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Server to talk to, e.g. http://127.0.0.1:50051. Repeat it (or give a comma-separated
    /// list, or a name that resolves to several addresses) to spread `solve` batches over several
    /// servers, with a job retried elsewhere when its server fails. Without it, an embedded server
    /// is started in this process on a loopback port.
    #[arg(long, global = true, env = "ORBIT_SERVER", value_delimiter = ',')]
    pub server: Vec<String>,

    /// Worker threads of the embedded server (default: the number of cores).
    #[arg(long, global = true)]
    pub workers: Option<usize>,

    /// Largest gRPC message, bytes.
    #[arg(long, global = true, default_value_t = orbit_client::DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,

    /// PEM file of the CA certificate to trust for an https:// --server. Only that CA is trusted
    /// then; without --ca, https:// trusts the system's roots.
    #[arg(long, global = true, env = "ORBIT_CA", value_name = "FILE")]
    pub ca: Option<PathBuf>,

    /// File holding the server's bearer token (surrounding whitespace trimmed); sent as
    /// `authorization: Bearer <token>` on every call to --server.
    #[arg(
        long,
        global = true,
        env = "ORBIT_AUTH_TOKEN_FILE",
        value_name = "FILE"
    )]
    pub auth_token_file: Option<PathBuf>,

    /// Export this command's trace over OTLP/gRPC to this collector, e.g.
    /// http://otel-collector:4317 (with the embedded server's spans). Without it the command's
    /// trace context is still sent to the server (continuing TRACEPARENT if set), and nothing is
    /// exported.
    #[arg(long, global = true, env = "ORBIT_OTLP_ENDPOINT", value_name = "URL")]
    pub otlp_endpoint: Option<OtlpEndpoint>,

    /// The command's trace context, sent on every call: set by [`run`], not a flag.
    #[arg(skip)]
    pub trace_context: Option<TraceContext>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve a batch: jobs as JSON lines (proto3 JSON of orbit.v1.Job), one JSON event line per
    /// job on stdout (its final `result` or `error`). Exit status 1 if any job failed.
    Solve(solve::SolveArgs),
    /// The per-kind commands (`game`, `group`, `count`, `puzzle`, `cop-thief`).
    #[command(flatten)]
    Kind(kinds::KindCommand),
    /// Check a server's health (grpc.health.v1). Prints SERVING or NOT_SERVING; exit 1 unless
    /// serving.
    Health {
        /// Service to check; empty for the whole server.
        #[arg(long, default_value = "")]
        service: String,
    },
    /// Print a server's ServerInfo (version, workers, queue, limits, job kinds) as JSON.
    Info,
    /// Durable batches kept by the server (`orbit.v1.Batches`): submit, then come back for the
    /// results. Needs --server: the embedded server keeps no batches.
    Batch(batch::BatchArgs),
}

impl Command {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Solve(_) => "solve",
            Self::Kind(kind) => kind.name(),
            Self::Health { .. } => "health",
            Self::Info => "info",
            Self::Batch(_) => "batch",
        }
    }
}

/// Runs one command, in a trace of its own (see [`command_trace`]); the exit code says whether
/// every job succeeded.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Cli {
        mut global,
        command,
    } = cli;
    let trace = CommandTrace::start(command.name(), global.otlp_endpoint.as_ref())?;
    global.trace_context = Some(trace.context().clone());
    let outcome = run_command(command, &global, &trace).await;
    trace.finish(&outcome).await;
    outcome
}

async fn run_command(
    command: Command,
    global: &GlobalArgs,
    trace: &CommandTrace,
) -> anyhow::Result<ExitCode> {
    // Before `Connection::open`: never the embedded server, which keeps no batches.
    if let Command::Batch(args) = command {
        return batch::run(args, global).await;
    }
    let connection = connection::Connection::open(global, trace.export()).await?;
    let mut client = connection.client().clone();
    let outcome = match command {
        Command::Solve(args) => solve::run(connection.endpoints(), &args, global).await,
        Command::Kind(command) => kinds::run(command, &connection, global).await,
        Command::Health { service } => service::health(&mut client, &service).await,
        Command::Info => service::info(&mut client).await,
        Command::Batch(_) => unreachable!("dispatched above"),
    };
    connection.close().await;
    outcome
}
