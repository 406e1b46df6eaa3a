//! The job-kind registry: the [`Solve`] shape every job kind has, and the one dispatch from a job
//! to its kind.
//!
//! Each kind lives in its own module and owns everything about itself: its job type (the
//! problem and what to report), its validation, its memory estimate, its run and the size of its
//! answer. It implements [`Solve`] on its job type and is named once, in the `job_kinds!`
//! invocation in the crate root (`lib.rs`, beside the kinds' `mod` lines), which generates
//! [`JobSpec`] and [`JobAnswer`] with one variant per kind and the matches that delegate to the
//! kind: there is no per-kind code in this file.
//!
//! The server converts each protobuf job into a [`JobSpec`] (one file per kind in
//! `server/src/convert/`), calls [`JobSpec::validate`] before queueing, and runs [`JobSpec::run`]
//! on a worker thread.

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::limits::Limits;
use crate::memory::over_budget;

/// One job kind's entry shape: what the pool needs to admit a job and to run it.
///
/// Implemented on the kind's job type (the problem and what to report of its answer).
pub trait Solve: Sized {
    /// The answer the solver builds, before it is converted to protobuf.
    type Answer;

    /// The kind's name, as the protobuf `Job.kind` oneof spells its field (`"cop_thief"`). Used
    /// in errors and logs.
    const KIND: &'static str;

    /// The kind's own checks, before the job is queued: malformed input and size limits.
    ///
    /// # Errors
    /// [`SolveError::InvalidArgument`] naming the field (`game.query[3]`), or
    /// [`SolveError::LimitExceeded`] stating the limit.
    fn validate(&self, limits: &Limits) -> Result<(), SolveError>;

    /// Upper bound on the bytes [`solve`](Self::solve) allocates for this job: the solver's
    /// working memory and the answer it builds (as the server sends it, where the answer grows
    /// with the job), not the job's input, which is already in memory. Meaningful for a job that
    /// passed [`validate`](Self::validate).
    fn memory_estimate(&self, limits: &Limits) -> u64;

    /// Runs the solver. Call [`validate`](Self::validate) first.
    ///
    /// # Errors
    /// Whatever the solver reports; [`SolveError::Cancelled`] once `ctx` is cancelled.
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<Self::Answer, SolveError>;
}

/// Generates [`JobSpec`], [`JobAnswer`] and their dispatch from one line per kind:
/// `Variant(job type)`, where the job type implements [`Solve`]. Invoked once, in the crate root
/// beside the kinds' `mod` lines.
macro_rules! job_kinds {
    ($( $(#[$doc:meta])* $variant:ident($job:ty), )+) => {
        /// A job, ready to validate and run: one variant per kind, holding the kind's job type.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum JobSpec {
            $( $(#[$doc])* $variant($job), )+
        }

        /// A job's answer, matching its [`JobSpec`] variant.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum JobAnswer {
            $( $(#[$doc])* $variant(<$job as $crate::job::Solve>::Answer), )+
        }

        impl JobSpec {
            /// Every job kind's name, as in the protobuf `Job.kind` oneof, in registry order.
            pub const KINDS: &'static [&'static str] = &[$( <$job as $crate::job::Solve>::KIND ),+];

            /// The job kind's name, as in the protobuf `Job.kind` oneof
            /// ([`Solve::KIND`](crate::job::Solve::KIND)).
            pub fn kind(&self) -> &'static str {
                match self {
                    $( JobSpec::$variant(_) => <$job as $crate::job::Solve>::KIND, )+
                }
            }

            /// The kind's [`Solve::memory_estimate`](crate::job::Solve::memory_estimate): upper
            /// bound on the bytes [`run`](Self::run) allocates. For the parts only known while a
            /// group job runs (its stabiliser chain, the enumeration), the bound is the budget
            /// they are charged against as they grow: `max_group_chain_bytes`, capped by what is
            /// left of `max_job_memory`.
            ///
            /// ```
            /// use orbit_worker::Limits;
            /// use orbit_worker::game::{GameGraph, GameJob};
            /// use orbit_worker::job::JobSpec;
            /// let graph = GameGraph { vertices: 1_000, edges: vec![(0, 1); 5_000] };
            /// let job = JobSpec::Game(GameJob { graph, query: vec![], witness: Default::default() });
            /// let bytes = job.memory_estimate(&Limits::default());
            /// assert!(bytes >= 4 * 5_000 + 21 * 1_000 && bytes < 1 << 20);
            /// ```
            pub fn memory_estimate(&self, limits: &$crate::Limits) -> u64 {
                match self {
                    $( JobSpec::$variant(job) => $crate::job::Solve::memory_estimate(job, limits), )+
                }
            }

            /// The kind's own checks ([`Solve::validate`](crate::job::Solve::validate)).
            fn validate_input(&self, limits: &$crate::Limits) -> Result<(), $crate::SolveError> {
                match self {
                    $( JobSpec::$variant(job) => $crate::job::Solve::validate(job, limits), )+
                }
            }

            /// Runs the kind's solver ([`Solve::solve`](crate::job::Solve::solve)). Call
            /// [`validate`](Self::validate) first.
            ///
            /// # Errors
            /// Whatever the solver reports; [`SolveError::Cancelled`] once `ctx` is cancelled.
            pub fn run(self, ctx: &$crate::SolveContext, limits: &$crate::Limits) -> Result<JobAnswer, $crate::SolveError> {
                match self {
                    $( JobSpec::$variant(job) => $crate::job::Solve::solve(job, ctx, limits).map(JobAnswer::$variant), )+
                }
            }
        }
    };
}
pub(crate) use job_kinds;

pub use crate::{JobAnswer, JobSpec};

impl JobSpec {
    /// Checks the job against `limits` and for malformed input, before it is queued: first the
    /// kind's own checks, then its [`memory_estimate`](Self::memory_estimate) against
    /// `limits.max_job_memory`.
    ///
    /// # Errors
    /// [`SolveError::InvalidArgument`] naming the field, or [`SolveError::LimitExceeded`] (for
    /// the memory: `game job memory estimate of 5.2 GiB exceeds the limit of 4.0 GiB
    /// (max_job_memory)`).
    pub fn validate(&self, limits: &Limits) -> Result<(), SolveError> {
        self.validate_input(limits)?;
        let estimate = self.memory_estimate(limits);
        if estimate > limits.max_job_memory {
            return Err(over_budget(self.kind(), estimate, limits.max_job_memory));
        }
        Ok(())
    }
}
