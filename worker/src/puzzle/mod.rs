//! The token-swapping puzzle on a graph (the WC2017 "board game", UOJ 287; Wilson 1974).
//!
//! Every vertex of an undirected graph holds a token; the tokens `0..n-1` form a permutation. A
//! move swaps token 0 (the *blank*) with the token on a vertex adjacent to the blank's vertex.
//! Given a start arrangement and many targets, [`solve_puzzle`] answers, for each target, whether
//! it can be reached. The answer is exact for every graph (trees, cycles, self-loops, parallel
//! edges, disconnected graphs, `n = 1`) and runs in `O((n + m) log m + q·n)` time.
//!
//! # Method
//!
//! Let `r` be the blank's start vertex. Tokens outside `r`'s component never move. Inside it,
//! walking the blank from its target vertex back to `r` along a fixed spanning tree *normalises*
//! a target (walks are reversible, so this changes nothing about reachability); the question
//! becomes whether a permutation lies in the group `G_r` of arrangements reachable by closed walks
//! of the blank from `r` (the image of the fundamental group `π1(graph, r)`).
//!
//! Root the block-cut tree at `r`. Every closed walk from `r` is a product of "lassos" `P·w·P⁻¹`,
//! where `P` leads from `r` to the *entry* (the vertex nearest `r`) `e_B` of a block `B` without
//! touching any other vertex of `B`, and `w` is a closed walk inside `B` from `e_B`. Such a lasso
//! permutes only the tokens on `B \ {e_B}` — the path shift of `P` is undone by `P⁻¹` and never
//! touches those vertices — and it permutes them exactly as `w` does. Every vertex other than `r`
//! is a non-entry vertex of exactly one block, so
//!
//! `G_r = ∏_B puz(B, e_B)` acting on the disjoint sets `B \ {e_B}`,
//!
//! with `puz(B, e)` the group of the block alone with its blank at `e`. With one blank a token
//! can never cross a cut vertex. Self-loops and parallel edges generate nothing (a walk along two
//! parallel edges is a backtrack), so blocks are taken in the simple graph. For a block:
//!
//! * a bridge: trivial;
//! * a cycle of length `L`: the `L - 1` rotations of its non-entry tokens in cyclic order;
//! * at most 7 vertices (this includes Wilson's exception θ0, whose group has order 120): the
//!   group is enumerated explicitly (at most `6! = 720` elements);
//! * otherwise, by Wilson's theorem: the symmetric group if the block is not bipartite, the
//!   alternating group if it is.
//!
//! A normalised target is reachable iff every token stays in its block's non-entry set and the
//! induced permutation of each block lies in that block's group. [`reference`](mod@reference)
//! holds the contest's reference method (one generator per non-tree edge, a stabiliser chain), against which
//! this is tested, together with exhaustive BFS over all arrangements.
//!
//! # References
//!
//! * R. M. Wilson, "Graph puzzles, homotopy, and the alternating group", *J. Combin. Theory
//!   Ser. B* 16 (1974) 86–96.
//! * D. Kornhauser, G. Miller, P. Spirakis, "Coordinating pebble motion on graphs, the diameter
//!   of permutation groups, and applications", FOCS 1984.
//! * J. Hopcroft, R. Tarjan, "Algorithm 447: efficient algorithms for graph manipulation",
//!   *Comm. ACM* 16 (1973) — biconnected components.
//!
//! # Example
//!
//! ```
//! use orbit_worker::puzzle::{parse_puzzle_text, solve_puzzle};
//! use orbit_worker::SolveContext;
//!
//! let text = "5 6 3\n2 1\n4 5\n3 5\n3 4\n2 3\n1 3\n1 2 3 4 0\n0 1 2 3 4\n2 1 0 4 3\n4 3 0 1 2\n";
//! let problem = parse_puzzle_text(text)?;
//! let answers = solve_puzzle(&problem, &SolveContext::detached())?;
//! assert_eq!(answers, vec![true, true, false]);
//! # Ok::<(), orbit_worker::SolveError>(())
//! ```

mod arrangement_table;
mod block_plan;
mod blocks;
mod ear_fill;
mod lasso_words;
mod lower_bound;
mod moves;
mod parse;
pub mod reference;
mod route_fields;
mod solver;

pub use lower_bound::moves_lower_bound;
pub use moves::{PuzzleMover, solve_puzzle_moves};
pub use parse::{format_answers, parse_puzzle_text};
pub use solver::PuzzleSolver;

use crate::memory::{MemoryBudget, SMALL_ALLOCATIONS};
use crate::{Limits, SolveContext, SolveError};

/// One puzzle job: a graph, a start arrangement and the targets to decide.
///
/// Vertices are `0..n-1`; `start[v]` (and `targets[i][v]`) is the token on vertex `v`, and each
/// arrangement is a permutation of `0..n-1`. Token 0 is the blank.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PuzzleProblem {
    /// Number of vertices, at least 1.
    pub n: u32,
    /// Undirected edges `(u, v)`, 0-based; self-loops and parallel edges are allowed.
    pub edges: Vec<(u32, u32)>,
    /// The start arrangement: the token on each vertex.
    pub start: Vec<u32>,
    /// The target arrangements, answered in order.
    pub targets: Vec<Vec<u32>>,
}

/// Checks a puzzle job against `limits` and for well-formedness, before any work is done.
///
/// # Arguments
/// * `p` — the job.
/// * `limits` — `max_vertices` bounds `n`, `max_edges` the edge count, and
///   `max_permutation_entries` the total `n · (1 + targets)` integers of the arrangements.
///
/// # Returns
/// `Ok(())`, or [`SolveError::InvalidArgument`] naming the field (`puzzle.n`, `puzzle.edges[5]`,
/// `puzzle.start[2]`, `puzzle.targets[3][7]`) and what is wrong (a vertex out of range, a token out
/// of range or repeated, a wrong length), or [`SolveError::LimitExceeded`].
///
/// # Complexity
/// `O(n·(q + 1) + m)` time, `O(n)` extra memory.
///
/// # Example
/// ```
/// use orbit_worker::puzzle::{validate_puzzle, PuzzleProblem};
/// use orbit_worker::Limits;
///
/// let p = PuzzleProblem { n: 2, edges: vec![(0, 1)], start: vec![0, 1], targets: vec![vec![1, 1]] };
/// let err = validate_puzzle(&p, &Limits::default()).unwrap_err();
/// assert_eq!(err.to_string(), "puzzle.targets[0][1]: token 1 appears twice (also at puzzle.targets[0][0])");
/// ```
pub fn validate_puzzle(p: &PuzzleProblem, limits: &Limits) -> Result<(), SolveError> {
    validate_graph(p.n, &p.edges, Some(limits))?;
    let n = p.n as usize;
    let entries = (n as u128) * (p.targets.len() as u128 + 1);
    if entries > u128::from(limits.max_permutation_entries) {
        return Err(SolveError::limit_shown(
            format!(
                "puzzle arrangements ({} tokens x {} arrangements)",
                n,
                p.targets.len() + 1
            ),
            "max_permutation_entries",
            limits.max_permutation_entries,
            format!("{} tokens", limits.max_permutation_entries),
        )
        .requested(entries));
    }
    let mut seen = vec![u32::MAX; n];
    check_arrangement(
        &p.start,
        n,
        &mut seen,
        &|i| format!("puzzle.start[{i}]"),
        &|| "puzzle.start".to_string(),
    )?;
    for (q, t) in p.targets.iter().enumerate() {
        seen.fill(u32::MAX);
        check_arrangement(
            t,
            n,
            &mut seen,
            &|i| format!("puzzle.targets[{q}][{i}]"),
            &|| format!("puzzle.targets[{q}]"),
        )?;
    }
    Ok(())
}

/// Checks `n` and the edges (vertex range) against the limits: `max_vertices` and `max_edges`
/// (`None` for a solver called directly, whose caller decided the sizes).
pub(crate) fn validate_graph(
    n: u32,
    edges: &[(u32, u32)],
    limits: Option<&Limits>,
) -> Result<(), SolveError> {
    if n == 0 {
        return Err(SolveError::invalid("puzzle.n", "must be at least 1"));
    }
    if let Some(limits) = limits {
        if u64::from(n) > limits.max_vertices {
            return Err(SolveError::limit(
                format!("puzzle.n = {n} vertices"),
                "max_vertices",
                limits.max_vertices,
            )
            .requested(n));
        }
        if edges.len() as u64 > limits.max_edges {
            return Err(SolveError::limit(
                format!("puzzle.edges ({} edges)", edges.len()),
                "max_edges",
                limits.max_edges,
            )
            .requested(edges.len()));
        }
    }
    for (i, &(u, v)) in edges.iter().enumerate() {
        for x in [u, v] {
            if x >= n {
                return Err(SolveError::invalid(
                    format!("puzzle.edges[{i}]"),
                    format!("vertex {x} out of range 0..{}", n - 1),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that `arr` is a permutation of `0..n`. `seen` must have length `n` and be filled with
/// `u32::MAX`; it is left dirty. `field(i)` names entry `i`, `whole` the arrangement.
pub(crate) fn check_arrangement(
    arr: &[u32],
    n: usize,
    seen: &mut [u32],
    field: &dyn Fn(usize) -> String,
    whole: &dyn Fn() -> String,
) -> Result<(), SolveError> {
    if arr.len() != n {
        return Err(SolveError::invalid(
            whole(),
            format!(
                "has {} tokens, expected n = {n} (one per vertex)",
                arr.len()
            ),
        ));
    }
    for (i, &t) in arr.iter().enumerate() {
        let Some(slot) = seen.get_mut(t as usize) else {
            return Err(SolveError::invalid(
                field(i),
                format!("token {t} out of range 0..{}", n.saturating_sub(1)),
            ));
        };
        if *slot != u32::MAX {
            return Err(SolveError::invalid(
                field(i),
                format!(
                    "token {t} appears twice (also at {})",
                    field(*slot as usize)
                ),
            ));
        }
        *slot = i as u32;
    }
    Ok(())
}

/// Upper bound on the bytes [`solve_puzzle`] allocates for a graph of `n` vertices and `edges`
/// edges (self-loops and parallel edges counted) with `targets` targets, the answer included.
///
/// The solver's phases, each bounded by summing what is alive in it (vectors grown by `push` count
/// twice their length, see
/// [`grown_vec_bytes`](crate::memory::grown_vec_bytes)):
/// * the block decomposition (Hopcroft–Tarjan): the start positions (`4n`), the sorted edge keys
///   (`8m`), the adjacency (`4(n + 1) + 8m`), discovery times, low points, parents, cursors and
///   owners (`20n`), the call and vertex stacks and the block lists (`5 · 8n`): `68n + 16m`;
/// * the blocks found, the start positions, points, local indices (`37n + 8m + 12n`), the rules
///   (`24` bytes per block, at most `n / 2` blocks, grown: `24n`), the enumerated groups as
///   bitmaps (at most 96 bytes per block of 6 points: `16n`) and, for one block at a time, its
///   local graph, cycle order and 2-colouring (`33n + 8m`): `122n + 16m` in all;
/// * deciding the targets: what the prepared solver keeps (`73n`), the answers (`q` bytes) and
///   one target's scratch (`9n`): `82n + q`.
///
/// The bound is the largest phase plus twice [`SMALL_ALLOCATIONS`] (the closure of a small
/// block's group keeps a hash set and a frontier of at most 720 permutations).
///
/// # Example
/// ```
/// use orbit_worker::puzzle;
/// // The scale benchmark: n = 100,000, m = 300,000, q = 100: about 16 MiB.
/// assert_eq!(puzzle::memory_estimate(100_000, 300_000, 100) >> 20, 16);
/// ```
pub fn memory_estimate(n: u64, edges: u64, targets: u64) -> u64 {
    let decomposition = n
        .saturating_mul(68)
        .saturating_add(edges.saturating_mul(16));
    let preparation = n
        .saturating_mul(122)
        .saturating_add(edges.saturating_mul(16));
    let deciding = n.saturating_mul(82).saturating_add(targets);
    decomposition
        .max(preparation)
        .max(deciding)
        .saturating_add(2 * SMALL_ALLOCATIONS)
}

/// Decides every target of a puzzle job, exactly.
///
/// # Arguments
/// * `p` — the job; it is validated here (with [`Limits::default`]'s permutation rules but no size
///   limits — call [`validate_puzzle`] first to enforce a server's limits).
/// * `ctx` — cancellation is checked between targets and inside the preparation; progress is
///   reported per target.
///
/// # Returns
/// One `bool` per target, in target order: `true` iff the target is reachable from the start.
///
/// # Complexity
/// `O((n + m) log m)` preparation (sorting the edges, biconnected blocks), then `O(n)` per target
/// (blocks of at most 7 vertices are enumerated once, at most 720 elements each); `O(n + m)`
/// memory.
///
/// # Example
/// ```
/// use orbit_worker::puzzle::{solve_puzzle, PuzzleProblem};
/// use orbit_worker::SolveContext;
///
/// // A 4-cycle 0-1-2-3: with the blank back on vertex 0, the other three tokens only rotate.
/// let p = PuzzleProblem {
///     n: 4,
///     edges: vec![(0, 1), (1, 2), (2, 3), (3, 0)],
///     start: vec![0, 1, 2, 3],
///     targets: vec![vec![0, 2, 3, 1], vec![0, 2, 1, 3], vec![1, 0, 2, 3]],
/// };
/// assert_eq!(solve_puzzle(&p, &SolveContext::detached())?, vec![true, false, true]);
/// # Ok::<(), orbit_worker::SolveError>(())
/// ```
pub fn solve_puzzle(p: &PuzzleProblem, ctx: &SolveContext) -> Result<Vec<bool>, SolveError> {
    // The graph and start are checked by the solver's constructor and each target as it is
    // decided (naming `puzzle.targets[i][v]`), so no separate validation pass here.
    let solver = PuzzleSolver::new(p.n, &p.edges, &p.start, ctx)?;
    let q = p.targets.len();
    let mut out = Vec::with_capacity(q);
    for (i, t) in p.targets.iter().enumerate() {
        ctx.check()?;
        out.push(solver.is_reachable_indexed(i, t)?);
        ctx.progress(0.2 + 0.8 * (i + 1) as f64 / q as f64);
    }
    Ok(out)
}

/// A `puzzle` job as queued: the problem, and whether to construct move sequences.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PuzzleJob {
    /// The graph, start and targets.
    pub problem: PuzzleProblem,
    /// Construct a move sequence for every reachable target ([`solve_puzzle_moves`]). Off by
    /// default: without it the answer and the speed are those of [`solve_puzzle`].
    pub moves: bool,
}

impl From<PuzzleProblem> for PuzzleJob {
    fn from(problem: PuzzleProblem) -> Self {
        Self {
            problem,
            moves: false,
        }
    }
}

/// The answer to a [`PuzzleJob`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PuzzleAnswer {
    /// Reachability of each target, in order.
    pub reachable: Vec<bool>,
    /// When asked for: one entry per target, `None` for an unreachable one, else the vertices the
    /// blank steps to (0-based), empty for a target equal to the start.
    pub moves: Option<Vec<Option<Vec<u32>>>>,
}

/// The `puzzle` job kind: the answer is one verdict per target, in order, and the move sequences
/// when asked for.
impl crate::job::Solve for PuzzleJob {
    type Answer = PuzzleAnswer;
    const KIND: &'static str = "puzzle";

    /// [`validate_puzzle`].
    fn validate(&self, limits: &Limits) -> Result<(), SolveError> {
        validate_puzzle(&self.problem, limits)
    }

    /// The solver's bound ([`memory_estimate`]) plus the verdicts as sent (two bytes each); with
    /// moves also the mover's fixed part ([`PuzzleMover::memory_estimate`]). The sequences and the
    /// blocks' search tables are only known while the job runs: they are charged against what is
    /// left of `max_job_memory` as they grow.
    fn memory_estimate(&self, _limits: &Limits) -> u64 {
        let p = &self.problem;
        let targets = p.targets.len() as u64;
        let (n, m) = (u64::from(p.n), p.edges.len() as u64);
        let decide = memory_estimate(n, m, targets).saturating_add(targets.saturating_mul(2));
        if self.moves {
            // The answer's outer vectors (24 bytes per target, twice: worker and protobuf).
            decide
                .saturating_add(PuzzleMover::memory_estimate(n, m))
                .saturating_add(targets.saturating_mul(48))
        } else {
            decide
        }
    }

    /// [`solve_puzzle`], and [`solve_puzzle_moves`] when moves are asked for.
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<PuzzleAnswer, SolveError> {
        if !self.moves {
            return Ok(PuzzleAnswer {
                reachable: solve_puzzle(&self.problem, ctx)?,
                moves: None,
            });
        }
        let fixed = self.memory_estimate(limits);
        let mut budget = MemoryBudget::new(limits.max_job_memory.saturating_sub(fixed));
        let moves = solve_puzzle_moves(&self.problem, ctx, limits, &mut budget)?;
        Ok(PuzzleAnswer {
            reachable: moves.iter().map(Option::is_some).collect(),
            moves: Some(moves),
        })
    }
}
