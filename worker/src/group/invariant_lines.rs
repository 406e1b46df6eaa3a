//! A faithful action of a transitive group on a smaller invariant family of subsets ("lines"),
//! such as `Alt(m)` on 2-sets acting on the `m` stars `{{a, x} : x ≠ a}`, or a product action on
//! `[m]²` acting on its `2m` rows and columns.
//!
//! **Proof used.** Let `F` be the orbit of a set `L0 ⊆ Ω` under `G = <S>` (so `G` permutes `F`:
//! a homomorphism `ψ: G → Sym(F)`), and suppose the *signature* `ω ↦ {L ∈ F : ω ∈ L}` is
//! injective. If `g ∈ ker ψ` then the signature of `ω^g` is `{L : ω ∈ L^{g⁻¹}} = ` the signature
//! of `ω`, so `ω^g = ω` for every point: `ψ` is injective, and `|G| = |ψ(G)| = |<ψ(S)>|`, a group
//! of degree `|F| < |Ω|` (Dixon–Mortimer, *Permutation Groups*, §1.6: the actions on the cosets of
//! a point stabiliser's overgroups). Nothing here is guessed: `F` is computed as an orbit, the
//! signatures are compared exactly, and `ψ(S)` are the generators' actions on `F`.
//!
//! **Finding `L0`** (a heuristic; failing proves nothing and the caller runs Schreier–Sims). A few
//! random elements of the point stabiliser `G_ω` (a random element times a Schreier-tree
//! representative) give, with high probability, its orbits: the *suborbits*. The smallest
//! non-trivial one is the neighbourhood of `ω` in an orbital graph Γ (moved to every point along
//! the Schreier tree). For an edge `{ω, α}`, `L0` is `{ω, α}` and the common neighbours of `ω` and
//! `α` adjacent to more than half of the others: in the Johnson graph of the `k`-sets of `[m]`
//! (`Alt(m)`, `Sym(m)` on `k`-sets) those are the `k`-sets through a common `(k-1)`-set, in the
//! Hamming graph of `[m]^r` (product actions) a line of one coordinate; in both the lines
//! separate the points.
//!
//! Reference: Dixon, Mortimer, *Permutation Groups* (1996), §1.6 and §2.5 (orbital graphs);
//! Seress, *Permutation Group Algorithms* (2003), §5.1 (orbital graphs, suborbits).

use std::collections::HashMap;

use super::perm::Perm;
use super::product_replacement::ProductReplacement;
use crate::context::SolveContext;
use crate::error::SolveError;

/// Smallest degree tried: below it Schreier–Sims is fast anyway.
pub(crate) const MIN_DEGREE: usize = 100;
/// Largest degree tried (the neighbourhoods take `n · v` integers).
pub(crate) const MAX_DEGREE: usize = 20_000;
/// Most generators a search takes: its memory grows with them (their inverses, the product
/// replacement, the actions on the lines), and the groups it is for are given by a few.
pub(crate) const MAX_GENERATORS: usize = 32;
/// Random elements of the point stabiliser whose orbits stand for its suborbits.
const STABILISER_ELEMENTS: usize = 8;
/// Bound on `n · v` (the orbital graph's neighbourhoods) and, separately, on the points of all
/// the lines together: 4 bytes each, 2 MiB per structure (see [`line_search_bytes`]). Enough for
/// `Alt(m)` on 2-sets up to `m` ≈ 80 (degree 3,160) and product actions up to degree 20,000.
const MAX_ENTRIES: usize = 1 << 19;

/// Upper bound on the bytes [`action_on_lines`] allocates for `generators` permutations of
/// degree `degree` (0 outside the degrees it tries and above [`MAX_GENERATORS`]), charged in the
/// group's memory estimate.
/// Derived from its allocations, `d` the degree, `k` the generators, `E` = [`MAX_ENTRIES`]:
/// the Schreier tree, its order, the suborbit labels and the suborbits (`24d`); the inverses
/// (`4dk`); the product replacement (`4d (max(k, 10) + 3) + 16 max(k, 10)`) and its 8 stabiliser
/// elements (`32d`); the neighbourhoods (`4E`); the lines, the map's copies of them and the
/// signatures, whose vectors grow by doubling (`4E + 4E + 8E`), their headers and the maps'
/// slots (`d/2` lines and `d` signatures: `24d + 33d + 24d + 50d`); the actions on the lines
/// (`k` vectors of `d/2` ids, doubling: `4dk`).
///
/// ```
/// use orbit_worker::group::line_search_bytes;
/// assert_eq!(line_search_bytes(50, 2), 0);
/// assert!(line_search_bytes(2_145, 3) < 16 << 20);
/// ```
pub fn line_search_bytes(degree: u64, generators: u64) -> u64 {
    if !(MIN_DEGREE as u64..=MAX_DEGREE as u64).contains(&degree)
        || generators > MAX_GENERATORS as u64
    {
        return 0;
    }
    let (d, k) = (degree, generators);
    let entries = 20 * MAX_ENTRIES as u64;
    let replacement = d
        .saturating_mul(4)
        .saturating_mul(k.max(10) + 3)
        .saturating_add(k.max(10) * 16);
    d.saturating_mul(24 + 32 + 24 + 33 + 24 + 50)
        .saturating_add(d.saturating_mul(k).saturating_mul(8))
        .saturating_add(replacement)
        .saturating_add(entries)
}

/// A faithful action on invariant lines: the lines (each sorted) and the generators' actions on
/// them (line `i` goes to line `images[g][i]`).
#[derive(Debug)]
pub(crate) struct LineAction {
    pub(crate) lines: Vec<Vec<u32>>,
    pub(crate) images: Vec<Perm>,
}

/// The generators' actions on an invariant family of fewer than `degree` subsets whose
/// signatures separate the points (see the module documentation), or `None` if none was found.
/// `<images>` is then isomorphic to `<generators>` (so it has the same order).
///
/// Arguments: a transitive group `<generators>` on `0..degree`; `seed` for the random elements.
///
/// Complexity: O(d · (k · depth + v · (k + log v)) + |F| · k · ℓ log ℓ) for `k` generators, a
/// Schreier tree of depth `depth`, valency `v` and `|F|` lines of `ℓ` points.
///
/// Reference: Dixon–Mortimer (1996), §1.6; Seress (2003), §5.1.
pub(crate) fn action_on_lines(
    degree: usize,
    generators: &[Perm],
    seed: u64,
    ctx: &SolveContext,
) -> Result<Option<LineAction>, SolveError> {
    let n = degree;
    if !(MIN_DEGREE..=MAX_DEGREE).contains(&n)
        || generators.is_empty()
        || generators.len() > MAX_GENERATORS
    {
        return Ok(None);
    }
    let inverses: Vec<Perm> = generators.iter().map(Perm::inverse).collect();
    // Schreier tree of point 0: `tree[β] = (parent, generator)` with `β = parent^generator`.
    let mut tree = vec![(u32::MAX, u32::MAX); n];
    let mut order = Vec::with_capacity(n);
    tree[0] = (0, u32::MAX);
    order.push(0u32);
    let mut j = 0;
    while j < order.len() {
        let x = order[j];
        for (gi, g) in generators.iter().enumerate() {
            let y = g.image(x);
            if tree[y as usize].0 == u32::MAX {
                tree[y as usize] = (x, gi as u32);
                order.push(y);
            }
        }
        j += 1;
    }
    if order.len() != n {
        return Ok(None); // intransitive
    }
    ctx.check()?;
    // Random elements of G_0: g · u_{0^g}⁻¹, where u_β (mapping 0 to β) is the tree path.
    let mut pr = ProductReplacement::new(n, generators, seed, ctx)?;
    let mut stabiliser: Vec<Vec<u32>> = Vec::with_capacity(STABILISER_ELEMENTS);
    for _ in 0..STABILISER_ELEMENTS {
        let mut h = pr.next_element().images().to_vec();
        let beta = h[0];
        let mut k = beta;
        while k != 0 {
            let (p, gi) = tree[k as usize];
            let inv = inverses[gi as usize].images();
            for x in h.iter_mut() {
                *x = inv[*x as usize];
            }
            k = p;
        }
        debug_assert_eq!(h[0], 0);
        stabiliser.push(h);
    }
    // Suborbits: the orbits of <stabiliser>; the smallest non-trivial one.
    let mut orbit_id = vec![u32::MAX; n];
    let mut best: Option<Vec<u32>> = None;
    for start in 1..n as u32 {
        if orbit_id[start as usize] != u32::MAX {
            continue;
        }
        let mut orb = vec![start];
        orbit_id[start as usize] = start;
        let mut i = 0;
        while i < orb.len() {
            let x = orb[i] as usize;
            for h in &stabiliser {
                let y = h[x];
                if orbit_id[y as usize] == u32::MAX {
                    orbit_id[y as usize] = start;
                    orb.push(y);
                }
            }
            i += 1;
        }
        if best.as_ref().is_none_or(|b| orb.len() < b.len()) {
            best = Some(orb);
        }
    }
    let Some(mut first) = best else {
        return Ok(None);
    };
    let v = first.len();
    // Lines through a point of a Johnson or Hamming graph have about sqrt(n) points at most.
    let max_valency = 4 * (n as f64).sqrt() as usize + 8;
    if v < 2 || v > max_valency || n.saturating_mul(v) > MAX_ENTRIES {
        return Ok(None);
    }
    first.sort_unstable();
    // Neighbourhoods along the tree: N(β^g) = N(β)^g (Γ is G-invariant when the suborbit is one).
    let mut nbrs = vec![0u32; n * v];
    nbrs[..v].copy_from_slice(&first);
    for &y in &order[1..] {
        let (p, gi) = tree[y as usize];
        let g = generators[gi as usize].images();
        let (src, dst) = (p as usize * v, y as usize * v);
        for t in 0..v {
            nbrs[dst + t] = g[nbrs[src + t] as usize];
        }
        nbrs[dst..dst + v].sort_unstable();
    }
    ctx.check()?;
    let adjacent = |a: u32, b: u32| {
        nbrs[a as usize * v..(a as usize + 1) * v]
            .binary_search(&b)
            .is_ok()
    };
    // L0: the edge {0, α} and the common neighbours adjacent to most of the others.
    let alpha = first[0];
    let common: Vec<u32> = first
        .iter()
        .copied()
        .filter(|&x| x != alpha && adjacent(alpha, x))
        .collect();
    let mut line: Vec<u32> = vec![0, alpha];
    for &x in &common {
        let links = common.iter().filter(|&&y| y != x && adjacent(x, y)).count();
        if 2 * links > common.len().saturating_sub(1) {
            line.push(x);
        }
    }
    line.sort_unstable();
    if line.len() < 2 || line.len() >= n / 2 {
        return Ok(None);
    }
    // F: the orbit of L0 under the generators, and each generator's action on it.
    let max_lines = n / 2;
    let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut lines: Vec<Vec<u32>> = vec![line.clone()];
    ids.insert(line, 0);
    let mut actions: Vec<Vec<u32>> = vec![Vec::new(); generators.len()];
    let mut entries = lines[0].len();
    let mut i = 0;
    while i < lines.len() {
        if i % 256 == 0 {
            ctx.check()?;
        }
        for (gi, g) in generators.iter().enumerate() {
            let mut image: Vec<u32> = lines[i].iter().map(|&x| g.image(x)).collect();
            image.sort_unstable();
            let next = lines.len() as u32;
            let id = *ids.entry(image).or_insert(next);
            if id == next {
                entries += lines[i].len();
                if lines.len() >= max_lines || entries > MAX_ENTRIES {
                    return Ok(None);
                }
                let mut image: Vec<u32> = lines[i].iter().map(|&x| g.image(x)).collect();
                image.sort_unstable();
                lines.push(image);
            }
            actions[gi].push(id);
        }
        i += 1;
    }
    // Signatures must separate the points.
    let mut signature: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (id, l) in lines.iter().enumerate() {
        for &x in l {
            signature[x as usize].push(id as u32);
        }
    }
    let mut seen: HashMap<&[u32], ()> = HashMap::with_capacity(n);
    for s in &signature {
        if seen.insert(s.as_slice(), ()).is_some() {
            return Ok(None);
        }
    }
    let images = actions
        .into_iter()
        .map(|a| Perm::from_images(a, "line action"))
        .collect::<Result<Vec<Perm>, SolveError>>()?;
    drop(seen);
    drop(signature);
    Ok(Some(LineAction { lines, images }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Alt(m)`/`Sym(m)` generators (a long cycle and a 3-cycle or a transposition) acting on
    /// the 2-sets of `0..m`, listed lexicographically.
    fn on_two_sets(m: u32, odd: bool) -> (usize, Vec<Perm>) {
        let pairs: Vec<(u32, u32)> = (0..m)
            .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
            .collect();
        let index: HashMap<(u32, u32), u32> = pairs
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, i as u32))
            .collect();
        let on = |f: &dyn Fn(u32) -> u32| -> Perm {
            let img = pairs
                .iter()
                .map(|&(a, b)| {
                    let (x, y) = (f(a), f(b));
                    index[&(x.min(y), x.max(y))]
                })
                .collect();
            Perm::from_images(img, "test").expect("a permutation")
        };
        let cycle = on(&|x| (x + 1) % m);
        let small = if odd {
            on(&|x| match x {
                0 => 1,
                1 => 0,
                _ => x,
            })
        } else {
            on(&|x| match x {
                0 => 1,
                1 => 2,
                2 => 0,
                _ => x,
            })
        };
        (pairs.len(), vec![cycle, small])
    }

    #[test]
    fn two_sets_act_faithfully_on_stars() {
        for (m, odd) in [(20u32, false), (21, true), (30, true)] {
            let (n, gens) = on_two_sets(m, odd);
            let lines = action_on_lines(n, &gens, 7, &SolveContext::detached())
                .expect("no error")
                .expect("the stars are found")
                .images;
            assert_eq!(lines[0].degree(), m as usize, "m = {m}");
            // The long cycle acts on the stars as an m-cycle.
            assert_eq!(lines[0].cycle_lengths(), vec![m as usize]);
        }
    }

    #[test]
    fn product_action_acts_on_rows_and_columns() {
        // Sym(12) wr 2 on [12]^2 (144 points): an 12-cycle and a transposition on the first
        // coordinate, and the swap of the coordinates; 24 lines (rows and columns).
        let m = 12u32;
        let on = |f: &dyn Fn(u32, u32) -> (u32, u32)| {
            let img = (0..m * m)
                .map(|p| {
                    let (x, y) = f(p / m, p % m);
                    x * m + y
                })
                .collect();
            Perm::from_images(img, "test").expect("a permutation")
        };
        let gens = vec![
            on(&|x, y| ((x + 1) % m, y)),
            on(&|x, y| (if x < 2 { 1 - x } else { x }, y)),
            on(&|x, y| (y, x)),
        ];
        let lines = action_on_lines((m * m) as usize, &gens, 3, &SolveContext::detached())
            .expect("no error")
            .expect("rows and columns are found");
        assert_eq!(lines.images[0].degree(), 2 * m as usize);
        assert_eq!(lines.lines.len(), 2 * m as usize);
        assert!(lines.lines.iter().all(|l| l.len() == m as usize));
    }

    #[test]
    fn two_transitive_groups_have_no_lines() {
        // AGL(1, 101) on 101 points is 2-transitive: one suborbit of 100 points, no lines.
        let p = 101u32;
        let gens = vec![
            Perm::from_images((0..p).map(|x| (x + 1) % p).collect(), "t").expect("perm"),
            Perm::from_images((0..p).map(|x| 2 * x % p).collect(), "t").expect("perm"),
        ];
        let found = action_on_lines(p as usize, &gens, 3, &SolveContext::detached()).expect("ok");
        assert!(found.is_none());
    }
}
