//! A lower bound on the length of any move sequence between two arrangements.
//!
//! Each move carries one non-blank token across one edge, so a token that must go from vertex `u`
//! to vertex `v` needs at least `dist(u, v)` moves of its own, and the moves of different tokens
//! are different moves. The sum over the non-blank tokens of their graph distance is therefore a
//! lower bound (the Manhattan-distance heuristic of the 15-puzzle, on any graph).
//!
//! # Arguments
//! `n`, `edges`, and two arrangements `from`, `to` (`from[v]` the token on vertex `v`).
//!
//! # Returns
//! The bound, or `None` if some token would have to leave its connected component.
//!
//! # Complexity
//! One breadth-first search per distinct start vertex: `O(n · (n + m))` time, `O(n + m)` memory;
//! meant for benchmarks and tests, not for the server.
//!
//! # Reference
//! R. E. Korf, "Depth-first iterative-deepening", Artificial Intelligence 27 (1985) — the
//! Manhattan-distance bound for the sliding-tile puzzles.

/// See the [module documentation](self).
///
/// ```
/// use orbit_worker::puzzle::moves_lower_bound;
/// // A path 0-1-2: token 2 must cross two edges, token 1 one.
/// assert_eq!(moves_lower_bound(3, &[(0, 1), (1, 2)], &[0, 1, 2], &[2, 0, 1]), Some(3));
/// ```
pub fn moves_lower_bound(n: u32, edges: &[(u32, u32)], from: &[u32], to: &[u32]) -> Option<u64> {
    let n = n as usize;
    let mut adj = vec![Vec::new(); n];
    for &(u, v) in edges {
        adj[u as usize].push(v as usize);
        adj[v as usize].push(u as usize);
    }
    let mut to_pos = vec![0usize; n];
    for (v, &t) in to.iter().enumerate() {
        to_pos[t as usize] = v;
    }
    let mut dist = vec![u32::MAX; n];
    let mut queue = Vec::with_capacity(n);
    let mut total = 0u64;
    for (u, &t) in from.iter().enumerate() {
        if t == 0 || to_pos[t as usize] == u {
            continue;
        }
        dist.fill(u32::MAX);
        dist[u] = 0;
        queue.clear();
        queue.push(u);
        let mut head = 0;
        while head < queue.len() {
            let x = queue[head];
            head += 1;
            for &y in &adj[x] {
                if dist[y] == u32::MAX {
                    dist[y] = dist[x] + 1;
                    queue.push(y);
                }
            }
        }
        let d = dist[to_pos[t as usize]];
        if d == u32::MAX {
            return None;
        }
        total += u64::from(d);
    }
    Some(total)
}
