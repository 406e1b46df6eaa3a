//! Between the RPC handlers and the worker pool: submission, the jobs' deadlines (one mechanism,
//! `deadline.rs`), the count of jobs in flight (so shutdown can wait for them), the server-wide
//! abort flag (so shutdown can cancel them all with one store), per-job logging, and the job
//! metrics (every job's outcome is counted, whether it was refused at admission or answered by a
//! worker). It owns the server's [`Admission`], which decides what gets into the queue.
//!
//! Answers come back from worker threads through callbacks that only push into tokio channels
//! (whose `send` never blocks), so the async runtime never waits on a worker.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use orbit_worker::context::ProgressSink;
use orbit_worker::job::{JobAnswer, JobSpec};
use orbit_worker::pool::{Finished, SubmitError, Task, WorkerPool};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use tokio::sync::futures::Notified;
use tokio::sync::{Notify, oneshot};
use tracing::Span;

use crate::admission::{Admission, QueueSlot};
use crate::deadline::{Deadline, DeadlineTimer};
use crate::error::ServiceError;
use crate::metrics::{Metrics, PoolState};

/// Shared by every handler; one per server.
#[derive(Debug)]
pub struct Dispatcher {
    pool: WorkerPool<JobAnswer>,
    admission: Admission,
    limits: Arc<Limits>,
    inflight: Arc<Inflight>,
    /// Set at the end of the shutdown grace period: every job's context also watches it.
    abort: CancelFlag,
    /// Shared with the job callbacks, which run on worker threads.
    metrics: Arc<Metrics>,
    /// The test-only fault hook `--test-panic-on-job-id`: the job with this id panics in its
    /// worker thread.
    panic_on_job_id: Option<String>,
}

/// A validated job, as it is handed to [`Dispatcher::submit`] and its siblings.
#[derive(Debug)]
pub struct Submission {
    /// The caller's id for the job.
    pub id: String,
    /// What to solve.
    pub spec: JobSpec,
    /// `JobOptions.deadline_ms`: the job gets a timer (see `deadline.rs`).
    pub deadline: Option<Duration>,
    /// The job's tracing span, which gets its timings and outcome recorded.
    pub span: Span,
}

/// Jobs submitted and not yet answered.
///
/// A job leaves `count` *before* its answer is handed to its caller, so whoever has seen an answer
/// (a client that then stops the server, say) finds the count without that job: the drain that
/// follows sees exactly the jobs still unanswered. Between the two steps the job is in
/// `delivering`, which the drain also waits for; handing over is a push into a channel that never
/// blocks, so that wait is short and needs no limit.
#[derive(Debug, Default)]
struct Inflight {
    count: AtomicUsize,
    /// Answers counted out of `count` and not yet handed over.
    delivering: AtomicUsize,
    /// Notified whenever a job is answered (and again once its answer is handed over).
    changed: Notify,
}

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

/// A submitted job's handles: its cancel flag and its deadline timer, if it has a deadline.
/// Dropping it stops the timer (the job is answered, or its caller is gone).
#[derive(Debug)]
pub struct Submitted {
    cancel: CancelFlag,
    timer: Option<DeadlineTimer>,
}

impl Submitted {
    /// Cancels the job: a queued job never starts, a running one stops within its check interval.
    pub fn cancel(&self) {
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
}

impl Drop for JobTicket {
    fn drop(&mut self) {
        self.submitted.cancel();
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
        let limits = Arc::new(limits);
        let metrics = Arc::<Metrics>::default();
        let admission = Admission::new(Arc::clone(&limits), queue_capacity, Arc::clone(&metrics));
        Ok(Self {
            // Room for a batch job per worker beside the online queue: batch jobs take no queue slot.
            pool: WorkerPool::with_nice(
                workers,
                admission.queue_capacity() + workers.max(1),
                worker_nice,
            )?,
            admission,
            limits,
            inflight: Arc::default(),
            abort: CancelFlag::new(),
            metrics,
            panic_on_job_id: None,
        })
    }

    /// Test-only fault hook (`--test-panic-on-job-id`): the solver of a job whose id is `job_id`
    /// panics instead of running, inside its worker thread, as a solver bug would. The pool's
    /// panic catching then answers that job with SOLVER_PANICKED and the worker lives on, which
    /// is what the tests of that path check; no solver panics on purpose otherwise.
    #[must_use]
    pub fn with_test_panic_on_job_id(mut self, job_id: Option<String>) -> Self {
        self.panic_on_job_id = job_id;
        self
    }

    /// What decides which jobs get into the queue.
    pub fn admission(&self) -> &Admission {
        &self.admission
    }

    /// The job metrics (the batch runner adds its own series there).
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The limits jobs are validated against and run with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Worker threads.
    pub fn workers(&self) -> usize {
        self.pool.workers()
    }

    /// Queue capacity.
    pub fn queue_capacity(&self) -> usize {
        self.admission.queue_capacity()
    }

    /// Jobs waiting in the queue.
    pub fn queue_depth(&self) -> usize {
        self.pool.queue_depth()
    }

    /// Workers running a job.
    pub fn busy_workers(&self) -> usize {
        self.pool.busy_workers()
    }

    /// The metrics exposition text, with the pool's current queue depth and busy workers.
    pub fn metrics_text(&self) -> String {
        self.metrics.render(PoolState {
            queue_depth: self.queue_depth(),
            busy_workers: self.busy_workers(),
            workers: self.workers(),
            queue_capacity: self.queue_capacity(),
        })
    }

    /// Queues a validated job; `done` is called exactly once, on a worker thread, with its outcome
    /// (it must not block). A job with a deadline gets its timer (see `deadline.rs`); `progress`
    /// receives progress fractions.
    ///
    /// # Errors
    /// `Draining` once shutdown has begun (then `done` is not called).
    pub fn submit(
        &self,
        slot: QueueSlot,
        job: Submission,
        progress: Option<Arc<dyn ProgressSink>>,
        done: impl FnOnce(Done) + Send + 'static,
    ) -> Result<Submitted, ServiceError> {
        let on_dequeue: Box<dyn FnOnce() + Send> = Box::new(move || slot.release());
        self.enqueue(Some(on_dequeue), job, progress, done)
    }

    /// Hands a batch job to an idle worker: it takes no queue slot, because the batch runner only
    /// calls this while [`idle_workers`](Self::idle_workers) is above zero (so the job never waits
    /// in the queue ahead of an online one). `done` as for [`submit`](Self::submit).
    ///
    /// # Errors
    /// `Draining` once shutdown has begun (then `done` is not called).
    pub fn submit_idle(
        &self,
        job: Submission,
        done: impl FnOnce(Done) + Send + 'static,
    ) -> Result<Submitted, ServiceError> {
        self.enqueue(None, job, None, done)
    }

    /// Workers free for one more job: none while any job waits in the queue or every worker has
    /// one. Counted from the jobs in flight (queued or running, online and batch alike), which
    /// change exactly when a job is submitted or answered.
    pub fn idle_workers(&self) -> usize {
        self.workers().saturating_sub(self.inflight())
    }

    /// Resolves after the next job is answered. Create it before checking
    /// [`idle_workers`](Self::idle_workers), so that no answer in between is missed.
    pub fn answered(&self) -> Pin<Box<Notified<'_>>> {
        let mut notified = Box::pin(self.inflight.changed.notified());
        // Registered now (not at the first poll): `notify_waiters` wakes only registered waiters.
        notified.as_mut().enable();
        notified
    }

    fn enqueue(
        &self,
        on_dequeue: Option<Box<dyn FnOnce() + Send>>,
        job: Submission,
        progress: Option<Arc<dyn ProgressSink>>,
        done: impl FnOnce(Done) + Send + 'static,
    ) -> Result<Submitted, ServiceError> {
        let Submission {
            id,
            spec,
            deadline,
            span,
        } = job;
        let kind = spec.kind();
        if self.admission.is_draining() {
            return Err(self.admission.refused(kind, ServiceError::Draining));
        }
        let cancel = CancelFlag::new();
        let deadline = deadline.map(Deadline::new);
        let explain = deadline.clone();
        let inflight = Arc::clone(&self.inflight);
        let limits = Arc::clone(&self.limits);
        let metrics = Arc::clone(&self.metrics);
        let panics = self.panic_on_job_id.as_deref() == Some(id.as_str());
        let task = Task {
            ctx: SolveContext::new(cancel.clone(), progress).with_abort(self.abort.clone()),
            work: Box::new(move |ctx| {
                if panics {
                    // The test-only hook: a real panic in the worker thread, where a solver's
                    // would happen, so the pool's catching of it is what gets tested.
                    panic!("--test-panic-on-job-id {id}: the solver panics on purpose");
                }
                spec.run(ctx, &limits)
            }),
            reply: Box::new(move |finished: Finished<JobAnswer>| {
                let outcome = finished.outcome.map_err(|e| match &explain {
                    Some(deadline) => deadline.explain(e),
                    None => ServiceError::Solve(e),
                });
                record(&span, &outcome, finished.queue_wait, finished.run_time);
                metrics.job_finished(
                    kind,
                    outcome.as_ref().err().map(ServiceError::code),
                    finished.queue_wait,
                    finished.run_time,
                );
                // Counted out before the answer is handed over: see `Inflight`.
                inflight.delivering.fetch_add(1, Ordering::SeqCst);
                inflight.count.fetch_sub(1, Ordering::SeqCst);
                inflight.changed.notify_waiters();
                done(Done {
                    outcome,
                    queue_wait: finished.queue_wait,
                    run_time: finished.run_time,
                });
                inflight.delivering.fetch_sub(1, Ordering::SeqCst);
                inflight.changed.notify_waiters();
            }),
            on_dequeue,
        };
        self.inflight.count.fetch_add(1, Ordering::SeqCst);
        match self.pool.try_submit(task) {
            Ok(()) => {
                let timer = deadline.map(|deadline| deadline.arm(cancel.clone()));
                Ok(Submitted { cancel, timer })
            }
            Err(e) => {
                self.inflight.count.fetch_sub(1, Ordering::SeqCst);
                self.inflight.changed.notify_waiters();
                let error = match e {
                    // Unreachable while every submission holds a queue slot; answer honestly.
                    SubmitError::QueueFull(_) => ServiceError::QueueFull {
                        capacity: self.queue_capacity(),
                    },
                    SubmitError::Closed(_) => ServiceError::Draining,
                };
                Err(self.admission.refused(kind, error))
            }
        }
    }

    /// Queues a validated job for a unary call: the ticket resolves to its outcome.
    ///
    /// # Errors
    /// As [`submit`](Self::submit).
    pub fn submit_unary(
        &self,
        slot: QueueSlot,
        job: Submission,
    ) -> Result<JobTicket, ServiceError> {
        let (tx, rx) = oneshot::channel();
        let submitted = self.submit(slot, job, None, move |done| {
            // The receiver is gone if the caller gave up; the answer is dropped then.
            let _ = tx.send(done);
        })?;
        Ok(JobTicket {
            submitted,
            answer: Some(rx),
        })
    }

    /// Jobs submitted and not yet answered.
    pub fn inflight(&self) -> usize {
        self.inflight.count.load(Ordering::SeqCst)
    }

    /// Waits until no job is in flight, or `limit` passes, and then for the answers being handed
    /// over (each a push into a channel, so without a limit). Returns whether all finished.
    pub async fn wait_idle(&self, limit: Duration) -> bool {
        let until = tokio::time::Instant::now() + limit;
        let mut all_answered = true;
        loop {
            // Created (and so registered for `notify_waiters`) before the counts are read.
            let notified = self.inflight.changed.notified();
            let delivering = self.inflight.delivering.load(Ordering::SeqCst);
            if all_answered && self.inflight() > 0 {
                if tokio::time::timeout_at(until, notified).await.is_err() {
                    all_answered = self.inflight() == 0;
                }
                continue;
            }
            if delivering == 0 {
                return all_answered;
            }
            notified.await;
        }
    }

    /// Cancels every job in flight or queued.
    pub fn cancel_all(&self) {
        self.abort.cancel();
    }
}

impl JobTicket {
    /// Waits for the answer; if the job's deadline passes first, answers DEADLINE_EXCEEDED at once
    /// (the worker still answers the cancelled job, recorded on its span and in the metrics).
    pub async fn outcome(mut self) -> Result<Done, ServiceError> {
        let mut rx = self
            .answer
            .take()
            .expect("outcome is called once: it consumes the ticket");
        let done = match &mut self.submitted.timer {
            None => rx.await,
            Some(timer) => tokio::select! {
                biased;
                done = &mut rx => done,
                error = timer.passed() => return Err(error),
            },
        };
        // The pool answers every task; a dropped sender means the pool was torn down under us.
        let done = done.map_err(|_| ServiceError::Solve(SolveError::Cancelled))?;
        done.outcome.as_ref().map_err(Clone::clone)?;
        Ok(done)
    }
}

/// Records a finished job's timings and outcome on its span and logs one line, at the span's level
/// (a stored batch's job logs at debug: see [`batch_job_span`]).
fn record(
    span: &Span,
    outcome: &Result<JobAnswer, ServiceError>,
    queue_wait: Duration,
    run_time: Duration,
) {
    let Some(metadata) = span.metadata() else {
        // Disabled: neither logged nor traced.
        return;
    };
    span.record("queue_ms", queue_wait.as_secs_f64() * 1e3);
    span.record("run_ms", run_time.as_secs_f64() * 1e3);
    let quiet = *metadata.level() > tracing::Level::INFO;
    match outcome {
        Ok(_) => {
            span.record("outcome", "ok");
            if quiet {
                tracing::debug!(parent: span, "job finished");
            } else {
                tracing::info!(parent: span, "job finished");
            }
        }
        Err(e) => {
            span.record("outcome", orbit_api::wire::code_name(e.code()));
            if quiet {
                tracing::debug!(parent: span, error = %e, "job failed");
            } else {
                tracing::info!(parent: span, error = %e, "job failed");
            }
        }
    }
}

/// The span a stored batch's job runs under: as [`job_span`], but at debug level. Batches come by
/// the million, and a log line per tiny job costs more than the job (`BENCHMARKS.md`, durable
/// batches); `RUST_LOG=orbit_server=debug` shows them. Their answers are in the store anyway.
/// Exported traces take them whatever `RUST_LOG` says (`logging.rs`): each is a trace of its own.
pub fn batch_job_span(id: &str, kind: &'static str) -> Span {
    tracing::debug_span!(
        "job",
        id = %id,
        kind,
        queue_ms = tracing::field::Empty,
        run_ms = tracing::field::Empty,
        outcome = tracing::field::Empty
    )
}

/// The span every job runs under: id, kind, and fields filled in when it ends (queue wait and run
/// time in milliseconds, and the outcome: `ok` or the gRPC code's name). Created in the call's
/// handler, it is a child of the call's span in exported traces (`layers::trace_context`); it ends
/// when the job's answer is handed over, on the worker thread.
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

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use orbit_api::JobKind;
    use orbit_api::v1 as pb;

    use super::*;

    /// Whoever receives an answer must find the job already counted out: a client that stops the
    /// server right after its answer (the embedded server does) must not find its own job in
    /// flight. Checked at the moment of delivery, on every kind, so the order is tested directly
    /// rather than by hoping to lose a race.
    #[test]
    fn a_job_is_counted_out_before_its_answer_is_delivered() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let dispatcher =
            Arc::new(Dispatcher::new(2, 8, 0, Limits::default()).expect("worker threads start"));
        let (seen_tx, seen_rx) = mpsc::channel();
        for (i, kind) in JobKind::ALL.iter().copied().cycle().take(20).enumerate() {
            let job = pb::Job {
                id: format!("job{i}"),
                options: None,
                kind: Some(crate::convert::example_job(kind)),
            };
            let request = dispatcher
                .admission()
                .accept(job)
                .expect("example is valid");
            let slot = dispatcher
                .admission()
                .try_queue_slot(request.spec.kind())
                .expect("queue has room");
            let at_delivery = Arc::clone(&dispatcher);
            let seen = seen_tx.clone();
            let job = Submission {
                id: request.id,
                spec: request.spec,
                deadline: None,
                span: Span::none(),
            };
            let submitted = dispatcher
                .submit(slot, job, None, move |done| {
                    assert!(done.outcome.is_ok(), "{:?}", done.outcome.err());
                    let _ = seen.send(at_delivery.inflight());
                })
                .expect("submitted");
            let inflight_at_delivery = seen_rx.recv().expect("answered");
            drop(submitted);
            assert_eq!(inflight_at_delivery, 0, "job {i} ({kind:?}) still counted");
            // And the drain of a server stopped now finds nothing to wait for, at once.
            assert!(runtime.block_on(dispatcher.wait_idle(Duration::ZERO)));
        }
    }

    /// The test-only hook makes the job's solver panic inside the worker thread: that job is
    /// answered with the panic (caught by the pool, as a solver bug's would be), and the one
    /// worker lives on to answer the jobs after it.
    #[test]
    fn the_panic_hook_fails_that_job_only() {
        let dispatcher = Dispatcher::new(1, 8, 0, Limits::default())
            .expect("worker threads start")
            .with_test_panic_on_job_id(Some("boom".into()));
        for id in ["fine", "boom", "fine", "boom", "fine"] {
            let job = pb::Job {
                id: id.into(),
                options: None,
                kind: Some(crate::convert::example_job(JobKind::Game)),
            };
            let request = dispatcher.admission().accept(job).expect("valid");
            let slot = dispatcher
                .admission()
                .try_queue_slot(request.spec.kind())
                .expect("queue has room");
            let (tx, rx) = mpsc::channel();
            let job = Submission {
                id: request.id,
                spec: request.spec,
                deadline: None,
                span: Span::none(),
            };
            let _submitted = dispatcher
                .submit(slot, job, None, move |done| {
                    let _ = tx.send(done.outcome);
                })
                .expect("submitted");
            let outcome = rx.recv().expect("answered");
            if id == "boom" {
                let error = outcome.expect_err("the solver panicked");
                assert_eq!(
                    error,
                    ServiceError::Solve(SolveError::Panicked(
                        "--test-panic-on-job-id boom: the solver panics on purpose".into()
                    ))
                );
                assert_eq!(error.reason(), crate::error::Reason::SolverPanicked);
            } else {
                assert!(outcome.is_ok(), "{id}: {:?}", outcome.err());
            }
        }
        assert_eq!(dispatcher.inflight(), 0);
    }
}
