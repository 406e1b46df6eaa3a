//! The `game` job kind: win/lose/draw on an explicit game graph, reported for some or all
//! vertices.

use super::retrograde::{self, GameGraph, GameSolution, solve_game, validate_game};
use super::witness::{
    Line, MoveValue, Successors, moves_of, principal_variation, successors_memory,
};
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
    /// The reasons to report with each vertex (none by default: the answer and its speed are
    /// then those of the plain solve).
    pub witness: GameWitness,
}

/// Which reasons a game job reports with each reported vertex.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameWitness {
    /// Every move with the value it leads to, best first ([`moves_of`]).
    pub moves: bool,
    /// The principal variation ([`principal_variation`]), at most `max_line` moves.
    pub line: bool,
}

/// Bytes per reported move or line vertex while the answer is built and sent: the domain record
/// (12 bytes), its protobuf record (16) and its encoding (at most 12).
pub const WITNESS_BYTES_PER_MOVE: u64 = 40;

/// A game job's answer: the solution for every vertex, and the vertices to report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameAnswer {
    /// Outcome, depth and best move of every vertex.
    pub solution: GameSolution,
    /// The job's query: the vertices to report (empty: all).
    pub query: Vec<u32>,
    /// With [`GameWitness::moves`]: each reported vertex's moves, best first, in report order;
    /// empty otherwise.
    pub moves: Vec<Vec<MoveValue>>,
    /// With [`GameWitness::line`]: each reported vertex's principal variation, in report order;
    /// empty otherwise.
    pub lines: Vec<Line>,
}

impl GameAnswer {
    /// The reported vertices, in order.
    pub fn reported(&self) -> Vec<u32> {
        reported(&self.query, self.solution.len())
    }
}

/// The vertices a job reports: its query, or every vertex.
fn reported(query: &[u32], vertices: usize) -> Vec<u32> {
    if query.is_empty() {
        (0..vertices as u32).collect()
    } else {
        query.to_vec()
    }
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
    /// built after the solver's scratch is freed; with a witness, also the successor lists and
    /// [`WITNESS_BYTES_PER_MOVE`] for each move it may report (every edge for the moves, up to
    /// `max_line` per reported vertex for the lines, at most `max_reported_moves` in all).
    fn memory_estimate(&self, limits: &Limits) -> u64 {
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
        let m = self.graph.edges.len() as u64;
        let witness = if self.witness.moves || self.witness.line {
            let moves = if self.witness.moves { m } else { 0 };
            let lines = if self.witness.line {
                reported.saturating_mul(limits.max_line.min(n))
            } else {
                0
            };
            let entries = moves.saturating_add(lines).min(limits.max_reported_moves);
            successors_memory(n, m)
                .saturating_add(entries.saturating_mul(WITNESS_BYTES_PER_MOVE))
                // The drawn lines' sets of vertices seen.
                .saturating_add(limits.max_line.min(n).saturating_mul(16))
        } else {
            0
        };
        retrograde::memory_estimate(n, m).max(sent.saturating_add(witness))
    }

    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<GameAnswer, SolveError> {
        let solution = solve_game(&self.graph, ctx)?;
        let (moves, lines) = if self.witness.moves || self.witness.line {
            witnesses(&self, &solution, ctx, limits)?
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(GameAnswer {
            solution,
            query: self.query,
            moves,
            lines,
        })
    }
}

/// The moves and lines a job asked for, in report order; RESOURCE_EXHAUSTED naming
/// `max_reported_moves` once they would hold more moves than it allows in all.
fn witnesses(
    job: &GameJob,
    solution: &GameSolution,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<(Vec<Vec<MoveValue>>, Vec<Line>), SolveError> {
    let successors = Successors::new(&job.graph, ctx)?;
    let vertices = reported(&job.query, solution.len());
    let mut total = 0u64;
    let mut count = |more: usize| {
        total = total.saturating_add(more as u64);
        if total > limits.max_reported_moves {
            // The count stops at the first vertex that crosses the limit: "at least".
            return Err(SolveError::limit_shown(
                format!(
                    "game moves and line steps to report (at least {total}, for {} vertices)",
                    vertices.len()
                ),
                "max_reported_moves",
                limits.max_reported_moves,
                format!("{} (max_reported_moves)", limits.max_reported_moves),
            )
            .requested(total));
        }
        Ok(())
    };
    let mut moves = Vec::new();
    let mut lines = Vec::new();
    for (i, &v) in vertices.iter().enumerate() {
        if job.witness.moves {
            count(successors.of(v).len())?;
            moves.push(moves_of(&successors, solution, v));
        }
        if job.witness.line {
            let line = principal_variation(&successors, solution, v, limits.max_line);
            count(line.vertices.len())?;
            lines.push(line);
        }
        if i % 4096 == 0 {
            ctx.check()?;
        }
    }
    Ok((moves, lines))
}
