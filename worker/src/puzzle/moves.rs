//! Move sequences for the reachable targets: [`PuzzleMover`] and [`solve_puzzle_moves`].
//!
//! # Method
//! As in the decider ([`super`]), a target is first *normalised*: its blank is walked back to the
//! start vertex `r` along the depth-first tree. The normalised target is reached by one closed
//! walk per block of the block-cut tree (a "lasso" `P·w·P⁻¹`, `P` the tree path from `r` to the
//! block's entry, `w` a closed walk inside the block that rearranges its non-entry tokens and
//! nothing else); the walks are concatenated with the tree paths between consecutive entries
//! (the lassos' `P⁻¹·P'` with its backtracks cancelled, which changes no arrangement), and the
//! normalisation is undone by walking the blank from `r` to the target's blank vertex. Blocks:
//!
//! * a bridge never needs anything (the decider guarantees its token is in place);
//! * a cycle: the blank goes round it `s` times one way or `L - 1 - s` times the other;
//! * any other block follows its [`BlockPlan`](super::block_plan::BlockPlan) when it has one:
//!   ears filled by a conveyor, the small core (at most 8 vertices through the entry) finished
//!   from its search table ([`ear_fill`](super::ear_fill)). A bipartite core in a non-bipartite
//!   block finishes only with the right parity of the walk so far; the block is then undone and
//!   redone after one more odd cycle, up to `PARITY_ATTEMPTS` (8) times;
//! * a block without a plan (no small core: a long cycle with one chord, a θ-graph of long
//!   paths), one whose ears are too long for the part they hang on, or one whose parity
//!   attempts ran out, is undone and rearranged by a *word in its lassos*
//!   ([`lasso_words`](super::lasso_words)): the closed walks `T[e, u]·(u v)·T[v, e]` of a
//!   breadth-first tree `T` from the entry `e`, one per non-tree edge `uv`, generate the
//!   fundamental group of the block at `e`, so their permutations generate every rearrangement
//!   the decider allows; the group engine ([`GroupWords`](crate::group::GroupWords): Minkwitz's
//!   tables, or conjugates of one 3-cycle for 24 or more points) writes the wanted permutation
//!   as a word in them, and each letter is walked as its lasso (backwards for an inverse). This
//!   is complete: no reachable target is ever refused. The words are long (about `n²` letters
//!   of up to `2·depth + 1` moves each for a block of `n` vertices, so `O(n³)` moves as
//!   Kornhauser, Miller and Spirakis bound them), which is why the ear construction is tried
//!   first.
//!
//! A *shortening pass* runs as the walk is produced: a step straight back to the vertex the blank
//! just left cancels the step before it (two swaps of the same pair are the identity), so the
//! reported walk has no back-and-forth `u → v → u`. Every sequence is replayed on the graph before
//! it is returned; a mismatch is an error, never a wrong answer.
//!
//! # Limits
//! The moves reported in one job are capped by [`Limits::max_puzzle_moves`] (a lasso word is
//! built only up to the moves the cap leaves: each letter adds at least its non-tree edge to the
//! reduced walk); the sequences, the search tables, the lassos' groups and words are charged to
//! the job's [`MemoryBudget`] as they grow. Cancellation is polled every 4,096 steps and by the
//! group engine while a block's lasso group is built.
//!
//! # References
//! * D. Kornhauser, G. Miller, P. Spirakis, "Coordinating pebble motion on graphs, the diameter
//!   of permutation groups, and applications", FOCS 1984 — `O(n³)` moves suffice.
//! * R. M. Wilson, "Graph puzzles, homotopy, and the alternating group", J. Combin. Theory
//!   Ser. B 16 (1974) — closed walks, the fundamental group and the blocks' groups.
//! * T. Minkwitz, "An algorithm for solving the factorization problem in permutation groups",
//!   J. Symbolic Comput. 26 (1998) — words for group members.

use super::block_plan::{BlockPlan, NoCore, plan_block};
use super::blocks::{self, Blocks, NONE};
use super::ear_fill::{self, BlockView, Scratch};
use super::lasso_words::{self, LassoWords};
use super::route_fields::{MAX_FIELD_BYTES_PER_PUZZLE, RouteFields};
use super::{PuzzleProblem, PuzzleSolver};
use crate::memory::MemoryBudget;
use crate::{Limits, SolveContext, SolveError};

/// How many times a block with a bipartite core may be redone with one more odd cycle first.
const PARITY_ATTEMPTS: usize = 8;

/// Why a construction failed, inside the module; converted to [`SolveError`] at the API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MovesFail {
    /// The block's shape is outside what the ear construction handles (the lassos' words
    /// then rearrange it).
    #[error("{0}")]
    Unsupported(String),
    /// The core's table cannot finish: the parity must be fixed first.
    #[error("the core cannot finish the block (parity)")]
    Parity,
    /// A bug: the construction contradicts itself.
    #[error("internal inconsistency: {0}")]
    Inconsistent(String),
    /// The cap, the memory budget or cancellation.
    #[error(transparent)]
    Solve(#[from] SolveError),
}

impl From<NoCore> for MovesFail {
    fn from(e: NoCore) -> Self {
        MovesFail::Unsupported(e.to_string())
    }
}

/// The blank's walk as it is produced: the current arrangement, and the reduced walk (a stack of
/// vertices, the start first; a step back to the vertex below the top pops instead of pushing).
pub(crate) struct Walker<'a> {
    arr: Vec<u32>,
    pos: Vec<u32>,
    path: Vec<u32>,
    /// Moves already reported by earlier targets of the job, and the cap.
    before: u64,
    cap: u64,
    /// Steps taken (before reduction), for the cancellation poll.
    raw: u64,
    /// Bytes of `path` charged so far.
    charged: u64,
    /// Raw positions left, recorded while a block may have to be undone.
    trace: Option<Vec<u32>>,
    ctx: &'a SolveContext,
    budget: &'a mut MemoryBudget,
}

impl<'a> Walker<'a> {
    /// Moves the walk may still take under the cap.
    pub(crate) fn moves_left(&self) -> u64 {
        self.cap
            .saturating_sub(self.before + self.path.len() as u64 - 1)
    }

    /// The cap's error for a walk that would report `reported` moves.
    pub(crate) fn over_cap(&self, reported: u64) -> SolveError {
        SolveError::limit_shown(
            format!("puzzle moves ({reported} so far)"),
            "max_puzzle_moves",
            self.cap,
            format!("{} (max_puzzle_moves)", self.cap),
        )
        .requested(reported)
    }

    /// Moves reported so far by this walk and the job's earlier ones.
    pub(crate) fn reported(&self) -> u64 {
        self.before + self.path.len() as u64 - 1
    }

    /// The job's cancellation and progress.
    pub(crate) fn ctx(&self) -> &'a SolveContext {
        self.ctx
    }

    /// The job's memory budget.
    pub(crate) fn budget(&mut self) -> &mut MemoryBudget {
        self.budget
    }

    pub(crate) fn blank(&self) -> u32 {
        self.path[self.path.len() - 1]
    }

    pub(crate) fn pos(&self, token: u32) -> u32 {
        self.pos[token as usize]
    }

    pub(crate) fn token_at(&self, v: u32) -> u32 {
        self.arr[v as usize]
    }

    /// The blank steps to vertex `v` (adjacent to it).
    pub(crate) fn step(&mut self, v: u32) -> Result<(), SolveError> {
        let b = self.blank();
        let t = self.arr[v as usize];
        self.arr[b as usize] = t;
        self.arr[v as usize] = 0;
        self.pos[t as usize] = b;
        self.pos[0] = v;
        if let Some(trace) = &mut self.trace {
            trace.push(b);
        }
        let len = self.path.len();
        if len >= 2 && self.path[len - 2] == v {
            self.path.pop();
        } else {
            self.path.push(v);
            let reported = self.reported();
            if reported > self.cap {
                return Err(self.over_cap(reported));
            }
            let bytes = (self.path.capacity() as u64) * 4;
            if bytes > self.charged {
                self.budget
                    .charge(bytes - self.charged, || "the puzzle's move sequence".into())?;
                self.charged = bytes;
            }
        }
        self.raw += 1;
        if self.raw.is_multiple_of(4096) {
            self.ctx.check()?;
        }
        Ok(())
    }
}

/// What is known of a block, made when a target first needs it.
#[derive(Debug)]
enum BlockState {
    Unplanned,
    Bridge,
    /// Non-entry vertices (global) in order round the cycle from a neighbour of the entry.
    Cycle(Vec<u32>),
    General {
        verts: Vec<u32>,
        adj: Vec<Vec<u32>>,
        plan: Box<BlockPlan>,
        /// The routing's distance fields, kept across targets (small blocks only, within the
        /// puzzle's allowance for them); made on the block's first fill.
        routes: Option<Box<RouteFields>>,
        /// Whether `routes` was decided (made or refused) already.
        routes_decided: bool,
        /// Made when the ear construction first fails on this block.
        lassos: Option<Box<LassoWords>>,
    },
    /// A block without a plan: rearranged by words in its lassos, made when first needed.
    Lassos {
        verts: Vec<u32>,
        adj: Vec<Vec<u32>>,
        lassos: Option<Box<LassoWords>>,
    },
}

/// A puzzle prepared to construct move sequences for many targets.
///
/// # Complexity
/// Building: as [`PuzzleSolver::new`] plus `O(n + m)`. Each target: `O(n)` for the decision and
/// the cycles, and the block plans' costs (see [`ear_fill`](super::ear_fill) and
/// [`lasso_words`](super::lasso_words)); a block's plan, its routing fields
/// ([`route_fields`](super::route_fields)) and lasso words are made once, when a target first
/// needs them, and serve every later target.
///
/// # Example
/// ```
/// use orbit_worker::puzzle::PuzzleMover;
/// use orbit_worker::memory::MemoryBudget;
/// use orbit_worker::{Limits, SolveContext};
///
/// // A triangle 0-1-2, blank on 0: going round once rotates tokens 1 and 2.
/// let mut mover = PuzzleMover::new(3, &[(0, 1), (1, 2), (2, 0)], &[0, 1, 2], &SolveContext::detached())?;
/// let mut budget = MemoryBudget::new(1 << 20);
/// let moves = mover.moves(&[0, 2, 1], u64::MAX, &SolveContext::detached(), &mut budget)?;
/// assert_eq!(moves.map(|m| m.len()), Some(3));
/// assert_eq!(mover.moves(&[0, 1, 2], u64::MAX, &SolveContext::detached(), &mut budget)?, Some(vec![]));
/// # Ok::<(), orbit_worker::SolveError>(())
/// ```
#[derive(Debug)]
pub struct PuzzleMover {
    solver: PuzzleSolver,
    n: usize,
    root: u32,
    start: Vec<u32>,
    /// Sorted neighbours of each vertex in the simple graph, for the final replay.
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    parent: Vec<u32>,
    depth: Vec<u32>,
    blocks: Blocks,
    /// Local index of each non-entry vertex in its block.
    local_of: Vec<u32>,
    states: Vec<BlockState>,
    scratch: Scratch,
    /// Bytes of plans charged to a budget so far.
    plans_charged: u64,
    /// Bytes of the blocks' routing fields so far (within [`MAX_FIELD_BYTES_PER_PUZZLE`]).
    fields_bytes: u64,
}

impl PuzzleMover {
    /// Prepares the puzzle on `(n, edges)` with the start arrangement `start`.
    ///
    /// # Errors
    /// As [`PuzzleSolver::new`].
    pub fn new(
        n: u32,
        edges: &[(u32, u32)],
        start: &[u32],
        ctx: &SolveContext,
    ) -> Result<Self, SolveError> {
        let solver = PuzzleSolver::new(n, edges, start, ctx)?;
        let n = n as usize;
        let root = start.iter().position(|&t| t == 0).unwrap_or(0);
        let b = blocks::decompose(n, edges, root, ctx)?;
        let mut keys: Vec<(u32, u32)> = edges
            .iter()
            .filter(|(u, v)| u != v)
            .flat_map(|&(u, v)| [(u, v), (v, u)])
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let mut adj_start = vec![0u32; n + 1];
        for &(u, _) in &keys {
            adj_start[u as usize + 1] += 1;
        }
        for i in 0..n {
            adj_start[i + 1] += adj_start[i];
        }
        let adj: Vec<u32> = keys.iter().map(|&(_, v)| v).collect();
        drop(keys);
        // Depths in the depth-first tree: each vertex's chain up to a known depth, then down.
        let mut depth = vec![NONE; n];
        depth[root] = 0;
        let mut chain = Vec::new();
        for v in 0..n {
            if !b.in_component[v] || depth[v] != NONE {
                continue;
            }
            let mut c = v as u32;
            while depth[c as usize] == NONE {
                chain.push(c);
                c = b.parent[c as usize];
            }
            let mut d = depth[c as usize];
            while let Some(x) = chain.pop() {
                d += 1;
                depth[x as usize] = d;
            }
        }
        let mut local_of = vec![NONE; n];
        for blk in 0..b.len() {
            for (i, &v) in b.points(blk).iter().enumerate() {
                local_of[v as usize] = i as u32;
            }
        }
        let largest = (0..b.len())
            .map(|k| b.points(k).len() + 1)
            .max()
            .unwrap_or(1);
        let states = (0..b.len()).map(|_| BlockState::Unplanned).collect();
        Ok(Self {
            solver,
            n,
            root: root as u32,
            start: start.to_vec(),
            adj_start,
            adj,
            parent: b.parent.clone(),
            depth,
            local_of,
            states,
            scratch: Scratch::new(largest, n),
            blocks: b,
            plans_charged: 0,
            fields_bytes: 0,
        })
    }

    /// Bytes [`new`](Self::new) keeps for a graph of `n` vertices and `edges` edges, on top of the
    /// decider's: the graph for the replay (`4(n + 1) + 8m`), tree, depths, local indices and
    /// block states (`48n`), the blocks (`37n + 8m` as in the decider's bound), scratch (`12n`).
    pub fn memory_estimate(n: u64, edges: u64) -> u64 {
        n.saturating_mul(101)
            .saturating_add(edges.saturating_mul(32))
            .saturating_add(4)
    }

    fn is_neighbour(&self, u: u32, v: u32) -> bool {
        let nb =
            &self.adj[self.adj_start[u as usize] as usize..self.adj_start[u as usize + 1] as usize];
        nb.binary_search(&v).is_ok()
    }

    /// The walk of the blank from the start to `target`, as the vertices it steps to; `None` if
    /// the target is unreachable, an empty walk if it is the start.
    ///
    /// # Arguments
    /// * `target` — a permutation of `0..n-1` (`target[v]` the token on vertex `v`).
    /// * `cap` — the most moves this walk may have ([`Limits::max_puzzle_moves`] less what the
    ///   job already reported).
    /// * `ctx` — polled for cancellation every 4,096 steps.
    /// * `budget` — charged for the walk as it grows and for block plans when they are made.
    ///
    /// # Errors
    /// [`SolveError::InvalidArgument`] if `target` is not a permutation; `LimitExceeded` for the
    /// cap (`max_puzzle_moves`) or the budget (`max_job_memory`); [`SolveError::Cancelled`].
    /// Every reachable target gets a sequence otherwise.
    pub fn moves(
        &mut self,
        target: &[u32],
        cap: u64,
        ctx: &SolveContext,
        budget: &mut MemoryBudget,
    ) -> Result<Option<Vec<u32>>, SolveError> {
        self.moves_indexed(None, target, cap, ctx, budget)
    }

    pub(crate) fn moves_indexed(
        &mut self,
        index: Option<usize>,
        target: &[u32],
        cap: u64,
        ctx: &SolveContext,
        budget: &mut MemoryBudget,
    ) -> Result<Option<Vec<u32>>, SolveError> {
        let reachable = match index {
            Some(i) => self.solver.is_reachable_indexed(i, target)?,
            None => self.solver.is_reachable(target)?,
        };
        if !reachable {
            return Ok(None);
        }
        let name = || match index {
            Some(i) => format!("puzzle.targets[{i}]"),
            None => "target".to_string(),
        };
        let walk = self
            .construct(target, cap, ctx, budget)
            .map_err(|e| match e {
                MovesFail::Solve(e) => e,
                other => SolveError::Panicked(format!("puzzle moves for {}: {other}", name())),
            })?;
        Ok(Some(walk))
    }

    fn construct(
        &mut self,
        target: &[u32],
        cap: u64,
        ctx: &SolveContext,
        budget: &mut MemoryBudget,
    ) -> Result<Vec<u32>, MovesFail> {
        let n = self.n;
        // Normalise: the blank walked back to the root along the tree.
        let mut want = target.to_vec();
        let target_blank = target.iter().position(|&t| t == 0).unwrap_or(0) as u32;
        let mut x = target_blank;
        while x != self.root {
            let p = self.parent[x as usize];
            want.swap(x as usize, p as usize);
            x = p;
        }
        let mut pos = vec![0u32; n];
        for (v, &t) in self.start.iter().enumerate() {
            pos[t as usize] = v as u32;
        }
        let mut w = Walker {
            arr: self.start.clone(),
            pos,
            path: vec![self.root],
            before: 0,
            cap,
            raw: 0,
            charged: 0,
            trace: None,
            ctx,
            budget,
        };
        for blk in 0..self.blocks.len() {
            if blk % 1024 == 0 {
                ctx.check()?;
            }
            // In the lasso form a block's tokens are still where they started when its turn
            // comes (the walk at this moment may have shifted tokens along tree paths).
            if self
                .blocks
                .points(blk)
                .iter()
                .all(|&v| self.start[v as usize] == want[v as usize])
            {
                continue;
            }
            let entry = self.blocks.entry[blk];
            self.travel(&mut w, entry)?;
            self.solve_block(&mut w, blk, &want)?;
        }
        self.travel(&mut w, target_blank)?;
        if w.arr != target {
            return Err(MovesFail::Inconsistent("the walk ends elsewhere".into()));
        }
        let walk = w.path[1..].to_vec();
        // The walk returned is charged once more (it outlives the scratch) and replayed.
        w.budget.charge(4 * walk.len() as u64, || {
            "the puzzle's move sequences".into()
        })?;
        let budget_charged = w.charged;
        w.budget.release(budget_charged);
        self.replay(&walk, target)?;
        Ok(walk)
    }

    /// Checks `walk` from the start on the graph ends at `target`.
    fn replay(&self, walk: &[u32], target: &[u32]) -> Result<(), MovesFail> {
        let mut arr = self.start.clone();
        let mut b = self.root;
        for &v in walk {
            if !self.is_neighbour(b, v) {
                return Err(MovesFail::Inconsistent(format!(
                    "step {b} -> {v} is no edge"
                )));
            }
            arr.swap(b as usize, v as usize);
            b = v;
        }
        if arr != target {
            return Err(MovesFail::Inconsistent("the replay ends elsewhere".into()));
        }
        Ok(())
    }

    /// Walks the blank along the tree to `to`.
    fn travel(&self, w: &mut Walker<'_>, to: u32) -> Result<(), MovesFail> {
        let (mut a, mut b) = (w.blank(), to);
        let mut down = Vec::new();
        while a != b {
            if self.depth[a as usize] >= self.depth[b as usize] {
                a = self.parent[a as usize];
                w.step(a)?;
            } else {
                down.push(b);
                b = self.parent[b as usize];
            }
        }
        for &v in down.iter().rev() {
            w.step(v)?;
        }
        Ok(())
    }

    fn solve_block(
        &mut self,
        w: &mut Walker<'_>,
        blk: usize,
        want: &[u32],
    ) -> Result<(), MovesFail> {
        if matches!(self.states[blk], BlockState::Unplanned) {
            let state = self.make_state(blk);
            if let BlockState::General { plan, .. } = &state {
                let bytes = super::arrangement_table::ArrangementTable::bytes(plan.core.len())
                    + 16 * plan.level.len() as u64;
                w.budget.charge(bytes, || "a puzzle block's plan".into())?;
                self.plans_charged += bytes;
            }
            self.states[blk] = state;
        }
        let local_of = &self.local_of;
        let plans_charged = &mut self.plans_charged;
        match &mut self.states[blk] {
            BlockState::Unplanned | BlockState::Bridge => Err(MovesFail::Inconsistent(
                "a bridge's token is out of place".into(),
            )),
            BlockState::Cycle(order) => rotate(w, order, self.blocks.entry[blk], want),
            BlockState::Lassos { verts, adj, lassos } => {
                let lw = lasso_words_of(lassos, adj, w, plans_charged)?;
                lasso_words::rearrange(w, verts, lw, want)
            }
            BlockState::General {
                verts,
                adj,
                plan,
                routes,
                routes_decided,
                lassos,
            } => {
                if !*routes_decided {
                    // Fields only within the puzzle's allowance and a quarter of the budget
                    // left, the index taking at most half of that: a cache, never a refusal.
                    *routes_decided = true;
                    let room = MAX_FIELD_BYTES_PER_PUZZLE
                        .saturating_sub(self.fields_bytes)
                        .min(w.budget.remaining() / 4);
                    let levels = plan.ears.len() + 1;
                    if RouteFields::index_bytes(verts.len(), levels)
                        .is_some_and(|index| index <= room / 2)
                    {
                        *routes = RouteFields::new(verts.len(), levels, room).map(Box::new);
                    }
                }
                let view = BlockView {
                    verts,
                    adj,
                    plan,
                    local_of,
                    want,
                };
                let scratch = &mut self.scratch;
                // A bipartite core in a non-bipartite block finishes only if the parity of the
                // walk so far matches, which the ears' walk decides. On a parity failure undo
                // the block (its steps backwards) and go round an odd cycle once more before
                // filling again, a few times; then, or when an ear is too long for a filler,
                // undo it and rearrange the block by a word in its lassos, which always works.
                let mut attempt = 0;
                loop {
                    w.trace = Some(Vec::new());
                    if let Some(odd) = &plan.odd_walk {
                        for _ in 0..attempt {
                            for &v in odd {
                                w.step(verts[v as usize])?;
                            }
                        }
                    }
                    let result = ear_fill::fill(w, &view, scratch, routes.as_deref_mut());
                    if let Some(routes) = routes.as_deref_mut() {
                        // The fields kept grow with the questions asked; charged as they do.
                        let bytes = routes.bytes();
                        if bytes > routes.charged {
                            w.budget.charge(bytes - routes.charged, || {
                                "a puzzle block's routing fields".into()
                            })?;
                            *plans_charged += bytes - routes.charged;
                            self.fields_bytes += bytes - routes.charged;
                            routes.charged = bytes;
                        }
                    }
                    let trace = w.trace.take().unwrap_or_default();
                    match result {
                        Err(MovesFail::Parity | MovesFail::Unsupported(_)) => {
                            for &v in trace.iter().rev() {
                                w.step(v)?;
                            }
                            drop(trace);
                            let retry = matches!(result, Err(MovesFail::Parity))
                                && plan.odd_walk.is_some()
                                && attempt < PARITY_ATTEMPTS;
                            if retry {
                                attempt += 1;
                                continue;
                            }
                            let lw = lasso_words_of(lassos, adj, w, plans_charged)?;
                            return lasso_words::rearrange(w, verts, lw, want);
                        }
                        other => return other,
                    }
                }
            }
        }
    }

    fn make_state(&self, blk: usize) -> BlockState {
        let pts = self.blocks.points(blk);
        let k = pts.len();
        if k == 1 {
            return BlockState::Bridge;
        }
        let entry = self.blocks.entry[blk];
        let mut verts: Vec<u32> = pts.to_vec();
        verts.push(entry);
        let lidx = |v: u32| {
            if v == entry {
                k
            } else {
                self.local_of[v as usize] as usize
            }
        };
        let mut adj = vec![Vec::new(); k + 1];
        for &(u, v) in self.blocks.edges(blk) {
            adj[lidx(u)].push(lidx(v) as u32);
            adj[lidx(v)].push(lidx(u) as u32);
        }
        if self.blocks.edges(blk).len() == k + 1 && adj.iter().all(|nb| nb.len() == 2) {
            let mut order = Vec::with_capacity(k);
            let (mut prev, mut cur) = (k, adj[k][0] as usize);
            while cur != k {
                order.push(verts[cur]);
                let nb = &adj[cur];
                let next = if nb[0] as usize != prev { nb[0] } else { nb[1] } as usize;
                prev = cur;
                cur = next;
            }
            return BlockState::Cycle(order);
        }
        let bipartite = {
            let mut colour = vec![u8::MAX; k + 1];
            colour[k] = 0;
            let mut stack = vec![k];
            let mut ok = true;
            while let Some(x) = stack.pop() {
                for &y in &adj[x] {
                    let y = y as usize;
                    if colour[y] == u8::MAX {
                        colour[y] = colour[x] ^ 1;
                        stack.push(y);
                    } else if colour[y] == colour[x] {
                        ok = false;
                    }
                }
            }
            ok
        };
        match plan_block(&adj, bipartite) {
            Ok(plan) => BlockState::General {
                routes: None,
                routes_decided: false,
                verts,
                adj,
                plan: Box::new(plan),
                lassos: None,
            },
            Err(_) => BlockState::Lassos {
                verts,
                adj,
                lassos: None,
            },
        }
    }

    /// Bytes of block plans charged to budgets so far (released when the mover is dropped).
    pub fn plans_bytes(&self) -> u64 {
        self.plans_charged
    }
}

/// The block's lasso words, made (and charged to the walk's budget) on first use.
fn lasso_words_of<'l>(
    lassos: &'l mut Option<Box<LassoWords>>,
    adj: &[Vec<u32>],
    w: &mut Walker<'_>,
    plans_charged: &mut u64,
) -> Result<&'l LassoWords, MovesFail> {
    if lassos.is_none() {
        let ctx = w.ctx;
        let lw = LassoWords::new(adj, ctx, w.budget())?;
        *plans_charged += lw.bytes();
        *lassos = Some(Box::new(lw));
    }
    match lassos {
        Some(lw) => Ok(lw),
        None => Err(MovesFail::Inconsistent("no lasso words".into())),
    }
}

/// Rotates a cycle block: `order` its non-entry vertices from a neighbour of the entry round.
fn rotate(w: &mut Walker<'_>, order: &[u32], entry: u32, want: &[u32]) -> Result<(), MovesFail> {
    let k = order.len();
    let first = want[order[0] as usize];
    let s = order
        .iter()
        .position(|&v| w.token_at(v) == first)
        .ok_or_else(|| MovesFail::Inconsistent("a cycle's token left it".into()))?;
    if (0..k).any(|i| want[order[i] as usize] != w.token_at(order[(i + s) % k])) {
        return Err(MovesFail::Inconsistent(
            "a cycle's tokens are not a rotation".into(),
        ));
    }
    // Going round forwards moves every token one place back along `order`.
    if s <= k - s {
        for _ in 0..s {
            for &v in order {
                w.step(v)?;
            }
            w.step(entry)?;
        }
    } else {
        for _ in 0..k - s {
            for &v in order.iter().rev() {
                w.step(v)?;
            }
            w.step(entry)?;
        }
    }
    Ok(())
}

/// Move sequences for a puzzle job: for each target, in order, the vertices the blank steps to,
/// or `None` if the target is unreachable.
///
/// # Arguments
/// * `p` — the job (validated here as in [`solve_puzzle`](super::solve_puzzle)).
/// * `ctx` — polled for cancellation between targets and every 4,096 steps.
/// * `limits` — `max_puzzle_moves` caps the moves of all targets together.
/// * `budget` — charged for the sequences and the block plans.
///
/// # Errors
/// As [`PuzzleMover::moves`], naming `puzzle.targets[i]`.
///
/// # Complexity
/// See [`PuzzleMover`]; the moves are polynomial (`O(n³)` per target at worst).
///
/// # Example
/// ```
/// use orbit_worker::puzzle::{solve_puzzle_moves, PuzzleProblem};
/// use orbit_worker::memory::MemoryBudget;
/// use orbit_worker::{Limits, SolveContext};
///
/// let p = PuzzleProblem {
///     n: 4,
///     edges: vec![(0, 1), (1, 2), (2, 3), (3, 0)],
///     start: vec![0, 1, 2, 3],
///     targets: vec![vec![0, 2, 3, 1], vec![0, 2, 1, 3], vec![1, 0, 2, 3]],
/// };
/// let mut budget = MemoryBudget::new(1 << 20);
/// let moves = solve_puzzle_moves(&p, &SolveContext::detached(), &Limits::default(), &mut budget)?;
/// assert_eq!(moves, vec![Some(vec![1, 2, 3, 0]), None, Some(vec![1])]);
/// # Ok::<(), orbit_worker::SolveError>(())
/// ```
pub fn solve_puzzle_moves(
    p: &PuzzleProblem,
    ctx: &SolveContext,
    limits: &Limits,
    budget: &mut MemoryBudget,
) -> Result<Vec<Option<Vec<u32>>>, SolveError> {
    let mut mover = PuzzleMover::new(p.n, &p.edges, &p.start, ctx)?;
    let q = p.targets.len();
    let mut out = Vec::with_capacity(q);
    let mut reported = 0u64;
    for (i, t) in p.targets.iter().enumerate() {
        ctx.check()?;
        let cap = limits.max_puzzle_moves.saturating_sub(reported);
        let moves = mover
            .moves_indexed(Some(i), t, cap, ctx, budget)
            .map_err(|e| match e {
                SolveError::LimitExceeded {
                    limit_name: "max_puzzle_moves",
                    requested,
                    ..
                } => {
                    let total = requested
                        .and_then(|r| r.parse::<u64>().ok())
                        .map_or(reported, |r| r + reported);
                    SolveError::limit_shown(
                        format!("puzzle moves ({total} by puzzle.targets[{i}])"),
                        "max_puzzle_moves",
                        limits.max_puzzle_moves,
                        format!("{} (max_puzzle_moves)", limits.max_puzzle_moves),
                    )
                    .requested(total)
                }
                other => other,
            })?;
        reported += moves.as_ref().map_or(0, |m| m.len() as u64);
        out.push(moves);
        ctx.progress(0.2 + 0.8 * (i + 1) as f64 / q as f64);
    }
    Ok(out)
}
