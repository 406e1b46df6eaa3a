//! Biconnected blocks of the blank's component, rooted at the blank's start vertex.
//!
//! Iterative Hopcroft–Tarjan (no recursion, so a path of 10^5 vertices is fine) over the simple
//! graph (self-loops dropped, parallel edges merged). Every vertex of the component other than the
//! root is a *non-entry* vertex of exactly one block — the block through which the DFS reached it
//! first — and that block's *entry* is its vertex nearest the root.

use crate::{SolveContext, SolveError};

/// "No such vertex / block".
pub(crate) const NONE: u32 = u32::MAX;

/// How often (in loop iterations) long loops poll for cancellation.
pub(crate) const CHECK_EVERY: usize = 1 << 16;

/// The block structure of the root's component.
#[derive(Debug)]
pub(crate) struct Blocks {
    /// DFS parent of each vertex of the component; `NONE` for the root and outside vertices.
    pub parent: Vec<u32>,
    /// Whether a vertex lies in the root's component.
    pub in_component: Vec<bool>,
    /// For each vertex other than the root in the component: the block whose non-entry set holds
    /// it. `NONE` for the root and for vertices outside the component.
    pub owner: Vec<u32>,
    /// Block `b`'s non-entry vertices are `points[point_start[b]..point_start[b + 1]]`.
    pub point_start: Vec<u32>,
    /// Non-entry vertices, grouped by block.
    pub points: Vec<u32>,
    /// Entry vertex of each block.
    pub entry: Vec<u32>,
    /// Block `b`'s edges are `edges[edge_start[b]..edge_start[b + 1]]`.
    pub edge_start: Vec<u32>,
    /// Edges of the simple graph inside the component, grouped by block.
    pub edges: Vec<(u32, u32)>,
}

impl Blocks {
    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.entry.len()
    }

    /// Non-entry vertices of block `b`.
    pub fn points(&self, b: usize) -> &[u32] {
        &self.points[self.point_start[b] as usize..self.point_start[b + 1] as usize]
    }

    /// Edges of block `b`.
    pub fn edges(&self, b: usize) -> &[(u32, u32)] {
        &self.edges[self.edge_start[b] as usize..self.edge_start[b + 1] as usize]
    }
}

/// Computes the blocks of `root`'s component.
///
/// `O(m log m + n)` time (the sort merges parallel edges), `O(n + m)` memory.
pub(crate) fn decompose(
    n: usize,
    edges: &[(u32, u32)],
    root: usize,
    ctx: &SolveContext,
) -> Result<Blocks, SolveError> {
    // Simple graph: normalised keys, sorted, deduplicated, loops dropped.
    let mut keys: Vec<u64> = Vec::with_capacity(edges.len());
    for &(u, v) in edges {
        if u != v {
            let (a, b) = if u < v { (u, v) } else { (v, u) };
            keys.push((u64::from(a) << 32) | u64::from(b));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    ctx.check()?;

    // CSR adjacency.
    let mut adj_start = vec![0u32; n + 1];
    for &k in &keys {
        adj_start[(k >> 32) as usize + 1] += 1;
        adj_start[(k & 0xffff_ffff) as usize + 1] += 1;
    }
    for i in 0..n {
        adj_start[i + 1] += adj_start[i];
    }
    let mut fill = adj_start.clone();
    let mut adj = vec![0u32; 2 * keys.len()];
    for &k in &keys {
        let (a, b) = ((k >> 32) as u32, (k & 0xffff_ffff) as u32);
        adj[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
        adj[fill[b as usize] as usize] = a;
        fill[b as usize] += 1;
    }
    drop(fill);
    ctx.check()?;

    // Iterative Hopcroft–Tarjan from the root.
    let mut disc = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut parent = vec![NONE; n];
    let mut cursor: Vec<u32> = adj_start[..n].to_vec();
    let mut call: Vec<u32> = vec![root as u32];
    let mut vstack: Vec<u32> = Vec::new();
    let mut owner = vec![NONE; n];
    let mut point_start: Vec<u32> = vec![0];
    let mut points: Vec<u32> = Vec::new();
    let mut entry: Vec<u32> = Vec::new();
    disc[root] = 0;
    low[root] = 0;
    let mut time = 1u32;
    let mut steps = 0usize;
    while let Some(&u) = call.last() {
        steps += 1;
        if steps.is_multiple_of(CHECK_EVERY) {
            ctx.check()?;
        }
        let ui = u as usize;
        if cursor[ui] < adj_start[ui + 1] {
            let w = adj[cursor[ui] as usize];
            cursor[ui] += 1;
            let wi = w as usize;
            if disc[wi] == NONE {
                parent[wi] = u;
                disc[wi] = time;
                low[wi] = time;
                time += 1;
                call.push(w);
                vstack.push(w);
            } else if w != parent[ui] {
                low[ui] = low[ui].min(disc[wi]);
            }
        } else {
            call.pop();
            let p = parent[ui];
            if p != NONE {
                let pi = p as usize;
                low[pi] = low[pi].min(low[ui]);
                if low[ui] >= disc[pi] {
                    // `p` separates the subtree of `u`: a block with entry `p`.
                    let b = entry.len() as u32;
                    while let Some(x) = vstack.pop() {
                        owner[x as usize] = b;
                        points.push(x);
                        if x == u {
                            break;
                        }
                    }
                    point_start.push(points.len() as u32);
                    entry.push(p);
                }
            }
        }
    }
    drop(cursor);
    drop(low);
    drop(adj);
    drop(adj_start);
    let in_component: Vec<bool> = disc.iter().map(|&d| d != NONE).collect();

    // Each edge belongs to the block of its deeper end (the later-discovered one): that end is a
    // non-entry vertex of the edge's block. Counting sort by block.
    let blocks = entry.len();
    let mut edge_start = vec![0u32; blocks + 1];
    let block_of = |k: u64| -> u32 {
        let (a, b) = ((k >> 32) as usize, (k & 0xffff_ffff) as usize);
        if disc[a] == NONE {
            NONE
        } else if disc[a] > disc[b] {
            owner[a]
        } else {
            owner[b]
        }
    };
    for &k in &keys {
        let b = block_of(k);
        if b != NONE {
            edge_start[b as usize + 1] += 1;
        }
    }
    for i in 0..blocks {
        edge_start[i + 1] += edge_start[i];
    }
    let mut fill = edge_start.clone();
    let mut block_edges = vec![(0u32, 0u32); edge_start[blocks] as usize];
    for &k in &keys {
        let b = block_of(k);
        if b != NONE {
            block_edges[fill[b as usize] as usize] = ((k >> 32) as u32, (k & 0xffff_ffff) as u32);
            fill[b as usize] += 1;
        }
    }
    Ok(Blocks {
        parent,
        in_component,
        owner,
        point_start,
        points,
        entry,
        edge_start,
        edges: block_edges,
    })
}
