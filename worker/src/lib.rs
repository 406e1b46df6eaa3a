//! Orbit's solvers and the worker pool that runs them.
//!
//! Solvers are plain functions over domain types; they take a [`SolveContext`] so a long run can
//! notice cancellation and report progress. Nothing here depends on tonic or tokio: the server
//! converts protobuf into these types, submits them to the [`pool`], and converts the answers back.
//!
//! # Layout
//! - The job kinds, one folder each, each owning its job type, validation, memory estimate, run
//!   and answer (its `impl Solve`): [`game`] (retrograde analysis of game graphs), [`cop_thief`]
//!   (the policeman-and-thief grid game), [`group`] (permutation groups: Schreier–Sims, giant
//!   recognition, level proofs), [`counting`] (Burnside / Pólya), [`puzzle`] (the token-swapping
//!   puzzle), [`graph`] (the symmetries of a graph: automorphism group, canonical labelling).
//!   They are registered once, in the `job_kinds!` list below.
//! - [`job`]: the [`Solve`](job::Solve) shape every kind has and the registry macro that generates
//!   [`JobSpec`] / [`JobAnswer`] and their one-line-per-kind dispatch.
//! - [`pool`]: worker OS threads fed by a bounded crossbeam channel, with a quit flag and
//!   panic-aware shutdown; [`priority`]: the threads' nice value.
//! - [`context`]: cancellation and progress for a running job; [`limits`]: what a job may ask
//!   for; [`memory`]: the byte accounting of the estimates; [`error`]: [`SolveError`].

pub mod context;
pub mod error;
pub mod job;
pub mod limits;
pub mod memory;
pub mod pool;
pub mod priority;

pub mod cop_thief;
pub mod counting;
pub mod game;
pub mod graph;
pub mod group;
pub mod puzzle;

// The registry: one line per job kind, in the order of the protobuf `Job.kind` oneof's field
// numbers (as `orbit_api::JobKind::ALL`).
job::job_kinds! {
    /// Win/lose/draw on an explicit game graph (retrograde analysis).
    Game(game::GameJob),
    /// Order, base, orbits and membership for a permutation group.
    Group(group::GroupProblem),
    /// Counting colourings up to symmetry (Burnside / Pólya).
    Count(counting::CountProblem),
    /// Reachability in the token-swapping puzzle.
    Puzzle(puzzle::PuzzleJob),
    /// The policeman-and-thief game on a grid.
    CopThief(cop_thief::CopThiefJob),
    /// The automorphism group and canonical labelling of an undirected graph.
    Graph(graph::GraphJob),
}

pub use context::{CancelFlag, SolveContext};
pub use error::SolveError;
pub use limits::Limits;
