//! Durable batches: the `orbit.v1.Batches` service and the work that drains them.
//!
//! A batch is written to a [`store::Store`] as its create stream arrives and is worked through by
//! every replica sharing that store: each one's [`runner`] claims jobs (leases with an expiry,
//! renewed while they run), runs them on its own worker pool and commits their final events. The
//! online service is untouched: `Solve` and `SolveStream` never go through the store.
//!
//! The priority rule: a batch job is handed to the worker pool only while a worker is idle and no
//! job waits in the queue ([`Dispatcher::idle_workers`](crate::dispatcher::Dispatcher::idle_workers)),
//! and takes no queue slot. So an online job never waits for more than the jobs already running,
//! and is never refused because of a batch.
//!
//! # Layout
//! - [`store`]: the tables and every query, for PostgreSQL and SQLite.
//! - [`service`]: the gRPC handlers (create, get, list, watch, cancel, delete).
//! - [`runner`]: claims, runs and answers batch jobs on this replica; renews its leases, stops the
//!   jobs of cancelled batches, deletes expired batches, keeps the health status of the service.
//! - [`convert`]: stored rows ↔ protobuf messages.

pub mod convert;
pub mod runner;
pub mod service;
pub mod store;

use std::time::Duration;

use store::BatchLimits;

/// The fully qualified name health checks use for the batch service.
pub const SERVICE_NAME: &str = "orbit.v1.Batches";

/// The batch settings, from the server's flags ([`ServerConfig::batch_settings`](crate::ServerConfig::batch_settings)).
#[derive(Debug, Clone)]
pub struct BatchSettings {
    /// `--max-batch-jobs`, `--max-batch-bytes`.
    pub limits: BatchLimits,
    /// `--batch-retention`.
    pub retention: Duration,
    /// `--lease-timeout`.
    pub lease_timeout: Duration,
    /// `--max-attempts`.
    pub max_attempts: u32,
    /// `--max-message-bytes`: a final event larger than this is stored as an error instead.
    pub max_message_bytes: usize,
    /// The test-only fault hook `--test-abort-on-job-id`.
    pub abort_on_job_id: Option<String>,
}
