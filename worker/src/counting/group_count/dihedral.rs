//! Recognition of the dihedral group `D_d` in its natural action on `d` points, straight from the
//! generators (no stabiliser chain), so that [`count_group`](super::count_group) can count it by
//! the divisors of `d` (the bracelet cycle index) instead of enumerating its `2d` elements.
//!
//! **The proof.** Let `G = <g_1, ..., g_s>` act on `0..d`, `d >= 4`. Suppose a product `c` of
//! generators (a generator itself, `g_i g_j^{±1}`, or a random word) is a single `d`-cycle. Number the points
//! along it: `pos(c^i(0)) = i`, so `c` is `i -> i + 1` on `Z_d`. The set
//! `D(c) = { i -> i + b } ∪ { i -> b - i }` (`b` in `Z_d`) is a group of exactly `2d`
//! permutations for `d >= 3` — the natural dihedral group — and it contains `c`. If every
//! generator lies in `D(c)` (checked point by point, O(d) each) then `G ⊆ D(c)`; if moreover
//! some generator `r` is a reflection `i -> b - i`, then `r ∉ <c>` and `r c r^-1 = c^-1`, so
//! `D(c) = <c, r> ⊆ G`. Hence `G = D(c)`, of order `2d`, conjugate (by `pos`) to the bracelet
//! group, and its cycle index is [`bracelet_cycle_index`]`(d)`.
//! When the search finds no `d`-cycle, or a generator falls outside `D(c)`, or no generator is a
//! reflection, nothing is claimed and the caller takes its general path.
//!
//! The search is sound but not complete: the `d`-cycle is looked for among the generators, their
//! pairwise products and 64 random elements, so `D_d` may (rarely) go unrecognised; then it is
//! enumerated like any group (`d >= 4` is required because `D_3 = Sym(3)`, which the
//! group engine already recognises). For `d >= 3` every `d`-cycle of `D_d` lies in the rotation
//! subgroup (every element outside it is an involution), so when `G = D_d` one found `d`-cycle is
//! as good as any other: a generator outside `D(c)` disproves `G = D_d` outright.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::Perm;

use num_bigint::BigUint;

use super::{CountRequest, GroupCount};
use crate::counting::arith::divisors_with_phi;
use crate::counting::cycle_index::cycle_index_term_bytes;
use crate::counting::necklace::{bracelet_count, bracelet_cycle_index};
use crate::group::GroupKind;
use crate::memory::MemoryBudget;

/// Most distinct generators whose pairwise products are searched for a `d`-cycle (with more, only
/// the generators themselves are tried before the random search).
const MAX_PAIR_GENERATORS: usize = 16;

/// Random elements (product replacement, fixed seed) tried for a `d`-cycle when no generator and
/// no pairwise product is one. In `D_d` a uniform element is a `d`-cycle with probability
/// `phi(d) / 2d` (above 1/13 for `d <= 10^9`), so were the tries uniform and independent a
/// dihedral group would be missed with probability at most `(12/13)^64 ≈ 6 · 10^-3`; a miss
/// only costs the shortcut, never the answer.
const RANDOM_TRIES: usize = 64;

/// Slots of the product-replacement state (at least this many; Celler et al. recommend 10).
const RANDOM_SLOTS: usize = 10;

/// Product-replacement steps before the first random element is tried.
const RANDOM_WARM_UP: usize = 50;

/// Seed of the random search (fixed: answers and methods are reproducible).
const RANDOM_SEED: u64 = 0x0d1e_d2a1;

/// How a permutation acts in the position coordinates of a `d`-cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `i -> i + b`: a power of the cycle.
    Rotation,
    /// `i -> b - i`.
    Reflection,
    /// Neither: outside the dihedral group of the cycle.
    Other,
}

/// Whether `images` could lie in a natural dihedral group: fixed-point-free with all cycles of one
/// length (a rotation), or an involution with at most two fixed points (a reflection).
fn dihedral_shaped(images: &[u32]) -> bool {
    let mut seen = vec![false; images.len()];
    let (mut common, mut fixed, mut longest) = (None, 0usize, 0usize);
    let mut uniform = true;
    for start in 0..images.len() {
        if seen[start] {
            continue;
        }
        let mut len = 0usize;
        let mut x = start;
        while !seen[x] {
            seen[x] = true;
            x = images[x] as usize;
            len += 1;
        }
        if len == 1 {
            fixed += 1;
        }
        longest = longest.max(len);
        uniform &= *common.get_or_insert(len) == len;
    }
    (uniform && fixed == 0) || (longest <= 2 && fixed <= 2)
}

/// Whether `images` is one cycle through all its points.
fn is_full_cycle(images: &[u32]) -> bool {
    let d = images.len();
    let mut x = 0u32;
    for step in 1..=d {
        x = images[x as usize];
        if x == 0 {
            return step == d;
        }
    }
    false
}

/// `pos[c^i(0)] = i` for a full cycle `c`.
fn positions(c: &[u32]) -> Vec<u32> {
    let mut pos = vec![0u32; c.len()];
    let mut x = 0u32;
    for i in 0..c.len() as u32 {
        pos[x as usize] = i;
        x = c[x as usize];
    }
    pos
}

/// Classifies `g` against the dihedral group of the cycle whose positions are `pos`.
fn shape(g: &[u32], pos: &[u32]) -> Shape {
    let d = pos.len() as u64;
    let b = u64::from(pos[g[0] as usize]);
    let rotation = g
        .iter()
        .zip(pos)
        .all(|(&y, &p)| u64::from(pos[y as usize]) == (b + u64::from(p)) % d);
    if rotation {
        return Shape::Rotation;
    }
    let reflection = g
        .iter()
        .zip(pos)
        .all(|(&y, &p)| u64::from(pos[y as usize]) == (b + d - u64::from(p)) % d);
    if reflection {
        Shape::Reflection
    } else {
        Shape::Other
    }
}

/// Tries to prove that `<generators>` is the natural dihedral group `D_d` on all `d = degree`
/// points (see the module documentation for the proof).
///
/// Arguments: `degree`; `generators` (each of that degree; identities and repeats are ignored);
/// `ctx`, checked between candidate cycles.
///
/// Returns `Ok(true)` only with a proof that the group is `D_d` of order `2d` (then `d >= 4`);
/// `Ok(false)` when no proof was found (the group may or may not be dihedral); `Cancelled`.
///
/// The search for a `d`-cycle tries the generators, then (up to 16 distinct generators) the
/// products `g_i g_j^{±1}`, then 64 random elements by product replacement (after 50 mixing
/// steps) with a fixed seed. Before any search, every generator must have the cycle shape of a rotation or a reflection
/// (a cheap necessary condition that rejects most other groups at once).
///
/// Complexity: O(s^2 · d) for `s <= 16` distinct generators (O(s · d) above that), plus
/// O((114 + s) · d) for the random search: each candidate is formed and walked once, and each
/// generator is classified in O(d) once (the first `d`-cycle found decides).
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::is_natural_dihedral;
/// use orbit_worker::group::Perm;
/// let c = Perm::from_images(vec![1, 2, 3, 4, 0], "c").unwrap();
/// let r = Perm::from_images(vec![0, 4, 3, 2, 1], "r").unwrap();
/// let ctx = SolveContext::detached();
/// assert!(is_natural_dihedral(5, &[c.clone(), r], &ctx).unwrap());
/// assert!(!is_natural_dihedral(5, &[c], &ctx).unwrap()); // cyclic
/// ```
///
/// Reference: D. S. Dummit and R. M. Foote, *Abstract Algebra* (3rd ed., 2004), §1.2 (the
/// presentation `<r, s | r^n = s^2 = 1, s r s = r^-1>`).
pub fn is_natural_dihedral(
    degree: usize,
    generators: &[Perm],
    ctx: &SolveContext,
) -> Result<bool, SolveError> {
    if degree < 4 || generators.iter().any(|g| g.degree() != degree) {
        return Ok(false);
    }
    let mut distinct: Vec<&Perm> = Vec::new();
    for g in generators {
        if !g.is_identity() && !distinct.contains(&g) {
            distinct.push(g);
        }
    }
    if distinct.len() < 2 || !distinct.iter().all(|g| dihedral_shaped(g.images())) {
        return Ok(false);
    }
    // Decides G = D(c) for a d-cycle c in G.
    let decide = |c: &[u32]| -> bool {
        let pos = positions(c);
        let mut reflection = false;
        for g in &distinct {
            match shape(g.images(), &pos) {
                Shape::Rotation => {}
                Shape::Reflection => reflection = true,
                Shape::Other => return false,
            }
        }
        reflection
    };
    for g in &distinct {
        if is_full_cycle(g.images()) {
            return Ok(decide(g.images()));
        }
    }
    if distinct.len() <= MAX_PAIR_GENERATORS {
        let inverses: Vec<Perm> = distinct.iter().map(|g| g.inverse()).collect();
        for (i, a) in distinct.iter().enumerate() {
            for (j, (b, b_inv)) in distinct.iter().zip(&inverses).enumerate() {
                if i == j {
                    continue;
                }
                ctx.check()?;
                for other in [*b, b_inv] {
                    let product = a.compose(other);
                    if is_full_cycle(product.images()) {
                        return Ok(decide(product.images()));
                    }
                }
            }
        }
    }
    // Product replacement with an accumulator ("rattle"): slots hold generators, each step
    // replaces a slot by its product with another and multiplies the accumulator by a slot.
    let mut slots: Vec<Perm> = (0..RANDOM_SLOTS.max(distinct.len()))
        .map(|i| distinct[i % distinct.len()].clone())
        .collect();
    let mut accumulator = Perm::identity(degree);
    let mut rng = ChaCha8Rng::seed_from_u64(RANDOM_SEED);
    for step in 0..RANDOM_WARM_UP + RANDOM_TRIES {
        ctx.check()?;
        let i = rng.random_range(0..slots.len());
        let j = (i + rng.random_range(1..slots.len())) % slots.len();
        slots[i] = if rng.random_bool(0.5) {
            slots[i].compose(&slots[j])
        } else {
            slots[j].compose(&slots[i])
        };
        accumulator = accumulator.compose(&slots[i]);
        if step >= RANDOM_WARM_UP && is_full_cycle(accumulator.images()) {
            return Ok(decide(accumulator.images()));
        }
    }
    Ok(false)
}

/// Counts under the natural dihedral group `D_d` (already proven by
/// [`is_natural_dihedral`]) by the divisors of `d`: the bracelet cycle index
/// `(1/2d) (sum over e | d of phi(e) x_e^(d/e) + reflections)`, the reflections contributing
/// `d x_1 x_2^((d-1)/2)` for odd `d` and `(d/2)(x_1^2 x_2^(d/2-1) + x_2^(d/2))` for even `d`.
/// The group was given on arbitrary labels; relabelling the points along its `d`-cycle makes it
/// the bracelet group, and relabelling changes neither the count nor the cycle index.
///
/// Complexity: as [`bracelet_count`] (one big power per divisor of `d`), plus
/// [`CycleIndex::count_with_content`](crate::counting::CycleIndex::count_with_content)
/// for a content.
pub(super) fn count_dihedral(
    d: u64,
    request: &CountRequest<'_>,
    ctx: &SolveContext,
    budget: &mut MemoryBudget,
) -> Result<GroupCount, SolveError> {
    let &CountRequest {
        k,
        content,
        modulus,
        want_cycle_index,
    } = request;
    let divisors = divisors_with_phi(d).len() as u64;
    if want_cycle_index || content.is_some() {
        let term = cycle_index_term_bytes(2, u64::from(64 - d.saturating_mul(2).leading_zeros()));
        budget.charge((divisors + 2).saturating_mul(term), || {
            format!("the cycle index of the dihedral group of degree {d}")
        })?;
    }
    let cycle_index = (want_cycle_index || content.is_some()).then(|| bracelet_cycle_index(d));
    let count = match (content, &cycle_index) {
        (Some(c), Some(z)) => z.count_with_content_within(c, modulus, ctx, budget)?,
        _ => bracelet_count(d, k, modulus, ctx)?,
    };
    Ok(GroupCount {
        count,
        group_order: BigUint::from(d) * 2u32,
        kind: Some(GroupKind::General),
        enumerated: 0,
        cyclic_divisors: None,
        dihedral_divisors: Some(divisors),
        cycle_index: if want_cycle_index { cycle_index } else { None },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(images: Vec<u32>) -> Perm {
        Perm::from_images(images, "p").expect("permutation")
    }

    #[test]
    fn full_cycles_and_shapes() {
        assert!(is_full_cycle(&[1, 2, 3, 0]));
        assert!(!is_full_cycle(&[1, 0, 3, 2]));
        assert!(!is_full_cycle(&[0, 2, 3, 1]));
        let c = [2u32, 3, 1, 0]; // 0 -> 2 -> 1 -> 3 -> 0
        let pos = positions(&c);
        assert_eq!(pos, vec![0, 2, 1, 3]);
        assert_eq!(shape(&c, &pos), Shape::Rotation);
        assert_eq!(shape(&[0, 1, 2, 3], &pos), Shape::Rotation);
        // i -> -i in positions: fixes 0 (pos 0) and 1 (pos 2), swaps 2 (pos 1) and 3 (pos 3).
        assert_eq!(shape(&[0, 1, 3, 2], &pos), Shape::Reflection);
        assert_eq!(shape(&[1, 0, 2, 3], &pos), Shape::Reflection); // i -> 2 - i
        assert_eq!(shape(&[1, 2, 0, 3], &pos), Shape::Other); // a 3-cycle
    }

    #[test]
    fn dihedral_shapes() {
        assert!(dihedral_shaped(&[1, 2, 3, 0])); // 4-cycle
        assert!(dihedral_shaped(&[2, 3, 0, 1])); // (0 2)(1 3)
        assert!(dihedral_shaped(&[0, 3, 2, 1])); // reflection through 0 and 2
        assert!(dihedral_shaped(&[1, 0, 2, 3])); // a diagonal reflection of a square
        assert!(!dihedral_shaped(&[1, 0, 2, 3, 4])); // three fixed points
        assert!(!dihedral_shaped(&[1, 2, 0, 4, 3])); // a 3-cycle and a 2-cycle
        assert!(!dihedral_shaped(&[1, 2, 0, 3])); // a fixed point beside a 3-cycle
    }

    #[test]
    fn recognises_two_reflections_and_rejects_others() {
        let ctx = SolveContext::detached();
        let d = 6u32;
        let r0 = perm((0..d).map(|i| (d - i) % d).collect());
        let r1 = perm((0..d).map(|i| (d + 1 - i) % d).collect());
        assert!(is_natural_dihedral(6, &[r0.clone(), r1.clone()], &ctx).unwrap());
        // Reflections two steps apart generate D_3 twice over, not D_6.
        let r2 = perm((0..d).map(|i| (d + 2 - i) % d).collect());
        assert!(!is_natural_dihedral(6, &[r0.clone(), r2], &ctx).unwrap());
        // Degree 3 is left to the engine (D_3 = Sym(3)).
        let c3 = perm(vec![1, 2, 0]);
        let f3 = perm(vec![0, 2, 1]);
        assert!(!is_natural_dihedral(3, &[c3, f3], &ctx).unwrap());
        // A d-cycle and a transposition: Sym(d), not dihedral.
        let c = perm((0..d).map(|i| (i + 1) % d).collect());
        let t = perm(vec![1, 0, 2, 3, 4, 5]);
        assert!(!is_natural_dihedral(6, &[c, t], &ctx).unwrap());
    }
}
