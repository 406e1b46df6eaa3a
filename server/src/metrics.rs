//! Prometheus metrics: what operators graph and alert on.
//!
//! Series (OpenMetrics text, served by [`endpoint`] at `/metrics` when `--metrics-addr` is given):
//! - `orbit_jobs_total{kind, outcome}`: jobs answered, by job kind and outcome (`ok` or the gRPC
//!   code name, e.g. `INVALID_ARGUMENT`). Counts every job a client sent, including those refused
//!   before the queue (validation, queue full, draining); a job whose oneof is unset has kind
//!   `none`.
//! - `orbit_job_queue_wait_seconds{kind}`, `orbit_job_run_seconds{kind}`: histograms of the time
//!   jobs that reached the worker pool spent queued and running.
//! - `orbit_queue_depth`, `orbit_busy_workers`: jobs waiting and workers running a job, read from
//!   the pool at scrape time; `orbit_workers` and `orbit_queue_capacity`, the configured sizes, so
//!   saturation is one division away.
//!
//! - `orbit_batch_jobs{state}`: durable batch jobs in the store by state (`queued`, `running`:
//!   leased by some replica, `done`), over every replica sharing it, refreshed every few seconds;
//!   `orbit_batch_claim_seconds`, a histogram of claim round trips; `orbit_batch_lease_expiries`,
//!   jobs this replica claimed after another replica's lease on them expired.
//!
//! - The standard gRPC server series beside them, as go-grpc-prometheus names them
//!   (`grpc_server_started_total`, `grpc_server_handled_total`, `grpc_server_handling_seconds`,
//!   `grpc_server_msg_received_total`, `grpc_server_msg_sent_total`): see [`grpc`].
//!
//! Recording is a few atomic operations per job; it happens whether or not the endpoint is served.

pub mod endpoint;
pub mod grpc;

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use tonic::Code;

use crate::metrics::grpc::GrpcMetrics;

/// The kind label of a job whose kind is not known (the protobuf oneof is unset).
pub const NO_KIND: &str = "none";

/// Labels of `orbit_jobs_total`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    kind: &'static str,
    outcome: &'static str,
}

/// Labels of the timing histograms.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

/// Labels of `orbit_batch_jobs`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BatchStateLabels {
    state: &'static str,
}

/// Histograms by kind; a plain `fn` builds each new one with the shared buckets.
type TimingFamily = Family<KindLabels, Histogram, fn() -> Histogram>;

/// How full the worker pool is, read when a scrape comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolState {
    /// Jobs waiting in the queue.
    pub queue_depth: usize,
    /// Workers running a job.
    pub busy_workers: usize,
    /// Worker threads.
    pub workers: usize,
    /// Queue capacity.
    pub queue_capacity: usize,
}

/// Every series, and the registry that renders them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    jobs: Family<JobLabels, Counter>,
    queue_wait: TimingFamily,
    run_time: TimingFamily,
    queue_depth: Gauge,
    busy_workers: Gauge,
    workers: Gauge,
    queue_capacity: Gauge,
    batch_jobs: Family<BatchStateLabels, Gauge>,
    batch_claim: Histogram,
    batch_lease_expiries: Counter,
    grpc: GrpcMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Bucket upper bounds in seconds, 1-2.5-5 steps from 100 µs to 5 minutes (then +Inf): jobs
/// range from microseconds (small counts) to minutes (large groups), so the scale is logarithmic.
const TIMING_BUCKETS: [f64; 20] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0, 25.0, 60.0, 120.0, 300.0,
];

fn timing_histogram() -> Histogram {
    Histogram::new(TIMING_BUCKETS)
}

impl Metrics {
    /// Registers every series, all at zero.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let jobs = Family::<JobLabels, Counter>::default();
        registry.register(
            "orbit_jobs",
            "Jobs answered, by kind and outcome (ok or the gRPC code name)",
            jobs.clone(),
        );
        let queue_wait: TimingFamily = Family::new_with_constructor(timing_histogram);
        registry.register_with_unit(
            "orbit_job_queue_wait",
            "Time jobs waited in the queue before a worker took them",
            Unit::Seconds,
            queue_wait.clone(),
        );
        let run_time: TimingFamily = Family::new_with_constructor(timing_histogram);
        registry.register_with_unit(
            "orbit_job_run",
            "Time jobs ran on a worker",
            Unit::Seconds,
            run_time.clone(),
        );
        let queue_depth = Gauge::default();
        registry.register(
            "orbit_queue_depth",
            "Jobs waiting in the queue",
            queue_depth.clone(),
        );
        let busy_workers = Gauge::default();
        registry.register(
            "orbit_busy_workers",
            "Worker threads running a job",
            busy_workers.clone(),
        );
        let workers = Gauge::default();
        registry.register("orbit_workers", "Worker threads", workers.clone());
        let queue_capacity = Gauge::default();
        registry.register(
            "orbit_queue_capacity",
            "Jobs the queue can hold",
            queue_capacity.clone(),
        );
        let batch_jobs = Family::<BatchStateLabels, Gauge>::default();
        registry.register(
            "orbit_batch_jobs",
            "Durable batch jobs in the store, by state (queued, running, done), over all replicas",
            batch_jobs.clone(),
        );
        let batch_claim = timing_histogram();
        registry.register_with_unit(
            "orbit_batch_claim",
            "Time one claim of batch jobs took (a round trip to the store)",
            Unit::Seconds,
            batch_claim.clone(),
        );
        let batch_lease_expiries = Counter::default();
        registry.register(
            "orbit_batch_lease_expiries",
            "Batch jobs this replica claimed after another lease on them expired",
            batch_lease_expiries.clone(),
        );
        let grpc = GrpcMetrics::register(&mut registry);
        Self {
            registry,
            grpc,
            batch_jobs,
            batch_claim,
            batch_lease_expiries,
            jobs,
            queue_wait,
            run_time,
            queue_depth,
            busy_workers,
            workers,
            queue_capacity,
        }
    }

    /// A job that went through the worker pool: its outcome (`None` for success, else the code
    /// it failed with) and timings.
    pub fn job_finished(
        &self,
        kind: &'static str,
        failure: Option<Code>,
        queue_wait: Duration,
        run_time: Duration,
    ) {
        self.count(kind, failure);
        let labels = KindLabels { kind };
        self.queue_wait
            .get_or_create(&labels)
            .observe(queue_wait.as_secs_f64());
        self.run_time
            .get_or_create(&labels)
            .observe(run_time.as_secs_f64());
    }

    /// A job refused before it reached the pool (invalid, over a limit, queue full, draining).
    pub fn job_refused(&self, kind: &'static str, code: Code) {
        self.count(kind, Some(code));
    }

    /// The standard gRPC series, which the `grpc_metrics` layer records.
    pub fn grpc(&self) -> &GrpcMetrics {
        &self.grpc
    }

    /// The store's batch jobs by state.
    pub fn batch_jobs(&self, queued: i64, running: i64, done: i64) {
        for (state, n) in [("queued", queued), ("running", running), ("done", done)] {
            self.batch_jobs
                .get_or_create(&BatchStateLabels { state })
                .set(n);
        }
    }

    /// One claim of batch jobs: how long it took and how many of the jobs had an expired lease.
    pub fn batch_claimed(&self, latency: Duration, lease_expiries: u64) {
        self.batch_claim.observe(latency.as_secs_f64());
        self.batch_lease_expiries.inc_by(lease_expiries);
    }

    fn count(&self, kind: &'static str, failure: Option<Code>) {
        let outcome = failure.map_or("ok", orbit_api::wire::code_name);
        self.jobs.get_or_create(&JobLabels { kind, outcome }).inc();
    }

    /// The exposition text (OpenMetrics 1.0, which Prometheus scrapes), with the pool gauges set
    /// to `pool`.
    pub fn render(&self, pool: PoolState) -> String {
        let as_gauge = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        self.queue_depth.set(as_gauge(pool.queue_depth));
        self.busy_workers.set(as_gauge(pool.busy_workers));
        self.workers.set(as_gauge(pool.workers));
        self.queue_capacity.set(as_gauge(pool.queue_capacity));
        let mut text = String::new();
        // Writing into a String cannot fail.
        prometheus_client::encoding::text::encode(&mut text, &self.registry)
            .expect("formatting into a String never fails");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counts_timings_and_pool_state() {
        let metrics = Metrics::new();
        metrics.job_finished(
            "game",
            None,
            Duration::from_millis(3),
            Duration::from_millis(40),
        );
        metrics.job_finished(
            "game",
            Some(Code::Cancelled),
            Duration::ZERO,
            Duration::from_millis(1),
        );
        metrics.job_refused(NO_KIND, Code::InvalidArgument);
        let text = metrics.render(PoolState {
            queue_depth: 5,
            busy_workers: 2,
            workers: 4,
            queue_capacity: 64,
        });
        for line in [
            r#"orbit_jobs_total{kind="game",outcome="ok"} 1"#,
            r#"orbit_jobs_total{kind="game",outcome="CANCELLED"} 1"#,
            r#"orbit_jobs_total{kind="none",outcome="INVALID_ARGUMENT"} 1"#,
            r#"orbit_job_queue_wait_seconds_count{kind="game"} 2"#,
            r#"orbit_job_run_seconds_count{kind="game"} 2"#,
            // 3 ms + 0 ms queued; 40 ms + 1 ms run.
            r#"orbit_job_queue_wait_seconds_sum{kind="game"} 0.003"#,
            r#"orbit_job_run_seconds_sum{kind="game"} 0.041"#,
            // Buckets are cumulative: 1 ms is within the 1 ms bound, 40 ms only from 50 ms on.
            r#"orbit_job_run_seconds_bucket{le="0.0005",kind="game"} 0"#,
            r#"orbit_job_run_seconds_bucket{le="0.001",kind="game"} 1"#,
            r#"orbit_job_run_seconds_bucket{le="0.025",kind="game"} 1"#,
            r#"orbit_job_run_seconds_bucket{le="0.05",kind="game"} 2"#,
            r#"orbit_job_run_seconds_bucket{le="+Inf",kind="game"} 2"#,
            "orbit_queue_depth 5",
            "orbit_busy_workers 2",
            "orbit_workers 4",
            "orbit_queue_capacity 64",
            "# EOF",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing line {line:?} in:\n{text}"
            );
        }
        assert!(text.contains("# TYPE orbit_job_run_seconds histogram"));
        assert!(text.contains("# UNIT orbit_job_run_seconds seconds"));
    }
}
