//! Between the RPC handlers and the worker pool: admission (queue slots), submission, the registry
//! of jobs in flight (so shutdown can wait for them and then cancel them), and per-job logging.
//!
//! Answers come back from worker threads through tokio oneshot channels, whose `send` never
//! blocks, so the async runtime never waits on a worker.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use orbit_worker::context::ProgressSink;
use orbit_worker::job::{JobAnswer, JobSpec};
use orbit_worker::pool::{Finished, SubmitError, Task, WorkerPool};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, oneshot};
use tracing::Span;

use crate::error::ServiceError;

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
    /// Set when shutdown begins: no new jobs from then on.
    draining: AtomicBool,
    queue_capacity: usize,
}

/// Jobs submitted and not yet answered, by a private key, so shutdown can cancel them all.
#[derive(Debug, Default)]
struct Inflight {
    jobs: Mutex<HashMap<u64, CancelFlag>>,
    next_key: AtomicU64,
    /// Notified whenever a job leaves the registry.
    changed: Notify,
}

impl Inflight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, CancelFlag>> {
        // The map is only inserted into and removed from; a panic while holding the lock cannot
        // leave it inconsistent, so a poisoned lock is still usable.
        self.jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A queue slot, held from admission until a worker dequeues the job.
#[derive(Debug)]
pub struct Admission(OwnedSemaphorePermit);

/// A submitted job: await [`outcome`](Self::outcome). Dropping it (the RPC future was dropped: the
/// client cancelled, disconnected or passed its gRPC deadline) sets the job's cancel flag, so a
/// queued job never starts and a running one stops within its check interval.
#[derive(Debug)]
pub struct JobTicket {
    cancel: CancelFlag,
    answer: Option<oneshot::Receiver<Finished<JobAnswer>>>,
    deadline: Option<(Instant, Duration)>,
    span: Span,
}

impl Drop for JobTicket {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// A finished job: the answer plus where the time went.
#[derive(Debug)]
pub struct Answered {
    /// The solver's answer.
    pub answer: JobAnswer,
    /// Time queued.
    pub queue_wait: Duration,
    /// Time running.
    pub run_time: Duration,
}

impl Dispatcher {
    /// Starts the worker pool.
    ///
    /// # Errors
    /// If worker threads cannot be spawned.
    pub fn new(workers: usize, queue_capacity: usize, limits: Limits) -> std::io::Result<Self> {
        let queue_capacity = queue_capacity.max(1);
        Ok(Self {
            pool: WorkerPool::new(workers, queue_capacity)?,
            queue_slots: Arc::new(Semaphore::new(queue_capacity)),
            limits: Arc::new(limits),
            inflight: Arc::default(),
            draining: AtomicBool::new(false),
            queue_capacity,
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

    /// A queue slot now, or `QueueFull` (unary calls).
    pub fn try_admit(&self) -> Result<Admission, ServiceError> {
        if self.is_draining() {
            return Err(ServiceError::Draining);
        }
        Arc::clone(&self.queue_slots)
            .try_acquire_owned()
            .map(Admission)
            .map_err(|_| ServiceError::QueueFull {
                capacity: self.queue_capacity,
            })
    }

    /// A queue slot, waiting for one if need be (streams: this wait is the backpressure).
    pub async fn admit(&self) -> Result<Admission, ServiceError> {
        if self.is_draining() {
            return Err(ServiceError::Draining);
        }
        // The semaphore is never closed, so `acquire_owned` cannot fail.
        let permit = Arc::clone(&self.queue_slots)
            .acquire_owned()
            .await
            .map_err(|_| ServiceError::Draining)?;
        if self.is_draining() {
            return Err(ServiceError::Draining);
        }
        Ok(Admission(permit))
    }

    /// Queues a validated job. `progress` receives progress fractions (streams that asked for
    /// them); `span` is the job's tracing span, which gets its timings and outcome recorded.
    pub fn submit(
        &self,
        admission: Admission,
        spec: JobSpec,
        deadline: Option<Duration>,
        progress: Option<Arc<dyn ProgressSink>>,
        span: Span,
    ) -> Result<JobTicket, ServiceError> {
        if self.is_draining() {
            return Err(ServiceError::Draining);
        }
        let cancel = CancelFlag::new();
        let key = self.inflight.next_key.fetch_add(1, Ordering::Relaxed);
        self.inflight.lock().insert(key, cancel.clone());

        let (tx, rx) = oneshot::channel();
        let inflight = Arc::clone(&self.inflight);
        let limits = Arc::clone(&self.limits);
        let Admission(permit) = admission;
        let task = Task {
            ctx: SolveContext::new(cancel.clone(), progress),
            work: Box::new(move |ctx| spec.run(ctx, &limits)),
            reply: Box::new(move |finished| {
                // The receiver is gone if the caller gave up; the answer is dropped then.
                let _ = tx.send(finished);
                inflight.lock().remove(&key);
                inflight.changed.notify_waiters();
            }),
            on_dequeue: Some(Box::new(move || drop(permit))),
        };
        match self.pool.try_submit(task) {
            Ok(()) => {}
            Err(SubmitError::QueueFull(_)) => {
                // Unreachable while every submission holds a queue slot; answer honestly anyway.
                self.inflight.lock().remove(&key);
                return Err(ServiceError::QueueFull {
                    capacity: self.queue_capacity,
                });
            }
            Err(SubmitError::Closed(_)) => {
                self.inflight.lock().remove(&key);
                return Err(ServiceError::Draining);
            }
        }
        Ok(JobTicket {
            cancel,
            answer: Some(rx),
            deadline: deadline.map(|d| (Instant::now() + d, d)),
            span,
        })
    }

    /// Begins shutdown: no new jobs.
    pub fn start_draining(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Jobs submitted and not yet answered.
    pub fn inflight(&self) -> usize {
        self.inflight.lock().len()
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

    /// Cancels every job in flight.
    pub fn cancel_all(&self) {
        for flag in self.inflight.lock().values() {
            flag.cancel();
        }
    }

    /// Stops the worker threads (blocking; call after the jobs are answered or cancelled).
    pub fn shutdown_pool(self) {
        self.pool.shutdown();
    }
}

impl JobTicket {
    /// Waits for the answer, honouring the job's own deadline. Records queue wait, run time and
    /// outcome on the job's span and logs one line.
    pub async fn outcome(mut self) -> Result<Answered, ServiceError> {
        let rx = self
            .answer
            .take()
            .expect("outcome is called once: it consumes the ticket");
        let result = match self.deadline {
            None => rx.await,
            Some((at, budget)) => match tokio::time::timeout_at(at.into(), rx).await {
                Ok(r) => r,
                Err(_) => {
                    self.cancel.cancel();
                    let e = ServiceError::DeadlineExceeded {
                        deadline_ms: budget.as_millis() as u64,
                    };
                    self.record_failure(&e);
                    return Err(e);
                }
            },
        };
        let finished = match result {
            Ok(f) => f,
            // The pool answers every task; a dropped sender means the reply closure never ran,
            // which only happens if the pool is torn down under us.
            Err(_) => Finished {
                outcome: Err(SolveError::Cancelled),
                queue_wait: Duration::ZERO,
                run_time: Duration::ZERO,
            },
        };
        self.span
            .record("queue_ms", finished.queue_wait.as_secs_f64() * 1e3);
        self.span
            .record("run_ms", finished.run_time.as_secs_f64() * 1e3);
        match finished.outcome {
            Ok(answer) => {
                self.span.record("outcome", "ok");
                tracing::info!(parent: &self.span, "job finished");
                Ok(Answered {
                    answer,
                    queue_wait: finished.queue_wait,
                    run_time: finished.run_time,
                })
            }
            Err(e) => {
                let e = ServiceError::Solve(e);
                self.record_failure(&e);
                Err(e)
            }
        }
    }

    fn record_failure(&self, e: &ServiceError) {
        self.span
            .record("outcome", crate::error::code_name(e.code()));
        tracing::info!(parent: &self.span, error = %e, "job failed");
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
