//! The complete rooted binary tree of depth `d` (depth 0 is a single vertex; depth `d` has
//! `2^(d+1) - 1` vertices) whose vertices take `k` colours, up to swapping the two children of
//! any node. The symmetry group is the iterated wreath product `C_2 wr C_2 wr ... wr C_2`, of order
//! `2^(2^d - 1)`; rather than sum over it, the count follows its recursive structure.
//!
//! A tree of depth `d` is a root colour and an unordered pair of trees of depth `d - 1`. If
//! `c(d - 1)` classes exist below, an unordered pair is a multiset of size 2 from them:
//! `c(c + 1)/2` choices. So `c(0) = k` and `c(d) = k * c(d-1) * (c(d-1) + 1) / 2` (which is also
//! what Pólya's theorem gives with the wreath-product cycle index
//! `Z_d = x_1 * (Z_{d-1}^2 + Z_{d-1}(x_i -> x_2i)) / 2`).

use num_bigint::BigUint;
use num_traits::One;

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::memory::{SMALL_ALLOCATIONS, bigint_work_bytes};

/// Upper bound on the bytes [`binary_tree_count`] allocates (the answer and its decimal
/// conversion included).
///
/// Exactly, every number is at most `c(depth) <= k^(2^(depth+1) - 1)`; each level squares the
/// previous count. With a modulus of `modulus_bits` bits, numbers stay below
/// `(2^depth M)^2`. Either way [`bigint_work_bytes`] bounds the operations.
///
/// ```
/// use orbit_worker::counting::binary_tree_memory_estimate;
/// assert!(binary_tree_memory_estimate(10, 2, None) < 200_000);
/// ```
pub fn binary_tree_memory_estimate(depth: u64, k: u64, modulus_bits: Option<u64>) -> u64 {
    if k <= 1 {
        return SMALL_ALLOCATIONS;
    }
    let bits = match modulus_bits {
        Some(m) => m.saturating_add(depth).saturating_mul(2).saturating_add(64),
        None => {
            let vertices = 1u64
                .checked_shl(depth.saturating_add(1).min(64) as u32)
                .map_or(u64::MAX, |v| v - 1);
            (vertices as f64 * (k as f64).log2()).ceil() as u64 + 64
        }
    };
    bigint_work_bytes(bits, 3).saturating_add(SMALL_ALLOCATIONS)
}

/// The number of `k`-colourings of the depth-`depth` complete binary tree up to child swaps.
///
/// Arguments: `depth >= 0`, `k >= 1`, optional `modulus`, `ctx` checked once per level.
///
/// Returns `c(depth)` with `c(0) = k`, `c(d) = k c(d-1) (c(d-1) + 1) / 2`, exactly or modulo `M`.
/// With a modulus the halving is made exact by working modulo `2^(depth - i) M` at level `i`:
/// `x (x + 1) / 2 mod M` depends only on `x mod 2M`.
///
/// Complexity: exact — `depth` squarings of numbers that double in length, dominated by the last
/// (`~2^(depth+1) log2 k` bits); modular — `depth` multiplications of `depth + log2 M`-bit numbers.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::binary_tree_count;
/// let ctx = SolveContext::detached();
/// // Depth 1, two colours: root colour times {00, 01, 11} below.
/// assert_eq!(binary_tree_count(1, 2, None, &ctx).unwrap(), 6u32.into());
/// ```
///
/// Reference: F. Harary and E. Palmer, *Graphical Enumeration* (1973), §2.2 (composition of cycle
/// indices).
pub fn binary_tree_count(
    depth: u64,
    k: u64,
    modulus: Option<&BigUint>,
    ctx: &SolveContext,
) -> Result<BigUint, SolveError> {
    let kb = BigUint::from(k);
    match modulus {
        None => {
            let mut c = kb.clone();
            for _ in 0..depth {
                ctx.check()?;
                let pairs = (&c * (&c + 1u32)) >> 1u32;
                c = pairs * &kb;
            }
            Ok(c)
        }
        Some(m) => {
            let mut md = m << depth;
            let mut c = &kb % &md;
            for _ in 0..depth {
                ctx.check()?;
                md >>= 1u32;
                let pairs = (&c * (&c + BigUint::one())) >> 1u32;
                c = (pairs * &kb) % &md;
            }
            Ok(c % m)
        }
    }
}
