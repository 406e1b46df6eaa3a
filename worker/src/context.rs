//! What a running solver may ask of its surroundings: "should I stop?" and "here is my progress".

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::error::SolveError;

/// A shared flag that tells a job to stop. Cloning shares the flag.
///
/// The server sets it when the caller cancels, disconnects or passes its deadline, and at the end
/// of the shutdown grace period; the pool skips a queued job whose flag is set.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A fresh, unset flag.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the job to stop. Idempotent.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`cancel`](Self::cancel) has been called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The cancellation flags of a [`SolveContext`], owned: [`SolveContext::cancel_watch`].
#[derive(Debug, Clone)]
pub struct CancelWatch {
    cancel: CancelFlag,
    abort: Option<CancelFlag>,
}

impl CancelWatch {
    /// Whether the job has been cancelled.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled() || self.abort.as_ref().is_some_and(CancelFlag::is_cancelled)
    }
}

/// Receives progress fractions in `0.0..=1.0`. Implemented by the server (forwards to the client
/// stream) and by closures.
pub trait ProgressSink: Send + Sync {
    /// Called with the fraction of the work done so far.
    fn report(&self, fraction: f64);
}

impl<F: Fn(f64) + Send + Sync> ProgressSink for F {
    fn report(&self, fraction: f64) {
        self(fraction)
    }
}

/// Handed to every solver call.
///
/// Solvers call [`check`](Self::check) in their inner loops (cheap: one relaxed atomic load) often
/// enough that a cancelled job frees its worker within 100 ms, and [`progress`](Self::progress)
/// whenever they know how far they are (it is rate-limited here, so calling it often is fine).
pub struct SolveContext {
    cancel: CancelFlag,
    /// A second flag shared by many jobs (the server's "cancel everything" at the end of a
    /// shutdown grace period), so that cancelling all of them is one store, not a registry walk.
    abort: Option<CancelFlag>,
    progress: Option<Arc<dyn ProgressSink>>,
    /// Last reported fraction in per-mille, so progress is forwarded only when it moves by at least
    /// 1% — a solver may call `progress` millions of times.
    last_permille: AtomicU32,
}

impl std::fmt::Debug for SolveContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolveContext")
            .field("cancel", &self.cancel)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl SolveContext {
    /// A context that is never cancelled and drops progress: for tests, benchmarks and in-process
    /// use.
    pub fn detached() -> Self {
        Self::new(CancelFlag::new(), None)
    }

    /// A context wired to a cancel flag and, optionally, a progress sink.
    pub fn new(cancel: CancelFlag, progress: Option<Arc<dyn ProgressSink>>) -> Self {
        Self {
            cancel,
            abort: None,
            progress,
            last_permille: AtomicU32::new(0),
        }
    }

    /// The same context, also cancelled when `abort` is.
    pub fn with_abort(mut self, abort: CancelFlag) -> Self {
        self.abort = Some(abort);
        self
    }

    /// `Err(SolveError::Cancelled)` once the job has been cancelled.
    #[inline]
    pub fn check(&self) -> Result<(), SolveError> {
        if self.is_cancelled() {
            Err(SolveError::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Whether the job has been cancelled.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled() || self.abort.as_ref().is_some_and(CancelFlag::is_cancelled)
    }

    /// A `'static` handle on this context's cancellation, for code that cannot borrow the
    /// context (a callback given to a library as a plain function pointer).
    pub fn cancel_watch(&self) -> CancelWatch {
        CancelWatch {
            cancel: self.cancel.clone(),
            abort: self.abort.clone(),
        }
    }

    /// Reports the fraction of the work done (clamped to `0..=1`); forwarded when it has grown by
    /// at least 1% since the last report.
    pub fn progress(&self, fraction: f64) {
        let Some(sink) = &self.progress else { return };
        let permille = (fraction.clamp(0.0, 1.0) * 1000.0) as u32;
        let last = self.last_permille.load(Ordering::Relaxed);
        if permille >= last + 10 || (permille == 1000 && last < 1000) {
            self.last_permille.store(permille, Ordering::Relaxed);
            sink.report(f64::from(permille) / 1000.0);
        }
    }
}
