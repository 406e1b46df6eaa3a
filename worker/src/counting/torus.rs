//! The torus counting problem: an `n x m` sheet of cells in `k` colours whose opposite edges are
//! glued into a torus, so that colourings are equivalent under cyclic shifts of the rows and of
//! the columns and, optionally, the 180-degree rotation of the sheet (without the rotation and
//! with two colours: OEIS A184271).
//!
//! Group without rotation: `Z_n x Z_m` acting by `(i, j) -> (i + a, j + b)`, order `nm`.
//! With rotation: also the maps `(i, j) -> (a - i, b - j)`, order `2nm` (as an abstract group
//! acting on the cells; for `n * m <= 2` the action is not faithful, which Burnside's lemma
//! allows).
//!
//! Derivation of the rotation half: `r_{a,b} : (i, j) -> (a - i, b - j)` is an involution, so its
//! cycles are its fixed cells plus one 2-cycle per pair of other cells: `(nm + f)/2` cycles with
//! `f = s_n(a) * s_m(b)` fixed cells, where `s_n(a)` is the number of solutions of `2i = a (mod
//! n)`: 1 for odd `n`; for even `n`, 2 when `a` is even and 0 when it is odd. Summing `k^((nm +
//! f)/2)` over the `nm` choices of `(a, b)`:
//! - `n`, `m` both odd: `nm * k^((nm+1)/2)`;
//! - exactly one even: `(nm/2) * (k^(nm/2 + 1) + k^(nm/2))`;
//! - both even: `(nm/4) * k^(nm/2 + 2) + (3nm/4) * k^(nm/2)`.
//!
//! This agrees with OEIS A368307 (2 x 2: 7, 3 x 3: 48) and with brute force in the tests.

use std::collections::BTreeMap;

use num_bigint::BigUint;

use super::arith::{
    BurnsideSum, burnside_memory_estimate, divisor_count_bound, divisors_memory_estimate,
    divisors_with_phi, gcd,
};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::memory::SMALL_ALLOCATIONS;

/// Upper bound on the bytes [`torus_count`] allocates (the answer and its decimal conversion
/// included), with a modulus of `modulus_bits` bits if any: the divisors of `rows` and of `cols`,
/// the terms grouped by `lcm` in a B-tree (at most one entry per divisor of `rows · cols`, at most
/// 80 bytes each with the nodes' slack) and the Burnside sum over a group of order at most
/// `2 rows cols` with exponents at most `rows cols`.
///
/// ```
/// use orbit_worker::counting::torus_memory_estimate;
/// // The scale benchmark: 2000 x 2000, 2 colours: a 4,000,000-bit answer, about 14 MiB in all.
/// assert_eq!(torus_memory_estimate(2000, 2000, 2, None) >> 20, 14);
/// ```
pub fn torus_memory_estimate(rows: u64, cols: u64, k: u64, modulus_bits: Option<u64>) -> u64 {
    let cells = rows.saturating_mul(cols);
    let classes = divisor_count_bound(rows)
        .saturating_mul(divisor_count_bound(cols))
        .min(103_680);
    let order_bits = u64::from(64 - cells.saturating_mul(2).leading_zeros());
    divisors_memory_estimate(rows)
        .saturating_add(divisors_memory_estimate(cols))
        .saturating_add(classes.saturating_mul(80))
        .saturating_add(burnside_memory_estimate(k, cells, order_bits, modulus_bits))
        .saturating_add(SMALL_ALLOCATIONS)
}

/// The number of colourings of the `rows x cols` torus with `k` colours, up to cyclic shifts of
/// rows and columns and, when `rotation` is true, the 180-degree rotation.
///
/// Arguments: `rows, cols >= 1` with `rows * cols < 2^64`, `k >= 1` colours, optional `modulus`,
/// `ctx` for cancellation between terms.
///
/// Returns, with `S = sum over c | rows, d | cols of phi(c) phi(d) k^(rows*cols / lcm(c, d))`,
/// `S / (rows*cols)` without rotation (OEIS A184271) and `(S + R) / (2 rows cols)` with it (OEIS
/// A368307), `R` as in the module documentation.
///
/// Complexity: O(tau(rows) tau(cols)) gcds, then one power per distinct `lcm(c, d)` (terms are
/// grouped by exponent); with `k` a power of two the powers are shifts and the cost is linear in
/// the `nm log k`-bit answer.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::torus_count;
/// let ctx = SolveContext::detached();
/// assert_eq!(torus_count(3, 3, 2, true, None, &ctx).unwrap(), 48u32.into());
/// assert_eq!(torus_count(3, 3, 2, false, None, &ctx).unwrap(), 64u32.into());
/// ```
///
/// Reference: S. N. Ethier, "Counting toroidal binary arrays", J. Integer Seq. 16 (2013) 13.4.7;
/// P. Kagey and W. Keehn, "Counting tilings of the n x m grid, cylinder, and torus",
/// arXiv:2311.13072 (2023).
pub fn torus_count(
    rows: u64,
    cols: u64,
    k: u64,
    rotation: bool,
    modulus: Option<&BigUint>,
    ctx: &SolveContext,
) -> Result<BigUint, SolveError> {
    let cells = rows
        .checked_mul(cols)
        .ok_or_else(|| SolveError::invalid("count.cols", "rows * cols does not fit in 64 bits"))?;
    // Group the shift terms by lcm(c, d): sum of phi(c) phi(d) over pairs is rows*cols < 2^64,
    // so a u128 per class cannot overflow.
    let dr = divisors_with_phi(rows);
    let dc = divisors_with_phi(cols);
    let mut by_lcm: BTreeMap<u64, u128> = BTreeMap::new();
    for &(c, pc) in &dr {
        ctx.check()?;
        for &(d, pd) in &dc {
            let l = c / gcd(c, d) * d;
            *by_lcm.entry(l).or_default() += u128::from(pc) * u128::from(pd);
        }
    }
    let order = if rotation {
        BigUint::from(cells) * 2u32
    } else {
        BigUint::from(cells)
    };
    let mut sum = BurnsideSum::new(k, order, modulus);
    for (l, coef) in by_lcm {
        ctx.check()?;
        sum.add(&BigUint::from(coef), cells / l);
    }
    if rotation {
        match (rows.is_multiple_of(2), cols.is_multiple_of(2)) {
            (false, false) => sum.add_small(cells, cells / 2 + 1),
            (true, true) => {
                sum.add_small(cells / 4, cells / 2 + 2);
                sum.add(&(BigUint::from(cells / 4) * 3u32), cells / 2);
            }
            _ => {
                sum.add_small(cells / 2, cells / 2 + 1);
                sum.add_small(cells / 2, cells / 2);
            }
        }
    }
    Ok(sum.finish())
}
