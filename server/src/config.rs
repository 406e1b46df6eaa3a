//! `orbit-server`'s settings: flags (and `ORBIT_*` environment variables), with defaults that suit
//! one machine. The embedded server of the `orbit` CLI uses the same struct.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use orbit_worker::Limits;

use crate::stream::StreamSettings;
use crate::traces::OtlpEndpoint;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log shippers.
    Json,
}

/// Everything `server::run` needs to know.
#[derive(Debug, Clone, Args)]
pub struct ServerConfig {
    /// Address to listen on.
    #[arg(long, env = "ORBIT_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Worker threads running solvers (default: the number of cores).
    #[arg(long, env = "ORBIT_WORKERS")]
    pub workers: Option<usize>,

    /// Threads one job may use inside a parallel solver (default: the number of cores).
    #[arg(long, env = "ORBIT_THREADS_PER_JOB")]
    pub threads_per_job: Option<usize>,

    /// Unix nice value of the worker threads (0-19). Above 0 (10 is a good value) the async
    /// runtime preempts the solvers, so a server with every worker busy still answers health
    /// checks and reads jobs at once — at the cost of throughput for very small jobs when
    /// clients share the machine. The deploy files set 10.
    #[arg(long, env = "ORBIT_WORKER_NICE", default_value_t = 0, value_parser = clap::value_parser!(i32).range(0..=19))]
    pub worker_nice: i32,

    /// Jobs that may wait in the shared queue. A unary call finding it full gets
    /// RESOURCE_EXHAUSTED; a stream waits for room.
    #[arg(long, env = "ORBIT_QUEUE_CAPACITY", default_value_t = 1024)]
    pub queue_capacity: usize,

    /// Jobs one stream may have in flight (queued or running) before the server stops reading
    /// more from it.
    #[arg(long, env = "ORBIT_STREAM_WINDOW", default_value_t = 256)]
    pub stream_window: usize,

    /// Seconds a stream may go without taking an event the server has ready before it is closed
    /// (RESOURCE_EXHAUSTED) and its jobs in flight are cancelled: a client that stops reading
    /// cannot hold answers, and the jobs behind them, for ever.
    #[arg(long, env = "ORBIT_STALL_TIMEOUT", default_value_t = 60.0)]
    pub stall_timeout: f64,

    /// Seconds running jobs get to finish after SIGINT/SIGTERM before they are cancelled.
    #[arg(long, env = "ORBIT_SHUTDOWN_GRACE", default_value_t = 10.0)]
    pub shutdown_grace: f64,

    /// Log format (filter with RUST_LOG, e.g. RUST_LOG=orbit_server=debug).
    #[arg(long, value_enum, env = "ORBIT_LOG_FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Largest request or response message, bytes.
    #[arg(long, env = "ORBIT_MAX_MESSAGE_BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_message_bytes: usize,

    /// Largest game or puzzle graph, vertices.
    #[arg(long, env = "ORBIT_MAX_VERTICES", default_value_t = Limits::default().max_vertices)]
    pub max_vertices: u64,

    /// Largest game or puzzle graph, edges.
    #[arg(long, env = "ORBIT_MAX_EDGES", default_value_t = Limits::default().max_edges)]
    pub max_edges: u64,

    /// Largest implicit game, states.
    #[arg(long, env = "ORBIT_MAX_STATES", default_value_t = Limits::default().max_states)]
    pub max_states: u64,

    /// Largest permutation degree.
    #[arg(long, env = "ORBIT_MAX_DEGREE", default_value_t = Limits::default().max_degree)]
    pub max_degree: u64,

    /// Most group elements a counting job may enumerate.
    #[arg(long, env = "ORBIT_MAX_GROUP_ELEMENTS", default_value_t = Limits::default().max_group_elements)]
    pub max_group_elements: u64,

    /// Most integers across one job's permutations or arrangements.
    #[arg(long, env = "ORBIT_MAX_PERMUTATION_ENTRIES", default_value_t = Limits::default().max_permutation_entries)]
    pub max_permutation_entries: u64,

    /// Longest principal variation a game answer reports, moves (longer lines are cut).
    #[arg(long, env = "ORBIT_MAX_LINE", default_value_t = Limits::default().max_line)]
    pub max_line: u64,

    /// Most moves and line steps one game answer reports in all.
    #[arg(long, env = "ORBIT_MAX_REPORTED_MOVES", default_value_t = Limits::default().max_reported_moves)]
    pub max_reported_moves: u64,

    /// Most word letters (sum of the exponents' absolute values) one group answer reports in
    /// all, when its job asks for words.
    #[arg(long, env = "ORBIT_MAX_WORD_LETTERS", default_value_t = Limits::default().max_word_letters)]
    pub max_word_letters: u64,
    /// Most moves one puzzle job reports in all (its move sequences, when asked for).
    #[arg(long, env = "ORBIT_MAX_PUZZLE_MOVES", default_value_t = Limits::default().max_puzzle_moves)]
    pub max_puzzle_moves: u64,

    /// Serve Prometheus metrics at http://HOST:PORT/metrics (plain HTTP, no token), e.g.
    /// 0.0.0.0:9464. Off when not given.
    #[arg(long, env = "ORBIT_METRICS_ADDR", value_name = "HOST:PORT")]
    pub metrics_addr: Option<SocketAddr>,

    /// PEM certificate chain (server certificate first): serve gRPC over TLS. Needs --tls-key.
    #[arg(
        long,
        env = "ORBIT_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1).
    #[arg(
        long,
        env = "ORBIT_TLS_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,

    /// File holding a bearer token (surrounding whitespace trimmed): every call must then send
    /// `authorization: Bearer <token>` or gets UNAUTHENTICATED, except grpc.health.v1 (probes
    /// cannot send headers). The server refuses to start if the file is missing or empty.
    #[arg(long, env = "ORBIT_AUTH_TOKEN_FILE", value_name = "FILE")]
    pub auth_token_file: Option<PathBuf>,

    /// Most memory one job may allocate while it runs, bytes or with a suffix K, M, G, T (powers
    /// of 1024: 512M, 4G). A job whose estimate is larger is refused with RESOURCE_EXHAUSTED
    /// before it runs; a group job's stabiliser chain and enumeration are charged against it.
    #[arg(long, env = "ORBIT_MAX_JOB_MEMORY", default_value = "4G", value_parser = parse_byte_size)]
    pub max_job_memory: u64,

    /// Where durable batches (`orbit.v1.Batches`) are kept: `postgres://USER:PASSWORD@HOST/DB`
    /// (replicas on the same database share the work) or `sqlite:PATH` (one node), or `none` for
    /// no batch service. `orbit-server` defaults to `sqlite:DATA_DIR/batches.db` (see
    /// `--data-dir`); a server built in code (`ServerConfig::default()`, the CLI's embedded one)
    /// has none. Read from ORBIT_STORE too, so a Kubernetes Secret can hold the password.
    #[arg(long, env = "ORBIT_STORE", value_name = "URL", hide_env_values = true)]
    pub store: Option<String>,

    /// Directory of the default SQLite store: ORBIT_DATA_DIR, else $XDG_DATA_HOME/orbit-server,
    /// else ~/.local/share/orbit-server (the container image sets /var/lib/orbit, a volume).
    #[arg(long, env = "ORBIT_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Most jobs one batch may hold; a create going over it is refused (RESOURCE_EXHAUSTED) from
    /// that job on, the jobs stored before it staying in the batch.
    #[arg(long, env = "ORBIT_MAX_BATCH_JOBS", default_value_t = 100_000_000)]
    pub max_batch_jobs: u64,

    /// Most bytes of jobs (their encoded size) one batch may hold, with a suffix K, M, G or T.
    #[arg(long, env = "ORBIT_MAX_BATCH_BYTES", default_value = "64G", value_parser = parse_byte_size)]
    pub max_batch_bytes: u64,

    /// Seconds a finished (done or cancelled) batch is kept before it is deleted with its
    /// results; default 7 days.
    #[arg(long, env = "ORBIT_BATCH_RETENTION", default_value_t = 7.0 * 24.0 * 3600.0)]
    pub batch_retention: f64,

    /// Seconds a claimed batch job's lease lasts without renewal (renewed every third of it while
    /// the job waits or runs): how long the jobs of a replica that died wait before another
    /// replica runs them.
    #[arg(long, env = "ORBIT_LEASE_TIMEOUT", default_value_t = 30.0)]
    pub lease_timeout: f64,

    /// Claims of one batch job before it is failed instead of run again: a job whose runs keep
    /// killing their replica (a crash, the OOM killer) stops after this many.
    #[arg(long, env = "ORBIT_MAX_ATTEMPTS", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_attempts: u32,

    /// Export traces over OTLP/gRPC to this collector, e.g. http://otel-collector:4317: a span
    /// per call, continuing the caller's W3C `traceparent`, and one per job. Off when not given.
    /// (A server built in code continues callers' traces when this is set; the spans go where the
    /// process's subscriber sends them: `logging::init` with a `traces::TraceExport`.)
    #[arg(long, env = "ORBIT_OTLP_ENDPOINT", value_name = "URL")]
    pub otlp_endpoint: Option<OtlpEndpoint>,

    /// Test-only fault hook: abort the process (as a crash would) when a batch job with this id
    /// starts. For the poison-job tests; never set in production.
    #[arg(long, env = "ORBIT_TEST_ABORT_ON_JOB_ID", hide = true)]
    pub test_abort_on_job_id: Option<String>,

    /// Test-only fault hook: the solver of a job with this id (unary, streamed or batch) panics
    /// in its worker thread, as a solver bug would, so the SOLVER_PANICKED path can be tested end
    /// to end. Never set in production.
    #[arg(long, env = "ORBIT_TEST_PANIC_ON_JOB_ID", hide = true)]
    pub test_panic_on_job_id: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        let limits = Limits::default();
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            workers: None,
            threads_per_job: None,
            worker_nice: 0,
            queue_capacity: 1024,
            stream_window: 256,
            stall_timeout: 60.0,
            shutdown_grace: 10.0,
            log_format: LogFormat::Text,
            max_message_bytes: 64 * 1024 * 1024,
            max_vertices: limits.max_vertices,
            max_edges: limits.max_edges,
            max_states: limits.max_states,
            max_degree: limits.max_degree,
            max_group_elements: limits.max_group_elements,
            max_permutation_entries: limits.max_permutation_entries,
            max_line: limits.max_line,
            max_reported_moves: limits.max_reported_moves,
            max_word_letters: limits.max_word_letters,
            max_puzzle_moves: limits.max_puzzle_moves,
            metrics_addr: None,
            tls_cert: None,
            tls_key: None,
            auth_token_file: None,
            max_job_memory: limits.max_job_memory,
            store: None,
            data_dir: None,
            max_batch_jobs: 100_000_000,
            max_batch_bytes: 64 << 30,
            batch_retention: 7.0 * 24.0 * 3600.0,
            lease_timeout: 30.0,
            max_attempts: 3,
            otlp_endpoint: None,
            test_abort_on_job_id: None,
            test_panic_on_job_id: None,
        }
    }
}

impl ServerConfig {
    /// Worker threads to start: `--workers`, else the number of cores.
    pub fn worker_count(&self) -> usize {
        self.workers
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            })
            .max(1)
    }

    /// The shutdown grace period.
    pub fn grace(&self) -> Duration {
        seconds(self.shutdown_grace)
    }

    /// How long a stream may stall; see `--stall-timeout`.
    pub fn stall_timeout(&self) -> Duration {
        seconds(self.stall_timeout)
    }

    /// The `SolveStream` settings, normalised (a window of at least one job).
    pub fn stream_settings(&self) -> StreamSettings {
        StreamSettings {
            window: self.stream_window.max(1),
            stall_timeout: self.stall_timeout(),
            max_message_bytes: self.max_message_bytes,
        }
    }

    /// The batch store's URL: `--store` (`None` for `none`), else for the `orbit-server` binary
    /// (`default_sqlite`) `sqlite:DATA_DIR/batches.db`, else none.
    pub fn store_url(&self, default_sqlite: bool) -> Option<String> {
        match self.store.as_deref() {
            Some("none") => None,
            Some(url) => Some(url.to_string()),
            None if default_sqlite => Some(format!(
                "sqlite:{}",
                self.data_dir().join("batches.db").display()
            )),
            None => None,
        }
    }

    /// `--data-dir`, else `$XDG_DATA_HOME/orbit-server`, else `~/.local/share/orbit-server`, else
    /// `./orbit-data`.
    pub fn data_dir(&self) -> PathBuf {
        if let Some(dir) = &self.data_dir {
            return dir.clone();
        }
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        if let Some(xdg) = var("XDG_DATA_HOME") {
            return xdg.join("orbit-server");
        }
        match var("HOME") {
            Some(home) => home.join(".local/share/orbit-server"),
            None => PathBuf::from("orbit-data"),
        }
    }

    /// The batch runner's settings.
    pub fn batch_settings(&self) -> crate::batches::BatchSettings {
        crate::batches::BatchSettings {
            limits: crate::batches::store::BatchLimits {
                max_jobs: self.max_batch_jobs,
                max_bytes: self.max_batch_bytes,
            },
            retention: seconds(self.batch_retention),
            lease_timeout: seconds(self.lease_timeout).max(Duration::from_millis(300)),
            max_attempts: self.max_attempts.max(1),
            max_message_bytes: self.max_message_bytes,
            abort_on_job_id: self.test_abort_on_job_id.clone(),
        }
    }

    /// The solver limits.
    pub fn limits(&self) -> Limits {
        let defaults = Limits::default();
        Limits {
            max_vertices: self.max_vertices,
            max_edges: self.max_edges,
            max_states: self.max_states,
            max_degree: self.max_degree,
            max_group_elements: self.max_group_elements,
            max_permutation_entries: self.max_permutation_entries,
            max_job_memory: self.max_job_memory,
            max_line: self.max_line,
            max_reported_moves: self.max_reported_moves,
            max_word_letters: self.max_word_letters,
            max_puzzle_moves: self.max_puzzle_moves,
            threads_per_job: self
                .threads_per_job
                .unwrap_or(defaults.threads_per_job)
                .max(1),
            ..defaults
        }
    }
}

/// A flag's seconds as a duration: negative or NaN is zero, too large (or infinite) is "for ever".
fn seconds(value: f64) -> Duration {
    if value.is_nan() || value <= 0.0 {
        return Duration::ZERO;
    }
    Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX)
}

/// Parses a byte count: digits, optionally followed by `K`, `M`, `G` or `T` (powers of 1024,
/// case-insensitive; `KiB`, `MB` and the like are read the same way).
///
/// ```
/// use orbit_server::config::parse_byte_size;
/// assert_eq!(parse_byte_size("1048576"), Ok(1 << 20));
/// assert_eq!(parse_byte_size("512M"), Ok(512 << 20));
/// assert_eq!(parse_byte_size("4GiB"), Ok(4 << 30));
/// assert!(parse_byte_size("4X").unwrap_err().contains("4X"));
/// ```
///
/// # Errors
/// A message naming the text and the accepted forms.
pub fn parse_byte_size(text: &str) -> Result<u64, String> {
    let junk = || {
        format!(
            "`{text}` is not a byte count: expected digits, optionally with a suffix K, M, G or T \
             (powers of 1024), e.g. 1073741824, 512M or 4G"
        )
    };
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, suffix) = trimmed.split_at(split);
    let number: u64 = digits.parse().map_err(|_| junk())?;
    let suffix = suffix.trim_start().to_ascii_uppercase();
    let shift = match suffix.trim_end_matches('B').trim_end_matches('I') {
        "" if suffix.is_empty() || suffix == "B" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(junk()),
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("`{text}` is more bytes than fit in 64 bits"))
}
