//! Two-player games solved exactly by retrograde analysis.
//!
//! * [`retrograde`]: win / lose / draw, depth and an optimal move for every vertex of an explicit
//!   directed game graph, in linear time.
//! * [`witness`]: the reasons for those values: every move with its value, best first, and the
//!   principal variation.
//!
//! The policeman-and-thief grid game, solved by the same analysis over its implicit state graph,
//! is a job kind of its own: [`crate::cop_thief`].

mod job;
pub mod retrograde;
pub mod witness;

pub use job::{ANSWER_BYTES_PER_VERTEX, GameAnswer, GameJob, GameWitness, WITNESS_BYTES_PER_MOVE};
pub use retrograde::{
    GameGraph, GameSolution, NO_DEPTH, NO_MOVE, Outcome, parse_game_text, solve_game,
    solve_game_threads, validate_game,
};
pub use witness::{Line, MoveValue, Successors, moves_of, principal_variation};
