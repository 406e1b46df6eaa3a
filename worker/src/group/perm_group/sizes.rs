//! Size checks and memory estimates of building a [`PermGroup`](super::PermGroup): the limits a group job is
//! checked against before allocating, the bytes its construction holds besides the stabiliser
//! chain (including the giant-product attempt), and the chain's budget.

use crate::error::SolveError;
use crate::group::invariant_lines::line_search_bytes;
use crate::limits::Limits;
use crate::memory::{SMALL_ALLOCATIONS, bigint_work_bytes};

/// Checks a group's sizes against `limits` before anything proportional to them is allocated.
///
/// Arguments: the degree `d` and the number of permutations of that degree the job holds
/// (generators plus candidates).
///
/// Returns [`SolveError::LimitExceeded`] if `d > limits.max_degree` or
/// `d · permutations > limits.max_permutation_entries`.
///
/// Complexity: O(1).
///
/// ```
/// use orbit_worker::{Limits, group::check_group_sizes};
/// let limits = Limits::default();
/// assert!(check_group_sizes(100, 10, &limits).is_ok());
/// assert!(check_group_sizes(limits.max_degree + 1, 1, &limits).is_err());
/// ```
///
/// Reference: none (resource policy of Orbit).
pub fn check_group_sizes(
    degree: u64,
    permutations: u64,
    limits: &Limits,
) -> Result<(), SolveError> {
    if degree > limits.max_degree {
        return Err(SolveError::limit(
            format!("group degree {degree}"),
            "max_degree",
            limits.max_degree,
        )
        .requested(degree));
    }
    let entries = degree.saturating_mul(permutations);
    if entries > limits.max_permutation_entries {
        return Err(SolveError::limit(
            format!(
                "permutation entries {entries} (degree {degree} x {permutations} permutations)"
            ),
            "max_permutation_entries",
            limits.max_permutation_entries,
        )
        .requested(entries));
    }
    Ok(())
}

/// Upper bound on `log2(d!)`, the bits of the order of any group of degree `d` (`d! <= d^d`).
pub(crate) fn order_bits_bound(degree: u64) -> u64 {
    if degree < 2 {
        return 1;
    }
    let d = degree as f64;
    (d * d.log2()).ceil() as u64 + 1
}

/// Upper bound on the bytes [`PermGroup::new`](super::PermGroup::new) allocates for `generators` permutations of degree
/// `degree` besides its stabiliser chain, which is charged against
/// `limits.max_group_chain_bytes` as it grows (see [`chain_budget`]). Derived from the
/// allocations of each step, `d` the degree and `k` the generators:
/// * the orbits (a grown vector per orbit and of the orbits: `65d`), the moved points (`13d`),
///   the generators restricted to them (`k (4d + 16)`);
/// * a cyclic group (`38d`: the generator, each point's cycle and position, the cycles and the
///   levels);
/// * giant recognition: the first orbit (`11d`) and the product-replacement state (`max(10, k) + 3`
///   permutations: slots, accumulator, scratch and a temporary), then `d!`;
/// * Schreier–Sims outside the charged chain: its own product replacement, the first orbit,
///   sifting buffers, a residue before it is charged, an orbit search, a tree rebuild's depths
///   and a representative (`54d`), and the order certificates and level proofs, one at a time
///   (two cyclic groups, the orbit labels and queues of the one-generator lemma, a random
///   sub-chain's scratch: `232d`); the permutations these proofs hold and their sub-chains are
///   charged to the chain's budget and counted in [`PermGroup::chain_bytes`](super::PermGroup::chain_bytes);
/// * the base (`4d`), the order and, when the base is long enough to decide `Sym`/`Alt`, `d!`
///   computed once more: big integers of at most `d log2 d` bits (see
///   [`bigint_work_bytes`](crate::memory::bigint_work_bytes));
/// * for a transitive group of degree 100..20,000 with at most 32 generators, the search for a
///   faithful action on invariant lines and the group of that action ([`line_search_bytes`],
///   then this estimate at half the degree);
/// * for an intransitive group, the giant-product attempt (`giant_product_memory_estimate`):
///   while it runs none of the cyclic group's, giant recognition's or Schreier–Sims's allocations
///   above are alive, and its own product replacement, its orbits on the moved points, the copy
///   of the generators for a group on the other orbits and that group's restriction of them fit
///   in theirs; on top come its point tables, the generators moving each orbit, the parity
///   vectors and the factorials of its classes. The groups it builds on the other orbits charge
///   their construction (this estimate without the attempt) to the chain budget with their
///   chains.
///
/// ```
/// use orbit_worker::group::perm_group_memory_estimate;
/// // Sym(10,000) from two generators: about 24 MiB (13 of them for a search for invariant lines).
/// assert_eq!(perm_group_memory_estimate(10_000, 2) >> 20, 24);
/// ```
pub fn perm_group_memory_estimate(degree: u64, generators: u64) -> u64 {
    let (d, k) = (degree, generators);
    single_group_memory_estimate(d, k).saturating_add(giant_product_memory_estimate(d, k))
}

/// [`perm_group_memory_estimate`] without the giant-product attempt: a bound for the groups the
/// attempt builds on the other orbits, which never try it again.
pub(crate) fn single_group_memory_estimate(degree: u64, generators: u64) -> u64 {
    let (d, k) = (degree, generators);
    let replacement = d
        .saturating_mul(4)
        .saturating_mul(k.max(10) + 3)
        .saturating_add(k.max(10).saturating_mul(16));
    let order_bits = order_bits_bound(d);
    d.saturating_mul(65 + 13 + 38 + 11 + 54 + 232 + 4)
        .saturating_add(k.saturating_mul(4 * d + 16 + 8 + 16))
        .saturating_add(replacement.saturating_mul(2))
        .saturating_add(bigint_work_bytes(order_bits, 2).saturating_mul(2))
        .saturating_add(line_action_bytes(d, k))
        .saturating_add(SMALL_ALLOCATIONS)
}

/// The search for an action on invariant lines ([`line_search_bytes`]), then, when it succeeds,
/// the group of that action (fewer than `d / 2` points) outside its chain: the search's
/// temporaries are freed before that group is built (its generators are counted in its own
/// estimate), and its chain is charged to the same chain budget and dropped, with the group,
/// before the main chain is built. So the larger of the two.
fn line_action_bytes(degree: u64, generators: u64) -> u64 {
    match line_search_bytes(degree, generators) {
        0 => 0,
        search => search.max(single_group_memory_estimate(degree / 2, generators)),
    }
}

/// The stabiliser chain's budget for a job whose other allocations are bounded by `other_bytes`:
/// `limits.max_group_chain_bytes`, but never more than what is left of `limits.max_job_memory`,
/// so that the job's whole footprint stays within its memory limit.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::group::chain_budget;
/// let limits = Limits { max_group_chain_bytes: 1 << 30, max_job_memory: 1 << 29, ..Limits::default() };
/// assert_eq!(chain_budget(&limits, 1 << 20), (1 << 29) - (1 << 20));
/// ```
pub fn chain_budget(limits: &Limits, other_bytes: u64) -> u64 {
    limits
        .max_group_chain_bytes
        .min(limits.max_job_memory.saturating_sub(other_bytes))
}

/// Upper bound on the bytes [`recognise_giant_product`](super::giant_product::recognise_giant_product) allocates for `generators` permutations of
/// degree `degree` beyond what [`PermGroup::new`](super::PermGroup::new)'s other steps are already charged for (see
/// [`perm_group_memory_estimate`]: the product replacement,
/// the orbits on the moved points and the generators copied for a group on the other orbits fit
/// in the allocations of the steps that are not running meanwhile): the point tables (`205d`:
/// the linkage search's maps, invariants, signatures, anchor counts and queue, the classes'
/// copies, the rest and its orbits), the generators moving each giant orbit (`k d` bytes: at
/// most `d/8` such orbits), the parity vectors and the echelon basis (`(k + d/8) (d/512 + 40)`
/// bytes: at most `d/8` classes), and the factorials and the order (big integers of at most
/// `d log2 d` bits). The groups built on the other orbits are charged, construction and chain,
/// to the chain budget.
///
/// Complexity: O(1).
pub(crate) fn giant_product_memory_estimate(degree: u64, generators: u64) -> u64 {
    let (d, k) = (degree, generators);
    let tables = d.saturating_mul(205);
    let active = k
        .saturating_mul(d / 8 + 1)
        .saturating_mul(8)
        .saturating_add(d.saturating_mul(12));
    let vectors = k.saturating_add(d / 8 + 1).saturating_mul(d / 512 + 40);
    tables
        .saturating_add(active)
        .saturating_add(vectors)
        .saturating_add(bigint_work_bytes(order_bits_bound(d), 3))
}
