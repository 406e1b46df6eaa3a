//! How one 2-connected block (not a cycle) is rearranged: a small *core* around the entry, solved
//! by exhaustive search, and an open ear decomposition of the rest of the block starting from the
//! core. The plan depends only on the block, not on the target, so it is made once per block.
//!
//! # Arguments
//! The block as a local graph (`adj[v]` the neighbours of local vertex `v`, the entry last) and
//! whether it is bipartite.
//!
//! # Returns
//! A [`BlockPlan`]: the core `R` (at most [`MAX_TABLE_VERTICES`] vertices, near the entry —
//! the blank's walk ends on the core vertex nearest the entry and then walks to it), its [`ArrangementTable`], and ears `E_1, …, E_k` (paths `a – x_1 … x_m – b` with
//! `a ≠ b` in `R ∪ E_1 ∪ … ∪ E_{i-1}` and new interior vertices), covering the block. Each prefix
//! `R ∪ E_1 ∪ … ∪ E_i` is 2-connected (Whitney: adding an ear to a 2-connected graph keeps it
//! 2-connected), which is what lets [`ear_fill`](super::ear_fill) move any token of it to any
//! vertex of it.
//!
//! When the block has more than 8 vertices the core must carry the block's whole group on its
//! tokens, so it is chosen 2-connected, not a cycle, with its group the full symmetric group (or
//! alternating, for a bipartite core): by Wilson's theorem this rules out exactly cycles and θ0,
//! and the table's group order checks it. A non-bipartite block prefers a non-bipartite core (so
//! parity never blocks); otherwise [`odd_walk`](BlockPlan::odd_walk) is a closed walk of odd
//! length from the entry that fixes the parity before the ears are filled.
//!
//! # Complexity
//! Core: for up to 66 centres (the entry, an odd cycle, the vertices nearest the entry), the
//! induced subgraphs on subsets of the 8 vertices nearest the centre (`2^8` subsets), a table
//! (`≤ 8!` states) per candidate until one has the full group. Ears: one breadth-first search per ear in
//! the vertices not yet covered, `O(k · (n_B + m_B))` in the worst case, far less when ears are
//! found next to the covered part (grids: `O(1)` each).
//!
//! # References
//! * H. Whitney, "Non-separable and planar graphs", Trans. AMS 34 (1932) — ear decompositions.
//! * R. M. Wilson, "Graph puzzles, homotopy, and the alternating group", J. Combin. Theory
//!   Ser. B 16 (1974).

use super::arrangement_table::{ArrangementTable, MAX_TABLE_VERTICES};

/// One ear: the path `a – interior[0] – … – interior[m-1] – b` (local indices).
#[derive(Debug, Clone)]
pub(crate) struct Ear {
    pub a: u32,
    pub b: u32,
    pub interior: Vec<u32>,
}

/// The target-independent plan for a block.
#[derive(Debug, Clone)]
pub(crate) struct BlockPlan {
    /// Level of each local vertex: 0 in the core, `i` in ear `i` (1-based).
    pub level: Vec<u32>,
    /// Ears in decomposition order (ear `i` is `ears[i - 1]`).
    pub ears: Vec<Ear>,
    /// The same ears read from the other end (`a` and `b` exchanged, the interior reversed): an
    /// ear may be filled from either.
    pub ears_reversed: Vec<Ear>,
    /// Core vertices (local indices); the entry is among them.
    pub core: Vec<u32>,
    /// Index of each local vertex in `core` (`u32::MAX` outside it).
    pub core_index: Vec<u32>,
    /// Search table of the core (vertex `i` of the table is `core[i]`), with the blank's goal on
    /// the entry.
    pub table: ArrangementTable,
    /// A closed walk from the entry of odd length (local vertices stepped to), when the block is
    /// not bipartite but the core is.
    pub odd_walk: Option<Vec<u32>>,
    /// A shortest path from the core's goal vertex to the entry (the vertices stepped to; empty
    /// when the goal is the entry). The block is solved towards its target with the blank moved
    /// back along this path, and the path walked last.
    pub exit: Vec<u32>,
}

/// Why a block has no plan: every non-cycle 2-connected part through its entry with a full group
/// has more than [`MAX_TABLE_VERTICES`] vertices (e.g. a long θ-graph).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no 2-connected part of at most {MAX_TABLE_VERTICES} vertices through the entry, other than a cycle or θ0, in a block of {block_vertices} vertices"
)]
pub(crate) struct NoCore {
    pub block_vertices: usize,
}

/// Makes the plan for a block given as local adjacency lists (entry = last vertex).
pub(crate) fn plan_block(adj: &[Vec<u32>], bipartite: bool) -> Result<BlockPlan, NoCore> {
    let len = adj.len();
    let entry = len - 1;
    let (core, table) = if len <= MAX_TABLE_VERTICES {
        // The whole block: its own group is whatever the decider allowed.
        let core: Vec<u32> = (0..len as u32).collect();
        let table = ArrangementTable::build(&small_adj(adj, &core), entry);
        (core, table)
    } else {
        find_core(adj, bipartite).ok_or(NoCore {
            block_vertices: len,
        })?
    };
    let mut core_index = vec![u32::MAX; len];
    for (i, &v) in core.iter().enumerate() {
        core_index[v as usize] = i as u32;
    }
    let core_bipartite = is_bipartite(adj, &core);
    let odd_walk = if !bipartite && core_bipartite {
        Some(odd_closed_walk(adj, entry as u32))
    } else {
        None
    };
    let goal = core[table.goal_blank()];
    let exit = shortest_path(adj, goal, entry as u32);
    let (level, ears) = ear_decomposition(adj, &core);
    if level.contains(&u32::MAX) {
        // Only a block that is not 2-connected leaves vertices uncovered.
        return Err(NoCore {
            block_vertices: len,
        });
    }
    let ears_reversed = ears
        .iter()
        .map(|e| Ear {
            a: e.b,
            b: e.a,
            interior: e.interior.iter().rev().copied().collect(),
        })
        .collect();
    Ok(BlockPlan {
        level,
        ears,
        ears_reversed,
        core,
        core_index,
        table,
        odd_walk,
        exit,
    })
}

/// A shortest path from `from` to `to`: the vertices after `from`, `to` last.
fn shortest_path(adj: &[Vec<u32>], from: u32, to: u32) -> Vec<u32> {
    let dist = distances(adj, to);
    let mut path = Vec::new();
    let mut c = from;
    while c != to {
        let Some(&next) = adj[c as usize]
            .iter()
            .find(|&&y| dist[y as usize] + 1 == dist[c as usize])
        else {
            break;
        };
        path.push(next);
        c = next;
    }
    path
}

/// Adjacency of the subgraph induced by `verts`, in `verts`' order, as `u8` indices.
fn small_adj(adj: &[Vec<u32>], verts: &[u32]) -> Vec<Vec<u8>> {
    verts
        .iter()
        .map(|&v| {
            adj[v as usize]
                .iter()
                .filter_map(|w| verts.iter().position(|x| x == w).map(|i| i as u8))
                .collect()
        })
        .collect()
}

/// How many centres the core search tries: the entry, an end of an odd cycle's edge, then the
/// vertices nearest the entry.
const CORE_CENTRES: usize = 64;

/// The core: a subset of the 8 vertices nearest some centre whose induced subgraph is
/// 2-connected, not a cycle, and has the full group (non-bipartite ones first when the block is
/// not bipartite, then larger ones). Returns the set and its table with the blank's goal on the
/// set's vertex nearest the entry.
fn find_core(adj: &[Vec<u32>], bipartite: bool) -> Option<(Vec<u32>, ArrangementTable)> {
    let entry = (adj.len() - 1) as u32;
    let dist = distances(adj, entry);
    let mut centres = vec![entry];
    if !bipartite {
        // An end of an edge joining two vertices at equal distance closes an odd cycle.
        if let Some(x) =
            (0..adj.len()).find(|&x| adj[x].iter().any(|&y| dist[y as usize] == dist[x]))
        {
            centres.push(x as u32);
        }
    }
    let mut order: Vec<u32> = (0..adj.len() as u32).collect();
    order.sort_by_key(|&v| dist[v as usize]);
    centres.extend(order.into_iter().skip(1).take(CORE_CENTRES));
    let mut fallback: Option<(Vec<u32>, ArrangementTable)> = None;
    for centre in centres {
        // Once a bipartite fallback is known only a non-bipartite core is worth a table.
        let non_bipartite_only = !bipartite && fallback.is_some();
        if let Some((set, table)) = core_near(adj, centre, bipartite, non_bipartite_only, &dist) {
            if bipartite || !is_bipartite(adj, &set) {
                return Some((set, table));
            }
            if fallback.is_none() {
                fallback = Some((set, table));
            }
        }
    }
    fallback
}

/// Breadth-first distances from `from`.
fn distances(adj: &[Vec<u32>], from: u32) -> Vec<u32> {
    let mut dist = vec![u32::MAX; adj.len()];
    dist[from as usize] = 0;
    let mut queue = vec![from];
    let mut head = 0;
    while head < queue.len() {
        let x = queue[head] as usize;
        head += 1;
        for &y in &adj[x] {
            if dist[y as usize] == u32::MAX {
                dist[y as usize] = dist[x] + 1;
                queue.push(y);
            }
        }
    }
    dist
}

/// The best core among the subsets of the 8 vertices nearest `centre` (see [`find_core`]); with
/// `non_bipartite_only`, only a non-bipartite one.
///
/// By Wilson's theorem a 2-connected graph other than a cycle or θ0 has the full group
/// (alternating when bipartite), so θ0 is skipped without a search and the first other candidate
/// normally gets the only table built; its group order is still checked.
fn core_near(
    adj: &[Vec<u32>],
    centre: u32,
    bipartite: bool,
    non_bipartite_only: bool,
    dist: &[u32],
) -> Option<(Vec<u32>, ArrangementTable)> {
    let mut near = vec![centre];
    let mut head = 0;
    while head < near.len() && near.len() < MAX_TABLE_VERTICES {
        let x = near[head] as usize;
        head += 1;
        for &y in &adj[x] {
            if near.len() < MAX_TABLE_VERTICES && !near.contains(&y) {
                near.push(y);
            }
        }
    }
    let mut candidates: Vec<Vec<u32>> = Vec::new();
    for mask in 0u32..1 << near.len() {
        if mask.count_ones() < 4 {
            continue;
        }
        let set: Vec<u32> = (0..near.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| near[i])
            .collect();
        let sub = small_adj(adj, &set);
        if two_connected(&sub) && !is_cycle(&sub) && !is_theta0(&sub) {
            candidates.push(set);
        }
    }
    candidates.sort_by_key(|set| (!bipartite && is_bipartite(adj, set), usize::MAX - set.len()));
    for set in candidates {
        if non_bipartite_only && is_bipartite(adj, &set) {
            return None;
        }
        // The blank's goal: the core vertex nearest the entry.
        let goal = (0..set.len())
            .min_by_key(|&i| dist[set[i] as usize])
            .unwrap_or(0);
        let table = ArrangementTable::build(&small_adj(adj, &set), goal);
        let tokens = set.len() as u64 - 1;
        let full: u64 = (1..=tokens).product();
        let want = if is_bipartite(adj, &set) {
            full / 2
        } else {
            full
        };
        if table.group_order == want {
            return Some((set, table));
        }
    }
    None
}

/// Whether the small graph is 2-connected: connected with at least 3 vertices and no cut vertex.
fn two_connected(sub: &[Vec<u8>]) -> bool {
    let r = sub.len();
    if r < 3 {
        return false;
    }
    (0..=r).all(|removed| connected_without(sub, removed))
}

/// Whether the small graph minus vertex `removed` (`removed >= len` removes nothing) is connected.
fn connected_without(sub: &[Vec<u8>], removed: usize) -> bool {
    let r = sub.len();
    let startv = if removed == 0 { 1 } else { 0 };
    let mut seen = vec![false; r];
    seen[startv] = true;
    let mut stack = vec![startv];
    while let Some(x) = stack.pop() {
        for &y in &sub[x] {
            let y = y as usize;
            if y != removed && !seen[y] {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    (0..r).all(|v| v == removed || seen[v])
}

/// Whether the small 2-connected graph is θ0: two vertices joined by three paths of 1, 2 and 2
/// inner vertices (7 vertices, 8 edges), the one 2-connected graph besides the cycles whose
/// puzzle group is not the full one (Wilson 1974).
fn is_theta0(sub: &[Vec<u8>]) -> bool {
    if sub.len() != 7 || sub.iter().map(Vec::len).sum::<usize>() != 16 {
        return false;
    }
    let poles: Vec<usize> = (0..7).filter(|&v| sub[v].len() == 3).collect();
    if poles.len() != 2 || sub.iter().any(|nb| nb.len() != 2 && nb.len() != 3) {
        return false;
    }
    // Inner vertices of each path leaving the first pole, walked until the other pole.
    let mut inner: Vec<usize> = sub[poles[0]]
        .iter()
        .map(|&first| {
            let (mut prev, mut cur, mut count) = (poles[0], first as usize, 0);
            while sub[cur].len() == 2 && count <= 7 {
                count += 1;
                let nb = &sub[cur];
                let next = if nb[0] as usize != prev { nb[0] } else { nb[1] } as usize;
                prev = cur;
                cur = next;
            }
            count
        })
        .collect();
    inner.sort_unstable();
    inner == [1, 2, 2]
}

fn is_cycle(sub: &[Vec<u8>]) -> bool {
    sub.iter().all(|nb| nb.len() == 2)
}

/// Two-colourability of the subgraph induced by `verts` (connected).
fn is_bipartite(adj: &[Vec<u32>], verts: &[u32]) -> bool {
    let sub = small_or_large(adj, verts);
    let mut colour = vec![u8::MAX; sub.len()];
    colour[0] = 0;
    let mut stack = vec![0usize];
    while let Some(x) = stack.pop() {
        for &y in &sub[x] {
            let y = y as usize;
            if colour[y] == u8::MAX {
                colour[y] = colour[x] ^ 1;
                stack.push(y);
            } else if colour[y] == colour[x] {
                return false;
            }
        }
    }
    true
}

/// Induced adjacency on `verts` with `u32` indices (any size).
fn small_or_large(adj: &[Vec<u32>], verts: &[u32]) -> Vec<Vec<u32>> {
    let mut index = std::collections::HashMap::with_capacity(verts.len());
    for (i, &v) in verts.iter().enumerate() {
        index.insert(v, i as u32);
    }
    verts
        .iter()
        .map(|&v| {
            adj[v as usize]
                .iter()
                .filter_map(|w| index.get(w).copied())
                .collect()
        })
        .collect()
}

/// A closed walk of odd length from `from` in a connected non-bipartite graph: along a breadth-
/// first tree to one end of an edge joining two vertices of equal depth, across it, and back.
fn odd_closed_walk(adj: &[Vec<u32>], from: u32) -> Vec<u32> {
    let len = adj.len();
    let mut depth = vec![u32::MAX; len];
    let mut parent = vec![u32::MAX; len];
    depth[from as usize] = 0;
    let mut order = vec![from];
    let mut head = 0;
    while head < order.len() {
        let x = order[head] as usize;
        head += 1;
        for &y in &adj[x] {
            if depth[y as usize] == u32::MAX {
                depth[y as usize] = depth[x] + 1;
                parent[y as usize] = x as u32;
                order.push(y);
            }
        }
    }
    let path_up = |mut v: u32| {
        let mut p = Vec::new();
        while v != from {
            p.push(v);
            v = parent[v as usize];
        }
        p.reverse();
        p // from's child ... v
    };
    for x in 0..len {
        for &y in &adj[x] {
            if depth[x] == depth[y as usize] {
                let mut walk = path_up(x as u32);
                walk.push(y);
                let mut back = path_up(y);
                back.pop();
                back.reverse();
                walk.extend(back);
                walk.push(from);
                return walk;
            }
        }
    }
    Vec::new() // bipartite: no odd walk (not called then)
}

/// An open ear decomposition of the whole graph starting from the 2-connected `core`: returns
/// each vertex's level and the ears. Ears are found breadth first from the covered part, so they
/// are short where the graph allows.
fn ear_decomposition(adj: &[Vec<u32>], core: &[u32]) -> (Vec<u32>, Vec<Ear>) {
    let len = adj.len();
    let mut level = vec![u32::MAX; len];
    let mut ears: Vec<Ear> = Vec::new();
    // Covered neighbours of each uncovered vertex; a vertex with two is an ear by itself, the
    // shortest there is, and those are taken first (long ears need more tokens around them, see
    // `ear_fill`).
    let mut covered_nb = vec![0u32; len];
    let mut single: Vec<u32> = Vec::new();
    let cover = |v: u32,
                 id: u32,
                 level: &mut Vec<u32>,
                 covered_nb: &mut Vec<u32>,
                 single: &mut Vec<u32>| {
        level[v as usize] = id;
        for &u in &adj[v as usize] {
            covered_nb[u as usize] += 1;
            if covered_nb[u as usize] == 2 {
                single.push(u);
            }
        }
    };
    for &v in core {
        cover(v, 0, &mut level, &mut covered_nb, &mut single);
    }
    // Covered vertices in the order covered: scanned for uncovered neighbours.
    let mut covered: Vec<u32> = core.to_vec();
    let mut scan = 0;
    let mut stamp = vec![0u32; len];
    let mut from = vec![u32::MAX; len];
    let mut round = 0u32;
    let mut queue: Vec<u32> = Vec::new();
    loop {
        while let Some(u) = single.pop() {
            if level[u as usize] != u32::MAX {
                continue;
            }
            let mut ends = adj[u as usize]
                .iter()
                .copied()
                .filter(|&x| level[x as usize] != u32::MAX);
            let (Some(a), Some(b)) = (ends.next(), ends.next()) else {
                continue;
            };
            let id = ears.len() as u32 + 1;
            cover(u, id, &mut level, &mut covered_nb, &mut single);
            covered.push(u);
            ears.push(Ear {
                a,
                b,
                interior: vec![u],
            });
        }
        if scan >= covered.len() {
            break;
        }
        let h = covered[scan];
        let next_uncovered = adj[h as usize]
            .iter()
            .copied()
            .find(|&x| level[x as usize] == u32::MAX);
        let Some(x) = next_uncovered else {
            scan += 1;
            continue;
        };
        // Breadth first from x among uncovered vertices, to one with a covered neighbour != h.
        round += 1;
        queue.clear();
        queue.push(x);
        stamp[x as usize] = round;
        let mut head = 0;
        let mut found = None;
        'search: while head < queue.len() {
            let z = queue[head];
            head += 1;
            for &w in &adj[z as usize] {
                if level[w as usize] != u32::MAX {
                    if w != h {
                        found = Some((z, w));
                        break 'search;
                    }
                } else if stamp[w as usize] != round {
                    stamp[w as usize] = round;
                    from[w as usize] = z;
                    queue.push(w);
                }
            }
        }
        // A 2-connected graph minus h is connected, so the search always ends at the covered
        // part; if it did not (not 2-connected), stop with the vertices left uncovered, which the
        // caller reports.
        let Some((z, b)) = found else {
            break;
        };
        let mut interior = vec![z];
        let mut c = z;
        while c != x {
            c = from[c as usize];
            interior.push(c);
        }
        interior.reverse(); // x ... z
        let id = ears.len() as u32 + 1;
        for &v in &interior {
            cover(v, id, &mut level, &mut covered_nb, &mut single);
            covered.push(v);
        }
        ears.push(Ear { a: h, b, interior });
    }
    (level, ears)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adjacency(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); n];
        for &(u, v) in edges {
            adj[u as usize].push(v);
            adj[v as usize].push(u);
        }
        adj
    }

    /// Wilson's theorem as the core search uses it (full group unless a cycle or θ0), checked
    /// against the exhaustive search of every arrangement on random 2-connected graphs of 4 to
    /// 8 vertices and on θ0 itself.
    #[test]
    fn theta0_is_the_only_small_exception_the_search_confirms() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(16);
        // θ0: poles 0 and 1, paths 0-2-1, 0-3-4-1, 0-5-6-1.
        let theta0 = vec![
            (0, 2),
            (2, 1),
            (0, 3),
            (3, 4),
            (4, 1),
            (0, 5),
            (5, 6),
            (6, 1),
        ];
        let mut cases = vec![(7usize, theta0)];
        for _ in 0..300 {
            let r = rng.random_range(4..=8usize);
            let mut edges: Vec<(u32, u32)> =
                (0..r as u32).map(|v| (v, (v + 1) % r as u32)).collect();
            for _ in 0..rng.random_range(0..=4) {
                let (u, v) = (rng.random_range(0..r as u32), rng.random_range(0..r as u32));
                if u != v && !edges.iter().any(|&e| e == (u, v) || e == (v, u)) {
                    edges.push((u, v));
                }
            }
            cases.push((r, edges));
        }
        let mut thetas = 0;
        for (r, edges) in cases {
            let adj = adjacency(r, &edges);
            let all: Vec<u32> = (0..r as u32).collect();
            let sub = small_adj(&adj, &all);
            assert!(two_connected(&sub));
            let table = ArrangementTable::build(&sub, 0);
            let full: u64 = (1..r as u64).product();
            let full = if is_bipartite(&adj, &all) {
                full / 2
            } else {
                full
            };
            // A cycle's group is its rotations, the full group only for 3 or 4 vertices.
            let small_cycle_or_other = !is_cycle(&sub) || r <= 4;
            let predicted = small_cycle_or_other && !is_theta0(&sub);
            thetas += usize::from(is_theta0(&sub));
            assert_eq!(table.group_order == full, predicted, "{edges:?}");
        }
        assert!(thetas >= 1);
    }

    #[test]
    fn a_long_theta_graph_has_no_core() {
        // Three paths of 4 edges between vertices 0 and 12: every 2-connected proper part is a
        // cycle of 8 vertices, and the whole has 11 vertices.
        let mut edges = Vec::new();
        let mut next = 1;
        for _ in 0..3 {
            let mut prev = 0;
            for _ in 0..3 {
                edges.push((prev, next));
                prev = next;
                next += 1;
            }
            edges.push((prev, 10));
        }
        let adj = adjacency(11, &edges);
        assert!(plan_block(&adj, true).is_err());
    }

    #[test]
    fn a_grid_gets_a_core_and_ears_covering_it() {
        let mut edges = Vec::new();
        for y in 0..5u32 {
            for x in 0..5u32 {
                let v = y * 5 + x;
                if x + 1 < 5 {
                    edges.push((v, v + 1));
                }
                if y + 1 < 5 {
                    edges.push((v, v + 5));
                }
            }
        }
        let adj = adjacency(25, &edges);
        let plan = plan_block(&adj, true).expect("a plan");
        assert!(plan.core.contains(&24)); // the entry's own neighbourhood qualifies
        assert!(plan.level.iter().all(|&l| l != u32::MAX));
        let covered = plan.core.len() + plan.ears.iter().map(|e| e.interior.len()).sum::<usize>();
        assert_eq!(covered, 25);
        assert!(plan.odd_walk.is_none());
    }
}
