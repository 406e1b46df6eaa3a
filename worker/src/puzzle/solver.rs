//! [`PuzzleSolver`]: the graph prepared once, targets decided one at a time.

use super::blocks::{self, NONE};
use super::{check_arrangement, validate_graph};
use crate::{Limits, SolveContext, SolveError};

/// Blocks with at most this many vertices (entry included) have their group enumerated; larger
/// ones that are not cycles follow Wilson's theorem. θ0 has 7 vertices.
const SMALL_BLOCK: usize = 7;

/// What a block's group is, beyond "its tokens stay in its non-entry set".
#[derive(Debug, Clone)]
enum Rule {
    /// Only rotations of the non-entry tokens, which are stored in cyclic order.
    Rotations,
    /// Only even permutations (bipartite, Wilson).
    Even,
    /// Exactly these permutations of the non-entry points: a bitmap over their Lehmer ranks
    /// (`k!` bits for `k <= 6` points, at most 12 words), so a block costs at most 96 bytes
    /// however large its group.
    Table(Box<[u64]>),
}

/// How many blocks of each kind the blank's component has; see [`PuzzleSolver::summary`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PuzzleSummary {
    /// Vertices in the blank's component (the others never change).
    pub component_vertices: u64,
    /// Blocks of the simple graph inside the component.
    pub blocks: u64,
    /// Blocks that are single edges: their token never moves.
    pub bridges: u64,
    /// Blocks that are cycles: their tokens only rotate.
    pub cycles: u64,
    /// Blocks of 4 to 7 vertices, not cycles, whose groups were enumerated (θ0 among them).
    pub enumerated: u64,
    /// Larger non-bipartite blocks: every permutation of their tokens (Wilson).
    pub symmetric: u64,
    /// Larger bipartite blocks: the even permutations of their tokens (Wilson).
    pub alternating: u64,
}

/// The token puzzle on one graph and start arrangement, prepared to decide many targets.
///
/// This is the split form of [`solve_puzzle`](super::solve_puzzle) for streaming: build it once,
/// then feed targets one by one to [`is_reachable`](Self::is_reachable) and stream the answers
/// out. It is `Send + Sync`; targets may be decided from several threads.
///
/// # Complexity
/// Building: `O((n + m) log m)` time, `O(n + m)` peak memory, `O(n)` retained (about 24 bytes per
/// vertex). Each target: `O(n)` time and `O(n)` scratch.
///
/// # Example
/// ```
/// use orbit_worker::puzzle::PuzzleSolver;
/// use orbit_worker::SolveContext;
///
/// // A triangle 0-1-2 with a pendant vertex 3 on vertex 2; the blank starts on vertex 3.
/// let solver = PuzzleSolver::new(4, &[(0, 1), (1, 2), (2, 0), (2, 3)], &[1, 2, 3, 0], &SolveContext::detached())?;
/// assert!(solver.is_reachable(&[2, 1, 3, 0])?); // tokens 1 and 2 swapped by going round the triangle
/// assert!(!solver.is_reachable(&[1, 3, 2, 0])?); // token 3 can never leave vertex 2 for good
/// assert!(solver.is_reachable(&[1, 2, 0, 3])?); // one move
/// # Ok::<(), orbit_worker::SolveError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PuzzleSolver {
    n: usize,
    root: u32,
    start: Vec<u32>,
    /// Vertex of each token in the start arrangement.
    start_pos: Vec<u32>,
    /// Spanning-tree parent towards the root (component only).
    parent: Vec<u32>,
    in_component: Vec<bool>,
    /// Block whose non-entry set holds the vertex (`NONE` for the root and outside vertices).
    owner: Vec<u32>,
    /// Index of the vertex among its block's non-entry vertices.
    local: Vec<u32>,
    point_start: Vec<u32>,
    points: Vec<u32>,
    /// Blocks with a rule beyond the set check, and the rule.
    rules: Vec<(u32, Rule)>,
    largest_rule_block: usize,
    summary: PuzzleSummary,
}

impl PuzzleSolver {
    /// Prepares the puzzle on graph `(n, edges)` with the given start arrangement.
    ///
    /// # Arguments
    /// * `n` — vertices `0..n-1`, at least 1.
    /// * `edges` — undirected edges; self-loops and parallel edges are allowed (they change
    ///   nothing).
    /// * `start` — `start[v]` is the token on vertex `v`, a permutation of `0..n-1`.
    /// * `ctx` — polled for cancellation.
    ///
    /// # Returns
    /// The prepared solver, or [`SolveError::InvalidArgument`] for an edge out of range
    /// (`puzzle.edges[i]`) or a start that is not a permutation (`puzzle.start[v]`), or
    /// [`SolveError::Cancelled`].
    ///
    /// # Complexity
    /// `O((n + m) log m)` time, `O(n + m)` memory.
    pub fn new(
        n: u32,
        edges: &[(u32, u32)],
        start: &[u32],
        ctx: &SolveContext,
    ) -> Result<Self, SolveError> {
        validate_graph(n, edges, None)?;
        let n = n as usize;
        let mut start_pos = vec![NONE; n];
        check_arrangement(
            start,
            n,
            &mut start_pos,
            &|i| format!("puzzle.start[{i}]"),
            &|| "puzzle.start".to_string(),
        )?;
        let root = start_pos[0] as usize;
        ctx.progress(0.02);

        let b = blocks::decompose(n, edges, root, ctx)?;
        ctx.progress(0.15);
        let mut points = b.points.clone();
        let mut local = vec![NONE; n];
        for blk in 0..b.len() {
            for (i, &v) in b.points(blk).iter().enumerate() {
                local[v as usize] = i as u32;
            }
        }

        let mut summary = PuzzleSummary {
            component_vertices: b.in_component.iter().filter(|&&c| c).count() as u64,
            blocks: b.len() as u64,
            ..PuzzleSummary::default()
        };
        let mut rules = Vec::new();
        let mut largest_rule_block = 0;
        for blk in 0..b.len() {
            if blk % 4096 == 0 {
                ctx.check()?;
            }
            let pts = b.points(blk);
            let k = pts.len();
            if k == 1 {
                summary.bridges += 1;
                continue;
            }
            let entry = b.entry[blk];
            let lidx = |v: u32| {
                if v == entry {
                    k
                } else {
                    local[v as usize] as usize
                }
            };
            let adj = LocalGraph::new(k + 1, b.edges(blk).iter().map(|&(u, v)| (lidx(u), lidx(v))));
            let rule =
                if b.edges(blk).len() == k + 1 && (0..=k).all(|x| adj.neighbours(x).len() == 2) {
                    // A cycle: store its non-entry vertices in cyclic order.
                    let order = adj.cycle_order(k);
                    let base = b.point_start[blk] as usize;
                    for (i, &x) in order.iter().enumerate() {
                        let v = pts[x];
                        points[base + i] = v;
                        local[v as usize] = i as u32;
                    }
                    summary.cycles += 1;
                    Some(Rule::Rotations)
                } else if k < SMALL_BLOCK {
                    summary.enumerated += 1;
                    Some(Rule::Table(adj.enumerate_group(k)))
                } else if adj.is_bipartite() {
                    summary.alternating += 1;
                    Some(Rule::Even)
                } else {
                    summary.symmetric += 1;
                    None
                };
            if let Some(rule) = rule {
                largest_rule_block = largest_rule_block.max(k);
                rules.push((blk as u32, rule));
            }
        }
        ctx.progress(0.2);
        Ok(Self {
            n,
            root: root as u32,
            start: start.to_vec(),
            start_pos,
            parent: b.parent,
            in_component: b.in_component,
            owner: b.owner,
            local,
            point_start: b.point_start,
            points,
            rules,
            largest_rule_block,
            summary,
        })
    }

    /// As [`new`](Self::new), first checking `n` and the edge count against `limits`
    /// (`max_vertices`, `max_edges`) — for a server that streams targets and so never holds a
    /// whole [`PuzzleProblem`](super::PuzzleProblem) to give [`validate_puzzle`](super::validate_puzzle).
    ///
    /// # Returns
    /// As [`new`](Self::new), or [`SolveError::LimitExceeded`].
    ///
    /// # Complexity
    /// As [`new`](Self::new).
    ///
    /// # Example
    /// ```
    /// use orbit_worker::puzzle::PuzzleSolver;
    /// use orbit_worker::{Limits, SolveContext, SolveError};
    ///
    /// let limits = Limits { max_vertices: 2, ..Limits::default() };
    /// let err = PuzzleSolver::with_limits(3, &[], &[0, 1, 2], &limits, &SolveContext::detached()).unwrap_err();
    /// assert!(matches!(err, SolveError::LimitExceeded { .. }));
    /// ```
    pub fn with_limits(
        n: u32,
        edges: &[(u32, u32)],
        start: &[u32],
        limits: &Limits,
        ctx: &SolveContext,
    ) -> Result<Self, SolveError> {
        validate_graph(n, edges, Some(limits))?;
        Self::new(n, edges, start, ctx)
    }

    /// Number of vertices.
    pub fn n(&self) -> u32 {
        self.n as u32
    }

    /// The block structure found (for logs and benchmarks).
    pub fn summary(&self) -> &PuzzleSummary {
        &self.summary
    }

    /// Whether `target` can be reached from the start arrangement.
    ///
    /// # Arguments
    /// * `target` — `target[v]` is the token on vertex `v`; must be a permutation of `0..n-1`.
    ///
    /// # Returns
    /// `Ok(true)` iff reachable; [`SolveError::InvalidArgument`] naming `target[v]` if `target`
    /// is not a permutation of `0..n-1`.
    ///
    /// # Complexity
    /// `O(n)` time and scratch memory.
    pub fn is_reachable(&self, target: &[u32]) -> Result<bool, SolveError> {
        self.decide(target, &|i| format!("target[{i}]"), &|| {
            "target".to_string()
        })
    }

    /// As [`is_reachable`](Self::is_reachable), with errors naming `puzzle.targets[index][v]`.
    pub fn is_reachable_indexed(&self, index: usize, target: &[u32]) -> Result<bool, SolveError> {
        self.decide(
            target,
            &|i| format!("puzzle.targets[{index}][{i}]"),
            &|| format!("puzzle.targets[{index}]"),
        )
    }

    fn decide(
        &self,
        target: &[u32],
        field: &dyn Fn(usize) -> String,
        whole: &dyn Fn() -> String,
    ) -> Result<bool, SolveError> {
        let n = self.n;
        let mut buf = vec![NONE; n];
        check_arrangement(target, n, &mut buf, field, whole)?;
        // `buf` now maps token -> vertex; the blank's vertex in the target:
        let blank = buf[0] as usize;
        if !self.in_component[blank] {
            return Ok(false);
        }
        // Normalise: walk the blank back to the root along the spanning tree.
        buf.copy_from_slice(target);
        let mut x = blank;
        while x != self.root as usize {
            let p = self.parent[x] as usize;
            buf.swap(x, p);
            x = p;
        }
        // Every token must stay in its block's non-entry set; outside the component, in place.
        for (v, &tok) in buf.iter().enumerate() {
            let o = self.owner[v];
            if o == NONE {
                if !self.in_component[v] && tok != self.start[v] {
                    return Ok(false);
                }
            } else if self.owner[self.start_pos[tok as usize] as usize] != o {
                return Ok(false);
            }
        }
        // The induced permutation of each constrained block: image[i] = start index of the token
        // now on point i.
        let mut image = vec![0u32; self.largest_rule_block];
        let mut seen = vec![false; self.largest_rule_block];
        for (blk, rule) in &self.rules {
            let blk = *blk as usize;
            let pts =
                &self.points[self.point_start[blk] as usize..self.point_start[blk + 1] as usize];
            let k = pts.len();
            for (i, &v) in pts.iter().enumerate() {
                image[i] = self.local[self.start_pos[buf[v as usize] as usize] as usize];
            }
            let ok = match rule {
                Rule::Rotations => {
                    let shift = image[0] as usize;
                    (0..k).all(|i| image[i] as usize == (i + shift) % k)
                }
                Rule::Even => is_even(&image[..k], &mut seen[..k]),
                Rule::Table(table) => {
                    let rank = lehmer_rank(&image[..k]);
                    table[rank / 64] >> (rank % 64) & 1 == 1
                }
            };
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Whether the permutation `p` of `0..p.len()` is even. `seen` is scratch of the same length.
fn is_even(p: &[u32], seen: &mut [bool]) -> bool {
    seen.fill(false);
    let mut cycles = 0usize;
    for i in 0..p.len() {
        if !seen[i] {
            cycles += 1;
            let mut j = i;
            while !seen[j] {
                seen[j] = true;
                j = p[j] as usize;
            }
        }
    }
    (p.len() - cycles).is_multiple_of(2)
}

/// The rank of the permutation `p` of `0..p.len()` in lexicographic order (its Lehmer code read
/// in the factorial number system): `0..p.len()!`.
fn lehmer_rank(p: &[u32]) -> usize {
    let mut rank = 0;
    for (i, &x) in p.iter().enumerate() {
        let smaller_later = p[i + 1..].iter().filter(|&&y| y < x).count();
        rank = rank * (p.len() - i) + smaller_later;
    }
    rank
}

/// Packs a permutation of at most 10 points, 3 bits per point (only used for up to 6 points).
fn pack(p: &[u32]) -> u32 {
    p.iter()
        .enumerate()
        .fold(0, |acc, (i, &x)| acc | (x << (3 * i)))
}

/// A block as a small graph on local indices `0..len` (the entry is the last).
struct LocalGraph {
    start: Vec<u32>,
    adj: Vec<u32>,
}

impl LocalGraph {
    fn new(len: usize, edges: impl Iterator<Item = (usize, usize)> + Clone) -> Self {
        let mut start = vec![0u32; len + 1];
        for (a, b) in edges.clone() {
            start[a + 1] += 1;
            start[b + 1] += 1;
        }
        for i in 0..len {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; start[len] as usize];
        for (a, b) in edges {
            adj[fill[a] as usize] = b as u32;
            fill[a] += 1;
            adj[fill[b] as usize] = a as u32;
            fill[b] += 1;
        }
        Self { start, adj }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn neighbours(&self, x: usize) -> &[u32] {
        &self.adj[self.start[x] as usize..self.start[x + 1] as usize]
    }

    /// For a cycle (every degree 2): the vertices other than `from`, in order round the cycle.
    fn cycle_order(&self, from: usize) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.len() - 1);
        let mut prev = from;
        let mut cur = self.neighbours(from)[0] as usize;
        while cur != from {
            order.push(cur);
            let nb = self.neighbours(cur);
            let next = if nb[0] as usize != prev { nb[0] } else { nb[1] } as usize;
            prev = cur;
            cur = next;
        }
        order
    }

    /// Two-colourability (the block is connected).
    fn is_bipartite(&self) -> bool {
        let mut colour = vec![u8::MAX; self.len()];
        let mut queue = vec![0usize];
        colour[0] = 0;
        while let Some(x) = queue.pop() {
            for &y in self.neighbours(x) {
                let y = y as usize;
                if colour[y] == u8::MAX {
                    colour[y] = colour[x] ^ 1;
                    queue.push(y);
                } else if colour[y] == colour[x] {
                    return false;
                }
            }
        }
        true
    }

    /// The group of the puzzle on this (2-connected, at most 7-vertex) graph with the blank kept on
    /// vertex `blank = len - 1`, as a bitmap over the Lehmer ranks of the permutations of
    /// `0..blank` (see [`Rule::Table`]).
    ///
    /// Generators: one closed walk per non-tree edge of a BFS tree from the blank (out along the
    /// tree, across the edge, back along the tree); then closure under composition.
    fn enumerate_group(&self, blank: usize) -> Box<[u64]> {
        let len = self.len();
        let mut parent = vec![usize::MAX; len];
        let mut order = vec![blank];
        parent[blank] = blank;
        let mut head = 0;
        while head < order.len() {
            let x = order[head];
            head += 1;
            for &y in self.neighbours(x) {
                let y = y as usize;
                if parent[y] == usize::MAX {
                    parent[y] = x;
                    order.push(y);
                }
            }
        }
        let path_to = |x: usize| {
            let mut p = vec![x];
            let mut c = x;
            while c != blank {
                c = parent[c];
                p.push(c);
            }
            p // x ... blank
        };
        let mut gens: Vec<Vec<u32>> = Vec::new();
        for a in 0..len {
            for &b in self.neighbours(a) {
                let b = b as usize;
                if a < b && parent[a] != b && parent[b] != a {
                    let mut arr: Vec<u32> = (0..len as u32).collect();
                    let out = path_to(a);
                    for w in out.windows(2).rev() {
                        arr.swap(w[1], w[0]); // blank from w[1] to w[0]
                    }
                    arr.swap(a, b);
                    for w in path_to(b).windows(2) {
                        arr.swap(w[0], w[1]); // blank from w[0] to w[1]
                    }
                    gens.push(arr[..blank].to_vec());
                }
            }
        }
        let identity: Vec<u32> = (0..blank as u32).collect();
        let ranks: usize = (1..=blank).product();
        let mut table = vec![0u64; ranks.div_ceil(64)];
        table[0] |= 1; // the identity has rank 0
        let mut known = std::collections::HashSet::from([pack(&identity)]);
        let mut frontier = vec![identity];
        let mut next = vec![0u32; blank];
        while let Some(x) = frontier.pop() {
            for g in &gens {
                for i in 0..blank {
                    next[i] = x[g[i] as usize];
                }
                if known.insert(pack(&next)) {
                    let rank = lehmer_rank(&next);
                    table[rank / 64] |= 1 << (rank % 64);
                    frontier.push(next.clone());
                }
            }
        }
        table.into_boxed_slice()
    }
}
