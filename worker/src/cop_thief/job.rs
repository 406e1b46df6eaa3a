//! The `cop_thief` job kind: the policeman-and-thief grid game, its start position and any
//! queried states with the mover's best move.

use super::witness::{CopThiefLine, CopThiefMove};
use super::{
    Cell, CopThiefQuery, CopThiefValue, Grid, memory_estimate, solve_cop_thief, validate_cop_thief,
};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::game::GameWitness;
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
    /// The reasons to report for the start and each queried state (none by default).
    pub witness: GameWitness,
}

/// Bytes per reported move or line state of a policeman-and-thief answer: the domain record
/// (24 bytes), its protobuf record (under 72) and its encoding (under 40).
pub const WITNESS_BYTES_PER_STATE: u64 = 136;

/// The value of one queried state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopThiefStateValue {
    /// The state asked for.
    pub query: CopThiefQuery,
    /// Who wins from it, in how many half-moves.
    pub value: CopThiefValue,
    /// The mover's optimal move, if the mover has one.
    pub best_move: Option<Cell>,
    /// With [`GameWitness::moves`]: every move, best first; empty otherwise.
    pub moves: Vec<CopThiefMove>,
    /// With [`GameWitness::line`]: the optimal chase; empty otherwise.
    pub line: CopThiefLine,
}

/// A policeman-and-thief job's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopThiefAnswer {
    /// The value of the start position.
    pub value: CopThiefValue,
    /// Each queried state's value and best move, in the job's order.
    pub queries: Vec<CopThiefStateValue>,
    /// The start position's moves (with [`GameWitness::moves`]).
    pub moves: Vec<CopThiefMove>,
    /// The start position's optimal chase (with [`GameWitness::line`]).
    pub line: CopThiefLine,
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
    /// With a witness, also [`WITNESS_BYTES_PER_STATE`] for each move (at most 9 a state) and
    /// line state (at most `max_line` a state) it may report, at most `max_reported_moves` in
    /// all, and the drawn lines' sets of states seen.
    fn memory_estimate(&self, limits: &Limits) -> u64 {
        let per_query = std::mem::size_of::<CopThiefStateValue>() as u64 + ANSWER_BYTES_PER_STATE;
        let reported = self.queries.len() as u64 + 1;
        let moves = if self.witness.moves { 9 * reported } else { 0 };
        let lines = if self.witness.line {
            reported.saturating_mul(limits.max_line)
        } else {
            0
        };
        let entries = moves.saturating_add(lines).min(limits.max_reported_moves);
        let seen = if self.witness.line {
            limits.max_line.saturating_mul(48)
        } else {
            0
        };
        memory_estimate(&self.grid)
            .saturating_add((self.queries.len() as u64).saturating_mul(per_query))
            .saturating_add(entries.saturating_mul(WITNESS_BYTES_PER_STATE))
            .saturating_add(seen)
    }

    /// Solves with `limits.threads_per_job` threads, then reads off the queried states.
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<CopThiefAnswer, SolveError> {
        let solution = solve_cop_thief(&self.grid, limits.threads_per_job.max(1), ctx)?;
        let mut reasons = Reasons {
            solution: &solution,
            witness: self.witness,
            limits,
            ctx,
            reported: 0,
        };
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
                let (moves, line) = reasons.of(query)?;
                Ok(CopThiefStateValue {
                    query,
                    value,
                    best_move,
                    moves,
                    line,
                })
            })
            .collect::<Result<_, SolveError>>()?;
        let (cop, thief) = (self.grid.cop(), self.grid.thief());
        let (moves, line) = reasons.of(CopThiefQuery {
            cop,
            thief,
            cop_to_move: true,
        })?;
        Ok(CopThiefAnswer {
            value: solution.start_value(),
            queries,
            moves,
            line,
        })
    }
}

/// Builds the moves and lines a job asked for, counting them against `max_reported_moves`.
struct Reasons<'a> {
    solution: &'a super::CopThiefSolution,
    witness: GameWitness,
    limits: &'a Limits,
    ctx: &'a SolveContext,
    /// Moves and line states reported so far.
    reported: u64,
}

impl Reasons<'_> {
    fn of(
        &mut self,
        state: CopThiefQuery,
    ) -> Result<(Vec<CopThiefMove>, CopThiefLine), SolveError> {
        self.ctx.check()?;
        let moves = if self.witness.moves {
            self.solution.moves(state)
        } else {
            Vec::new()
        };
        let line = if self.witness.line {
            self.solution.line(state, self.limits.max_line)
        } else {
            CopThiefLine::default()
        };
        self.reported = self
            .reported
            .saturating_add((moves.len() + line.states.len()) as u64);
        if self.reported > self.limits.max_reported_moves {
            return Err(SolveError::limit_shown(
                format!(
                    "policeman-and-thief moves and line states to report (at least {})",
                    self.reported
                ),
                "max_reported_moves",
                self.limits.max_reported_moves,
                format!("{} (max_reported_moves)", self.limits.max_reported_moves),
            )
            .requested(self.reported));
        }
        Ok((moves, line))
    }
}
