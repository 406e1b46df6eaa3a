//! Reasons for a solved game graph's values: every move of a vertex with the value it leads to,
//! best first, and the principal variation (the line of optimal play).
//!
//! Both are read off a [`GameSolution`] and the graph's successor lists; nothing is searched. A
//! move's value is the value of the vertex it leads to, for the player who moves there (the
//! opponent). For the mover the order is: moves to vertices lost for the opponent by rising
//! depth (the quickest win first), then moves to drawn vertices, then moves to vertices won for
//! the opponent by falling depth (the longest resistance first); ties by vertex number.
//!
//! The principal variation from `v` follows the best move of each vertex in turn. Retrograde
//! analysis gives each won vertex of depth `d` a lost successor of depth `d - 1` (the least depth
//! among its lost successors) and each lost vertex a won successor of depth `d - 1` (the largest
//! among its successors), so the line of a won or lost vertex has exactly `d` moves and ends at a
//! vertex without moves. The line of a drawn vertex stays among drawn vertices and stops at the
//! first vertex it has already visited.
//!
//! Reference: the "principal variation" of game-tree search (as in chess engines and endgame
//! tablebases, which list every legal move with its value).

use std::collections::HashSet;

use super::retrograde::{GameGraph, GameSolution, Outcome};
use crate::context::SolveContext;
use crate::error::SolveError;

/// How often (in vertices or edges handled) the builders poll the cancel flag.
const CHECK_EVERY: usize = 1 << 16;

/// One move of a vertex and the value of the vertex it leads to, for the player to move there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveValue {
    /// The vertex moved to.
    pub to: u32,
    /// Its value for the player to move there (the opponent of the mover).
    pub outcome: Outcome,
    /// Its depth ([`NO_DEPTH`](super::NO_DEPTH) for a draw).
    pub depth: u32,
}

/// A principal variation: the vertices the token visits after the start, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    /// The vertices moved to, in order (the start vertex not included). A drawn line ends with
    /// the first vertex seen twice (which may be the start).
    pub vertices: Vec<u32>,
    /// Whether the line was cut at the `max_line` limit before the game ended (or repeated).
    pub truncated: bool,
}

/// The successor lists of a game graph in compressed sparse row form, each sorted with parallel
/// edges merged (a move is where it goes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Successors {
    start: Vec<u32>,
    next: Vec<u32>,
}

impl Successors {
    /// Builds the lists of `g` (endpoints already checked).
    ///
    /// # Complexity
    /// `O(n + m log d)` time (d the largest out-degree), `4(n + 1) + 4m` bytes.
    pub fn new(g: &GameGraph, ctx: &SolveContext) -> Result<Self, SolveError> {
        let n = g.vertices as usize;
        let mut start = vec![0u32; n + 1];
        for &(u, _) in &g.edges {
            start[u as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill: Vec<u32> = start[..n].to_vec();
        let mut next = vec![0u32; g.edges.len()];
        for (i, &(u, v)) in g.edges.iter().enumerate() {
            let slot = &mut fill[u as usize];
            next[*slot as usize] = v;
            *slot += 1;
            if i % CHECK_EVERY == 0 {
                ctx.check()?;
            }
        }
        drop(fill);
        // Sort and merge each list in place, compacting as we go.
        let mut write = 0usize;
        let mut read_start = 0usize;
        for v in 0..n {
            let read_end = start[v + 1] as usize;
            let list = &mut next[read_start..read_end];
            list.sort_unstable();
            let mut last = None;
            let begin = write;
            for i in read_start..read_end {
                let x = next[i];
                if last != Some(x) {
                    next[write] = x;
                    write += 1;
                    last = Some(x);
                }
            }
            start[v] = begin as u32;
            read_start = read_end;
            if v % CHECK_EVERY == 0 {
                ctx.check()?;
            }
        }
        start[n] = write as u32;
        next.truncate(write);
        next.shrink_to_fit();
        Ok(Self { start, next })
    }

    /// The distinct vertices `v` may move to, ascending.
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.next[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// Upper bound on the bytes of [`Successors::new`] for `vertices` and `edges`.
pub fn successors_memory(vertices: u64, edges: u64) -> u64 {
    // Offsets, the fill cursors while filling, the lists.
    vertices
        .saturating_add(1)
        .saturating_mul(8)
        .saturating_add(edges.saturating_mul(4))
}

/// The sort key of a move for the mover: smaller is better.
fn rank(outcome: Outcome, depth: u32, to: u32) -> (u8, i64, u32) {
    match outcome {
        Outcome::Lose => (0, i64::from(depth), to),
        Outcome::Draw => (1, 0, to),
        Outcome::Win => (2, -i64::from(depth), to),
    }
}

/// Every move of `v` with its value, best first for the player to move at `v`.
///
/// # Complexity
/// `O(d log d)` for out-degree `d`.
///
/// # Example
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::game::{GameGraph, Outcome, Successors, moves_of, solve_game};
///
/// // 0 -> 1 -> 2 (2 has no moves), 0 -> 2, 0 -> 3 <-> 4 (a loop).
/// let g = GameGraph { vertices: 5, edges: vec![(0, 1), (1, 2), (0, 2), (0, 3), (3, 4), (4, 3)] };
/// let ctx = SolveContext::detached();
/// let s = solve_game(&g, &ctx).unwrap();
/// let moves = moves_of(&Successors::new(&g, &ctx).unwrap(), &s, 0);
/// let shown: Vec<_> = moves.iter().map(|m| (m.to, m.outcome)).collect();
/// assert_eq!(shown, [(2, Outcome::Lose), (3, Outcome::Draw), (1, Outcome::Win)]);
/// ```
pub fn moves_of(successors: &Successors, solution: &GameSolution, v: u32) -> Vec<MoveValue> {
    let mut moves: Vec<MoveValue> = successors
        .of(v)
        .iter()
        .map(|&to| MoveValue {
            to,
            outcome: solution.outcome[to as usize],
            depth: solution.depth[to as usize],
        })
        .collect();
    moves.sort_unstable_by_key(|m| rank(m.outcome, m.depth, m.to));
    moves
}

/// The first of [`moves_of`], without building the list.
fn best_move(successors: &Successors, solution: &GameSolution, v: u32) -> Option<u32> {
    successors.of(v).iter().copied().min_by_key(|&to| {
        rank(
            solution.outcome[to as usize],
            solution.depth[to as usize],
            to,
        )
    })
}

/// The principal variation from `v`, at most `max_line` moves.
///
/// # Complexity
/// `O(sum of the out-degrees along the line)`; a drawn line also keeps a set of the vertices seen.
///
/// # Example
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::game::{GameGraph, Successors, principal_variation, solve_game};
///
/// // 0 -> 1 -> 2 -> 3 (3 has no moves); 4 <-> 5.
/// let g = GameGraph { vertices: 6, edges: vec![(0, 1), (1, 2), (2, 3), (4, 5), (5, 4)] };
/// let ctx = SolveContext::detached();
/// let s = solve_game(&g, &ctx).unwrap();
/// let next = Successors::new(&g, &ctx).unwrap();
/// assert_eq!(principal_variation(&next, &s, 0, 100).vertices, [1, 2, 3]);
/// assert_eq!(principal_variation(&next, &s, 4, 100).vertices, [5, 4]);
/// let cut = principal_variation(&next, &s, 0, 2);
/// assert_eq!((cut.vertices, cut.truncated), (vec![1, 2], true));
/// ```
pub fn principal_variation(
    successors: &Successors,
    solution: &GameSolution,
    v: u32,
    max_line: u64,
) -> Line {
    let mut line = Line::default();
    let drawn = solution.outcome[v as usize] == Outcome::Draw;
    let mut seen = HashSet::new();
    if drawn {
        seen.insert(v);
    }
    let mut at = v;
    while let Some(next) = best_move(successors, solution, at) {
        if line.vertices.len() as u64 >= max_line {
            line.truncated = true;
            break;
        }
        line.vertices.push(next);
        if drawn && !seen.insert(next) {
            break;
        }
        at = next;
    }
    line
}
