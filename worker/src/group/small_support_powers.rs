//! [`small_support_powers`]: the powers of a permutation that move few points, the raw material
//! of 3-cycles found at random (Jordan elements, and commutators of elements whose supports meet
//! in one point).
//!
//! A permutation `t` with cycle lengths `ℓ_i` has order `L = lcm(ℓ_i)`. For a prime `p` whose
//! highest power in `L` is `p^a`, `t^{L/p}` is the identity on every cycle whose length `p^a`
//! does not divide and a product of `p`-cycles on the others, so it moves only the points of the
//! cycles whose length `p^a` divides; `t^{L/(p·p')}` likewise for two primes. For a random
//! permutation of degree `n` a few primes with short cycles dominate `L`, so one of these powers
//! often moves `O(√n)` points or fewer.
//!
//! # Complexity
//! [`small_support_powers`]: `O(c log ℓ)` for `c` cycles plus `O(q² · c)` for the `q` primes
//! whose own power qualifies; [`power`]: `O(n log K)`.
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §10.2 (Jordan elements as powers of random
//! elements).

use crate::counting::arith::factorize;
use crate::group::perm::{commutator, invert};

/// The largest power `K` offered (a word for `t^K` has `K` times the letters of `t`'s).
const MAX_POWER: u64 = 1 << 40;

/// The powers `K = L/p` and `K = L/(p·p')` of a permutation with these cycle `lengths` (`L`
/// their lcm) that move at most `max_support` points, with the points each moves (see the
/// module documentation); none with `K > 2^40`.
///
/// Complexity: O(c log ℓ) for `c` cycles, plus `O(q² · c)` for the `q` primes whose own power
/// qualifies.
pub(crate) fn small_support_powers(lengths: &[usize], max_support: usize) -> Vec<(u64, usize)> {
    // Per prime: its highest exponent among the lengths.
    let factored: Vec<(usize, Vec<(u64, u32)>)> = lengths
        .iter()
        .filter(|&&len| len > 1)
        .map(|&len| (len, factorize(len as u64)))
        .collect();
    let mut top: Vec<(u64, u32)> = Vec::new();
    for (_, factors) in &factored {
        for &(p, a) in factors {
            match top.iter_mut().find(|(q, _)| *q == p) {
                Some((_, b)) => *b = (*b).max(a),
                None => top.push((p, a)),
            }
        }
    }
    let mut lcm: u128 = 1;
    for &(p, a) in &top {
        match lcm.checked_mul((p as u128).pow(a)) {
            Some(l) if l <= (MAX_POWER as u128) << 20 => lcm = l,
            _ => return Vec::new(), // every K of the form L/(p·p') would be over 2^40
        }
    }
    // The points a power moves: the cycles whose length carries the top power of a dropped prime.
    let moved_by = |dropped: &[(u64, u32)]| -> usize {
        factored
            .iter()
            .filter(|(_, factors)| factors.iter().any(|f| dropped.contains(f)))
            .map(|(len, _)| *len)
            .sum()
    };
    let single: Vec<((u64, u32), usize)> = top
        .iter()
        .map(|&f| (f, moved_by(&[f])))
        .filter(|&(_, s)| s <= max_support)
        .collect();
    let mut out = Vec::new();
    for (i, &(f, s)) in single.iter().enumerate() {
        let k = lcm / f.0 as u128;
        if k <= MAX_POWER as u128 {
            out.push((k as u64, s));
        }
        for &(f2, _) in &single[i + 1..] {
            let k = lcm / (f.0 as u128 * f2.0 as u128);
            let s = moved_by(&[f, f2]);
            if k <= MAX_POWER as u128 && s <= max_support {
                out.push((k as u64, s));
            }
        }
    }
    out
}

/// `t^k` (images of `0..m`), by repeated squaring.
pub(crate) fn power(t: &[u32], mut k: u64) -> Vec<u32> {
    let mut result: Vec<u32> = (0..t.len() as u32).collect();
    let mut square = t.to_vec();
    while k > 0 {
        if k & 1 == 1 {
            result = result.iter().map(|&x| square[x as usize]).collect();
        }
        square = square.iter().map(|&x| square[x as usize]).collect();
        k >>= 1;
    }
    result
}

/// The points a permutation moves, increasing.
pub(crate) fn moved(t: &[u32]) -> Vec<u32> {
    (0..t.len() as u32)
        .filter(|&x| t[x as usize] != x)
        .collect()
}

/// `[x, x^h] = x⁻¹ · (h⁻¹xh)⁻¹ · x · h⁻¹xh`, as images (products left to right): a 3-cycle
/// when the supports of `x` and `x^h` meet in exactly one point.
///
/// Complexity: `O(n)`.
pub(crate) fn commutator_with_conjugate(x: &[u32], h: &[u32]) -> Vec<u32> {
    commutator(x, &conjugate(x, h))
}

/// `x^h = h⁻¹xh`, as images: it maps `h(p)` to `h(x(p))`.
///
/// Complexity: `O(n)`.
pub(crate) fn conjugate(x: &[u32], h: &[u32]) -> Vec<u32> {
    let h_inv = invert(h);
    (0..x.len())
        .map(|p| h[x[h_inv[p] as usize] as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_support_powers_drop_one_or_two_primes() {
        // Cycles 3, 4, 7: L = 84. Dropping 3 leaves the 3-cycle (K = 28, 3 points); dropping 7
        // leaves the 7-cycle (K = 12); dropping 2 leaves the 4-cycle as two transpositions
        // (K = 42, 4 points); pairs add their supports.
        let mut found = small_support_powers(&[3, 4, 7], 14);
        found.sort_unstable();
        assert_eq!(
            found,
            vec![(4, 10), (6, 11), (12, 7), (14, 7), (28, 3), (42, 4)]
        );
        // Over the support bound: only the 3-cycle and the 4-cycle remain.
        let mut found = small_support_powers(&[3, 4, 7], 4);
        found.sort_unstable();
        assert_eq!(found, vec![(28, 3), (42, 4)]);
    }

    #[test]
    fn commutators_and_conjugates_are_the_products_they_name() {
        use crate::group::Perm;
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut random = || {
            let mut images: Vec<u32> = (0..9).collect();
            images.shuffle(&mut rng);
            Perm::from_images(images, "test").unwrap()
        };
        for _ in 0..50 {
            let (x, y) = (random(), random());
            let conjugate_by_product = y.inverse().compose(&x).compose(&y);
            assert_eq!(
                conjugate(x.images(), y.images()),
                conjugate_by_product.images()
            );
            let commutator_by_product = x.inverse().compose(&y.inverse()).compose(&x).compose(&y);
            assert_eq!(
                commutator(x.images(), y.images()),
                commutator_by_product.images()
            );
        }
        // Supports meeting in one point: (0 1 2) and (2 3 4) give a 3-cycle.
        let x = [1, 2, 0, 3, 4];
        let y = [0, 1, 3, 4, 2];
        assert_eq!(moved(&commutator(&x, &y)).len(), 3);
    }

    #[test]
    fn powers_move_the_points_announced() {
        // (0 1 2)(3 4 5 6)(7 8 9 10 11 12 13), its powers checked against the moved points.
        let mut t: Vec<u32> = (0..14).collect();
        for cycle in [&[0u32, 1, 2][..], &[3, 4, 5, 6], &[7, 8, 9, 10, 11, 12, 13]] {
            for (i, &x) in cycle.iter().enumerate() {
                t[x as usize] = cycle[(i + 1) % cycle.len()];
            }
        }
        for (k, support) in small_support_powers(&[3, 4, 7], 14) {
            assert_eq!(moved(&power(&t, k)).len(), support, "K = {k}");
        }
    }
}
