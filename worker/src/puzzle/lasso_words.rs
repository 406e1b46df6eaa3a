//! [`LassoWords`]: a 2-connected block rearranged by a word in its lassos, for every block and
//! every rearrangement its group allows.
//!
//! # Method
//! With the blank parked on the block's entry `e`, every closed walk of the blank from `e`
//! permutes the block's other tokens, and walks that are equal in the fundamental group
//! `π1(B, e)` permute them alike (a backtrack `u → v → u` swaps the same pair twice). Take a
//! breadth-first spanning tree `T` of the block from `e`; `π1(B, e)` is free on the *lassos*
//! `ℓ_f = T[e, u] · (u v) · T[v, e]`, one per non-tree edge `f = uv`. So the group of the block
//! (the arrangements of its non-entry tokens reachable with the blank back on `e`) is generated
//! by the lassos' permutations, and a word `g_{i1}^{x1} · … · g_{ik}^{xk}` for the wanted
//! permutation in those generators is a closed walk doing it: `ℓ_i` walked `x` times, backwards
//! (`T[e, v] · (v u) · T[u, e]`, the inverse permutation) for a negative `x`.
//!
//! The words come from the group engine ([`GroupWords`]: Minkwitz's tables for small blocks,
//! conjugates of one 3-cycle for symmetric or alternating groups of 24 or more points).
//! Fewer generators give shorter words and a cheaper set-up, so the lassos are taken shortest
//! first, two, then four, and so on (no group is built while some vertex lies on none of them),
//! until the group they generate is proven (by [`PermGroup`]) to be the symmetric group on all
//! non-entry vertices — or, for a bipartite block, whose closed walks all have even length and
//! so even permutations, the alternating group. Neither can be exceeded, so that group is the
//! block's group. When no prefix reaches it (a block whose group is smaller, such as Wilson's
//! θ0), all lassos are used, which is the block's group by the argument above. No step relies
//! on Wilson's theorem.
//!
//! For such a giant the wanted permutation is written as transpositions, cycle by cycle, and
//! walked in pieces of `PIECE_TRANSPOSITIONS` (512), one word each (every piece but the last
//! is even, so a member of either giant), with cancellation polled between pieces.
//!
//! # Complexity
//! Set-up: a breadth-first search `O(n_B + m_B)`, `O(n_B · depth)` per lasso permutation, and
//! [`PermGroup::new`] per prefix tried (at most `log2(m_B - n_B + 1) + 1` of them), then
//! [`GroupWords::new`] once. A rearrangement: [`GroupWords::word_of_at_most`] per piece and, per
//! letter, one lasso walk of at most `2·depth + 1` moves; about `n_B²` letters for a giant of
//! `n_B` points from two lassos, so `O(n_B³)` moves (BENCHMARKS.md, puzzle `lassos`).
//!
//! # Reference
//! R. M. Wilson, "Graph puzzles, homotopy, and the alternating group", J. Combin. Theory Ser. B
//! 16 (1974) (closed walks and the fundamental group); D. Kornhauser, G. Miller, P. Spirakis,
//! "Coordinating pebble motion on graphs, the diameter of permutation groups, and applications",
//! FOCS 1984; T. Minkwitz, "An algorithm for solving the factorization problem in permutation
//! groups", J. Symbolic Comput. 26 (1998) (words for group members).

use super::moves::{MovesFail, Walker};
use crate::group::{GroupWords, LetterBudget, Perm, PermGroup, Word, WordEffort};
use crate::memory::MemoryBudget;
use crate::{Limits, SolveContext, SolveError};

/// A block prepared for rearrangement by lasso words (local vertices: `0..k` the non-entry
/// vertices, `k` the entry).
#[derive(Debug)]
pub(crate) struct LassoWords {
    /// Breadth-first tree parent of each local vertex (the entry's is itself).
    parent: Vec<u32>,
    /// The non-tree edges `(u, v)` whose lassos are the generators, in generator order.
    lassos: Vec<(u32, u32)>,
    words: GroupWords,
    /// Whether the group is proven to be `Sym` or `Alt` on all non-entry vertices, so every
    /// (even) permutation is a member and a rearrangement can be walked in pieces.
    giant: bool,
    /// Bytes charged for the group and its words.
    bytes: u64,
}

/// The group engine's set-up/length trade-off for lasso words on `k` points: 20 up to about
/// 1,000 points (a set-up of milliseconds; on a θ-graph of 100 vertices effort 20 gave a third
/// fewer moves than the default 5, BENCHMARKS.md, puzzle `lassos`), then less, down to 0 from
/// about 5,000 points. The giants' search for a short 3-cycle draws about `8·k·(effort + 1)`
/// random elements of `O(k)` work each, so this keeps it near `2·10^8` point images (on a
/// 2,000-vertex cycle with a chord effort 5 sets up in well under a second, effort 20 took
/// seconds).
fn lasso_word_effort(k: usize) -> WordEffort {
    let k = k.max(1) as u64;
    WordEffort((25_000_000 / (k * k)).saturating_sub(1).min(20) as u32)
}

/// Transpositions per piece when a giant's rearrangement is walked in pieces (even, so every
/// piece but the last is an even permutation). Pieces of 64 made the walks a quarter longer on
/// 100-vertex blocks (BENCHMARKS.md, puzzle `lassos`); 512 keeps blocks of up to 513 vertices
/// in one piece, and a piece's word is still found in milliseconds.
const PIECE_TRANSPOSITIONS: usize = 512;

/// Bytes of one word letter held while a rearrangement is walked.
const LETTER_BYTES: u64 = 16;

impl LassoWords {
    /// Prepares the block with adjacency `adj` (local indices, the entry last).
    ///
    /// # Arguments
    /// * `adj` — the block's adjacency lists; `adj.len() - 1` is the entry.
    /// * `ctx` — cancellation, polled by the group engine.
    /// * `budget` — charged for the generators, the stabiliser chain and the words' tables
    ///   (kept charged while the mover lives).
    ///
    /// # Errors
    /// `LimitExceeded` naming `max_job_memory` when the budget does not allow the structure;
    /// [`SolveError::Cancelled`].
    pub(crate) fn new(
        adj: &[Vec<u32>],
        ctx: &SolveContext,
        budget: &mut MemoryBudget,
    ) -> Result<Self, SolveError> {
        let k = adj.len() - 1;
        let entry = k as u32;
        // Breadth-first tree from the entry.
        let mut parent = vec![u32::MAX; k + 1];
        let mut depth = vec![0u32; k + 1];
        parent[k] = entry;
        let mut queue = vec![entry];
        let mut head = 0;
        while head < queue.len() {
            let x = queue[head];
            head += 1;
            for &y in &adj[x as usize] {
                if parent[y as usize] == u32::MAX {
                    parent[y as usize] = x;
                    depth[y as usize] = depth[x as usize] + 1;
                    queue.push(y);
                }
            }
        }
        // Non-tree edges, each once, shortest lasso first.
        let mut lassos: Vec<(u32, u32)> = Vec::new();
        let mut bipartite = true;
        for (x, nb) in adj.iter().enumerate() {
            let x = x as u32;
            for &y in nb {
                if x < y && parent[y as usize] != x && parent[x as usize] != y {
                    lassos.push((x, y));
                    if depth[x as usize] == depth[y as usize] {
                        bipartite = false;
                    }
                }
            }
        }
        lassos.sort_unstable();
        lassos.dedup();
        lassos.sort_by_key(|&(u, v)| (depth[u as usize] + depth[v as usize], u, v));
        let total = lassos.len();
        let mut take = total.min(2);
        let mut steps = Vec::new();
        loop {
            ctx.check()?;
            // A lasso moves only the vertices it walks through: while some vertex is on none
            // of the chosen lassos, the group cannot be the full one, so take more first.
            if take < total {
                let mut covered = vec![false; k + 1];
                for &(u, v) in &lassos[..take] {
                    steps.clear();
                    lasso_walk(&parent, u, v, &mut steps);
                    for &x in &steps {
                        covered[x as usize] = true;
                    }
                }
                if covered[..k].iter().any(|&c| !c) {
                    take = (take * 2).min(total);
                    continue;
                }
            }
            let gens_bytes = (take as u64).saturating_mul(4 * k as u64 + 64);
            budget.charge(gens_bytes, || "a puzzle block's lasso permutations".into())?;
            let gens: Vec<Perm> = lassos[..take]
                .iter()
                .map(|&edge| lasso_perm(&parent, edge))
                .collect();
            let limits = Limits {
                max_group_chain_bytes: budget.remaining() / 2,
                max_degree: u64::MAX,
                max_permutation_entries: u64::MAX,
                ..Limits::default()
            };
            let group = PermGroup::new(k, gens, ctx, &limits);
            budget.release(gens_bytes);
            // The chain's cap here is a share of the job's budget: name the budget.
            let group = group.map_err(|e| match e {
                SolveError::LimitExceeded {
                    limit_name: "max_group_chain_bytes",
                    ..
                } => SolveError::limit_shown(
                    format!("memory for a puzzle block's lasso group ({e})"),
                    "max_job_memory",
                    budget.limit(),
                    format!(
                        "{} bytes (the job's budget, max_job_memory)",
                        budget.limit()
                    ),
                ),
                other => other,
            })?;
            let full = group.moved_points() == k
                && (group.is_natural_symmetric() || (bipartite && group.is_natural_alternating()));
            if !full && take < total {
                take = (take * 2).min(total);
                continue;
            }
            let held = group.chain_bytes().saturating_add(gens_bytes);
            budget.charge(held, || "a puzzle block's lasso group".into())?;
            let words = GroupWords::new(
                &group,
                lasso_word_effort(k),
                ctx,
                budget.remaining(),
                "max_job_memory",
            )
            .and_then(|words| {
                budget.charge(words.bytes(), || "a puzzle block's words".into())?;
                Ok(words)
            });
            let words = match words {
                Ok(words) => words,
                Err(e) => {
                    budget.release(held);
                    return Err(e);
                }
            };
            lassos.truncate(take);
            lassos.shrink_to_fit();
            let bytes = held.saturating_add(words.bytes());
            return Ok(LassoWords {
                parent,
                lassos,
                words,
                giant: full,
                bytes,
            });
        }
    }

    /// Bytes charged to the budget by [`new`](Self::new).
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// How many lassos generate the block's group (the word's letters index them).
    #[cfg(test)]
    pub(crate) fn generators(&self) -> usize {
        self.lassos.len()
    }

    /// The word taking each non-entry token `i` (local) to `sigma[i]`, or `Err(letters)` as soon
    /// as `budget` stops it (more letters than it allows, or the job cancelled); `Ok(None)` if
    /// no closed walk does it.
    pub(crate) fn word_of(
        &self,
        sigma: Vec<u32>,
        budget: LetterBudget<'_>,
    ) -> Result<Option<Word>, u64> {
        let Ok(p) = Perm::from_images(sigma, "sigma") else {
            return Ok(None);
        };
        self.words.word_within(&p, budget)
    }

    /// The local vertices the blank steps to along lasso `i` from the entry, forwards or
    /// backwards, appended to `out`.
    pub(crate) fn lasso_steps(&self, i: usize, forward: bool, out: &mut Vec<u32>) {
        let (u, v) = self.lassos[i];
        if forward {
            lasso_walk(&self.parent, u, v, out);
        } else {
            lasso_walk(&self.parent, v, u, out);
        }
    }
}

/// The closed walk `T[e, u] · (u v) · T[v, e]` as the vertices stepped to, appended to `out`
/// (`parent` the tree, the entry its own parent).
fn lasso_walk(parent: &[u32], u: u32, v: u32, out: &mut Vec<u32>) {
    let start = out.len();
    let mut x = u;
    while parent[x as usize] != x {
        out.push(x);
        x = parent[x as usize];
    }
    out[start..].reverse();
    out.push(v);
    let mut x = v;
    while parent[x as usize] != x {
        x = parent[x as usize];
        out.push(x);
    }
}

/// The permutation of the lasso of `(u, v)` on the non-entry vertices: the token on `i` ends
/// on `p(i)`.
fn lasso_perm(parent: &[u32], (u, v): (u32, u32)) -> Perm {
    let k = parent.len() - 1;
    let mut steps = Vec::new();
    lasso_walk(parent, u, v, &mut steps);
    // at[x]: the token on x, named by the vertex it started on.
    let mut at: Vec<u32> = (0..=k as u32).collect();
    let mut blank = k;
    for &x in &steps {
        at.swap(blank, x as usize);
        blank = x as usize;
    }
    let mut images = vec![0u32; k];
    for (x, &t) in at.iter().enumerate().take(k) {
        images[t as usize] = x as u32;
    }
    Perm::from_images_unchecked(images.into_boxed_slice())
}

/// Rearranges the block whose local vertex `x` is global `verts[x]` (the entry last, the blank on
/// it): afterwards each non-entry vertex `v` holds `want[v]` and the blank is back on the entry.
///
/// # Errors
/// [`MovesFail::Inconsistent`] if the block's tokens are not the wanted ones or no closed walk
/// rearranges them (the decider said one does); the cap (`max_puzzle_moves`, checked before the
/// word is built in full: each letter adds at least one move, its non-tree edge, which no free
/// reduction removes), the memory budget (the word's letters), cancellation.
pub(crate) fn rearrange(
    w: &mut Walker<'_>,
    verts: &[u32],
    lw: &LassoWords,
    want: &[u32],
) -> Result<(), MovesFail> {
    let k = verts.len() - 1;
    // sigma[i] = the local vertex the token now on i is wanted on.
    let mut wanted: Vec<(u32, u32)> = (0..k)
        .map(|j| (want[verts[j] as usize], j as u32))
        .collect();
    wanted.sort_unstable();
    let mut sigma = Vec::with_capacity(k);
    for &v in &verts[..k] {
        let t = w.token_at(v);
        let j = wanted
            .binary_search_by_key(&t, |&(tok, _)| tok)
            .map_err(|_| MovesFail::Inconsistent("a block's token is wanted elsewhere".into()))?;
        sigma.push(wanted[j].1);
    }
    drop(wanted);
    if sigma.iter().enumerate().all(|(i, &j)| i as u32 == j) {
        return Ok(());
    }
    if !lw.giant {
        return walk_word_of(w, verts, lw, sigma);
    }
    // A giant: sigma as a product of transpositions, cycle by cycle (`(a1 … aL)` is
    // `(a1 a2)(a1 a3)…(a1 aL)` multiplied left to right), walked in pieces of
    // PIECE_TRANSPOSITIONS: each piece's word is short and quick to find, cancellation is polled
    // between pieces, and only one piece's word is held at a time.
    let mut transpositions = Vec::new();
    let mut seen = vec![false; k];
    for a in 0..k {
        if seen[a] {
            continue;
        }
        seen[a] = true;
        let mut x = sigma[a] as usize;
        while x != a {
            seen[x] = true;
            transpositions.push((a as u32, x as u32));
            x = sigma[x] as usize;
        }
    }
    drop(seen);
    let mut images: Vec<u32> = (0..k as u32).collect();
    let mut inverse = images.clone();
    for piece in transpositions.chunks(PIECE_TRANSPOSITIONS) {
        w.ctx().check()?;
        for &(a, b) in piece {
            // Multiply on the right by (a b): the points mapped to a and b swap images.
            let (x, y) = (inverse[a as usize], inverse[b as usize]);
            images[x as usize] = b;
            images[y as usize] = a;
            inverse.swap(a as usize, b as usize);
        }
        walk_word_of(w, verts, lw, images.clone())?;
        // The piece moved only its own points: back to the identity.
        for &(a, b) in piece {
            for p in [a, b] {
                images[p as usize] = p;
                inverse[p as usize] = p;
            }
        }
        debug_assert!(images.iter().enumerate().all(|(i, &j)| i as u32 == j));
    }
    Ok(())
}

/// Finds the word of `sigma` (within what the cap and the budget leave) and walks it.
fn walk_word_of(
    w: &mut Walker<'_>,
    verts: &[u32],
    lw: &LassoWords,
    sigma: Vec<u32>,
) -> Result<(), MovesFail> {
    let room = w.moves_left();
    let by_memory = w.budget().remaining() / LETTER_BYTES;
    let word = match lw.word_of(sigma, LetterBudget::new(room.min(by_memory), w.ctx())) {
        Ok(Some(word)) => word,
        Ok(None) => {
            return Err(MovesFail::Inconsistent(
                "the block's rearrangement is not in its lassos' group".into(),
            ));
        }
        // Stopped: a cancelled job first, then over the cap or the memory.
        Err(_) if w.ctx().is_cancelled() => return Err(SolveError::Cancelled.into()),
        Err(letters) if letters > room => {
            return Err(w.over_cap(w.reported().saturating_add(letters)).into());
        }
        Err(letters) => {
            w.budget()
                .charge(letters.saturating_mul(LETTER_BYTES), || {
                    "a puzzle block's word".into()
                })?;
            return Err(MovesFail::Inconsistent("the budget refused no word".into()));
        }
    };
    let bytes = (word.letters().len() as u64).saturating_mul(LETTER_BYTES);
    w.budget()
        .charge(bytes, || "a puzzle block's word".into())?;
    let mut steps = Vec::new();
    let result = (|| {
        for letter in word.letters() {
            for _ in 0..letter.exponent.unsigned_abs() {
                steps.clear();
                lw.lasso_steps(letter.generator as usize, letter.exponent > 0, &mut steps);
                for &x in &steps {
                    w.step(verts[x as usize])?;
                }
            }
        }
        Ok(())
    })();
    w.budget().release(bytes);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle_with_chord(k: u32, a: u32, b: u32) -> Vec<Vec<u32>> {
        // Vertices 0..=k round a cycle, k the entry, plus the chord a-b.
        let n = k as usize + 1;
        let mut adj = vec![Vec::new(); n];
        for x in 0..n {
            let y = (x + 1) % n;
            adj[x].push(y as u32);
            adj[y].push(x as u32);
        }
        adj[a as usize].push(b);
        adj[b as usize].push(a);
        adj
    }

    /// Walks `word` from the entry on `adj` and returns where each token (named by its start
    /// vertex) ends, checking every step follows an edge and the blank returns.
    fn walk_word(lw: &LassoWords, adj: &[Vec<u32>], word: &Word) -> Vec<u32> {
        let k = adj.len() - 1;
        let mut at: Vec<u32> = (0..=k as u32).collect();
        let mut blank = k;
        let mut steps = Vec::new();
        for l in word.letters() {
            for _ in 0..l.exponent.unsigned_abs() {
                steps.clear();
                lw.lasso_steps(l.generator as usize, l.exponent > 0, &mut steps);
                for &x in &steps {
                    assert!(adj[blank].contains(&x), "{blank} -> {x} is no edge");
                    at.swap(blank, x as usize);
                    blank = x as usize;
                }
            }
        }
        assert_eq!(blank, k, "the blank is back on the entry");
        let mut end = vec![0u32; k];
        for (x, &t) in at.iter().enumerate().take(k) {
            end[t as usize] = x as u32;
        }
        end
    }

    fn adjacency(n: usize, edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
        let mut adj = vec![Vec::new(); n];
        for &(u, v) in edges {
            adj[u as usize].push(v);
            adj[v as usize].push(u);
        }
        adj
    }

    /// Every arrangement of the block with the blank back on the entry, by breadth-first search
    /// over all arrangements (the independent oracle): `sigma[i]` where token `i` ends.
    fn reachable_by_bfs(adj: &[Vec<u32>]) -> std::collections::HashSet<Vec<u32>> {
        let k = adj.len() - 1;
        let start: Vec<u32> = (0..=k as u32).collect();
        let mut seen = std::collections::HashSet::new();
        seen.insert(start.clone());
        let mut queue = std::collections::VecDeque::from([start]);
        let mut out = std::collections::HashSet::new();
        while let Some(at) = queue.pop_front() {
            let blank = at.iter().position(|&t| t == k as u32).unwrap();
            if blank == k {
                let mut sigma = vec![0u32; k];
                for (x, &t) in at.iter().enumerate().take(k) {
                    sigma[t as usize] = x as u32;
                }
                out.insert(sigma);
            }
            for &y in &adj[blank] {
                let mut next = at.clone();
                next.swap(blank, y as usize);
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        out
    }

    #[test]
    fn lasso_words_reach_exactly_what_bfs_reaches_on_small_blocks() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(77);
        // θ0: a hexagon and a centre joined to two opposite corners.
        let theta0 = vec![
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 5),
            (5, 0),
            (0, 6),
            (6, 3),
        ];
        let k33: Vec<(u32, u32)> = (0..3).flat_map(|a| (3..6).map(move |b| (a, b))).collect();
        let grid24 = vec![
            (0, 1),
            (1, 2),
            (2, 3),
            (4, 5),
            (5, 6),
            (6, 7),
            (0, 4),
            (1, 5),
            (2, 6),
            (3, 7),
        ];
        let mut blocks: Vec<(usize, Vec<(u32, u32)>)> = vec![(7, theta0), (6, k33), (8, grid24)];
        for _ in 0..12 {
            let n = rng.random_range(4..=8usize);
            let mut e: Vec<(u32, u32)> = (0..n as u32).map(|v| (v, (v + 1) % n as u32)).collect();
            for _ in 0..rng.random_range(1..=2) {
                let a = rng.random_range(0..n as u32);
                let b = (a + 2 + rng.random_range(0..n as u32 - 3)) % n as u32;
                e.push((a, b));
            }
            blocks.push((n, e));
        }
        let ctx = SolveContext::detached();
        for (n, edges) in blocks {
            // Three vertices as the entry (the last local index): relabel by a rotation.
            for shift in [0, n as u32 / 2, n as u32 - 1] {
                let e: Vec<(u32, u32)> = edges
                    .iter()
                    .map(|&(u, v)| ((u + shift) % n as u32, (v + shift) % n as u32))
                    .collect();
                let adj = adjacency(n, &e);
                let reach = reachable_by_bfs(&adj);
                let mut budget = MemoryBudget::new(1 << 28);
                let lw = LassoWords::new(&adj, &ctx, &mut budget).unwrap();
                for sigma in &reach {
                    let word = lw
                        .word_of(sigma.clone(), LetterBudget::letters(u64::MAX))
                        .unwrap()
                        .unwrap_or_else(|| panic!("{e:?}: no word for {sigma:?}"));
                    assert_eq!(&walk_word(&lw, &adj, &word), sigma, "{e:?}");
                }
                // Arrangements BFS does not reach get no word.
                for _ in 0..50 {
                    let mut sigma: Vec<u32> = (0..n as u32 - 1).collect();
                    for i in (1..sigma.len()).rev() {
                        sigma.swap(i, rng.random_range(0..=i));
                    }
                    let word = lw
                        .word_of(sigma.clone(), LetterBudget::letters(u64::MAX))
                        .unwrap();
                    assert_eq!(word.is_some(), reach.contains(&sigma), "{e:?} {sigma:?}");
                }
            }
        }
    }

    #[test]
    fn lassos_of_a_cycle_with_a_chord_give_every_rearrangement() {
        // 9 vertices with a chord making a triangle: not bipartite, Sym(8) on the others.
        let adj = cycle_with_chord(8, 0, 2);
        let ctx = SolveContext::detached();
        let mut budget = MemoryBudget::new(1 << 28);
        let lw = LassoWords::new(&adj, &ctx, &mut budget).unwrap();
        assert_eq!(lw.generators(), 2);
        let sigma: Vec<u32> = vec![1, 0, 2, 3, 4, 5, 6, 7];
        let word = lw
            .word_of(sigma.clone(), LetterBudget::letters(u64::MAX))
            .unwrap()
            .unwrap();
        // Walk it (every step an edge, the blank back on the entry): token i ends on sigma[i].
        assert_eq!(walk_word(&lw, &adj, &word), sigma);
    }
}
