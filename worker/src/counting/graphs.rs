//! Unlabelled graphs on `n` vertices: orbits of the symmetric group `S_n` acting on the
//! `n(n-1)/2` vertex pairs, each pair an edge or not.
//!
//! A permutation of cycle type `λ` (with `m_i` cycles of length `i`) has
//! `e(λ) = sum_i m_i floor(i/2) + sum_i i C(m_i, 2) + sum_{i<j} m_i m_j gcd(i, j)` cycles on the
//! pairs: an `i`-cycle gives `floor(i/2)` cycles on its own pairs, two cycles of lengths `a`, `b`
//! give `gcd(a, b)`. So the number of graphs is `(1/n!) sum over λ ⊢ n of (n!/z_λ) 2^e(λ)`, with
//! `n!/z_λ` the size of the conjugacy class.
//!
//! The sum runs over the partitions of `n` by depth-first search, carrying the class size as a
//! fixed-width integer (updated by small multiplications and exact small divisions as cycles are
//! added) and `e(λ)` incrementally; class sizes are accumulated per exponent `e` (at most
//! `n(n-1)/2 + 1` buckets, each below `n!`), and only at the end is `sum_e S_e 2^e` formed with big
//! integers and divided by `n!`.

use num_bigint::BigUint;

use super::arith::factorial;
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::memory::{SMALL_ALLOCATIONS, bigint_bytes, bigint_work_bytes};

/// The largest `n` whose partition count `p(n)` fits in a `u128` (`p(1458)` is about 3.4 * 10^38,
/// `p(1459)` exceeds 2^128).
pub const MAX_PARTITION_COUNT_N: u64 = 1458;

/// `p(n)`, the number of partitions of `n`, or `None` if it does not fit in a `u128`
/// (`n` above [`MAX_PARTITION_COUNT_N`]).
///
/// Any `n` is answered at once: the table is only built up to [`MAX_PARTITION_COUNT_N`], so a
/// caller's `n = 2^40` costs neither memory nor time (it once allocated `16 (n + 1)` bytes).
///
/// Complexity: O(min(n, 1458)^2) additions.
///
/// ```
/// use orbit_worker::counting::partition_count;
/// assert_eq!(partition_count(5), Some(7));
/// assert_eq!(partition_count(1 << 40), None);
/// ```
pub fn partition_count(n: u64) -> Option<u128> {
    if n > MAX_PARTITION_COUNT_N {
        return None;
    }
    let n = usize::try_from(n).ok()?;
    let mut p = vec![0u128; n + 1];
    p[0] = 1;
    for part in 1..=n {
        for total in part..=n {
            p[total] = p[total].checked_add(p[total - part])?;
        }
    }
    Some(p[n])
}

/// Multiplies the little-endian limbs `a` by `x` in place (the caller guarantees no overflow).
#[inline]
fn mul_small(a: &mut [u64], x: u64) {
    let mut carry = 0u128;
    for limb in a.iter_mut() {
        let t = u128::from(*limb) * u128::from(x) + carry;
        *limb = t as u64;
        carry = t >> 64;
    }
    debug_assert_eq!(carry, 0, "fixed-width overflow");
}

/// Divides the little-endian limbs `a` by `x` in place; the division is exact by construction.
#[inline]
fn div_small(a: &mut [u64], x: u64) {
    let mut rem = 0u128;
    for limb in a.iter_mut().rev() {
        let cur = (rem << 64) | u128::from(*limb);
        *limb = (cur / u128::from(x)) as u64;
        rem = cur % u128::from(x);
    }
    debug_assert_eq!(rem, 0, "inexact division");
}

/// `dst += src` over equal widths (the caller guarantees no overflow).
#[inline]
fn add_into(dst: &mut [u64], src: &[u64]) {
    let mut carry = false;
    for (d, &s) in dst.iter_mut().zip(src) {
        let (t, c1) = d.overflowing_add(s);
        let (t, c2) = t.overflowing_add(u64::from(carry));
        *d = t;
        carry = c1 || c2;
    }
    debug_assert!(!carry, "fixed-width overflow");
}

/// State of the depth-first search over partitions.
struct Search<'a> {
    width: usize,
    gcd: Vec<u64>,
    n: usize,
    /// Per-exponent sums of class sizes, `width` limbs each.
    sums: Vec<u64>,
    /// Class size of the partial partition at each depth, `width` limbs each.
    class: Vec<u64>,
    /// The parts chosen so far as `(length, multiplicity)`, lengths decreasing.
    parts: Vec<(usize, usize)>,
    cycles: u64,
    leaves: u64,
    total_leaves: f64,
    ctx: &'a SolveContext,
}

impl Search<'_> {
    fn leaf(&mut self, depth: usize, e: u64) -> Result<(), SolveError> {
        let w = self.width;
        let (sums, class) = (&mut self.sums, &self.class);
        let e = e as usize;
        add_into(
            &mut sums[e * w..(e + 1) * w],
            &class[depth * w..(depth + 1) * w],
        );
        self.leaves += 1;
        if self.leaves & 0xffff == 0 {
            self.ctx.check()?;
            self.ctx.progress(self.leaves as f64 / self.total_leaves);
        }
        Ok(())
    }

    /// Extends the partial partition (class size in slot `depth`, `r` points left, parts at most
    /// `max_part`, `e` pair cycles so far).
    fn dfs(&mut self, depth: usize, r: usize, max_part: usize, e: u64) -> Result<(), SolveError> {
        if r == 0 {
            return self.leaf(depth, e);
        }
        let w = self.width;
        for i in (2..=max_part.min(r)).rev() {
            // Pair cycles gained by one more i-cycle: floor(i/2) inside it, gcd(i, c) with each
            // existing cycle of length c.
            let mut gain = (i / 2) as u64;
            for &(c, m) in &self.parts {
                gain += m as u64 * self.gcd[i * (self.n + 1) + c];
            }
            let j = match self.parts.last_mut() {
                Some((len, mult)) if *len == i => {
                    *mult += 1;
                    *mult
                }
                _ => {
                    self.parts.push((i, 1));
                    1
                }
            };
            // class' = class * r (r-1) ... (r-i+1) / (i * j), exact at every step because the
            // result counts sets of j disjoint i-cycles.
            self.class
                .copy_within(depth * w..(depth + 1) * w, (depth + 1) * w);
            {
                let slot = &mut self.class[(depth + 1) * w..(depth + 2) * w];
                let mut chunk: u64 = 1;
                for f in (r - i + 1)..=r {
                    let f = f as u64;
                    match chunk.checked_mul(f) {
                        Some(c) => chunk = c,
                        None => {
                            mul_small(slot, chunk);
                            chunk = f;
                        }
                    }
                }
                mul_small(slot, chunk);
                div_small(slot, (i * j) as u64);
            }
            self.cycles += 1;
            let res = self.dfs(depth + 1, r - i, i, e + gain);
            self.cycles -= 1;
            match self.parts.last_mut() {
                Some((_, mult)) if *mult > 1 => *mult -= 1,
                _ => {
                    self.parts.pop();
                }
            }
            res?;
        }
        // The rest are fixed points: C(r, 2) pairs among them, one pair cycle per (fixed point,
        // existing cycle) pair; the class size is unchanged (r! / r!).
        let r64 = r as u64;
        let gain = r64 * (r64 - 1) / 2 + r64 * self.cycles;
        self.leaf(depth, e + gain)
    }
}

/// Upper bound on the bytes [`graphs_count`] allocates for `n` vertices (the answer and its
/// decimal conversion included), with a modulus of `modulus_bits` bits if any.
///
/// With `F = n log2 n` bounding the bits of `n!`, `w = ⌈(2F + 2) / 64⌉ + 1` limbs per fixed-width number and
/// `E = n(n-1)/2`: the gcd table (`8 (n+1)²`), the class sizes per depth (`8 w (n + 2)`), the sums
/// per exponent (`8 w (E + 1)`), the partition counts (`16 (n + 1)`) and the chosen parts (`16n`);
/// then big integers of at most `E + 2F + 128` bits (the weighted sum, its quotient by `n!`, the
/// decimal conversion), bounded by [`bigint_work_bytes`], and `n!` itself.
///
/// ```
/// use orbit_worker::counting::graphs_memory_estimate;
/// // The scale benchmark: n = 70: about 410 KiB.
/// assert_eq!(graphs_memory_estimate(70, None) >> 10, 410);
/// ```
pub fn graphs_memory_estimate(n: u64, modulus_bits: Option<u64>) -> u64 {
    if n <= 1 {
        return SMALL_ALLOCATIONS;
    }
    let factorial_bits = crate::group::order_bits_bound(n); // n! <= n^n
    let width = (2 * factorial_bits + 2).div_ceil(64) + 1;
    let max_e = n.saturating_mul(n - 1) / 2;
    let tables = (n + 1)
        .saturating_mul(n + 1)
        .saturating_mul(8)
        .saturating_add(width.saturating_mul(8).saturating_mul(n + 2))
        .saturating_add(width.saturating_mul(8).saturating_mul(max_e + 1))
        .saturating_add((n + 1).saturating_mul(16))
        .saturating_add(n.saturating_mul(16));
    let bits = max_e
        .saturating_add(2 * factorial_bits)
        .saturating_add(128)
        .max(modulus_bits.unwrap_or(0));
    tables
        .saturating_add(bigint_work_bytes(bits, 3))
        .saturating_add(2 * bigint_bytes(factorial_bits))
        .saturating_add(SMALL_ALLOCATIONS)
}

/// The number of unlabelled graphs on `n` vertices (OEIS A000088), exactly or modulo `modulus`.
///
/// Arguments: `n >= 0` vertices (0 and 1 give 1), optional `modulus` (applied to the exact
/// value, which has about `n^2/2` bits), `ctx` checked every 65,536 partitions (progress is the
/// fraction of the `p(n)` partitions done).
///
/// Returns `(1/n!) sum over partitions λ of n of (n!/z_λ) 2^e(λ)`.
///
/// Complexity: O(p(n) * n) word operations for the search (p(70) = 4,087,968), plus
/// O(n^2) big additions of O(n^2)-bit numbers at the end.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::graphs_count;
/// let ctx = SolveContext::detached();
/// assert_eq!(graphs_count(4, None, &ctx).unwrap(), 11u32.into());
/// ```
///
/// Reference: F. Harary and E. Palmer, *Graphical Enumeration* (1973), §4.1; OEIS A000088.
pub fn graphs_count(
    n: u64,
    modulus: Option<&BigUint>,
    ctx: &SolveContext,
) -> Result<BigUint, SolveError> {
    if n <= 1 {
        let one = BigUint::from(1u32);
        return Ok(match modulus {
            Some(m) => one % m,
            None => one,
        });
    }
    let n_us = usize::try_from(n).map_err(|_| {
        SolveError::limit("count.n", "count_n_usize", usize::MAX as u64).requested(n)
    })?;
    let n_fact = factorial(n);
    // Intermediate class sizes stay below n! * n! (the class size times a falling factorial).
    let bits = 2 * n_fact.bits() + 2;
    let width = (bits as usize).div_ceil(64) + 1;
    let max_e = n_us * (n_us - 1) / 2;
    let mut gcd = vec![0u64; (n_us + 1) * (n_us + 1)];
    for a in 0..=n_us {
        for b in 0..=n_us {
            gcd[a * (n_us + 1) + b] = super::arith::gcd(a as u64, b as u64);
        }
    }
    let mut class = vec![0u64; (n_us + 2) * width];
    class[0] = 1;
    let mut search = Search {
        width,
        gcd,
        n: n_us,
        sums: vec![0u64; (max_e + 1) * width],
        class,
        parts: Vec::with_capacity(n_us),
        cycles: 0,
        leaves: 0,
        total_leaves: partition_count(n).map_or(f64::MAX, |p| p as f64),
        ctx,
    };
    search.dfs(0, n_us, n_us, 0)?;
    ctx.check()?;
    let mut total = BigUint::default();
    for e in (0..=max_e).rev() {
        let limbs = &search.sums[e * width..(e + 1) * width];
        if limbs.iter().all(|&x| x == 0) {
            continue;
        }
        let digits: Vec<u32> = limbs
            .iter()
            .flat_map(|&x| [x as u32, (x >> 32) as u32])
            .collect();
        total += BigUint::new(digits) << e;
    }
    let count = total / n_fact;
    Ok(match modulus {
        Some(m) => count % m,
        None => count,
    })
}
