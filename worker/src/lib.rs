//! Orbit's solvers and the worker pool that runs them.
//!
//! Solvers are plain functions over domain types; they take a [`SolveContext`] so a long run can
//! notice cancellation and report progress. Nothing here depends on tonic or tokio: the server
//! converts protobuf into these types, submits them to the [`pool`], and converts the answers back.

pub mod context;
pub mod cop_thief;
pub mod counting;
pub mod error;
pub mod game;
pub mod group;
pub mod job;
pub mod limits;
pub mod memory;
pub mod pool;
pub mod priority;
pub mod puzzle;

pub use context::{CancelFlag, SolveContext};
pub use error::SolveError;
pub use limits::Limits;
