//! Proving that a group is the full alternating or symmetric group ("giant") without a
//! stabiliser chain.
//!
//! **Proof used.** Let `G ≤ Sym(d)` be transitive and contain a `p`-cycle for a prime `p` with
//! `d/2 < p ≤ d-3`. Then `G` is primitive: a `p`-cycle `c` permutes the blocks of a block system;
//! it cannot move blocks (that would need at least `p > d/2` blocks, i.e. blocks of size 1), so
//! it fixes every block, and its one non-trivial cycle — an orbit of `<c>` — lies in a single
//! block, which therefore has more than `d/2` points and is everything. By Jordan's theorem
//! (1873) a primitive group containing a `p`-cycle with `p ≤ d-3` contains `Alt(d)`. So
//! `G = Sym(d)` if some generator is odd and `G = Alt(d)` otherwise.
//!
//! **Finding the `p`-cycle.** A random element with a cycle of length `p` (`p > d/2`) has exactly
//! one such cycle and all its other cycle lengths are prime to `p`, so a suitable power of it is
//! a `p`-cycle; seeing such a cycle in an element of `G` is therefore the proof. In `Alt(d)` and
//! `Sym(d)` about `ln 2 / ln d` of the elements qualify, so a few hundred random elements
//! (product replacement) find one with overwhelming probability. Not finding one proves nothing
//! and the caller falls back to Schreier–Sims, which is exact. At large degree the search stops
//! early on a run of elements with at most two distinct cycle lengths (see
//! [`PLAIN_MIN_DEGREE`]), as the elements of small-base groups such as PSL(2, p) look, or
//! without a cycle longer than `d/2` (see [`SHORT_STREAK`]), which about `ln 2` of a giant's
//! elements have.
//!
//! Reference: Seress, *Permutation Group Algorithms* (2003), §10.2 (giant recognition, Theorem
//! 10.2.1 and Lemma 10.2.3); Jordan (1873); GAP's `IsNaturalSymmetricGroup`.

use num_bigint::BigUint;

use super::orbits::orbit_of_point;
use super::perm::Perm;
use super::product_replacement::ProductReplacement;
use crate::context::SolveContext;
use crate::counting::arith::factorial;
use crate::error::SolveError;

/// Which giant a group was proven to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Giant {
    Symmetric,
    Alternating,
}

impl Giant {
    /// Which giant a group acting transitively on `points` points is, by its order: `Sym` for
    /// `points!`, `Alt` for `points!/2` (for fewer than three points the two coincide or are
    /// trivial: callers ask from 3 or 5 on).
    pub(crate) fn of_order(order: &BigUint, points: usize) -> Option<Giant> {
        let full = factorial(points as u64);
        if *order == full {
            Some(Giant::Symmetric)
        } else if order * 2u32 == full {
            Some(Giant::Alternating)
        } else {
            None
        }
    }
}

/// Smallest degree with a prime in `(d/2, d-3]` (d = 8, p = 5).
pub(crate) const MIN_DEGREE: usize = 8;

/// Tries to prove `<generators>` is `Alt(d)` or `Sym(d)`; `Ok(None)` when it could not (which
/// proves nothing).
///
/// Complexity: O(d · (|generators| + T)) for T random elements, T = O(log d).
pub(crate) fn recognise_giant(
    degree: usize,
    generators: &[Perm],
    seed: u64,
    ctx: &SolveContext,
) -> Result<Option<Giant>, SolveError> {
    if degree < MIN_DEGREE {
        return Ok(None);
    }
    if orbit_of_point(degree, generators, 0).len() != degree {
        return Ok(None);
    }
    let good = prime_lengths(degree);
    let mut pr = ProductReplacement::new(degree, generators, seed, ctx)?;
    let mut seen = vec![false; degree];
    let tries = tries_for(degree);
    // Consecutive "plain" elements (at most two distinct cycle lengths), and consecutive
    // elements without a cycle longer than d/2.
    let mut plain = 0;
    let mut short = 0;
    for t in 0..tries {
        if t % 16 == 0 {
            ctx.check()?;
        }
        let g = pr.next_element().images();
        let scan = scan_cycles(g, &good, &mut seen);
        let found = scan.found;
        plain = if scan.distinct <= 2 { plain + 1 } else { 0 };
        short = if 2 * scan.longest <= degree {
            short + 1
        } else {
            0
        };
        if !found && degree >= PLAIN_MIN_DEGREE && (plain >= PLAIN_STREAK || short >= SHORT_STREAK)
        {
            return Ok(None);
        }
        if found {
            let odd = generators.iter().any(|g| !g.is_even());
            return Ok(Some(if odd {
                Giant::Symmetric
            } else {
                Giant::Alternating
            }));
        }
    }
    Ok(None)
}

/// Below this degree a giant that is not recognised costs little (its Schreier–Sims takes about
/// a millisecond), so fewer random elements are tried: most groups of small degree are not
/// giants, and each of them pays for every try.
const CHEAP_CHAIN_DEGREE: usize = 128;

/// Random elements to try: enough that a giant fails with probability below about 1e-12, or
/// below [`CHEAP_CHAIN_DEGREE`] about 1e-5 (a miss proves nothing and only costs the chain).
pub(crate) fn tries_for(degree: usize) -> usize {
    let ln = (degree as f64).ln();
    // Proportion of qualifying elements is about ln 2 / ln d; (1 - q)^T <= e^{-qT}; qT >= 28
    // (or >= 11 for a cheap chain).
    if degree < CHEAP_CHAIN_DEGREE {
        (24.0 + 16.0 * ln) as usize
    } else {
        (64.0 + 40.0 * ln) as usize
    }
}

/// `good[len]` is true when `len` is a prime with `d/2 < len <= d-3`.
fn prime_lengths(d: usize) -> Vec<bool> {
    prime_sieve(d)
        .into_iter()
        .enumerate()
        .map(|(len, prime)| prime && 2 * len > d && len + 3 <= d)
        .collect()
}

/// `sieve[x]` is true when `x` is prime, for `x` in `0..=n` (Eratosthenes).
///
/// Complexity: O(n log log n).
pub(crate) fn prime_sieve(n: usize) -> Vec<bool> {
    let d = n;
    let mut sieve = vec![true; d + 1];
    sieve[0] = false;
    if d >= 1 {
        sieve[1] = false;
    }
    let mut i = 2;
    while i * i <= d {
        if sieve[i] {
            let mut k = i * i;
            while k <= d {
                sieve[k] = false;
                k += i;
            }
        }
        i += 1;
    }
    sieve
}

/// From this degree on a group is given up early (not proven giant, which proves nothing) after
/// [`PLAIN_STREAK`] consecutive random elements with at most two distinct cycle lengths: every
/// element of a dihedral, cyclic, affine `AGL(1,p)` or `PSL(2,p)` action looks like that, while
/// in `Sym(n)` or `Alt(n)`, `n >= 100`, at most about 10% of the elements do (1.3% at
/// `n = 1000`), so a giant is given up with probability below about `10^-12` — and then only
/// its Schreier–Sims is slower. Without it a non-giant group of degree 10^5 pays for some 500
/// random elements first.
pub(crate) const PLAIN_MIN_DEGREE: usize = 100;
/// Consecutive random elements with at most two distinct cycle lengths after which a group (or,
/// in a giant product, an orbit) is given up.
pub(crate) const PLAIN_STREAK: usize = 12;

/// Consecutive random elements without a cycle longer than `d/2` after which a group of degree at
/// least [`PLAIN_MIN_DEGREE`] is given up (not proven giant, which proves nothing). In `Sym(d)`
/// the elements with such a cycle are a proportion `Σ_{d/2 < k <= d} 1/k`, about `ln 2` (0.688
/// at `d = 100`), and in `Alt(d)` the same up to `2/d`, so a giant shows none in 32 elements with
/// probability below `0.32^32 < 10^-15`; the point stabilisers of most primitive groups of large
/// degree (PSL(6,2) on the 1,395 planes of PG(5,2): element orders at most 63) have none, and
/// then paid for all [`tries_for`] elements.
const SHORT_STREAK: usize = 32;

/// What [`scan_cycles`] saw of a permutation, up to the first cycle of a marked length.
struct CycleScan {
    /// A cycle of a marked length was found.
    found: bool,
    /// Distinct cycle lengths (fixed points included), counted up to three.
    distinct: usize,
    /// The longest cycle.
    longest: usize,
}

/// Whether the permutation `g` has a cycle whose length is marked in `good`, how many distinct
/// cycle lengths (fixed points included) it has up to that cycle, counted up to three, and its
/// longest cycle up to there.
///
/// Complexity: O(d).
fn scan_cycles(g: &[u32], good: &[bool], seen: &mut [bool]) -> CycleScan {
    seen.fill(false);
    let mut lengths = [0usize; 3];
    let mut distinct = 0;
    let mut longest = 0;
    for start in 0..g.len() {
        if seen[start] {
            continue;
        }
        let mut len = 0usize;
        let mut x = start;
        while !seen[x] {
            seen[x] = true;
            len += 1;
            x = g[x] as usize;
        }
        longest = longest.max(len);
        if good[len] {
            return CycleScan {
                found: true,
                distinct,
                longest,
            };
        }
        if distinct < 3 && !lengths[..distinct].contains(&len) {
            lengths[distinct] = len;
            distinct += 1;
        }
    }
    CycleScan {
        found: false,
        distinct,
        longest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn giants_by_order_are_the_known_orders() {
        // |Sym(5)| = 120, |Alt(5)| = 60, |AGL(1,5)| = 20; |Sym(10)| = 3,628,800.
        let of = |order: u32, points| Giant::of_order(&BigUint::from(order), points);
        assert_eq!(of(120, 5), Some(Giant::Symmetric));
        assert_eq!(of(60, 5), Some(Giant::Alternating));
        assert_eq!(of(20, 5), None);
        assert_eq!(of(3_628_800, 10), Some(Giant::Symmetric));
        assert_eq!(of(1_814_400, 10), Some(Giant::Alternating));
    }

    #[test]
    fn scan_reports_the_longest_cycle_up_to_a_marked_one() {
        // (0 1 2 3 4)(5 6) on 10 points, fixed points 7, 8, 9: lengths 5, 2, 1.
        let g = [1, 2, 3, 4, 0, 6, 5, 7, 8, 9];
        let mut seen = vec![false; 10];
        let none = vec![false; 11];
        let scan = scan_cycles(&g, &none, &mut seen);
        assert!(!scan.found);
        assert_eq!((scan.distinct, scan.longest), (3, 5));
        // With length 2 marked the scan stops at (5 6), after the 5-cycle.
        let mut two = vec![false; 11];
        two[2] = true;
        let scan = scan_cycles(&g, &two, &mut seen);
        assert!(scan.found);
        assert_eq!((scan.distinct, scan.longest), (1, 5));
    }

    #[test]
    fn prime_window() {
        let g = prime_lengths(10);
        let lens: Vec<usize> = (0..=10).filter(|&l| g[l]).collect();
        assert_eq!(lens, vec![7]);
        assert!(prime_lengths(7).iter().all(|&b| !b));
        let g = prime_lengths(8);
        assert_eq!((0..=8).filter(|&l| g[l]).collect::<Vec<_>>(), vec![5]);
    }
}
