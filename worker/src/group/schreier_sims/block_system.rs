//! Proving one level of a stabiliser chain through a block system: the level's group order is
//! computed exactly by a second chain, on the points *and* the blocks, that starts with the
//! action on the blocks.
//!
//! **When.** Level `i` has base point `α`, group `P = <S^(i)>`, orbit `Δ`, and `H = <S^(i+1)>`
//! proven; the claim is `P_α = H`. Sims's one-generator lemma ([`super::sims_verify`]) needs one
//! membership test per orbit of a two-point stabiliser `H_γ` on `Δ`; when `H_γ` is small that is
//! `|Δ|` tests. The typical case is an imprimitive level: `GL(2, p)` on the `p² - 1` non-zero
//! vectors (inside `AGL(2, p)`), where the stabiliser of two independent vectors is trivial but
//! the stabiliser of one vector fixes its whole line.
//!
//! **Proof.** Let `F` be the points of `Δ` fixed by every generator of `H`. If `P_α = H`, `F` is
//! the fixed-point set of a point stabiliser, hence a block of imprimitivity of `P` on `Δ` (for
//! `g ∈ P` with `F^g ∩ F ∋ β^g = γ`: `H = P_β = P_γ`, so `H^g = P_{β^g} = H` and `F^g = F`). The
//! images of `F` under the generators are computed; if they do not form a partition of `Δ` the
//! proof declines. Otherwise `P` acts faithfully on `Ω ⊔ Σ`, `Σ` the set of blocks, and a chain
//! of that action with first base point `F ∈ Σ` is built and proven (random Schreier–Sims, then
//! the same level proofs, except this one). Its order is `|P|` exactly — whatever `H` is — and
//! the chain's levels over `Σ` are small and often 2-transitive with large two-point
//! stabilisers (for `GL(2, p)`: `PGL(2, p)` on the `p + 1` lines, then the solvable line
//! stabiliser). If `|P| = |Δ| · |H|` the level is proven. If `|P|` is larger, `P_α ≠ H` and a
//! uniformly random element of `P` sifts through levels `i..` to a non-trivial residue with
//! probability at least `1 - |Δ||H|/|P| >= 1/2`; random elements are sifted until one does (the
//! residue is a member of `P`, so adding it is always right). `|P| < |Δ| · |H|` is impossible
//! (the product is a lower bound).
//!
//! **Cost.** The block partition O(|Δ| · |S|); a chain of `P` on `d + |Σ|` points (nearly linear
//! for small bases, and its levels are proven by the cheap proofs); memory for the lifted
//! generators and that chain, charged to the budget.
//!
//! Reference: Seress, *Permutation Group Algorithms* (2003), §5.5 (block systems) and §8.2;
//! Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §4.3 (blocks of
//! imprimitivity, fixed points of point stabilisers).

use super::sims_verify::LemmaOutcome;
use super::{Chain, ChainInputs, ChainTuning, NONE, is_identity_slice};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::Perm;
use crate::group::product_replacement::ProductReplacement;
use crate::group::proof_memory::Held;

/// Bytes per point of the lifted degree charged for the second chain's own scratch (its random
/// phase, sifting buffers, orbit searches), beside its charged storage.
const SCRATCH_BYTES_PER_POINT: u64 = 400;

/// Random elements of `P` sifted for a residue once `|P|` is known to exceed the chain's claim
/// (each succeeds with probability at least 1/2).
const RESIDUE_TRIES: usize = 64;

/// Tries to prove level `level` of `chain` (every deeper level proven) through the block system
/// of the fixed points of `H` (see the module documentation).
///
/// Arguments: `buf` (length `d`) receives a residue; `seed` for random choices (never affecting
/// an answer); `peak` receives the most bytes held beside the chain.
///
/// Returns [`LemmaOutcome::Proven`], a residue, or [`LemmaOutcome::NotApplicable`] (no proper
/// block, not a block system, over the budget, or no residue found); [`SolveError::Cancelled`]
/// when cancelled.
///
/// Complexity: O(|Δ| · |S|) plus building and proving a chain on `d + |Σ|` points.
///
/// Reference: Seress (2003), §5.5 and §8.2.
/// Whether [`prove_level`] may apply to level `level`: `H = <S^(level+1)>` is non-trivial and its
/// fixed points in `Δ` are at least 2, not all of `Δ`, and their number divides `|Δ|` (the
/// cheap part of its checks; the block partition may still fail).
///
/// Complexity: O(|Δ| · |S^(level+1)|).
pub(crate) fn may_apply(chain: &Chain, level: usize) -> bool {
    if level + 1 >= chain.levels.len() {
        return false;
    }
    let orbit = &chain.levels[level].orbit;
    let h_gens: Vec<&Perm> = chain.level_generators(level + 1).collect();
    let fixed = orbit
        .iter()
        .filter(|&&x| h_gens.iter().all(|g| g.image(x) == x))
        .count();
    fixed >= 2 && fixed < orbit.len() && orbit.len().is_multiple_of(fixed)
}

pub(crate) fn prove_level(
    chain: &Chain,
    level: usize,
    buf: &mut [u32],
    seed: u64,
    ctx: &SolveContext,
    peak: &mut u64,
) -> Result<LemmaOutcome, SolveError> {
    if level + 1 >= chain.levels.len() {
        return Ok(LemmaOutcome::NotApplicable); // H trivial: F would be all of Δ
    }
    let n = chain.degree();
    let lvl = &chain.levels[level];
    let (orbit, pos) = (&lvl.orbit, &lvl.pos);
    let h_gens: Vec<&Perm> = chain.level_generators(level + 1).collect();
    let fixed: Vec<u32> = orbit
        .iter()
        .copied()
        .filter(|&x| h_gens.iter().all(|g| g.image(x) == x))
        .collect();
    if fixed.len() < 2 || fixed.len() == orbit.len() || !orbit.len().is_multiple_of(fixed.len()) {
        return Ok(LemmaOutcome::NotApplicable);
    }
    let gens: Vec<&Perm> = chain.level_generators(level).collect();
    ctx.check()?;
    let Some(block_of) = block_partition(orbit, pos, &fixed, &gens) else {
        return Ok(LemmaOutcome::NotApplicable);
    };
    let blocks = orbit.len() / fixed.len();
    // The generators on Ω ⊔ Σ: point n + k is block k (block 0 is F).
    let lifted_n = n + blocks;
    let mut held = Held::new(lifted_n, chain.budget_left(), peak);
    let lifted_bytes = (gens.len() as u64)
        .saturating_mul(4 * lifted_n as u64)
        .saturating_add(SCRATCH_BYTES_PER_POINT.saturating_mul(lifted_n as u64));
    if !held.add(lifted_bytes) {
        return Ok(LemmaOutcome::NotApplicable);
    }
    let mut first_point = vec![NONE; blocks];
    for (k, &b) in block_of.iter().enumerate() {
        if first_point[b as usize] == NONE {
            first_point[b as usize] = orbit[k];
        }
    }
    let lifted: Vec<Perm> = gens
        .iter()
        .map(|g| {
            let img = g.images();
            let on_blocks = first_point
                .iter()
                .map(|&x| (n as u32) + block_of[pos[img[x as usize] as usize] as usize]);
            Perm::from_images_unchecked(img.iter().copied().chain(on_blocks).collect())
        })
        .collect();
    drop(first_point);
    drop(block_of);
    let tuning = ChainTuning {
        block_proofs: false,
        ..chain.tuning()
    };
    let inputs = ChainInputs {
        n: lifted_n,
        generators: &lifted,
        budget_bytes: held.left(),
        seed,
        tuning,
    };
    let aux = match Chain::build_from(&inputs, Some(n as u32), None, ctx) {
        Ok(aux) => aux,
        Err(SolveError::LimitExceeded { .. }) => return Ok(LemmaOutcome::NotApplicable),
        Err(e) => return Err(e),
    };
    held.record(aux.peak_bytes());
    let order = aux.order();
    let claim = chain.order_from(level);
    drop(aux);
    drop(lifted);
    if order == claim {
        return Ok(LemmaOutcome::Proven);
    }
    debug_assert!(order > claim, "the chain's product is a lower bound on |P|");
    // |P| > |Δ| |H|: random elements of P give a residue with probability >= 1/2 each.
    let gens: Vec<Perm> = gens.into_iter().cloned().collect();
    let mut pr = ProductReplacement::new(n, &gens, seed ^ 0xb10c, ctx)?;
    for _ in 0..RESIDUE_TRIES {
        ctx.check()?;
        buf.copy_from_slice(pr.next_element().images());
        let l = chain.sift(buf, level);
        if l > level && (l < chain.levels.len() || !is_identity_slice(buf)) {
            return Ok(LemmaOutcome::Residue(l));
        }
    }
    Ok(LemmaOutcome::NotApplicable)
}

/// The block of each point of `orbit` (by position, `pos` mapping points to positions) in the
/// partition of `orbit` into the images of `block` under the group of `gens`, block 0 being
/// `block`; `None` if those images are not a partition (then `block` is no block).
///
/// Complexity: O(|orbit| · |gens|).
fn block_partition(orbit: &[u32], pos: &[u32], block: &[u32], gens: &[&Perm]) -> Option<Vec<u32>> {
    let mut block_of = vec![NONE; orbit.len()];
    let mut members: Vec<Vec<u32>> = vec![block.to_vec()];
    for &x in block {
        block_of[pos[x as usize] as usize] = 0;
    }
    let mut next = 0;
    while next < members.len() {
        for g in gens {
            let img = g.images();
            let first = img[members[next][0] as usize];
            let target = block_of[pos[first as usize] as usize];
            if target == NONE {
                let id = members.len() as u32;
                let image: Vec<u32> = members[next].iter().map(|&x| img[x as usize]).collect();
                for &y in &image {
                    let slot = &mut block_of[pos[y as usize] as usize];
                    if *slot != NONE {
                        return None;
                    }
                    *slot = id;
                }
                members.push(image);
            } else if members[next]
                .iter()
                .any(|&x| block_of[pos[img[x as usize] as usize] as usize] != target)
            {
                return None;
            }
        }
        next += 1;
    }
    // The images cover the orbit (it is one orbit of the group), each block as large as `block`.
    debug_assert!(block_of.iter().all(|&b| b != NONE));
    Some(block_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).expect("valid test permutation")
    }

    #[test]
    fn block_partitions_of_the_square() {
        // D_4 on the square 1-2-3-4: {1,3} is a block (the diagonals), {1,2} is not.
        let gens = [perm("(1,2,3,4)", 4), perm("(2,4)", 4)];
        let refs: Vec<&Perm> = gens.iter().collect();
        let orbit = [0, 1, 2, 3];
        let pos = [0, 1, 2, 3];
        assert_eq!(
            block_partition(&orbit, &pos, &[0, 2], &refs),
            Some(vec![0, 1, 0, 1])
        );
        assert_eq!(block_partition(&orbit, &pos, &[0, 1], &refs), None);
    }
}
