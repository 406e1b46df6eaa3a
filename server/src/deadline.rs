//! Job deadlines (`JobOptions.deadline_ms`): one mechanism for unary calls and streams.
//!
//! The dispatcher arms a [`DeadlineTimer`] for every submitted job that has a deadline, and for no
//! other (a job without one gets no task, timer or allocation for it). When the budget has passed,
//! the timer marks the job's [`Deadline`] as passed and sets the job's cancel flag: a queued job
//! never starts, a running one stops at its next check, and the worker's `Cancelled` is reported
//! as DEADLINE_EXCEEDED ("the job's deadline of N ms passed") on the job's span, in the metrics
//! and to the caller. A stream sends that answer as the job's final event when the worker gives
//! it; a unary call does not wait for the worker: it awaits the same timer
//! ([`DeadlineTimer::passed`]) and answers at once with the same error.
//!
//! The timer stops when it is dropped with the job's handles: once the answer has arrived, or when
//! the caller cancels.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use orbit_worker::{CancelFlag, SolveError};
use tokio::task::JoinHandle;

use crate::error::ServiceError;

/// A job's deadline: its budget, and whether it has passed (shared with the worker's reply, which
/// tells a cancellation by the deadline from any other).
#[derive(Debug, Clone)]
pub struct Deadline {
    budget: Duration,
    passed: Arc<AtomicBool>,
}

impl Deadline {
    /// A deadline `budget` after it is [armed](Self::arm).
    pub fn new(budget: Duration) -> Self {
        Self {
            budget,
            passed: Arc::default(),
        }
    }

    /// How a worker's error is reported: a cancellation once the deadline has passed is
    /// DEADLINE_EXCEEDED, anything else is the solver's error.
    pub fn explain(&self, error: SolveError) -> ServiceError {
        match error {
            SolveError::Cancelled if self.passed.load(Ordering::SeqCst) => exceeded(self.budget),
            other => ServiceError::Solve(other),
        }
    }

    /// Starts the timer: when the budget has passed, the deadline is marked as passed and `cancel`
    /// is set.
    pub fn arm(self, cancel: CancelFlag) -> DeadlineTimer {
        let budget = self.budget;
        let task = tokio::spawn(async move {
            tokio::time::sleep(budget).await;
            self.passed.store(true, Ordering::SeqCst);
            cancel.cancel();
        });
        DeadlineTimer { task, budget }
    }
}

/// The running timer of a [`Deadline`]; dropping it stops the timer.
#[derive(Debug)]
pub struct DeadlineTimer {
    task: JoinHandle<()>,
    budget: Duration,
}

impl DeadlineTimer {
    /// Resolves once the deadline has passed (the job has been cancelled then), with the error the
    /// caller is told.
    pub async fn passed(&mut self) -> ServiceError {
        if (&mut self.task).await.is_err() {
            // Aborted, which only `Drop` does, or torn down with the runtime: it never fires.
            std::future::pending::<()>().await;
        }
        exceeded(self.budget)
    }
}

impl Drop for DeadlineTimer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// DEADLINE_EXCEEDED for a deadline of `budget`.
fn exceeded(budget: Duration) -> ServiceError {
    ServiceError::DeadlineExceeded {
        deadline_ms: (budget.as_millis() as u64).max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_passed_deadline_cancels_the_job_and_explains_its_cancellation() {
        let cancel = CancelFlag::new();
        let deadline = Deadline::new(Duration::from_millis(10));
        let mut timer = deadline.clone().arm(cancel.clone());
        let told = timer.passed().await;
        assert_eq!(told, ServiceError::DeadlineExceeded { deadline_ms: 10 });
        assert!(cancel.is_cancelled());
        assert_eq!(deadline.explain(SolveError::Cancelled), told);
        let panicked = SolveError::Panicked("boom".into());
        assert_eq!(
            deadline.explain(panicked.clone()),
            ServiceError::Solve(panicked)
        );
    }

    #[tokio::test]
    async fn a_dropped_timer_never_fires() {
        let cancel = CancelFlag::new();
        let deadline = Deadline::new(Duration::from_millis(10));
        drop(deadline.clone().arm(cancel.clone()));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!cancel.is_cancelled());
        assert_eq!(
            deadline.explain(SolveError::Cancelled),
            ServiceError::Solve(SolveError::Cancelled)
        );
    }
}
