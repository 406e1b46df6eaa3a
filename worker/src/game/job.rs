//! The `game` job kind: win/lose/draw on an explicit game graph, reported for some or all
//! vertices.

use super::retrograde::{self, GameGraph, GameSolution, solve_game, validate_game};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::job::Solve;
use crate::limits::Limits;
use crate::memory::SMALL_ALLOCATIONS;

/// Bytes per reported vertex of a game's answer as the server sends it: its protobuf record (24
/// bytes: vertex, outcome, optional depth and move) and at most 24 bytes encoded (four tagged
/// varints and the record's length).
pub const ANSWER_BYTES_PER_VERTEX: u64 = 48;

/// A game job: the graph, and the vertices to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameJob {
    /// The game graph.
    pub graph: GameGraph,
    /// The vertices to report, in order (0-based); empty: every vertex.
    pub query: Vec<u32>,
}

/// A game job's answer: the solution for every vertex, and the vertices to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameAnswer {
    /// Outcome, depth and best move of every vertex.
    pub solution: GameSolution,
    /// The job's query: the vertices to report (empty: all).
    pub query: Vec<u32>,
}

impl Solve for GameJob {
    type Answer = GameAnswer;
    const KIND: &'static str = "game";

    /// [`validate_game`], then every queried vertex in range.
    fn validate(&self, limits: &Limits) -> Result<(), SolveError> {
        validate_game(&self.graph, limits)?;
        for (i, &v) in self.query.iter().enumerate() {
            if v >= self.graph.vertices {
                return Err(SolveError::invalid(
                    format!("game.query[{i}]"),
                    format!(
                        "vertex {v} out of range 0..{}",
                        self.graph.vertices.saturating_sub(1)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The solver's bound ([`retrograde::memory_estimate`]) or, if larger, the answer as sent:
    /// the solution (9 bytes a vertex) and [`ANSWER_BYTES_PER_VERTEX`] per reported vertex,
    /// built after the solver's scratch is freed.
    fn memory_estimate(&self, _limits: &Limits) -> u64 {
        let n = u64::from(self.graph.vertices);
        let reported = if self.query.is_empty() {
            n
        } else {
            self.query.len() as u64
        };
        let sent = n
            .saturating_mul(9)
            .saturating_add(reported.saturating_mul(ANSWER_BYTES_PER_VERTEX))
            .saturating_add(SMALL_ALLOCATIONS);
        retrograde::memory_estimate(n, self.graph.edges.len() as u64).max(sent)
    }

    fn solve(self, ctx: &SolveContext, _limits: &Limits) -> Result<GameAnswer, SolveError> {
        let solution = solve_game(&self.graph, ctx)?;
        Ok(GameAnswer {
            solution,
            query: self.query,
        })
    }
}
