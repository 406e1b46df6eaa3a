//! The worker pool: N OS threads fed by one bounded crossbeam channel.
//!
//! Solver code never runs on an async runtime. The caller hands over a [`Task`]: the work itself (a
//! closure from a [`SolveContext`] to an answer) and a `reply` callback that receives the outcome
//! exactly once. The callback runs on the worker thread, so it must not block: the server's
//! callbacks only push into tokio channels, which never block a sender.
//!
//! Guarantees:
//! - every submitted task gets exactly one `reply`, whether it ran, was cancelled while queued (it
//!   then never starts), or panicked;
//! - a panic inside the work fails that task only ([`SolveError::Panicked`]) and the worker thread
//!   carries on;
//! - [`WorkerPool::try_submit`] never blocks: a full queue hands the task back.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::context::SolveContext;
use crate::error::SolveError;

/// The work of a task: runs on a worker thread with the task's context.
pub type Work<T> = Box<dyn FnOnce(&SolveContext) -> Result<T, SolveError> + Send>;
/// Receives a task's outcome, once, on the worker thread. Must not block.
pub type Reply<T> = Box<dyn FnOnce(Finished<T>) + Send>;

/// One unit of work for the pool.
pub struct Task<T> {
    /// Cancellation and progress for this task. A task whose flag is set when a worker dequeues it
    /// is answered with [`SolveError::Cancelled`] without running.
    pub ctx: SolveContext,
    /// The solver call.
    pub work: Work<T>,
    /// Where the outcome goes.
    pub reply: Reply<T>,
    /// Called when a worker takes the task off the queue, before it runs (the server releases the
    /// task's queue slot here, so queue capacity means "waiting", not "waiting or running").
    pub on_dequeue: Option<Box<dyn FnOnce() + Send>>,
}

impl<T> std::fmt::Debug for Task<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task")
            .field("ctx", &self.ctx)
            .finish_non_exhaustive()
    }
}

impl<T> Task<T> {
    /// A task with no dequeue hook.
    pub fn new(ctx: SolveContext, work: Work<T>, reply: Reply<T>) -> Self {
        Self {
            ctx,
            work,
            reply,
            on_dequeue: None,
        }
    }
}

/// What a task's `reply` receives.
#[derive(Debug)]
pub struct Finished<T> {
    /// The answer, or why there is none.
    pub outcome: Result<T, SolveError>,
    /// Time between submission and a worker taking the task.
    pub queue_wait: Duration,
    /// Time the work ran (zero if it never started).
    pub run_time: Duration,
}

/// Why [`WorkerPool::try_submit`] refused a task; the task comes back unanswered.
#[derive(Debug)]
pub enum SubmitError<T> {
    /// The queue holds `capacity` tasks already.
    QueueFull(Task<T>),
    /// The pool is shutting down.
    Closed(Task<T>),
}

/// Counters shared by the pool's threads and its owner.
#[derive(Debug, Default)]
struct Stats {
    /// Tasks submitted but not yet dequeued.
    queued: AtomicUsize,
    /// Workers running a task now.
    busy: AtomicUsize,
    /// Worker threads alive. Drops only if a worker dies outside a task (a bug), which
    /// [`WorkerGuard`] logs.
    alive: AtomicUsize,
}

/// Envelope on the channel: the task plus when it was submitted.
struct Queued<T> {
    task: Task<T>,
    submitted: Instant,
}

/// A fixed set of worker threads and the bounded queue feeding them.
#[derive(Debug)]
pub struct WorkerPool<T: Send + 'static> {
    /// `None` once shutdown has begun: dropping the sender is what tells workers to exit after the
    /// queue drains.
    sender: Option<Sender<Queued<T>>>,
    threads: Vec<JoinHandle<()>>,
    stats: Arc<Stats>,
    capacity: usize,
    workers: usize,
}

impl<T: Send + 'static> std::fmt::Debug for Queued<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queued")
            .field("submitted", &self.submitted)
            .finish_non_exhaustive()
    }
}

impl<T: Send + 'static> WorkerPool<T> {
    /// Starts `workers` threads (at least 1) behind a queue of `capacity` tasks (at least 1), at
    /// normal priority.
    ///
    /// # Errors
    /// If the OS refuses to spawn a thread.
    pub fn new(workers: usize, capacity: usize) -> std::io::Result<Self> {
        Self::with_nice(workers, capacity, 0)
    }

    /// Like [`new`](Self::new), with the worker threads at Unix nice value `nice` (see
    /// [`crate::priority`]): a server gives its workers a lower priority than its I/O.
    ///
    /// # Errors
    /// If the OS refuses to spawn a thread.
    pub fn with_nice(workers: usize, capacity: usize, nice: i32) -> std::io::Result<Self> {
        let workers = workers.max(1);
        let capacity = capacity.max(1);
        let (sender, receiver) = crossbeam_channel::bounded::<Queued<T>>(capacity);
        let stats = Arc::new(Stats::default());
        let mut threads = Vec::with_capacity(workers);
        for i in 0..workers {
            let receiver = receiver.clone();
            let stats = Arc::clone(&stats);
            stats.alive.fetch_add(1, Ordering::SeqCst);
            let handle = std::thread::Builder::new()
                .name(format!("orbit-worker-{i}"))
                .spawn(move || {
                    if nice != 0 {
                        crate::priority::set_current_thread_nice(nice);
                    }
                    worker_loop(receiver, stats)
                })?;
            threads.push(handle);
        }
        Ok(Self {
            sender: Some(sender),
            threads,
            stats,
            capacity,
            workers,
        })
    }

    /// Queues a task without blocking.
    ///
    /// # Errors
    /// [`SubmitError::QueueFull`] when `capacity` tasks are waiting, [`SubmitError::Closed`] after
    /// [`shutdown`](Self::shutdown) began. Either way the task is handed back, not answered.
    pub fn try_submit(&self, task: Task<T>) -> Result<(), SubmitError<T>> {
        let Some(sender) = &self.sender else {
            return Err(SubmitError::Closed(task));
        };
        // Count before sending so a fast worker never decrements below zero.
        self.stats.queued.fetch_add(1, Ordering::SeqCst);
        match sender.try_send(Queued {
            task,
            submitted: Instant::now(),
        }) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.stats.queued.fetch_sub(1, Ordering::SeqCst);
                match e {
                    TrySendError::Full(q) => Err(SubmitError::QueueFull(q.task)),
                    TrySendError::Disconnected(q) => Err(SubmitError::Closed(q.task)),
                }
            }
        }
    }

    /// Tasks waiting in the queue.
    pub fn queue_depth(&self) -> usize {
        self.stats.queued.load(Ordering::SeqCst)
    }

    /// Workers running a task now.
    pub fn busy_workers(&self) -> usize {
        self.stats.busy.load(Ordering::SeqCst)
    }

    /// Worker threads alive (equals [`workers`](Self::workers) unless a worker died of a bug).
    pub fn alive_workers(&self) -> usize {
        self.stats.alive.load(Ordering::SeqCst)
    }

    /// Number of worker threads started.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Queue capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Stops accepting tasks, lets the workers finish what is queued and running, and joins them.
    /// Blocks: call it from a blocking context. Cancel the tasks first for a fast stop.
    pub fn shutdown(mut self) {
        self.close_and_join();
    }

    fn close_and_join(&mut self) {
        self.sender = None;
        for handle in self.threads.drain(..) {
            // A worker thread only panics if a `reply` callback panicked; nothing to recover then.
            let _ = handle.join();
        }
    }
}

impl<T: Send + 'static> Drop for WorkerPool<T> {
    fn drop(&mut self) {
        self.close_and_join();
    }
}

/// Notices a worker thread that unwinds outside a task (which would be a bug in a `reply`
/// callback): logs it and keeps `alive` honest, like ripgrep's walker notices a panicking worker.
struct WorkerGuard {
    stats: Arc<Stats>,
}

impl Drop for WorkerGuard {
    fn drop(&mut self) {
        self.stats.alive.fetch_sub(1, Ordering::SeqCst);
        if std::thread::panicking() {
            eprintln!(
                "orbit worker thread {:?} died of a panic outside a solver",
                std::thread::current().name()
            );
        }
    }
}

fn worker_loop<T: Send + 'static>(receiver: Receiver<Queued<T>>, stats: Arc<Stats>) {
    let _guard = WorkerGuard {
        stats: Arc::clone(&stats),
    };
    // `recv` fails only when every sender is gone and the queue is empty: time to exit.
    while let Ok(Queued { task, submitted }) = receiver.recv() {
        stats.queued.fetch_sub(1, Ordering::SeqCst);
        let Task {
            ctx,
            work,
            reply,
            on_dequeue,
        } = task;
        if let Some(hook) = on_dequeue {
            hook();
        }
        let queue_wait = submitted.elapsed();
        if ctx.is_cancelled() {
            reply(Finished {
                outcome: Err(SolveError::Cancelled),
                queue_wait,
                run_time: Duration::ZERO,
            });
            continue;
        }
        stats.busy.fetch_add(1, Ordering::SeqCst);
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| work(&ctx)))
            .unwrap_or_else(|payload| Err(SolveError::Panicked(panic_message(payload.as_ref()))));
        let run_time = started.elapsed();
        stats.busy.fetch_sub(1, Ordering::SeqCst);
        reply(Finished {
            outcome,
            queue_wait,
            run_time,
        });
    }
}

/// The text of a panic payload (`&str` or `String`, as `panic!` produces).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::CancelFlag;
    use crossbeam_channel::unbounded;

    fn reply_to<T: Send + 'static>(tx: crossbeam_channel::Sender<Finished<T>>) -> Reply<T> {
        Box::new(move |f| {
            tx.send(f).expect("test receiver outlives the pool");
        })
    }

    #[test]
    fn runs_tasks_and_answers_each_once() {
        let pool = WorkerPool::<u64>::new(2, 16).expect("spawn");
        let (tx, rx) = unbounded();
        for i in 0..10u64 {
            let task = Task::new(
                SolveContext::detached(),
                Box::new(move |_| Ok(i * i)),
                reply_to(tx.clone()),
            );
            pool.try_submit(task).expect("queue has room");
        }
        drop(tx);
        let mut got: Vec<u64> = rx.iter().map(|f| f.outcome.expect("ok")).collect();
        got.sort_unstable();
        assert_eq!(got, (0..10).map(|i| i * i).collect::<Vec<_>>());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn workers_run_at_the_nice_value_asked_for() {
        let base = crate::priority::current_thread_nice().expect("readable");
        let nice = (base + 7).min(19);
        let pool = WorkerPool::<Option<i32>>::with_nice(2, 4, nice).expect("spawn");
        let (tx, rx) = unbounded();
        for _ in 0..4 {
            let task = Task::new(
                SolveContext::detached(),
                Box::new(|_| Ok(crate::priority::current_thread_nice())),
                reply_to(tx.clone()),
            );
            pool.try_submit(task).expect("queue has room");
        }
        drop(tx);
        for finished in rx.iter() {
            assert_eq!(finished.outcome.expect("ok"), Some(nice));
        }
        assert_eq!(crate::priority::current_thread_nice(), Some(base));
    }

    #[test]
    fn a_panic_fails_one_task_and_the_pool_keeps_its_size() {
        let pool = WorkerPool::<u32>::new(1, 4).expect("spawn");
        let (tx, rx) = unbounded();
        let boom = Task::new(
            SolveContext::detached(),
            Box::new(|_| panic!("kaboom 42")),
            reply_to(tx.clone()),
        );
        pool.try_submit(boom).expect("room");
        let first = rx.recv().expect("answer");
        assert_eq!(first.outcome, Err(SolveError::Panicked("kaboom 42".into())));
        let fine = Task::new(SolveContext::detached(), Box::new(|_| Ok(7)), reply_to(tx));
        pool.try_submit(fine).expect("room");
        assert_eq!(rx.recv().expect("answer").outcome, Ok(7));
        assert_eq!(pool.alive_workers(), 1);
    }

    #[test]
    fn a_task_cancelled_while_queued_never_starts() {
        let pool = WorkerPool::<u32>::new(1, 4).expect("spawn");
        let (tx, rx) = unbounded();
        // Occupy the only worker until we release it.
        let (release_tx, release_rx) = crossbeam_channel::bounded::<()>(0);
        let blocker = Task::new(
            SolveContext::detached(),
            Box::new(move |_| {
                release_rx.recv().expect("released");
                Ok(1)
            }),
            reply_to(tx.clone()),
        );
        pool.try_submit(blocker).expect("room");
        let flag = CancelFlag::new();
        let ran = Arc::new(AtomicUsize::new(0));
        let ran2 = Arc::clone(&ran);
        let queued = Task::new(
            SolveContext::new(flag.clone(), None),
            Box::new(move |_| {
                ran2.fetch_add(1, Ordering::SeqCst);
                Ok(2)
            }),
            reply_to(tx),
        );
        pool.try_submit(queued).expect("room");
        flag.cancel();
        release_tx.send(()).expect("worker waits");
        let mut outcomes: Vec<_> = (0..2).map(|_| rx.recv().expect("answer").outcome).collect();
        outcomes.sort_by_key(|o| o.is_ok());
        assert_eq!(outcomes, vec![Err(SolveError::Cancelled), Ok(1)]);
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_full_queue_hands_the_task_back() {
        let pool = WorkerPool::<u32>::new(1, 1).expect("spawn");
        let (tx, rx) = unbounded();
        let (release_tx, release_rx) = crossbeam_channel::bounded::<()>(0);
        let (started_tx, started_rx) = crossbeam_channel::bounded::<()>(1);
        let blocker = Task::new(
            SolveContext::detached(),
            Box::new(move |_| {
                started_tx.send(()).expect("test waits");
                release_rx.recv().expect("released");
                Ok(0)
            }),
            reply_to(tx.clone()),
        );
        pool.try_submit(blocker).expect("room");
        started_rx.recv().expect("worker started");
        pool.try_submit(Task::new(
            SolveContext::detached(),
            Box::new(|_| Ok(1)),
            reply_to(tx.clone()),
        ))
        .expect("one slot");
        let third = pool.try_submit(Task::new(
            SolveContext::detached(),
            Box::new(|_| Ok(2)),
            reply_to(tx),
        ));
        assert!(matches!(third, Err(SubmitError::QueueFull(_))));
        release_tx.send(()).expect("worker waits");
        assert_eq!(rx.iter().take(2).count(), 2);
    }
}
