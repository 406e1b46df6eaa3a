//! Number theory and exact-sum helpers shared by the counting families: factorisation of `u64`,
//! divisors with Euler's phi, and [`BurnsideSum`], the accumulator that turns
//! `sum of (coefficient * k^exponent)` over a group into `sum / |G|`, exactly or modulo `M`.

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};

use crate::memory::{bigint_work_bytes, grown_vec_bytes};

/// Greatest common divisor of two `u64`s (`gcd(0, 0) = 0`).
pub(crate) fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `a * b mod m` without overflow.
fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(m)) as u64
}

/// `a^e mod m` for `m >= 1`.
fn pow_mod(mut a: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1 % m;
    a %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, a, m);
        }
        a = mul_mod(a, a, m);
        e >>= 1;
    }
    r
}

/// Deterministic Miller-Rabin for all `u64` (the first twelve primes as witnesses suffice below
/// 3.3 * 10^24).
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    const WITNESSES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    for p in WITNESSES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'witness: for a in WITNESSES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'witness;
            }
        }
        return false;
    }
    true
}

/// One non-trivial factor of the odd composite `n` (Pollard's rho with Brent's cycle finding).
fn pollard_rho(n: u64) -> u64 {
    let mut c = 1u64;
    loop {
        let f = |x: u64| (mul_mod(x, x, n) + c) % n;
        let (mut x, mut y, mut d) = (2u64, 2u64, 1u64);
        while d == 1 {
            x = f(x);
            y = f(f(y));
            d = gcd(x.abs_diff(y), n);
        }
        if d != n {
            return d;
        }
        c += 1;
    }
}

/// The prime factorisation of `n >= 1` as `(prime, exponent)` pairs in increasing order.
///
/// Trial division by primes below 1000, then Miller-Rabin and Pollard's rho for what is left:
/// fast for every `u64`.
pub(crate) fn factorize(n: u64) -> Vec<(u64, u32)> {
    let mut primes: Vec<u64> = Vec::new();
    let mut rest = n;
    let mut p = 2u64;
    while p < 1000 && p * p <= rest {
        while rest.is_multiple_of(p) {
            primes.push(p);
            rest /= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    let mut stack = Vec::new();
    if rest > 1 {
        stack.push(rest);
    }
    while let Some(m) = stack.pop() {
        if is_prime(m) {
            primes.push(m);
        } else {
            let f = pollard_rho(m);
            stack.push(f);
            stack.push(m / f);
        }
    }
    primes.sort_unstable();
    let mut out: Vec<(u64, u32)> = Vec::new();
    for q in primes {
        match out.last_mut() {
            Some((last, e)) if *last == q => *e += 1,
            _ => out.push((q, 1)),
        }
    }
    out
}

/// All divisors `d` of `n >= 1` with Euler's `phi(d)`, in increasing order of `d`.
pub(crate) fn divisors_with_phi(n: u64) -> Vec<(u64, u64)> {
    let mut out = vec![(1u64, 1u64)];
    for (p, e) in factorize(n) {
        let len = out.len();
        let mut pk = 1u64;
        for k in 1..=e {
            let phi_pk = pk * (p - 1);
            pk *= p;
            for i in 0..len {
                let (d, phi) = out[i];
                out.push((d * pk, phi * phi_pk));
            }
            let _ = k;
        }
    }
    out.sort_unstable();
    out
}

/// `k^e` exactly (a shift when `k` is a power of two).
pub(crate) fn pow_big(k: u64, e: u64) -> BigUint {
    if k.is_power_of_two() {
        let shift = u64::from(k.trailing_zeros()) * e;
        return BigUint::one() << shift;
    }
    if k <= 1 {
        return if k == 1 || e == 0 {
            BigUint::one()
        } else {
            BigUint::zero()
        };
    }
    num_traits::Pow::pow(BigUint::from(k), e)
}

/// Approximate number of bits of `k^e` (rounded up; 0 for `k <= 1`).
pub(crate) fn pow_bits(k: u64, e: u64) -> f64 {
    if k <= 1 {
        0.0
    } else {
        (e as f64) * (k as f64).log2()
    }
}

/// Upper bound on the number of divisors of `n`: at most `2 √n`, and no `u64` has more than
/// 103,680.
pub(crate) fn divisor_count_bound(n: u64) -> u64 {
    (2 * n.isqrt() + 1).min(103_680)
}

/// Upper bound on the bytes of [`divisors_with_phi`]`(n)`: its `(divisor, phi)` pairs in a grown
/// vector, plus the factorisation's few words.
pub(crate) fn divisors_memory_estimate(n: u64) -> u64 {
    grown_vec_bytes(divisor_count_bound(n), 16).saturating_add(1024)
}

/// Upper bound on the bytes a [`BurnsideSum`] allocates (its powers, accumulator and quotient,
/// and the decimal conversion of the answer) for a group of at most `order_bits` bits and
/// exponents at most `max_exponent`, with `k` colours and optionally a modulus of
/// `modulus_bits` bits.
///
/// Exactly, every number is below `|G| · k^max_exponent` (the sum of at most `|G|` terms); modulo
/// `M`, below `|G| · M`. At most three such numbers are held between operations (the accumulator,
/// a term, the answer); each operation is bounded by [`bigint_work_bytes`].
pub(crate) fn burnside_memory_estimate(
    k: u64,
    max_exponent: u64,
    order_bits: u64,
    modulus_bits: Option<u64>,
) -> u64 {
    let bits = match modulus_bits {
        Some(m) => m.saturating_add(order_bits).saturating_add(64),
        None => (pow_bits(k, max_exponent).ceil() as u64)
            .saturating_add(order_bits)
            .saturating_add(64),
    };
    bigint_work_bytes(bits, 4)
}

/// Accumulates a Burnside sum `S = sum coefficient * k^exponent` over a group `G` and returns the
/// number of orbits `S / |G|`, exactly or modulo `M`.
///
/// With a modulus the sum is kept modulo `|G| * M`: because `|G|` divides the exact `S`,
/// `(S mod |G|M) / |G| = (S / |G|) mod M`, so the residue is exact without ever forming `S`
/// (powers are taken with modular exponentiation).
#[derive(Debug)]
pub(crate) struct BurnsideSum {
    k: BigUint,
    k_small: u64,
    order: BigUint,
    /// `|G| * M` when a modulus was given.
    reduce: Option<BigUint>,
    modulus: Option<BigUint>,
    acc: BigUint,
}

impl BurnsideSum {
    /// A sum over a group of `order` elements with `k` colours, optionally modulo `modulus`.
    pub(crate) fn new(k: u64, order: BigUint, modulus: Option<&BigUint>) -> Self {
        let reduce = modulus.map(|m| &order * m);
        Self {
            k: BigUint::from(k),
            k_small: k,
            order,
            reduce,
            modulus: modulus.cloned(),
            acc: BigUint::zero(),
        }
    }

    /// Adds `coefficient * k^exponent`.
    pub(crate) fn add(&mut self, coefficient: &BigUint, exponent: u64) {
        match &self.reduce {
            None => {
                let term = pow_big(self.k_small, exponent) * coefficient;
                self.acc += term;
            }
            Some(r) => {
                let p = self.k.modpow(&BigUint::from(exponent), r);
                self.acc = (&self.acc + p * (coefficient % r)) % r;
            }
        }
    }

    /// Adds `coefficient * k^exponent` for a machine-word coefficient.
    pub(crate) fn add_small(&mut self, coefficient: u64, exponent: u64) {
        if coefficient != 0 {
            self.add(&BigUint::from(coefficient), exponent);
        }
    }

    /// Adds an already computed term `value` (exact; reduced here when a modulus is set).
    pub(crate) fn add_value(&mut self, value: &BigUint) {
        match &self.reduce {
            None => self.acc += value,
            Some(r) => self.acc = (&self.acc + value % r) % r,
        }
    }

    /// `S / |G|`, reduced modulo `M` when a modulus was given.
    pub(crate) fn finish(self) -> BigUint {
        let (q, rem) = self.acc.div_rem(&self.order);
        debug_assert!(
            rem.is_zero(),
            "Burnside sum not divisible by the group order"
        );
        match &self.modulus {
            Some(m) => q % m,
            None => q,
        }
    }
}

/// Binomial coefficient `C(n, r)` exactly (`n` as `u128` so that `d + k - 1` cannot overflow).
///
/// Complexity: `min(r, n - r)` small multiplications and divisions of a growing big integer.
pub(crate) fn binomial(n: u128, r: u128) -> BigUint {
    if r > n {
        return BigUint::zero();
    }
    let r = r.min(n - r);
    let mut acc = BigUint::one();
    for i in 0..r {
        acc *= n - i;
        acc /= i + 1;
    }
    acc
}

/// `n!` by a balanced product tree (fast for n in the hundred thousands).
pub(crate) fn factorial(n: u64) -> BigUint {
    fn range_product(lo: u64, hi: u64) -> BigUint {
        // Product of lo..=hi.
        if lo > hi {
            return BigUint::one();
        }
        if hi - lo < 16 {
            let mut acc = BigUint::one();
            for k in lo..=hi {
                acc *= k;
            }
            return acc;
        }
        let mid = lo + (hi - lo) / 2;
        range_product(lo, mid) * range_product(mid + 1, hi)
    }
    range_product(2, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factorial_small() {
        assert_eq!(factorial(0), BigUint::one());
        assert_eq!(factorial(1), BigUint::one());
        assert_eq!(factorial(20).to_string(), "2432902008176640000");
        assert_eq!(
            factorial(40),
            (1..=40u32).map(BigUint::from).product::<BigUint>()
        );
    }

    #[test]
    fn factorisation_and_phi() {
        assert_eq!(factorize(1), vec![]);
        assert_eq!(factorize(360), vec![(2, 3), (3, 2), (5, 1)]);
        let big = 1_000_000_007u64 * 998_244_353u64;
        assert_eq!(factorize(big), vec![(998_244_353, 1), (1_000_000_007, 1)]);
        assert_eq!(
            factorize(u64::MAX),
            vec![
                (3, 1),
                (5, 1),
                (17, 1),
                (257, 1),
                (641, 1),
                (65537, 1),
                (6700417, 1)
            ]
        );
        let d = divisors_with_phi(12);
        assert_eq!(d, vec![(1, 1), (2, 1), (3, 2), (4, 2), (6, 2), (12, 4)]);
        for n in 1..300u64 {
            let s: u64 = divisors_with_phi(n).iter().map(|&(_, p)| p).sum();
            assert_eq!(s, n, "sum of phi over divisors of {n}");
        }
    }

    #[test]
    fn modular_sum_matches_exact() {
        let order = BigUint::from(6u32);
        let m = BigUint::from(1000u32);
        let mut exact = BurnsideSum::new(3, order.clone(), None);
        let mut modular = BurnsideSum::new(3, order, Some(&m));
        for (c, e) in [(1u64, 20u64), (3, 10), (2, 7)] {
            exact.add_small(c, e);
            modular.add_small(c, e);
        }
        assert_eq!(exact.finish() % &m, modular.finish());
    }
}
