//! Two-player games solved exactly by retrograde analysis.
//!
//! * [`retrograde`]: win / lose / draw, depth and an optimal move for every vertex of an explicit
//!   directed game graph, in linear time.
//! * [`cop_thief`]: the policeman-and-thief grid game over its implicit state graph (2 bytes per
//!   state, level-synchronous and multi-threaded).

pub mod cop_thief;
mod cop_thief_job;
mod job;
pub mod retrograde;

pub use cop_thief_job::{
    ANSWER_BYTES_PER_STATE, CopThiefAnswer, CopThiefJob, CopThiefQuery, CopThiefStateValue,
};
pub use job::{ANSWER_BYTES_PER_VERTEX, GameAnswer, GameJob};

pub use cop_thief::{
    Cell, CopThiefSolution, CopThiefValue, Grid, Tuning, parse_grid_text, solve_cop_thief,
    solve_cop_thief_tuned, validate_cop_thief,
};
pub use retrograde::{
    GameGraph, GameSolution, NO_DEPTH, NO_MOVE, Outcome, parse_game_text, solve_game,
    solve_game_threads, validate_game,
};
