//! Admission: which jobs get into the worker pool's queue.
//!
//! A job is admitted in two steps, the same for `Solve` and `SolveStream`:
//! 1. [`accept`]: proto → domain and validation against the server's limits (INVALID_ARGUMENT
//!    naming the field, or RESOURCE_EXHAUSTED stating the limit);
//! 2. a [`QueueSlot`]: one of the queue's places, taken at once by unary calls (RESOURCE_EXHAUSTED
//!    when the queue is full) and waited for by streams (that wait is their backpressure).
//!
//! Both refuse every job once shutdown has begun (UNAVAILABLE), and every refusal is counted in the
//! job metrics.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use orbit_api::v1 as pb;
use orbit_worker::Limits;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::convert::{self, JobRequest};
use crate::error::ServiceError;
use crate::metrics::Metrics;

/// Step 1 for one job: proto → domain, then validation against the server's `limits`.
/// `Solve` and `SolveStream` call it through [`Admission::accept`]; it is public so the fuzz targets
/// (`fuzz/`) check exactly what a decoded job goes through before it is queued.
///
/// # Errors
/// The job's id and why it was refused (INVALID_ARGUMENT naming the field, or RESOURCE_EXHAUSTED
/// stating the limit).
// A refusal states its limit for programs (SolveError::LimitExceeded's facts), which makes the
// error 128 bytes; refusals are the rare path, so it is not boxed.
#[allow(clippy::result_large_err)]
pub fn accept(job: pb::Job, limits: &Limits) -> Result<JobRequest, (String, ServiceError)> {
    let id = job.id.clone();
    let request =
        convert::job_from_proto(job, limits).map_err(|e| (id.clone(), ServiceError::from(e)))?;
    request
        .spec
        .validate(limits)
        .map_err(|e| (id, ServiceError::from(e)))?;
    Ok(request)
}

/// The server's admission control: the limits jobs are validated against, the queue's free places,
/// and whether shutdown has begun. One per server, owned by the dispatcher.
#[derive(Debug)]
pub struct Admission {
    limits: Arc<Limits>,
    /// One permit per free place in the pool's queue. Taken before a job is queued and given back
    /// when a worker dequeues it, so `try_submit` never finds the channel full and streams can
    /// *wait* for room (backpressure) while unary calls fail fast.
    queue_slots: Arc<Semaphore>,
    queue_capacity: usize,
    /// Set when shutdown begins: no new jobs from then on.
    draining: AtomicBool,
    /// Where refusals are counted (shared with the dispatcher, which counts answers).
    metrics: Arc<Metrics>,
}

/// A place in the queue, held from admission until a worker dequeues the job.
#[derive(Debug)]
pub struct QueueSlot(OwnedSemaphorePermit);

impl QueueSlot {
    /// Gives the place back (a worker dequeued the job).
    pub fn release(self) {
        drop(self.0);
    }
}

impl Admission {
    /// Admission with `queue_capacity` places (at least one), validating against `limits` and
    /// counting refusals in `metrics`.
    pub fn new(limits: Arc<Limits>, queue_capacity: usize, metrics: Arc<Metrics>) -> Self {
        let queue_capacity = queue_capacity.max(1);
        Self {
            limits,
            queue_slots: Arc::new(Semaphore::new(queue_capacity)),
            queue_capacity,
            draining: AtomicBool::new(false),
            metrics,
        }
    }

    /// The limits jobs are validated against.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Queue capacity.
    pub fn queue_capacity(&self) -> usize {
        self.queue_capacity
    }

    /// Whether shutdown has begun.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Begins shutdown: no new jobs.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// [`accept`] against the server's limits; a refused job is counted in the metrics.
    ///
    /// # Errors
    /// As [`accept`].
    #[allow(clippy::result_large_err)] // As `accept` above.
    pub fn accept(&self, job: pb::Job) -> Result<JobRequest, (String, ServiceError)> {
        let kind = convert::kind_name(&job);
        accept(job, &self.limits).map_err(|(id, e)| (id, self.refused(kind, e)))
    }

    /// A queue slot now, or `QueueFull` (unary calls). A refusal is counted for a job of `kind`.
    ///
    /// # Errors
    /// `Draining` once shutdown has begun, `QueueFull` when the queue has no free place.
    pub fn try_queue_slot(&self, kind: &'static str) -> Result<QueueSlot, ServiceError> {
        let admitted = if self.is_draining() {
            Err(ServiceError::Draining)
        } else {
            Arc::clone(&self.queue_slots)
                .try_acquire_owned()
                .map(QueueSlot)
                .map_err(|_| ServiceError::QueueFull {
                    capacity: self.queue_capacity,
                })
        };
        admitted.map_err(|e| self.refused(kind, e))
    }

    /// A queue slot, waiting for one if need be (streams: this wait is the backpressure). A
    /// refusal is counted for a job of `kind`.
    ///
    /// # Errors
    /// `Draining` once shutdown has begun (also when it begins during the wait).
    pub async fn queue_slot(&self, kind: &'static str) -> Result<QueueSlot, ServiceError> {
        if self.is_draining() {
            return Err(self.refused(kind, ServiceError::Draining));
        }
        // The semaphore is never closed, so `acquire_owned` does not fail in practice.
        let permit = Arc::clone(&self.queue_slots)
            .acquire_owned()
            .await
            .map_err(|_| self.refused(kind, ServiceError::Draining))?;
        if self.is_draining() {
            return Err(self.refused(kind, ServiceError::Draining));
        }
        Ok(QueueSlot(permit))
    }

    /// Counts a job of `kind` refused before the queue (e.g. invalid), and hands the error back.
    pub fn refused(&self, kind: &'static str, error: ServiceError) -> ServiceError {
        self.metrics.job_refused(kind, error.code());
        error
    }
}
