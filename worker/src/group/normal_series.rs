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
//! Applies to groups with a polycyclic generating sequence among the given generators (dihedral
//! groups, affine groups `AGL(1, p)`, direct products of such with cyclic groups, …); it is not
//! needed for correctness, only for speed at large degrees.
//!
//! Reference: Sims, "Computing the order of a solvable permutation group", J. Symbolic Comput.
//! 9 (1990); Seress, *Permutation Group Algorithms* (2003), §4.1 (orders from stabiliser chains)
//! and §7.1 (polycyclic generating sequences).

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive};

use super::cyclic::CyclicGroup;
use super::perm::Perm;
use super::schreier_sims::{Chain, ChainTuning};
use crate::context::SolveContext;
use crate::error::SolveError;

/// More generators than this are not tried (the search is quadratic in their number and each
/// step builds a random chain).
const MAX_GENERATORS: usize = 8;

/// A subgroup with a membership test that is certain when it answers `true`.
enum Subgroup {
    Cyclic(CyclicGroup),
    Chain(Chain),
}

impl Subgroup {
    fn contains(&self, g: &[u32]) -> bool {
        match self {
            Subgroup::Cyclic(c) => c.contains_images(g),
            Subgroup::Chain(c) => c.contains_in_place(&mut g.to_vec()),
        }
    }
}

/// Tries to prove an upper bound on the order of `<generators>` (degree `n`) from a normal series
/// of the generators; `Ok(None)` when no ordering of the generators was found to work (which
/// proves nothing).
///
/// Complexity: at most `m²` orderings steps for `m ≤ 8` generators, each O(m · d · Σ depth) for
/// the conjugate tests plus one random Schreier–Sims run.
pub(crate) fn order_upper_bound(
    n: usize,
    generators: &[Perm],
    budget_bytes: u64,
    seed: u64,
    ctx: &SolveContext,
) -> Result<Option<BigUint>, SolveError> {
    let mut gens: Vec<&Perm> = Vec::new();
    for g in generators {
        if !g.is_identity() && !gens.contains(&g) {
            gens.push(g);
        }
    }
    if gens.is_empty() || gens.len() > MAX_GENERATORS {
        return Ok(None);
    }
    let m = gens.len();
    'first: for first in 0..m {
        ctx.check()?;
        let mut seq: Vec<usize> = vec![first];
        let cyclic = CyclicGroup::new(gens[first].clone());
        let mut bound = cyclic.order().clone();
        let mut sub = Subgroup::Cyclic(cyclic);
        while seq.len() < m {
            let mut next = None;
            for cand in (0..m).filter(|c| !seq.contains(c)) {
                ctx.check()?;
                let y = gens[cand];
                let y_inv = y.inverse();
                let normalises = seq.iter().all(|&g| {
                    let conj = y_inv.compose(gens[g]).compose(y);
                    sub.contains(conj.images())
                });
                if normalises {
                    next = Some(cand);
                    break;
                }
            }
            let Some(cand) = next else {
                continue 'first;
            };
            bound *= least_exponent_in(gens[cand], &sub);
            seq.push(cand);
            if seq.len() < m {
                let prefix: Vec<Perm> = seq.iter().map(|&i| gens[i].clone()).collect();
                sub = Subgroup::Chain(Chain::build_random(
                    n,
                    &prefix,
                    budget_bytes,
                    seed,
                    ctx,
                    ChainTuning::default(),
                )?);
            }
        }
        return Ok(Some(bound));
    }
    Ok(None)
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
        order_upper_bound(d, &gens, 1 << 30, 1, &SolveContext::detached()).expect("no limit hit")
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
