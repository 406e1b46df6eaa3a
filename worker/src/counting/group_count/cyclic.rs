//! Counting under a cyclic group `<g>` by the divisors of its order (the cyclic group's cycle
//! index from the cycle type of one generator), without enumerating it or building a chain.

use num_bigint::BigUint;
use num_traits::One;

use crate::context::SolveContext;
use crate::counting::arith::{BurnsideSum, factorize};
use crate::counting::cycle_index::{CycleIndex, CycleType, cycle_index_term_bytes};
use crate::error::SolveError;
use crate::group::Perm;
use crate::limits::Limits;
use crate::memory::MemoryBudget;

use super::{CountRequest, GroupCount};

/// Most `divisors x distinct cycle lengths x primes` steps [`count_cyclic`] takes before leaving
/// the group to the general path.
const MAX_CYCLIC_WORK: u128 = 1 << 31;

/// Counts under the cyclic group `<g>` by the divisors of its order, without enumerating it.
///
/// With `N = lcm` of the cycle lengths of `g`, the element `g^i` depends (up to its cycle type)
/// only on `t = gcd(i, N)`, which occurs for `phi(N/t)` exponents `i`; a cycle of length `L`
/// splits under `g^t` into `gcd(t, L)` cycles of length `L / gcd(t, L)`. So
/// `Z(<g>) = (1/N) sum over t | N of phi(N/t) prod_L x_{L/gcd(t,L)}^{m_L gcd(t,L)}`.
///
/// Returns `None` (the caller then builds the group) when the divisor sum would take more than
/// [`MAX_CYCLIC_WORK`] steps or more divisors than `limits.max_group_elements`.
///
/// Complexity: O(tau(N) * distinct lengths * primes of N), plus one big power per divisor.
pub(super) fn count_cyclic(
    g: &Perm,
    request: &CountRequest<'_>,
    ctx: &SolveContext,
    limits: &Limits,
    budget: &mut MemoryBudget,
) -> Result<Option<GroupCount>, SolveError> {
    let &CountRequest {
        k,
        content,
        modulus,
        want_cycle_index,
    } = request;
    let degree = g.degree() as u64;
    let shape = CycleType::of_images(g.images());
    let lengths = shape.parts();
    // Factorisation of N = lcm of the lengths: the largest exponent of each prime.
    let mut primes: Vec<(u64, u32)> = Vec::new();
    for &(l, _) in lengths {
        for (p, e) in factorize(l) {
            match primes.iter_mut().find(|(q, _)| *q == p) {
                Some((_, f)) => *f = (*f).max(e),
                None => primes.push((p, e)),
            }
        }
    }
    primes.sort_unstable();
    let divisors: u128 = primes
        .iter()
        .try_fold(1u128, |acc, &(_, e)| acc.checked_mul(u128::from(e) + 1))
        .unwrap_or(u128::MAX);
    let work = divisors
        .saturating_mul(lengths.len() as u128)
        .saturating_mul(primes.len().max(1) as u128);
    if divisors > u128::from(limits.max_group_elements) || work > MAX_CYCLIC_WORK {
        return Ok(None);
    }
    // v_p(L) for every distinct length and prime.
    let vals: Vec<Vec<u32>> = lengths
        .iter()
        .map(|&(l, _)| {
            primes
                .iter()
                .map(|&(p, _)| {
                    let (mut x, mut v) = (l, 0);
                    while x.is_multiple_of(p) {
                        x /= p;
                        v += 1;
                    }
                    v
                })
                .collect()
        })
        .collect();
    let order: BigUint = primes
        .iter()
        .map(|&(p, e)| num_traits::Pow::pow(BigUint::from(p), e))
        .product();
    let want_types = want_cycle_index || content.is_some();
    if want_types {
        let term = cycle_index_term_bytes(lengths.len() as u64, order.bits());
        budget.charge((divisors as u64).saturating_mul(term), || {
            format!("the cycle index of the cyclic group ({divisors} terms)")
        })?;
    }
    let mut sum = BurnsideSum::new(k, order.clone(), modulus);
    let mut types: Vec<(CycleType, BigUint)> = Vec::new();
    // Odometer over the exponent vectors a of t = prod p^a_p.
    let mut a = vec![0u32; primes.len()];
    let mut visited = 0u64;
    loop {
        visited += 1;
        if visited & 0x3ff == 0 {
            ctx.check()?;
        }
        // phi(N / t) = prod over p with e_p > a_p of p^(e_p - a_p - 1) (p - 1).
        let mut phi = BigUint::one();
        for (&(p, e), &ap) in primes.iter().zip(&a) {
            if e > ap {
                phi *= num_traits::Pow::pow(BigUint::from(p), e - ap - 1) * (p - 1);
            }
        }
        let mut cycles = 0u64;
        let mut parts: Vec<(u64, u64)> = Vec::new();
        for (&(l, m), v) in lengths.iter().zip(&vals) {
            let mut gcd = 1u64;
            for ((&(p, _), &ap), &vp) in primes.iter().zip(&a).zip(v) {
                gcd *= p.pow(ap.min(vp));
            }
            cycles += m * gcd;
            if want_types {
                parts.push((l / gcd, m * gcd));
            }
        }
        if want_types {
            types.push((CycleType::new(parts), phi));
        } else {
            sum.add(&phi, cycles);
        }
        // Next exponent vector.
        let mut i = 0;
        while i < a.len() && a[i] == primes[i].1 {
            a[i] = 0;
            i += 1;
        }
        if i == a.len() {
            break;
        }
        a[i] += 1;
    }
    let cycle_index = want_types.then(|| CycleIndex::from_counts(degree, types));
    let count = match (&cycle_index, content) {
        (Some(z), Some(c)) => z.count_with_content_within(c, modulus, ctx, budget)?,
        (Some(z), None) => z.count(k, modulus),
        (None, _) => sum.finish(),
    };
    Ok(Some(GroupCount {
        count,
        group_order: order,
        kind: None,
        enumerated: 0,
        cyclic_divisors: Some(divisors as u64),
        dihedral_divisors: None,
        cycle_index: if want_cycle_index { cycle_index } else { None },
    }))
}
