//! The `cop_thief` job kind: the policeman-and-thief grid game, its start position and any
//! queried states with the mover's best move.

use super::{
    Cell, CopThiefQuery, CopThiefValue, Grid, memory_estimate, solve_cop_thief, validate_cop_thief,
};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::job::Solve;
use crate::limits::Limits;

/// Bytes per queried state of a policeman-and-thief answer as the server sends it: its protobuf
/// record (state, winner, half-moves, best move: under 72 bytes) and its encoding (under 64:
/// three cells of two tagged varints, a flag, the winner, the half-moves and the lengths).
pub const ANSWER_BYTES_PER_STATE: u64 = 136;

/// A policeman-and-thief job: the grid, and states to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopThiefJob {
    /// The grid, with the start cells of both.
    pub grid: Grid,
    /// States to report, in order.
    pub queries: Vec<CopThiefQuery>,
}

/// The value of one queried state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopThiefStateValue {
    /// The state asked for.
    pub query: CopThiefQuery,
    /// Who wins from it, in how many half-moves.
    pub value: CopThiefValue,
    /// The mover's optimal move, if the mover has one.
    pub best_move: Option<Cell>,
}

/// A policeman-and-thief job's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopThiefAnswer {
    /// The value of the start position.
    pub value: CopThiefValue,
    /// Each queried state's value and best move, in the job's order.
    pub queries: Vec<CopThiefStateValue>,
}

impl Solve for CopThiefJob {
    type Answer = CopThiefAnswer;
    const KIND: &'static str = "cop_thief";

    /// [`validate_cop_thief`], then both cells of every query free cells of the grid.
    fn validate(&self, limits: &Limits) -> Result<(), SolveError> {
        validate_cop_thief(&self.grid, limits)?;
        for (i, q) in self.queries.iter().enumerate() {
            for (who, cell) in [("cop", q.cop), ("thief", q.thief)] {
                if !self.grid.is_free(cell) {
                    return Err(SolveError::invalid(
                        format!("cop_thief.queries[{i}].{who}"),
                        format!(
                            "cell ({}, {}) is not a free cell of the grid",
                            cell.0, cell.1
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The solver's bound ([`memory_estimate`]), plus per query its value in memory
    /// and [`ANSWER_BYTES_PER_STATE`] as sent.
    fn memory_estimate(&self, _limits: &Limits) -> u64 {
        let per_query = std::mem::size_of::<CopThiefStateValue>() as u64 + ANSWER_BYTES_PER_STATE;
        memory_estimate(&self.grid)
            .saturating_add((self.queries.len() as u64).saturating_mul(per_query))
    }

    /// Solves with `limits.threads_per_job` threads, then reads off the queried states.
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<CopThiefAnswer, SolveError> {
        let solution = solve_cop_thief(&self.grid, limits.threads_per_job.max(1), ctx)?;
        let queries = self
            .queries
            .into_iter()
            .enumerate()
            .map(|(i, query)| {
                let value = solution
                    .outcome(query.cop, query.thief, query.cop_to_move)
                    .ok_or_else(|| {
                        SolveError::invalid(
                            format!("cop_thief.queries[{i}]"),
                            "not a state of this grid",
                        )
                    })?;
                let best_move = solution.best_move(query.cop, query.thief, query.cop_to_move);
                Ok(CopThiefStateValue {
                    query,
                    value,
                    best_move,
                })
            })
            .collect::<Result<_, SolveError>>()?;
        Ok(CopThiefAnswer {
            value: solution.start_value(),
            queries,
        })
    }
}
