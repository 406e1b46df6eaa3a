//! The `orbit` CLI's text formats, turned into the protobuf jobs the CLI sends.
//!
//! Each function is the whole pure step "input text → job" of one subcommand (`orbit game`,
//! `group`, `cop-thief`, `puzzle`, `count group`, `graph`, `count graph-colourings`); the commands only add reading the input, the
//! gRPC call and printing. Each lives in its kind's file in `kinds/`, beside its command; this
//! module gathers them under one path, so that the fuzz targets in `fuzz/` run exactly what the
//! CLI runs.
//!
//! Parsing itself is done by the solvers' parsers in `orbit-worker` (one per format); errors are
//! theirs: [`SolveError::InvalidArgument`] whose field is `line N ...` and whose reason says what
//! is wrong, or [`SolveError::LimitExceeded`] for a size beyond [`Limits::default`].
//!
//! [`SolveError::InvalidArgument`]: orbit_worker::SolveError::InvalidArgument
//! [`SolveError::LimitExceeded`]: orbit_worker::SolveError::LimitExceeded
//! [`Limits::default`]: orbit_worker::Limits::default

pub use crate::kinds::cop_thief::cop_thief_job;
pub use crate::kinds::count::{count_graph_colourings_family, count_group_family};
pub use crate::kinds::game::game_job;
pub use crate::kinds::graph::graph_job;
pub use crate::kinds::group::group_job;
pub use crate::kinds::puzzle::{puzzle_bytes_bound, puzzle_jobs, puzzle_problem};
