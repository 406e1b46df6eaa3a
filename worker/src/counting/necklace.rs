//! Necklaces (beads on a circle up to rotation: the cyclic group `C_n`) and bracelets (up to
//! rotation and turning over: the dihedral group `D_n` of order `2n`).

use num_bigint::BigUint;

use super::arith::{
    BurnsideSum, burnside_memory_estimate, divisors_memory_estimate, divisors_with_phi,
};
use super::cycle_index::{CycleIndex, CycleType};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::memory::SMALL_ALLOCATIONS;

/// The number of necklaces of `n >= 1` beads in `k` colours, up to rotation.
///
/// Arguments: `n` beads, `k` colours, optional `modulus` (the answer is then the count modulo it),
/// `ctx` for cancellation between terms.
///
/// Returns `(1/n) * sum over d | n of phi(d) * k^(n/d)`.
///
/// Complexity: one power per divisor of `n`; with `k` a power of two the powers are shifts, so
/// the cost is dominated by the `O(n log k)`-bit additions (and, for the caller, the decimal
/// conversion). With a modulus, O(divisors * log n) modular multiplications.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::necklace_count;
/// let ctx = SolveContext::detached();
/// assert_eq!(necklace_count(6, 2, None, &ctx).unwrap(), 14u32.into());
/// ```
///
/// Reference: OEIS A000031 (k = 2), A001867 (k = 3).
pub fn necklace_count(
    n: u64,
    k: u64,
    modulus: Option<&BigUint>,
    ctx: &SolveContext,
) -> Result<BigUint, SolveError> {
    let mut sum = BurnsideSum::new(k, BigUint::from(n), modulus);
    for (d, phi) in divisors_with_phi(n) {
        ctx.check()?;
        sum.add_small(phi, n / d);
    }
    Ok(sum.finish())
}

/// Upper bound on the bytes [`necklace_count`] or [`bracelet_count`] allocates for `n` beads and
/// `k` colours (the answer and its decimal conversion included), with a modulus of
/// `modulus_bits` bits if any: the divisors of `n` with their `phi` and the Burnside sum over a
/// group of order at most `2n` with exponents at most `n` (see `burnside_memory_estimate` in
/// `arith.rs`: numbers below `2n · k^n` exactly, below `2n · M` with a modulus).
///
/// ```
/// use orbit_worker::counting::necklace_memory_estimate;
/// // The scale benchmark: 10^6 beads, 2 colours: the answer has 10^6 bits, about 3.6 MiB in all.
/// assert_eq!(necklace_memory_estimate(1_000_000, 2, None) >> 20, 3);
/// ```
pub fn necklace_memory_estimate(n: u64, k: u64, modulus_bits: Option<u64>) -> u64 {
    let order_bits = u64::from(64 - n.saturating_mul(2).leading_zeros());
    divisors_memory_estimate(n)
        .saturating_add(burnside_memory_estimate(k, n, order_bits, modulus_bits))
        .saturating_add(SMALL_ALLOCATIONS)
}

/// Adds the turned-over half of the dihedral group on `n` beads: for odd `n`, `n` reflections
/// through one bead with `(n+1)/2` cycles; for even `n`, `n/2` through two beads (`n/2 + 1`
/// cycles) and `n/2` through no bead (`n/2` cycles).
fn add_reflections(sum: &mut BurnsideSum, n: u64) {
    if n % 2 == 1 {
        sum.add_small(n, n.div_ceil(2));
    } else {
        sum.add_small(n / 2, n / 2 + 1);
        sum.add_small(n / 2, n / 2);
    }
}

/// The number of bracelets of `n >= 1` beads in `k` colours, up to rotation and reflection.
///
/// Returns `(1/2n) * (sum over d | n of phi(d) k^(n/d) + reflections)`, where the reflections
/// contribute `n k^((n+1)/2)` for odd `n` and `(n/2)(k^(n/2+1) + k^(n/2))` for even `n`.
///
/// Complexity: as [`necklace_count`].
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::bracelet_count;
/// let ctx = SolveContext::detached();
/// assert_eq!(bracelet_count(6, 2, None, &ctx).unwrap(), 13u32.into());
/// ```
///
/// Reference: OEIS A000029 (k = 2).
pub fn bracelet_count(
    n: u64,
    k: u64,
    modulus: Option<&BigUint>,
    ctx: &SolveContext,
) -> Result<BigUint, SolveError> {
    let mut sum = BurnsideSum::new(k, BigUint::from(n) * 2u32, modulus);
    for (d, phi) in divisors_with_phi(n) {
        ctx.check()?;
        sum.add_small(phi, n / d);
    }
    add_reflections(&mut sum, n);
    Ok(sum.finish())
}

/// The cycle index of the cyclic group `C_n` on `n` beads:
/// `(1/n) * sum over d | n of phi(d) x_d^(n/d)`.
///
/// ```
/// use orbit_worker::counting::necklace_cycle_index;
/// assert_eq!(necklace_cycle_index(4).to_string(), "(x1^4 + x2^2 + 2*x4)/4");
/// ```
pub fn necklace_cycle_index(n: u64) -> CycleIndex {
    CycleIndex::from_counts(
        n,
        divisors_with_phi(n)
            .into_iter()
            .map(|(d, phi)| (CycleType::new([(d, n / d)]), BigUint::from(phi))),
    )
}

/// The cycle index of the dihedral group `D_n` (order `2n`) on `n` beads.
///
/// ```
/// use orbit_worker::counting::bracelet_cycle_index;
/// assert_eq!(bracelet_cycle_index(3).to_string(), "(x1^3 + 3*x1*x2 + 2*x3)/6");
/// ```
pub fn bracelet_cycle_index(n: u64) -> CycleIndex {
    let mut counts: Vec<(CycleType, BigUint)> = divisors_with_phi(n)
        .into_iter()
        .map(|(d, phi)| (CycleType::new([(d, n / d)]), BigUint::from(phi)))
        .collect();
    if n % 2 == 1 {
        counts.push((CycleType::new([(1, 1), (2, n / 2)]), BigUint::from(n)));
    } else {
        counts.push((
            CycleType::new([(1, 2), (2, n / 2 - 1)]),
            BigUint::from(n / 2),
        ));
        counts.push((CycleType::new([(2, n / 2)]), BigUint::from(n / 2)));
    }
    CycleIndex::from_counts(n, counts)
}
