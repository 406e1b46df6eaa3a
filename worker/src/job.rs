//! The job kinds the pool runs, as domain types, and the one dispatch from a job to its solver.
//!
//! The server converts each protobuf job into a [`JobSpec`] (all conversions live in
//! `server/src/convert.rs`), calls [`JobSpec::validate`] before queueing, and runs
//! [`JobSpec::run`] on a worker thread.

use crate::context::SolveContext;
use crate::cop_thief::{self, Cell, CopThiefValue, Grid, solve_cop_thief, validate_cop_thief};
// Temporary: callers outside the worker move to crate::cop_thief
pub use crate::cop_thief::CopThiefQuery;
use crate::counting::{
    CountAnswer, CountProblem, count_memory_estimate, solve_count, validate_count,
};
use crate::error::SolveError;
use crate::game::retrograde;
use crate::game::{GameGraph, GameSolution, solve_game, validate_game};
use crate::group::{
    GroupAnswer, GroupProblem, group_memory_estimate, solve_group, validate_group_problem,
};
use crate::limits::Limits;
use crate::memory::{SMALL_ALLOCATIONS, over_budget};
use crate::puzzle::{self, PuzzleProblem, solve_puzzle, validate_puzzle};

/// Bytes per reported vertex of a game's answer as the server sends it: its protobuf record (24
/// bytes: vertex, outcome, optional depth and move) and at most 24 bytes encoded (four tagged
/// varints and the record's length).
pub const ANSWER_BYTES_PER_VERTEX: u64 = 48;

/// Bytes per queried state of a policeman-and-thief answer as the server sends it: its protobuf
/// record (state, winner, half-moves, best move: under 72 bytes) and its encoding (under 64:
/// three cells of two tagged varints, a flag, the winner, the half-moves and the lengths).
pub const ANSWER_BYTES_PER_STATE: u64 = 136;

/// A job, ready to validate and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobSpec {
    /// Win/lose/draw on an explicit game graph; `query` lists the vertices to report (empty: all).
    Game { graph: GameGraph, query: Vec<u32> },
    /// The policeman-and-thief game on a grid, and states to report.
    CopThief {
        grid: Grid,
        queries: Vec<CopThiefQuery>,
    },
    /// Order, base, orbits and membership for a permutation group.
    Group(GroupProblem),
    /// Counting colourings up to symmetry.
    Count(CountProblem),
    /// Reachability in the token puzzle.
    Puzzle(PuzzleProblem),
}

/// A job's answer, matching its [`JobSpec`] variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobAnswer {
    /// The solution for every vertex, and the query to report.
    Game {
        solution: GameSolution,
        query: Vec<u32>,
    },
    /// The value of the start position, and of each queried state with the mover's best move.
    CopThief {
        value: CopThiefValue,
        queries: Vec<(CopThiefQuery, CopThiefValue, Option<Cell>)>,
    },
    /// The group's order, base, orbits and memberships.
    Group(GroupAnswer),
    /// The count (and cycle index, if asked for).
    Count(CountAnswer),
    /// Reachability of each target, in order.
    Puzzle(Vec<bool>),
}

impl JobSpec {
    /// Every job kind's name, as in the protobuf `Job.kind` oneof.
    pub const KINDS: &'static [&'static str] = &["game", "group", "count", "puzzle", "cop_thief"];

    /// The job kind's name, as in the protobuf `Job.kind` oneof. Used in logs and `ServerInfo`.
    pub fn kind(&self) -> &'static str {
        match self {
            JobSpec::Game { .. } => "game",
            JobSpec::CopThief { .. } => "cop_thief",
            JobSpec::Group(_) => "group",
            JobSpec::Count(_) => "count",
            JobSpec::Puzzle(_) => "puzzle",
        }
    }

    /// Upper bound on the bytes [`run`](Self::run) allocates for this job: the solver's working
    /// memory and the answer it builds (the answer's decimal numbers included), not the job's
    /// input, which is already in memory. Each solver derives its bound from its own allocations
    /// (see [`retrograde::memory_estimate`], [`cop_thief::memory_estimate`],
    /// [`puzzle::memory_estimate`], [`count_memory_estimate`], [`group_memory_estimate`]). For the
    /// parts only known while a group job runs (its stabiliser chain, the enumeration), the bound
    /// is the budget they are charged against as they grow: `max_group_chain_bytes`, capped by
    /// what is left of `max_job_memory`.
    ///
    /// The answer as the server sends it is included where it grows with the job: a game's
    /// reported vertices ([`ANSWER_BYTES_PER_VERTEX`] each, built from the solution after the
    /// solver's scratch is freed, so the bound is the larger of the two phases), a
    /// policeman-and-thief job's states ([`ANSWER_BYTES_PER_STATE`]) and a puzzle's verdicts (two
    /// bytes each).
    ///
    /// Meaningful for a job whose sizes passed the limits; [`validate`](Self::validate) checks
    /// them first.
    ///
    /// ```
    /// use orbit_worker::Limits;
    /// use orbit_worker::game::GameGraph;
    /// use orbit_worker::job::JobSpec;
    /// let job = JobSpec::Game { graph: GameGraph { vertices: 1_000, edges: vec![(0, 1); 5_000] }, query: vec![] };
    /// let bytes = job.memory_estimate(&Limits::default());
    /// assert!(bytes >= 4 * 5_000 + 21 * 1_000 && bytes < 1 << 20);
    /// ```
    pub fn memory_estimate(&self, limits: &Limits) -> u64 {
        match self {
            JobSpec::Game { graph, query } => {
                let n = u64::from(graph.vertices);
                let reported = if query.is_empty() {
                    n
                } else {
                    query.len() as u64
                };
                let sent = n
                    .saturating_mul(9)
                    .saturating_add(reported.saturating_mul(ANSWER_BYTES_PER_VERTEX))
                    .saturating_add(SMALL_ALLOCATIONS);
                retrograde::memory_estimate(n, graph.edges.len() as u64).max(sent)
            }
            JobSpec::CopThief { grid, queries } => cop_thief::memory_estimate(grid, queries.len())
                .saturating_add((queries.len() as u64).saturating_mul(ANSWER_BYTES_PER_STATE)),
            JobSpec::Group(problem) => group_memory_estimate(problem, limits),
            JobSpec::Count(problem) => count_memory_estimate(problem, limits),
            JobSpec::Puzzle(problem) => puzzle::memory_estimate(
                u64::from(problem.n),
                problem.edges.len() as u64,
                problem.targets.len() as u64,
            )
            .saturating_add((problem.targets.len() as u64).saturating_mul(2)),
        }
    }

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

    /// The kind's own checks: malformed input and size limits.
    fn validate_input(&self, limits: &Limits) -> Result<(), SolveError> {
        match self {
            JobSpec::Game { graph, query } => {
                validate_game(graph, limits)?;
                for (i, &v) in query.iter().enumerate() {
                    if v >= graph.vertices {
                        return Err(SolveError::invalid(
                            format!("game.query[{i}]"),
                            format!(
                                "vertex {v} out of range 0..{}",
                                graph.vertices.saturating_sub(1)
                            ),
                        ));
                    }
                }
                Ok(())
            }
            JobSpec::CopThief { grid, queries } => {
                validate_cop_thief(grid, limits)?;
                for (i, q) in queries.iter().enumerate() {
                    for (who, cell) in [("cop", q.cop), ("thief", q.thief)] {
                        if !grid.is_free(cell) {
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
            JobSpec::Group(problem) => validate_group_problem(problem, limits),
            JobSpec::Count(problem) => validate_count(problem, limits),
            JobSpec::Puzzle(problem) => validate_puzzle(problem, limits),
        }
    }

    /// Runs the solver. Call [`validate`](Self::validate) first.
    ///
    /// # Errors
    /// Whatever the solver reports; [`SolveError::Cancelled`] once `ctx` is cancelled.
    pub fn run(self, ctx: &SolveContext, limits: &Limits) -> Result<JobAnswer, SolveError> {
        match self {
            JobSpec::Game { graph, query } => {
                let solution = solve_game(&graph, ctx)?;
                Ok(JobAnswer::Game { solution, query })
            }
            JobSpec::CopThief { grid, queries } => {
                let solution = solve_cop_thief(&grid, limits.threads_per_job.max(1), ctx)?;
                let queries = queries
                    .into_iter()
                    .enumerate()
                    .map(|(i, q)| {
                        let value =
                            solution
                                .outcome(q.cop, q.thief, q.cop_to_move)
                                .ok_or_else(|| {
                                    SolveError::invalid(
                                        format!("cop_thief.queries[{i}]"),
                                        "not a state of this grid",
                                    )
                                })?;
                        Ok((q, value, solution.best_move(q.cop, q.thief, q.cop_to_move)))
                    })
                    .collect::<Result<_, SolveError>>()?;
                Ok(JobAnswer::CopThief {
                    value: solution.start_value(),
                    queries,
                })
            }
            JobSpec::Group(problem) => solve_group(&problem, ctx, limits).map(JobAnswer::Group),
            JobSpec::Count(problem) => solve_count(&problem, ctx, limits).map(JobAnswer::Count),
            JobSpec::Puzzle(problem) => solve_puzzle(&problem, ctx).map(JobAnswer::Puzzle),
        }
    }
}
