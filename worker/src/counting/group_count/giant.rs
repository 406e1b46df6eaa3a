//! Closed forms for the giants: colourings under a proven `Sym(d)` or `Alt(d)` counted by
//! binomials (multisets of colours), and their cycle indices by the partitions of `d`.

use num_bigint::BigUint;
use num_traits::One;

use crate::context::SolveContext;
use crate::counting::arith::{binomial, factorial};
use crate::counting::cycle_index::{CycleIndex, CycleType};
use crate::error::SolveError;

/// The cycle index of `Sym(d)` (or of `Alt(d)` when `alternating`) by the partitions of `d`: the
/// class of cycle type `λ` has `d!/z_λ` elements, `z_λ = prod_i i^{m_i} m_i!`; `Alt(d)` keeps
/// the even classes (for `d >= 2`).
///
/// Arguments: `d` points; `alternating`; `max_types` bounds the number of partitions visited
/// (`LimitExceeded` naming `max_group_elements` beyond it); `ctx` checked every 4096 partitions.
///
/// Complexity: O(p(d) · d) big-integer operations on numbers of `O(d log d)` bits.
///
/// ```
/// use orbit_worker::{SolveContext, counting::giant_cycle_index};
/// let z = giant_cycle_index(3, false, 1000, &SolveContext::detached()).unwrap();
/// assert_eq!(z.to_string(), "(x1^3 + 3*x1*x2 + 2*x3)/6");
/// ```
///
/// Reference: R. P. Stanley, *Enumerative Combinatorics* vol. 2 (1999), Prop. 7.7.3.
pub fn giant_cycle_index(
    d: u64,
    alternating: bool,
    max_types: u64,
    ctx: &SolveContext,
) -> Result<CycleIndex, SolveError> {
    match crate::counting::graphs::partition_count(d) {
        Some(p) if p <= u128::from(max_types) => {}
        partitions => {
            let error = SolveError::limit_shown(
                format!("cycle types of the degree-{d} giant (partitions of {d})"),
                "max_group_elements",
                max_types,
                format!("{max_types} (max_group_elements)"),
            );
            // Beyond u128 the count is not computed: the requested amount is then unknown.
            return Err(match partitions {
                Some(p) => error.requested(p),
                None => error,
            });
        }
    }
    let full = factorial(d);
    let mut out: Vec<(CycleType, BigUint)> = Vec::new();
    let mut parts: Vec<(u64, u64)> = Vec::new();
    let mut visited = 0u64;
    partitions(d, d, &mut parts, &mut |parts| {
        visited += 1;
        if visited & 0xfff == 0 {
            ctx.check()?;
        }
        let t = CycleType::new(parts.iter().copied());
        if alternating && d >= 2 && !t.is_even() {
            return Ok(());
        }
        let mut z = BigUint::one();
        for &(l, m) in t.parts() {
            z *= num_traits::Pow::pow(BigUint::from(l), m);
            z *= factorial(m);
        }
        out.push((t, &full / z));
        Ok(())
    })?;
    Ok(CycleIndex::from_counts(d, out))
}

/// A callback receiving one partition as `(part, multiplicity)` pairs.
type PartitionVisitor<'a> = dyn FnMut(&[(u64, u64)]) -> Result<(), SolveError> + 'a;

/// Calls `f` on every partition of `n` into parts at most `max`, as `(part, multiplicity)`
/// pairs.
fn partitions(
    n: u64,
    max: u64,
    parts: &mut Vec<(u64, u64)>,
    f: &mut PartitionVisitor<'_>,
) -> Result<(), SolveError> {
    if n == 0 {
        return f(parts);
    }
    for p in (1..=max.min(n)).rev() {
        for m in 1..=n / p {
            parts.push((p, m));
            partitions(n - p * m, p - 1, parts, f)?;
            parts.pop();
        }
    }
    Ok(())
}

/// Word operations the incremental binomial of [`giant_count`] may take (about a quarter of a
/// second).
const MAX_BINOMIAL_WORK: f64 = (1u64 << 28) as f64;

/// Orbits of `k`-colourings of `d` points under `Sym(d)` (multisets of size `d` from `k`
/// colours: `C(d + k - 1, d)`) or `Alt(d)`: an `Sym(d)`-orbit splits in two exactly when its
/// colouring's stabiliser `prod S_{n_j}` lies in `Alt(d)`, i.e. when no colour repeats, adding
/// `C(k, d)` for `d >= 2`.
///
/// Returns `LimitExceeded` when the binomial, computed exactly with `min(d, k - 1)` small steps on
/// a growing number, would take more than [`MAX_BINOMIAL_WORK`] word operations (huge `d` and
/// `k` together; a modulus does not help, the value is computed exactly).
pub(crate) fn giant_count(d: u64, k: u64, alternating: bool) -> Result<BigUint, SolveError> {
    let steps = d.min(k - 1) as f64;
    let bits = steps * ((d as f64) + (k as f64)).log2();
    if steps * (bits / 64.0 + 1.0) > MAX_BINOMIAL_WORK {
        return Err(SolveError::limit_shown(
            format!(
                "the exact Sym/Alt count C(d + k - 1, d) for d = {d}, k = {k} (about {} bits)",
                bits.ceil()
            ),
            "giant_binomial_word_operations",
            MAX_BINOMIAL_WORK as u64,
            format!("{MAX_BINOMIAL_WORK} word operations"),
        )
        .requested((steps * (bits / 64.0 + 1.0)).ceil() as u64));
    }
    let mut c = binomial(u128::from(d) + u128::from(k) - 1, u128::from(d));
    if alternating && d >= 2 {
        c += binomial(u128::from(k), u128::from(d));
    }
    Ok(c)
}

/// Orbits of colourings with content `content` under `Sym(d)` (one) or `Alt(d)` (two when every
/// colour is used at most once and `d >= 2`, else one).
pub(crate) fn giant_count_with_content(d: u64, content: &[u64], alternating: bool) -> BigUint {
    if alternating && d >= 2 && content.iter().all(|&c| c <= 1) {
        BigUint::from(2u32)
    } else {
        BigUint::one()
    }
}
