//! Between the RPC handlers and the worker pool: admission (queue slots), submission, the count of
//! jobs in flight (so shutdown can wait for them), the server-wide abort flag (so shutdown can
//! cancel them all with one store), per-job logging, and the job metrics (every job's outcome is
//! counted here, whether it was refused at admission or answered by a worker).
//!
//! Answers come back from worker threads through callbacks that only push into tokio channels
//! (whose `send` never blocks), so the async runtime never waits on a worker.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use orbit_worker::context::ProgressSink;
use orbit_worker::job::{JobAnswer, JobSpec};
use orbit_worker::pool::{Finished, SubmitError, Task, WorkerPool};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, oneshot};
use tracing::Span;

use crate::error::ServiceError;
use crate::metrics::{Metrics, PoolState};

/// Shared by every handler; one per server.
#[derive(Debug)]
pub struct Dispatcher {
    pool: WorkerPool<JobAnswer>,
    /// One permit per free place in the pool's queue. Taken before a job is queued and given back
    /// when a worker dequeues it, so `try_submit` never finds the channel full and streams can
    /// *wait* for room (backpressure) while unary calls fail fast.
    queue_slots: Arc<Semaphore>,
    limits: Arc<Limits>,
    inflight: Arc<Inflight>,
    /// Set at the end of the shutdown grace period: every job's context also watches it.
    abort: CancelFlag,
    /// Set when shutdown begins: no new jobs from then on.
    draining: AtomicBool,
    queue_capacity: usize,
    /// Shared with the job callbacks, which run on worker threads.
    metrics: Arc<Metrics>,
}

/// Jobs submitted and not yet answered.
#[derive(Debug, Default)]
struct Inflight {
    count: AtomicUsize,
    /// Notified whenever a job is answered.
    changed: Notify,
}

/// A queue slot, held from admission until a worker dequeues the job.
#[derive(Debug)]
pub struct Admission(OwnedSemaphorePermit);

/// What a job's callback receives: the outcome as the server reports it, and its timings.
#[derive(Debug)]
pub struct Done {
    /// The answer, or why there is none (deadline and cancellation already told apart).
    pub outcome: Result<JobAnswer, ServiceError>,
    /// Time queued.
    pub queue_wait: Duration,
    /// Time running.
    pub run_time: Duration,
}

/// A submitted job's handles: its cancel flag, and what its deadline timer records (so a
/// cancellation caused by the deadline is reported as DEADLINE_EXCEEDED).
#[derive(Debug, Clone)]
pub struct Submitted {
    /// Setting it cancels the job.
    pub cancel: CancelFlag,
    /// The job's deadline budget in milliseconds once it has passed; 0 before.
    deadline_passed_ms: Arc<AtomicU64>,
}

impl Submitted {
    /// Cancels the job because its deadline of `budget` passed.
    pub fn expire(&self, budget: Duration) {
        self.deadline_passed_ms
            .store((budget.as_millis() as u64).max(1), Ordering::SeqCst);
        self.cancel.cancel();
    }
}

/// A submitted unary job: await [`outcome`](Self::outcome). Dropping it (the RPC future was
/// dropped: the client cancelled, disconnected or passed its gRPC deadline) sets the job's cancel
/// flag, so a queued job never starts and a running one stops within its check interval.
#[derive(Debug)]
pub struct JobTicket {
    submitted: Submitted,
    answer: Option<oneshot::Receiver<Done>>,
    deadline: Option<(Instant, Duration)>,
}

impl Drop for JobTicket {
    fn drop(&mut self) {
        self.submitted.cancel.cancel();
    }
}

impl Dispatcher {
    /// Starts the worker pool, its threads at nice value `worker_nice`.
    ///
    /// # Errors
    /// If worker threads cannot be spawned.
    pub fn new(
        workers: usize,
        queue_capacity: usize,
        worker_nice: i32,
        limits: Limits,
    ) -> std::io::Result<Self> {
        let queue_capacity = queue_capacity.max(1);
        Ok(Self {
            pool: WorkerPool::with_nice(workers, queue_capacity, worker_nice)?,
            queue_slots: Arc::new(Semaphore::new(queue_capacity)),
            limits: Arc::new(limits),
            inflight: Arc::default(),
            abort: CancelFlag::new(),
            draining: AtomicBool::new(false),
            queue_capacity,
            metrics: Arc::default(),
        })
    }

    /// The limits jobs are validated against.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Worker threads.
    pub fn workers(&self) -> usize {
        self.pool.workers()
    }

    /// Queue capacity.
    pub fn queue_capacity(&self) -> usize {
        self.queue_capacity
    }

    /// Jobs waiting in the queue.
    pub fn queue_depth(&self) -> usize {
        self.pool.queue_depth()
    }

    /// Workers running a job.
    pub fn busy_workers(&self) -> usize {
        self.pool.busy_workers()
    }

    /// Whether shutdown has begun.
    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// A queue slot now, or `QueueFull` (unary calls). A refusal is counted for a job of `kind`.
    pub fn try_admit(&self, kind: &'static str) -> Result<Admission, ServiceError> {
        let admitted = if self.is_draining() {
            Err(ServiceError::Draining)
        } else {
            Arc::clone(&self.queue_slots)
                .try_acquire_owned()
                .map(Admission)
                .map_err(|_| ServiceError::QueueFull {
                    capacity: self.queue_capacity,
                })
        };
        admitted.map_err(|e| self.refused(kind, e))
    }

    /// A queue slot, waiting for one if need be (streams: this wait is the backpressure). A
    /// refusal is counted for a job of `kind`.
    pub async fn admit(&self, kind: &'static str) -> Result<Admission, ServiceError> {
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
        Ok(Admission(permit))
    }

    /// Counts a job of `kind` refused before the queue (e.g. invalid), and hands the error back.
    pub fn refused(&self, kind: &'static str, error: ServiceError) -> ServiceError {
        self.metrics.job_refused(kind, error.code());
        error
    }

    /// The metrics exposition text, with the pool's current queue depth and busy workers.
    pub fn metrics_text(&self) -> String {
        self.metrics.render(PoolState {
            queue_depth: self.queue_depth(),
            busy_workers: self.busy_workers(),
            workers: self.workers(),
            queue_capacity: self.queue_capacity,
        })
    }

    /// Queues a validated job; `done` is called exactly once, on a worker thread, with its outcome
    /// (it must not block). `progress` receives progress fractions; `span` is the job's tracing
    /// span, which gets its timings and outcome recorded.
    ///
    /// # Errors
    /// `Draining` once shutdown has begun (then `done` is not called).
    pub fn submit(
        &self,
        admission: Admission,
        spec: JobSpec,
        progress: Option<Arc<dyn ProgressSink>>,
        span: Span,
        done: impl FnOnce(Done) + Send + 'static,
    ) -> Result<Submitted, ServiceError> {
        let kind = spec.kind();
        if self.is_draining() {
            return Err(self.refused(kind, ServiceError::Draining));
        }
        let submitted = Submitted {
            cancel: CancelFlag::new(),
            deadline_passed_ms: Arc::default(),
        };
        let inflight = Arc::clone(&self.inflight);
        let limits = Arc::clone(&self.limits);
        let Admission(permit) = admission;
        let deadline_passed_ms = Arc::clone(&submitted.deadline_passed_ms);
        let metrics = Arc::clone(&self.metrics);
        let task = Task {
            ctx: SolveContext::new(submitted.cancel.clone(), progress)
                .with_abort(self.abort.clone()),
            work: Box::new(move |ctx| spec.run(ctx, &limits)),
            reply: Box::new(move |finished: Finished<JobAnswer>| {
                let outcome = finished.outcome.map_err(|e| {
                    match (e, deadline_passed_ms.load(Ordering::SeqCst)) {
                        (SolveError::Cancelled, ms) if ms > 0 => {
                            ServiceError::DeadlineExceeded { deadline_ms: ms }
                        }
                        (other, _) => ServiceError::Solve(other),
                    }
                });
                record(&span, &outcome, finished.queue_wait, finished.run_time);
                metrics.job_finished(
                    kind,
                    outcome.as_ref().err().map(ServiceError::code),
                    finished.queue_wait,
                    finished.run_time,
                );
                done(Done {
                    outcome,
                    queue_wait: finished.queue_wait,
                    run_time: finished.run_time,
                });
                inflight.count.fetch_sub(1, Ordering::SeqCst);
                inflight.changed.notify_waiters();
            }),
            on_dequeue: Some(Box::new(move || drop(permit))),
        };
        self.inflight.count.fetch_add(1, Ordering::SeqCst);
        match self.pool.try_submit(task) {
            Ok(()) => Ok(submitted),
            Err(e) => {
                self.inflight.count.fetch_sub(1, Ordering::SeqCst);
                self.inflight.changed.notify_waiters();
                let error = match e {
                    // Unreachable while every submission holds a queue slot; answer honestly.
                    SubmitError::QueueFull(_) => ServiceError::QueueFull {
                        capacity: self.queue_capacity,
                    },
                    SubmitError::Closed(_) => ServiceError::Draining,
                };
                Err(self.refused(kind, error))
            }
        }
    }

    /// Queues a validated job for a unary call: the ticket resolves to its outcome.
    ///
    /// # Errors
    /// As [`submit`](Self::submit).
    pub fn submit_unary(
        &self,
        admission: Admission,
        spec: JobSpec,
        deadline: Option<Duration>,
        span: Span,
    ) -> Result<JobTicket, ServiceError> {
        let (tx, rx) = oneshot::channel();
        let submitted = self.submit(admission, spec, None, span, move |done| {
            // The receiver is gone if the caller gave up; the answer is dropped then.
            let _ = tx.send(done);
        })?;
        Ok(JobTicket {
            submitted,
            answer: Some(rx),
            deadline: deadline.map(|d| (Instant::now() + d, d)),
        })
    }

    /// Begins shutdown: no new jobs.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Jobs submitted and not yet answered.
    pub fn inflight(&self) -> usize {
        self.inflight.count.load(Ordering::SeqCst)
    }

    /// Waits until no job is in flight, or `limit` passes. Returns whether all finished.
    pub async fn wait_idle(&self, limit: Duration) -> bool {
        let until = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.inflight.changed.notified();
            if self.inflight() == 0 {
                return true;
            }
            if tokio::time::timeout_at(until, notified).await.is_err() {
                return self.inflight() == 0;
            }
        }
    }

    /// Cancels every job in flight or queued.
    pub fn cancel_all(&self) {
        self.abort.cancel();
    }
}

impl JobTicket {
    /// Waits for the answer, honouring the job's own deadline.
    pub async fn outcome(mut self) -> Result<Done, ServiceError> {
        let rx = self
            .answer
            .take()
            .expect("outcome is called once: it consumes the ticket");
        let done = match self.deadline {
            None => rx.await,
            Some((at, budget)) => match tokio::time::timeout_at(at.into(), rx).await {
                Ok(r) => r,
                Err(_) => {
                    // The worker still answers (DEADLINE_EXCEEDED, recorded on the job's span);
                    // the caller is told at once.
                    self.submitted.expire(budget);
                    return Err(ServiceError::DeadlineExceeded {
                        deadline_ms: budget.as_millis() as u64,
                    });
                }
            },
        };
        // The pool answers every task; a dropped sender means the pool was torn down under us.
        let done = done.map_err(|_| ServiceError::Solve(SolveError::Cancelled))?;
        done.outcome.as_ref().map_err(Clone::clone)?;
        Ok(done)
    }
}

/// Records a finished job's timings and outcome on its span and logs one line.
fn record(
    span: &Span,
    outcome: &Result<JobAnswer, ServiceError>,
    queue_wait: Duration,
    run_time: Duration,
) {
    if span.is_disabled() {
        return;
    }
    span.record("queue_ms", queue_wait.as_secs_f64() * 1e3);
    span.record("run_ms", run_time.as_secs_f64() * 1e3);
    match outcome {
        Ok(_) => {
            span.record("outcome", "ok");
            tracing::info!(parent: span, "job finished");
        }
        Err(e) => {
            span.record("outcome", orbit_api::wire::code_name(e.code()));
            tracing::info!(parent: span, error = %e, "job failed");
        }
    }
}

/// The span every job runs under: id, kind, and fields filled in when it ends.
pub fn job_span(id: &str, kind: &'static str) -> Span {
    tracing::info_span!(
        "job",
        id = %id,
        kind,
        queue_ms = tracing::field::Empty,
        run_ms = tracing::field::Empty,
        outcome = tracing::field::Empty
    )
}
