//! An exact upper bound on `|<X>|` from a normal series of the generators, used to prove a
//! stabiliser chain complete without sifting every Schreier generator.
//!
//! **Proof used.** Order the generators `y_1, …, y_m` and let `G_k = <y_1, …, y_k>`. If `y_k`
//! normalises `G_{k-1}` (`y_k⁻¹ g y_k ∈ G_{k-1}` for every generator `g` of `G_{k-1}`; for a finite
//! group the inclusion `G_{k-1}^{y_k} ⊆ G_{k-1}` is an equality), then `G_k = ⋃_{j<e} G_{k-1} y_k^j`
//! where `e` is the least positive exponent with `y_k^e ∈ G_{k-1}`, so `|G_k| ≤ e · |G_{k-1}|`, and
//! `|G_1|` is the order of `y_1` (the lcm of its cycle lengths). Every membership used is a
//! *positive* one: either in the cyclic group `G_1` (decided exactly) or a permutation that sifts
//! to the identity through a random Schreier–Sims chain of `G_{k-1}` whose strong generators all
//! lie in `G_{k-1}` — which proves membership even if that chain is incomplete. So the bound is a
//! theorem whatever the randomness did; when a needed membership is not found the bound is
//! simply not produced. With the lower bound `Π |Δ_i| ≤ |G|` that every chain gives, equality
//! proves the chain complete.
//!
//! The series may also start at a subgroup whose order is proven otherwise — the group of a
//! proven deeper level of a stabiliser chain, with exact membership by sifting — and may use
//! elements of the group besides its generators (commutators, so that the derived subgroup can
//! come first), as long as every generator ends up in the series: then `<X> ⊆ G_m ⊆ <X>`.
//!
//! Applies to groups with a polycyclic generating sequence among the given generators (dihedral
//! groups, affine groups `AGL(1, p)`, direct products of such with cyclic groups, …) and, level by
//! level, to the solvable point stabilisers of larger groups (the Frobenius group `p : (p-1)/2`
//! inside PSL(2, p)) and to extensions of a proven normal subgroup (`C_m × PSL(2, q)` over
//! `PSL(2, q)`); it is not needed for correctness, only for speed at large degrees.
//!
//! Reference: Sims, "Computing the order of a solvable permutation group", J. Symbolic Comput.
//! 9 (1990); Seress, *Permutation Group Algorithms* (2003), §4.1 (orders from stabiliser chains)
//! and §7.1 (polycyclic generating sequences).

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive};

use std::cell::Cell;

use super::{Chain, ChainInputs, ChainTuning, is_identity_slice};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::cyclic::CyclicGroup;
use crate::group::perm::Perm;
use crate::group::proof_memory::Held;

/// More generators than this are not tried (the search is quadratic in their number and each
/// step builds a random chain).
const MAX_GENERATORS: usize = 8;

/// A subgroup with a membership test that is certain when it answers `true`.
enum Subgroup<'a> {
    Cyclic(CyclicGroup),
    Chain(Chain),
    /// The group of a proven level of a chain: sifting through its levels is exact.
    Level {
        chain: &'a Chain,
        from: usize,
    },
}

impl Subgroup<'_> {
    fn contains(&self, g: &[u32]) -> bool {
        match self {
            Subgroup::Cyclic(c) => c.contains_images(g),
            Subgroup::Chain(c) => c.contains_in_place(&mut g.to_vec()),
            Subgroup::Level { chain, from } => {
                let mut buf = g.to_vec();
                chain.sift(&mut buf, *from) == chain.levels.len() && is_identity_slice(&buf)
            }
        }
    }

    /// Bytes its chain holds (charged to the budget it was built with).
    fn chain_bytes(&self) -> u64 {
        match self {
            Subgroup::Chain(c) => c.bytes(),
            Subgroup::Cyclic(_) | Subgroup::Level { .. } => 0,
        }
    }
}

/// Tries to prove an upper bound on the order of `<generators>` (degree `n`) from a normal series
/// of the generators; `Ok(None)` when no ordering of the generators was found to work (which
/// proves nothing).
///
/// Memory: the permutations and subgroup chains it holds stay within `budget_bytes`; the most it
/// held at once is recorded in `peak`.
///
/// Complexity: at most `m²` orderings steps for `m ≤ 8` generators, each O(m · d · Σ depth) for
/// the conjugate tests plus one random Schreier–Sims run.
pub(crate) fn order_upper_bound(
    n: usize,
    generators: &[Perm],
    budget_bytes: u64,
    seed: u64,
    ctx: &SolveContext,
    peak: &mut u64,
) -> Result<Option<BigUint>, SolveError> {
    if generators.len() > MAX_GENERATORS {
        return Ok(None);
    }
    let mut held = Held::new(n, budget_bytes, peak);
    if !held.hold(SCRATCH_PERMS + generators.len()) {
        return Ok(None);
    }
    let gens = distinct_moving(generators.iter());
    if gens.is_empty() {
        return Ok(None);
    }
    for first in 0..gens.len() {
        ctx.check()?;
        let cyclic = CyclicGroup::new(gens[first].clone());
        let order = cyclic.order().clone();
        let start = Start {
            sub: Subgroup::Cyclic(cyclic),
            gens: vec![gens[first].clone()],
            order,
        };
        let mut used = vec![false; gens.len()];
        used[first] = true;
        let search = Search {
            n,
            elements: &gens,
            required: gens.len(),
            target: None,
            seed,
            chains_left: Cell::new(usize::MAX),
        };
        if let Some(bound) = search.extend(start, used, &mut held, ctx)? {
            return Ok(Some(bound));
        }
    }
    Ok(None)
}

/// Tries to prove `|<S^(level)>| <= target` for a level of `chain` whose deeper levels are proven,
/// by a normal series `G_1 < G_2 < … < G_m ⊇ S^(level)` each term normalised by the next element.
/// `G_1` is either the group of a deeper level (exact order and membership from the chain) or a
/// cyclic group; the elements are commutators of the level's generators (of order two and one,
/// so that a derived series can come first: `[a,b]` lies in the derived subgroup) and the
/// generators. Every element lies in `<S^(level)>`, so the bound holds for it; `false` proves
/// nothing. At most `max_chains` random chains are built over all starts (`usize::MAX`: no cap).
///
/// Memory: the permutations it holds (elements, a start's generators, the series' generators,
/// scratch) and its subgroup chains stay within `budget_bytes`; the most it held at once is
/// recorded in `peak`.
///
/// Complexity: for each start (the deeper levels, then each element as a cyclic group), up to
/// `e²` normaliser tests of O(e · d · Σ depth) for `e` elements, and a random Schreier–Sims run
/// per term of the series.
///
/// Reference: Sims (1990), "Computing the order of a solvable permutation group"; Seress (2003),
/// §7.1 (polycyclic generating sequences) and §2.3 (commutators, derived series).
pub(crate) fn level_order_at_most(
    chain: &Chain,
    level: usize,
    target: &BigUint,
    max_chains: usize,
    seed: u64,
    ctx: &SolveContext,
    peak: &mut u64,
) -> Result<bool, SolveError> {
    let n = chain.degree();
    let count = chain.level_generators(level).count();
    if count > MAX_LEVEL_GENERATORS {
        return Ok(false);
    }
    let mut held = Held::new(n, chain.budget_left(), peak);
    // Scratch, and the elements: commutators and copies of the generators.
    if !held.hold(SCRATCH_PERMS + count + MAX_COMMUTATORS + 1) {
        return Ok(false);
    }
    let gens = distinct_moving(chain.level_generators(level));
    if gens.is_empty() {
        return Ok(false);
    }
    // Commutators first (second derived, then first derived), then the generators, which are the
    // elements the series must contain.
    let mut first_derived: Vec<Perm> = Vec::new();
    'pairs: for (i, a) in gens.iter().enumerate() {
        for b in &gens[i + 1..] {
            if first_derived.len() == MAX_COMMUTATORS {
                break 'pairs;
            }
            let c = a.commutator(b);
            if !c.is_identity() && !first_derived.contains(&c) {
                first_derived.push(c);
            }
        }
    }
    let mut elements: Vec<Perm> = Vec::new();
    if first_derived.len() >= 2 {
        let c = first_derived[0].commutator(&first_derived[1]);
        if !c.is_identity() {
            elements.push(c);
        }
    }
    elements.extend(first_derived);
    let optional = elements.len();
    elements.extend(gens);
    let search = Search {
        n,
        elements: &elements,
        required: elements.len() - optional,
        target: Some(target),
        seed,
        chains_left: Cell::new(max_chains),
    };
    let mut starts: Vec<(Option<usize>, Option<usize>)> = (level + 1..chain.levels.len())
        .map(|l| (Some(l), None))
        .collect();
    starts.extend((0..elements.len()).map(|e| (None, Some(e))));
    for (from, first) in starts {
        ctx.check()?;
        let mut used = vec![false; elements.len()];
        let mark = held.mark();
        let start = match (from, first) {
            (Some(from), _) => {
                if !held.hold(chain.level_generators(from).count()) {
                    continue;
                }
                Start {
                    sub: Subgroup::Level { chain, from },
                    gens: chain.level_generators(from).cloned().collect(),
                    order: chain.order_from(from),
                }
            }
            (None, Some(e)) => {
                used[e] = true;
                // The cyclic group's tables: about 10 integers per point.
                if !held.hold(3) {
                    continue;
                }
                let cyclic = CyclicGroup::new(elements[e].clone());
                let order = cyclic.order().clone();
                Start {
                    sub: Subgroup::Cyclic(cyclic),
                    gens: vec![elements[e].clone()],
                    order,
                }
            }
            (None, None) => continue,
        };
        let bound = if &start.order > target {
            None
        } else {
            search.extend(start, used, &mut held, ctx)?
        };
        held.release_to(mark);
        if bound.is_some_and(|b| &b <= target) {
            return Ok(true);
        }
        if search.chains_left.get() == 0 {
            return Ok(false);
        }
    }
    Ok(false)
}

/// Scratch permutations any step of a series search holds besides those counted (an inverse, a
/// conjugate and its factors, a power and the squarings of `Perm::pow`).
const SCRATCH_PERMS: usize = 6;

/// Commutators of a level's generator pairs used by [`level_order_at_most`].
const MAX_COMMUTATORS: usize = 4;

/// More generators of a level than this are not tried by [`level_order_at_most`] (a level
/// collects the random phase's residues; the search stops early once its bound passes the
/// target, so it affords more than [`MAX_GENERATORS`]).
const MAX_LEVEL_GENERATORS: usize = 16;

/// Random chains a level's series search ([`level_order_at_most`]) may build, over all its
/// starts, with the default level-proof policy: the level has other proofs, and a search that has
/// not succeeded within a few chains rarely does (the successes on the GAP-library corpus took at
/// most 11), while a failing one builds up to hundreds.
pub(crate) const MAX_LEVEL_SERIES_CHAINS: usize = 16;

/// Random chains a level's series search may build when it comes before a one-generator lemma
/// whose cost is known (and which applies): on the GAP-library corpus the successful searches
/// there built at most 2 (25 levels: 13 none, 7 one, 5 two), while the failing ones (49 levels)
/// built up to 16 and took 52 ms in all, about half of what the lemmas after them took.
pub(crate) const MAX_SERIES_CHAINS_BEFORE_LEMMA: usize = 3;

/// Random chains a level's series search may build when the one-generator lemma does not apply
/// and a block system may follow: on the GAP-library corpus the successful searches without a
/// lemma built at most 7 (28 levels), the failing ones 16 each (8 levels, about 20 ms in all,
/// `primitive(1632,2)`'s level 2 6 ms before its block system's 1 ms).
pub(crate) const MAX_SERIES_CHAINS_BEFORE_BLOCKS: usize = 8;

/// The first term of a series: a subgroup, generators of it, and its exact order.
struct Start<'a> {
    sub: Subgroup<'a>,
    gens: Vec<Perm>,
    order: BigUint,
}

/// What a greedy series search extends with: `elements`, of which the last `required` must all
/// be in the series; it gives up once its bound passes `target`.
struct Search<'e> {
    n: usize,
    elements: &'e [Perm],
    required: usize,
    target: Option<&'e BigUint>,
    seed: u64,
    /// Random chains the search may still build; at 0 it gives up.
    chains_left: Cell<usize>,
}

impl Search<'_> {
    /// Extends `start` greedily by elements not yet `used` that normalise the group so far,
    /// until every required element is in the series; returns the bound `|start| · Π e_k`
    /// (`e_k` a proven exponent with `y_k^{e_k}` in the previous term), or `None` when no unused
    /// element normalises the group while a required one is left, when the bound passes the
    /// target (nothing to prove then), or when the budget is exhausted.
    fn extend(
        &self,
        start: Start<'_>,
        mut used: Vec<bool>,
        held: &mut Held<'_>,
        ctx: &SolveContext,
    ) -> Result<Option<BigUint>, SolveError> {
        let Start {
            mut sub,
            gens: mut sub_gens,
            order: mut bound,
        } = start;
        let first_required = self.elements.len() - self.required;
        let mark = held.mark();
        // The orbit of each point under the group so far (its generators `sub_gens`): a conjugate
        // moving a point out of its orbit is not in the group, found before it is formed.
        let mut orbit_label = orbit_labels(self.n, &sub_gens);
        let result = loop {
            if used[first_required..].iter().all(|&u| u) {
                break Some(bound);
            }
            let mut next = None;
            for (cand, y) in self.elements.iter().enumerate() {
                if used[cand] {
                    continue;
                }
                ctx.check()?;
                let y_inv = y.inverse();
                let normalises = sub_gens.iter().all(|g| {
                    conjugate_keeps_orbits(&y_inv, g, y, &orbit_label)
                        && sub.contains(y_inv.compose(g).compose(y).images())
                });
                if normalises {
                    next = Some(cand);
                    break;
                }
            }
            let Some(cand) = next else {
                break None;
            };
            used[cand] = true;
            let e = least_exponent_in(&self.elements[cand], &sub);
            if e.is_one() {
                // `y` is (provably) in the group already: the same group, the same chain.
                continue;
            }
            bound *= e;
            if self.target.is_some_and(|t| &bound > t) || !held.hold(1) {
                break None;
            }
            sub_gens.push(self.elements[cand].clone());
            orbit_label = orbit_labels(self.n, &sub_gens);
            if used[first_required..].iter().any(|u| !u) {
                if self.chains_left.get() == 0 {
                    break None;
                }
                self.chains_left.set(self.chains_left.get() - 1);
                // A few membership tests follow, so Schreier trees (built in O(|Δ|) per level)
                // beat explicit transversals (O(|Δ| · d)).
                let tuning = ChainTuning {
                    max_explicit_entries: 0,
                    ..ChainTuning::default()
                };
                // The previous term's chain is dropped once the next is built: until then both
                // are held.
                let inputs = ChainInputs {
                    n: self.n,
                    generators: &sub_gens,
                    budget_bytes: held.left(),
                    seed: self.seed,
                    tuning,
                };
                let built = Chain::build_random(&inputs, ctx)?;
                if !held.add(built.bytes()) {
                    break None;
                }
                held.release(sub.chain_bytes());
                sub = Subgroup::Chain(built);
            }
        };
        held.release_to(mark);
        Ok(result)
    }
}

/// The index of each point's orbit under `<gens>` (degree `n`).
///
/// Complexity: O(n · |gens|).
fn orbit_labels(n: usize, gens: &[Perm]) -> Vec<u32> {
    let mut label = vec![u32::MAX; n];
    let mut stack = Vec::new();
    for start in 0..n {
        if label[start] != u32::MAX {
            continue;
        }
        label[start] = start as u32;
        stack.push(start as u32);
        while let Some(x) = stack.pop() {
            for g in gens {
                let y = g.image(x) as usize;
                if label[y] == u32::MAX {
                    label[y] = start as u32;
                    stack.push(y as u32);
                }
            }
        }
    }
    label
}

/// Whether `y⁻¹ g y` maps every point into its own orbit (`orbit_label`) — necessary for it to
/// lie in the group whose orbits those are. Stops at the first point that leaves its orbit,
/// without forming the conjugate.
///
/// Complexity: O(n) at most.
fn conjugate_keeps_orbits(y_inv: &Perm, g: &Perm, y: &Perm, orbit_label: &[u32]) -> bool {
    let (yi, gi, yy) = (y_inv.images(), g.images(), y.images());
    (0..yi.len()).all(|x| {
        // x^{y⁻¹ g y}: first y⁻¹, then g, then y.
        let image = yy[gi[yi[x] as usize] as usize] as usize;
        orbit_label[image] == orbit_label[x]
    })
}

/// The distinct non-identity permutations among `perms`.
fn distinct_moving<'a>(perms: impl Iterator<Item = &'a Perm>) -> Vec<Perm> {
    let mut out: Vec<Perm> = Vec::new();
    for g in perms {
        if !g.is_identity() && !out.contains(g) {
            out.push(g.clone());
        }
    }
    out
}

/// An exponent `e >= 1` with `y^e` proven to lie in `sub`: the order of `y` with prime factors
/// removed while the smaller power is still (provably) in `sub`. Exactly the least such exponent
/// when the membership test is exact.
fn least_exponent_in(y: &Perm, sub: &Subgroup) -> BigUint {
    let order = CyclicGroup::new(y.clone()).order().clone();
    let Some(mut e) = order.to_u64().filter(|&o| o <= i64::MAX as u64) else {
        return order;
    };
    let mut primes: Vec<u64> = Vec::new();
    let mut lengths = y.cycle_lengths();
    lengths.sort_unstable();
    lengths.dedup();
    for len in lengths {
        let mut rest = len as u64;
        let mut p = 2;
        while p * p <= rest {
            if rest.is_multiple_of(p) {
                if !primes.contains(&p) {
                    primes.push(p);
                }
                while rest.is_multiple_of(p) {
                    rest /= p;
                }
            }
            p += 1;
        }
        if rest > 1 && !primes.contains(&rest) {
            primes.push(rest);
        }
    }
    for q in primes {
        while e.is_multiple_of(q) && sub.contains(y.pow((e / q) as i64).images()) {
            e /= q;
        }
    }
    if e == 0 {
        BigUint::one()
    } else {
        BigUint::from(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).expect("valid test permutation")
    }

    fn bound(d: usize, gens: &[&str]) -> Option<BigUint> {
        let gens: Vec<Perm> = gens.iter().map(|t| perm(t, d)).collect();
        let mut peak = 0;
        order_upper_bound(d, &gens, 1 << 30, 1, &SolveContext::detached(), &mut peak)
            .expect("no limit hit")
    }

    #[test]
    fn dihedral_affine_and_products_are_bounded_exactly() {
        // D_8 = <(1..8), (2,8)(3,7)(4,6)>: 16, whichever generator is listed first.
        let r = "(1,2,3,4,5,6,7,8)";
        let s = "(2,8)(3,7)(4,6)";
        assert_eq!(bound(8, &[r, s]), Some(BigUint::from(16u32)));
        assert_eq!(bound(8, &[s, r]), Some(BigUint::from(16u32)));
        // AGL(1,7) = <x -> x+1, x -> 3x> on 0..6 (points 1..7): 42.
        assert_eq!(
            bound(7, &["(1,2,3,4,5,6,7)", "(2,4,3,7,5,6)"]),
            Some(BigUint::from(42u32))
        );
        // A generator already in the previous subgroup contributes exponent 1.
        assert_eq!(
            bound(4, &["(1,2,3,4)", "(1,3)(2,4)"]),
            Some(BigUint::from(4u32))
        );
        // D_8 x C_3 on 8 + 3 points: 48 (the C_3 generator commutes, exponent 3).
        assert_eq!(bound(11, &[r, s, "(9,10,11)"]), Some(BigUint::from(48u32)));
    }

    #[test]
    fn simple_groups_give_no_bound() {
        // M11 and PSL(2,7) are simple: no generator normalises the group of the others.
        assert_eq!(
            bound(11, &["(1,2,3,4,5,6,7,8,9,10,11)", "(3,7,11,8)(4,10,5,6)"]),
            None
        );
        assert_eq!(bound(8, &["(1,2,3,4,5,6,7)", "(1,8)(2,7)(3,4)(5,6)"]), None);
    }
}
