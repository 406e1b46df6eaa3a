//! Win / lose / draw on an explicit directed game graph by retrograde (backward) analysis.
//!
//! Two players alternate moving one token along the edges of a directed graph; the player who
//! cannot move loses, and a game that never ends is a draw. [`solve_game`] labels every vertex in
//! `O(n + m)` time: it seeds the vertices without moves as lost, then walks the reversed edges
//! breadth-first, keeping for every vertex a counter of moves not yet refuted. A vertex becomes
//! *won* the first time it is reached from a lost vertex and *lost* when its last counter reaches
//! zero; what is never reached is a draw. Because the queue is processed in order of depth, the
//! first lost successor found is the one nearest the end (the winner hurries) and the move that
//! empties the counter is the one furthest from it (the loser delays).
//!
//! Reference: retrograde analysis of game graphs, as for endgame tables (K. Thompson, "Retrograde
//! analysis of certain endgames", *ICCA Journal* 9, 1986), usually taught as a recursive DFS over
//! explicit predecessor lists; this version is iterative, breadth-first and stores the reversed
//! graph in compressed sparse row form (two flat `u32` arrays built by counting sort).

use std::collections::HashMap;

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::limits::Limits;
use crate::memory::SMALL_ALLOCATIONS;

/// Depth reported for a drawn vertex (a game that never ends has no depth).
pub const NO_DEPTH: u32 = u32::MAX;

/// Best move reported for a vertex without moves (lost at once).
pub const NO_MOVE: u32 = u32::MAX;

/// How often (in edges or vertices processed) the solver polls the cancel flag and reports
/// progress. 64K units of work take well under a millisecond.
const CHECK_EVERY: usize = 1 << 16;

/// An explicit game graph: vertices `0..vertices` and directed edges `u -> v`, meaning the player
/// to move at `u` may move the token to `v`. Self-loops and parallel edges are legal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameGraph {
    /// Number of vertices; they are numbered `0..vertices`.
    pub vertices: u32,
    /// Directed edges `(u, v)`, 0-based.
    pub edges: Vec<(u32, u32)>,
}

/// The value of a position for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player to move wins with optimal play.
    Win,
    /// The player to move loses with optimal play.
    Lose,
    /// Neither player can force a win: the game goes on forever with optimal play.
    Draw,
}

/// Per-vertex answer of [`solve_game`]; each vector has one entry per vertex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSolution {
    /// Win / lose / draw for the player to move at each vertex.
    pub outcome: Vec<Outcome>,
    /// Moves until the game ends with optimal play (the winner hurries, the loser delays);
    /// `0` for a vertex without moves, [`NO_DEPTH`] for draws.
    pub depth: Vec<u32>,
    /// One optimal successor: for a win, a lost successor of depth `d - 1`; for a loss, a
    /// successor of depth `d - 1` (the longest resistance); for a draw, a drawn successor.
    /// [`NO_MOVE`] for a vertex without moves.
    pub best_move: Vec<u32>,
}

impl GameSolution {
    /// Number of vertices answered.
    pub fn len(&self) -> usize {
        self.outcome.len()
    }

    /// Whether the solution covers no vertex.
    pub fn is_empty(&self) -> bool {
        self.outcome.is_empty()
    }
}

/// Checks a game graph against the configured limits and checks every edge endpoint.
///
/// # Arguments
/// * `g` — the graph to check.
/// * `limits` — `max_vertices` bounds `g.vertices`, `max_edges` bounds `g.edges.len()`.
///
/// # Returns
/// `Ok(())`, or [`SolveError::LimitExceeded`] naming `game.vertices` / `game.edges`, or
/// [`SolveError::InvalidArgument`] naming the first bad edge, e.g.
/// `game.edges[12]: vertex 40 out of range 0..39`.
///
/// # Complexity
/// `O(m)` time, `O(1)` extra memory.
///
/// # Example
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::game::{GameGraph, validate_game};
///
/// let g = GameGraph { vertices: 2, edges: vec![(0, 1), (1, 2)] };
/// let err = validate_game(&g, &Limits::default()).unwrap_err();
/// assert_eq!(err.to_string(), "game.edges[1]: vertex 2 out of range 0..1");
/// ```
pub fn validate_game(g: &GameGraph, limits: &Limits) -> Result<(), SolveError> {
    if u64::from(g.vertices) > limits.max_vertices {
        return Err(SolveError::limit(
            format!("game.vertices ({})", g.vertices),
            "max_vertices",
            limits.max_vertices,
        )
        .requested(g.vertices));
    }
    if g.edges.len() as u64 > limits.max_edges {
        return Err(SolveError::limit(
            format!("game.edges ({} edges)", g.edges.len()),
            "max_edges",
            limits.max_edges,
        )
        .requested(g.edges.len()));
    }
    check_edges(g)
}

/// Every endpoint in range, and the edge count addressable by `u32` CSR offsets.
fn check_edges(g: &GameGraph) -> Result<(), SolveError> {
    if g.edges.len() >= u32::MAX as usize {
        return Err(SolveError::limit(
            format!("game.edges ({} edges)", g.edges.len()),
            "game_edges_u32",
            u64::from(u32::MAX - 1),
        )
        .requested(g.edges.len()));
    }
    let n = g.vertices;
    for (i, &(u, v)) in g.edges.iter().enumerate() {
        for x in [u, v] {
            if x >= n {
                let range = if n == 0 {
                    "the graph has no vertices".to_string()
                } else {
                    format!("out of range 0..{}", n - 1)
                };
                return Err(SolveError::invalid(
                    format!("game.edges[{i}]"),
                    format!("vertex {x} {range}"),
                ));
            }
        }
    }
    Ok(())
}

/// Upper bound on the bytes [`solve_game`] allocates for a graph of `vertices` vertices and
/// `edges` edges (the answer included, the graph itself not).
///
/// The solver runs in three phases, each freeing its scratch before the next:
/// 1. degree counting: the out-degree counters and the reversed graph's offsets (`4n + 4(n + 1)`
///    bytes), one byte per vertex and direction (`2n`), and an overflow map with at most one entry
///    per 256 increments (`2m / 256` entries of at most 176 bytes: 24-byte slots, the control
///    bytes, 8/7 load factor, and old and new tables during a resize);
/// 2. the counting sort: counters, offsets, the predecessor array (`4m`) and a fill cursor per
///    vertex (`4n`);
/// 3. propagation: counters, offsets and predecessors, the answer (`outcome` 1, `depth` 4 and
///    `best_move` 4 bytes per vertex), the queue (`4n`) and the draw bitmap (`n / 8`).
///
/// Phase 3 is the largest (`4m + 21.125n`; phase 1 is at most `10n + 1.375m`, phase 2
/// `12n + 4m`), so the bound is `4m + 21.125n` plus [`SMALL_ALLOCATIONS`].
///
/// # Example
/// ```
/// use orbit_worker::game::retrograde;
/// // The scale benchmark: 10^7 vertices, 5·10^7 edges, about 392 MiB.
/// assert_eq!(retrograde::memory_estimate(10_000_000, 50_000_000) >> 20, 392);
/// ```
pub fn memory_estimate(vertices: u64, edges: u64) -> u64 {
    let (n, m) = (vertices, edges);
    let propagation = m
        .saturating_mul(4)
        .saturating_add(n.saturating_mul(21))
        .saturating_add(n.div_ceil(64) * 8)
        .saturating_add(4);
    let counting = n
        .saturating_mul(10)
        .saturating_add(4)
        .saturating_add((2 * m / 256).min(2 * n).saturating_mul(176));
    propagation.max(counting).saturating_add(SMALL_ALLOCATIONS)
}

/// Solves a game graph: win / lose / draw, depth and one optimal move for every vertex.
///
/// # Arguments
/// * `g` — the graph; endpoints are checked (limits are not: call [`validate_game`] first).
/// * `ctx` — polled for cancellation every 64K units of work; receives progress as the fraction
///   of the propagation done.
///
/// # Returns
/// A [`GameSolution`], or [`SolveError::InvalidArgument`] for an endpoint out of range,
/// or [`SolveError::Cancelled`].
///
/// # Complexity
/// `O(n + m)` time, no recursion. Memory besides the input and the answer (`9n` bytes): the
/// reversed graph in CSR form (`4(n + 1) + 4m` bytes), a counter and a queue slot per vertex
/// (`8n` bytes) and, when there are draws, a bitmap of `n` bits.
///
/// # Example
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::game::{GameGraph, NO_MOVE, Outcome, solve_game};
///
/// // 0 -> 1 -> 2 (2 has no moves); 3 <-> 4 loop forever.
/// let g = GameGraph { vertices: 5, edges: vec![(0, 1), (1, 2), (3, 4), (4, 3)] };
/// let s = solve_game(&g, &SolveContext::detached()).unwrap();
/// use Outcome::{Draw, Lose, Win};
/// assert_eq!(s.outcome, [Lose, Win, Lose, Draw, Draw]);
/// assert_eq!(&s.depth[..3], &[2, 1, 0]);
/// assert_eq!(&s.best_move[..3], &[1, 2, NO_MOVE]);
/// assert_eq!(&s.best_move[3..], &[4, 3]);
/// ```
///
/// # Reference
/// Retrograde analysis of game graphs (see the module documentation).
pub fn solve_game(g: &GameGraph, ctx: &SolveContext) -> Result<GameSolution, SolveError> {
    solve_game_threads(g, 1, ctx)
}

/// [`solve_game`] with the reversed graph built by `threads` threads.
///
/// Each thread owns a contiguous range of vertices and, scanning all edges, counts the degrees
/// of and fills the predecessor lists of its own vertices only: no atomics, and each thread's
/// random accesses stay within its share of the arrays. The propagation itself is sequential.
/// The answer is identical to [`solve_game`]'s.
///
/// # Arguments
/// * `g`, `ctx` — as for [`solve_game`].
/// * `threads` — threads for building the reversed graph (`0` counts as `1`).
///
/// # Complexity
/// `O(threads · m + n)` work, `O(m + n)` span per thread; memory as [`solve_game`].
///
/// # Example
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::game::{GameGraph, solve_game, solve_game_threads};
///
/// let g = GameGraph { vertices: 4, edges: vec![(0, 1), (1, 2), (2, 0), (3, 0)] };
/// let ctx = SolveContext::detached();
/// assert_eq!(solve_game_threads(&g, 2, &ctx).unwrap(), solve_game(&g, &ctx).unwrap());
/// ```
pub fn solve_game_threads(
    g: &GameGraph,
    threads: usize,
    ctx: &SolveContext,
) -> Result<GameSolution, SolveError> {
    check_edges(g)?;
    let n = g.vertices as usize;
    let threads = threads.clamp(1, n.max(1));
    // Vertex ranges owned by the threads.
    let bounds: Vec<usize> = (0..=threads).map(|i| n * i / threads).collect();

    // Out-degree counters (moves not yet refuted) and in-degrees for the reversed CSR. The
    // random-access pass counts into bytes (a quarter of the cache footprint of `u32`s), carrying
    // every 256th increment of a vertex into a small overflow map; a sequential pass widens.
    let mut counter = vec![0u32; n];
    let mut rev_start = vec![0u32; n + 1];
    {
        let outs = split_mut(&mut counter, &bounds);
        let ins = split_mut(&mut rev_start[1..], &bounds);
        let jobs: Vec<_> = outs.into_iter().zip(ins).zip(&bounds).collect();
        on_threads(jobs, |((out, inn), &lo)| {
            let mut out8 = vec![0u8; out.len()];
            let mut in8 = vec![0u8; inn.len()];
            let mut carry: HashMap<(bool, usize), u32> = HashMap::new();
            for (i, &(u, v)) in g.edges.iter().enumerate() {
                let ui = (u as usize).wrapping_sub(lo);
                if let Some(c) = out8.get_mut(ui) {
                    *c = c.wrapping_add(1);
                    if *c == 0 {
                        *carry.entry((false, ui)).or_default() += 256;
                    }
                }
                let vi = (v as usize).wrapping_sub(lo);
                if let Some(c) = in8.get_mut(vi) {
                    *c = c.wrapping_add(1);
                    if *c == 0 {
                        *carry.entry((true, vi)).or_default() += 256;
                    }
                }
                if i.is_multiple_of(CHECK_EVERY) {
                    ctx.check()?;
                }
            }
            for (dst, src) in out.iter_mut().zip(&out8) {
                *dst = u32::from(*src);
            }
            for (dst, src) in inn.iter_mut().zip(&in8) {
                *dst = u32::from(*src);
            }
            for ((incoming, x), add) in carry {
                if incoming {
                    inn[x] += add;
                } else {
                    out[x] += add;
                }
            }
            Ok(())
        })?;
    }
    for i in 0..n {
        rev_start[i + 1] += rev_start[i];
    }
    // Counting sort: `fill[v]` is the next free slot of v's predecessor list.
    let mut rev_src = vec![0u32; g.edges.len()];
    {
        let slots: Vec<usize> = bounds.iter().map(|&b| rev_start[b] as usize).collect();
        let parts = split_mut(&mut rev_src, &slots);
        let rev_start = &rev_start;
        let jobs: Vec<_> = parts.into_iter().zip(bounds.windows(2)).collect();
        on_threads(jobs, |(part, range)| {
            let (lo, hi) = (range[0], range[1]);
            let base = rev_start[lo];
            let mut fill: Vec<u32> = rev_start[lo..hi].iter().map(|&s| s - base).collect();
            for (i, &(u, v)) in g.edges.iter().enumerate() {
                if let Some(slot) = fill.get_mut((v as usize).wrapping_sub(lo)) {
                    part[*slot as usize] = u;
                    *slot += 1;
                }
                if i.is_multiple_of(CHECK_EVERY) {
                    ctx.check()?;
                }
            }
            Ok(())
        })?;
    }

    let mut outcome = vec![Outcome::Draw; n];
    let mut depth = vec![NO_DEPTH; n];
    let mut best_move = vec![NO_MOVE; n];
    let mut queue: Vec<u32> = Vec::with_capacity(n);
    for v in 0..n {
        if counter[v] == 0 {
            outcome[v] = Outcome::Lose;
            depth[v] = 0;
            queue.push(v as u32);
        }
    }

    let mut head = 0usize;
    let mut work = 0usize;
    while head < queue.len() {
        let v = queue[head] as usize;
        head += 1;
        let next_depth = depth[v] + 1;
        let preds = &rev_src[rev_start[v] as usize..rev_start[v + 1] as usize];
        if outcome[v] == Outcome::Lose {
            for &u in preds {
                let ui = u as usize;
                if outcome[ui] == Outcome::Draw {
                    outcome[ui] = Outcome::Win;
                    depth[ui] = next_depth;
                    best_move[ui] = v as u32;
                    queue.push(u);
                }
            }
        } else {
            for &u in preds {
                let ui = u as usize;
                if outcome[ui] == Outcome::Draw {
                    counter[ui] -= 1;
                    if counter[ui] == 0 {
                        outcome[ui] = Outcome::Lose;
                        depth[ui] = next_depth;
                        best_move[ui] = v as u32;
                        queue.push(u);
                    }
                }
            }
        }
        work += preds.len() + 1;
        if work >= CHECK_EVERY {
            work = 0;
            ctx.check()?;
            ctx.progress(head as f64 / n as f64);
        }
    }

    // A drawn vertex has a drawn successor (else it would be won or lost). Walk the drawn
    // vertices' predecessor lists (sequential) and give each drawn predecessor still without a
    // move this one; the "still needs a move" set is a bitmap small enough to stay in cache.
    if queue.len() < n {
        let mut needs = vec![0u64; n.div_ceil(64)];
        for (v, o) in outcome.iter().enumerate() {
            if *o == Outcome::Draw {
                needs[v / 64] |= 1 << (v % 64);
            }
        }
        let mut work = 0usize;
        for v in 0..n {
            if outcome[v] != Outcome::Draw {
                continue;
            }
            let preds = &rev_src[rev_start[v] as usize..rev_start[v + 1] as usize];
            for &u in preds {
                let (word, bit) = (u as usize / 64, 1u64 << (u % 64));
                if needs[word] & bit != 0 {
                    needs[word] &= !bit;
                    best_move[u as usize] = v as u32;
                }
            }
            work += preds.len() + 1;
            if work >= CHECK_EVERY {
                work = 0;
                ctx.check()?;
            }
        }
    }
    ctx.progress(1.0);
    Ok(GameSolution {
        outcome,
        depth,
        best_move,
    })
}

/// Splits `s` into consecutive pieces at the given offsets (`bounds[0] == 0`, last = `s.len()`).
fn split_mut<'a, T>(mut s: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(bounds.len());
    for w in bounds.windows(2) {
        let (head, tail) = s.split_at_mut(w[1] - w[0]);
        parts.push(head);
        s = tail;
    }
    parts
}

/// Runs `f` on every job, the first on the calling thread and the others on scoped threads;
/// the first error wins. A single job runs inline.
fn on_threads<J: Send>(
    mut jobs: Vec<J>,
    f: impl Fn(J) -> Result<(), SolveError> + Sync,
) -> Result<(), SolveError> {
    if jobs.len() <= 1 {
        return jobs.pop().map_or(Ok(()), &f);
    }
    let first = jobs.remove(0);
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|j| scope.spawn(move || f(j)))
            .collect();
        let mut result = f(first);
        for h in handles {
            let r = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            result = result.and(r);
        }
        result
    })
}

/// Parses the CLI text format of a game graph: a first line `n m`, then `m` lines `u v` with
/// 1-based vertices `1..=n`, one move from `u` to `v` per line. Blank lines are ignored.
///
/// # Arguments
/// * `text` — the whole input.
///
/// # Returns
/// The graph with 0-based vertices, or [`SolveError::InvalidArgument`] whose field names the line
/// (`line 4: vertex 9 out of range 1..8`): a missing or malformed header, a line that is not two
/// vertex numbers, a vertex out of range, fewer or more edge lines than announced.
///
/// # Complexity
/// `O(length of text)`.
///
/// # Example
/// ```
/// use orbit_worker::game::parse_game_text;
///
/// let g = parse_game_text("3 2\n1 2\n2 3\n").unwrap();
/// assert_eq!(g.vertices, 3);
/// assert_eq!(g.edges, [(0, 1), (1, 2)]);
/// let err = parse_game_text("2 1\n1 3\n").unwrap_err();
/// assert_eq!(err.to_string(), "line 2: vertex 3 out of range 1..2");
/// ```
pub fn parse_game_text(text: &str) -> Result<GameGraph, SolveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((hline, header)) = lines.next() else {
        return Err(SolveError::invalid(
            "line 1",
            "empty input: expected a first line `n m`",
        ));
    };
    let [n, m] = two_numbers(header).map_err(|reason| {
        SolveError::invalid(
            format!("line {hline}"),
            format!("{reason} (expected `n m`)"),
        )
    })?;
    let vertices = u32::try_from(n)
        .ok()
        .filter(|&n| n < u32::MAX)
        .ok_or_else(|| {
            SolveError::invalid(
                format!("line {hline}"),
                format!("{n} vertices: at most {} supported", u32::MAX - 1),
            )
        })?;
    let m = usize::try_from(m).map_err(|_| {
        SolveError::invalid(format!("line {hline}"), format!("{m} edges: too many"))
    })?;

    // Do not trust `m` for the allocation beyond what the text can hold (4 bytes per edge line).
    let mut edges = Vec::with_capacity(m.min(text.len() / 4 + 1));
    let mut last_line = hline;
    for (lineno, line) in lines {
        last_line = lineno;
        if edges.len() == m {
            return Err(SolveError::invalid(
                format!("line {lineno}"),
                format!("more edge lines than the {m} announced on line {hline}"),
            ));
        }
        let [u, v] = two_numbers(line).map_err(|reason| {
            SolveError::invalid(
                format!("line {lineno}"),
                format!("{reason} (expected `u v`)"),
            )
        })?;
        let endpoint = |x: u64| {
            if x == 0 || x > u64::from(vertices) {
                let range = if vertices == 0 {
                    "out of range: the graph has no vertices".to_string()
                } else {
                    format!("out of range 1..{vertices}")
                };
                Err(SolveError::invalid(
                    format!("line {lineno}"),
                    format!("vertex {x} {range}"),
                ))
            } else {
                Ok((x - 1) as u32)
            }
        };
        let u = endpoint(u)?;
        let v = endpoint(v)?;
        edges.push((u, v));
    }
    if edges.len() < m {
        return Err(SolveError::invalid(
            format!("line {}", last_line + 1),
            format!(
                "end of input after {} edge lines; line {hline} announced {m}",
                edges.len()
            ),
        ));
    }
    Ok(GameGraph { vertices, edges })
}

/// Exactly two non-negative decimal integers separated by whitespace.
fn two_numbers(line: &str) -> Result<[u64; 2], String> {
    let mut tokens = line.split_ascii_whitespace();
    let mut out = [0u64; 2];
    for slot in &mut out {
        let Some(tok) = tokens.next() else {
            return Err("too few numbers".to_string());
        };
        *slot = tok
            .parse::<u64>()
            .map_err(|_| format!("`{tok}` is not a non-negative integer"))?;
    }
    if let Some(tok) = tokens.next() {
        return Err(format!("unexpected `{tok}` after two numbers"));
    }
    Ok(out)
}
