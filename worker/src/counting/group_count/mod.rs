//! Counting colourings under any permutation group given by generators.
//!
//! The group is built by the group engine ([`PermGroup`]). A proven `Sym(d)` or `Alt(d)` is
//! counted by closed formulas (and its cycle index, when asked for, by the partitions of `d`);
//! any other group is enumerated element by element through its stabiliser chain — never stored
//! as a set — by a depth-first search over the levels that composes coset representatives
//! incrementally and tallies the elements by number of cycles (or by full cycle type when the
//! cycle index or a prescribed content is wanted). The big-integer sum over the tally is formed
//! once at the end.
//!
//! Files: `enumeration` (the stabiliser-chain enumeration and its tally), `giant` (the closed
//! forms for `Sym(d)` and `Alt(d)`), `cyclic` (one generator: the divisors of its order),
//! [`dihedral`] (the natural dihedral group recognised from its generators and counted by
//! the bracelet cycle index); this file chooses between them and holds the memory estimate.

mod cyclic;
pub mod dihedral;
mod enumeration;
mod giant;

pub use dihedral::is_natural_dihedral;
pub use enumeration::{ElementTally, enumerate_levels};
pub use giant::giant_cycle_index;

use cyclic::count_cyclic;
use dihedral::count_dihedral;
use enumeration::{enumerate_levels_within, enumeration_bytes};
use giant::{giant_count, giant_count_with_content};

use num_bigint::BigUint;

use crate::context::SolveContext;
use crate::counting::arith::{BurnsideSum, burnside_memory_estimate, divisors_memory_estimate};
use crate::counting::cycle_index::{
    CycleIndex, check_content, cycle_index_term_bytes, multinomial_bits_bound,
};
use crate::error::SolveError;
use crate::group::{GroupKind, Perm, PermGroup, chain_budget, perm_group_memory_estimate};
use crate::limits::Limits;
use crate::memory::{MemoryBudget, SMALL_ALLOCATIONS, bigint_work_bytes};

/// What [`count_group`] counts, besides the group: the colourings (`k` colours, or a prescribed
/// content) and the form of the answer (a residue, the cycle index).
///
/// ```
/// use orbit_worker::counting::CountRequest;
/// // Two colours, with the cycle index; no content, no modulus.
/// let request = CountRequest { want_cycle_index: true, ..CountRequest::colours(2) };
/// assert!(request.content.is_none() && request.modulus.is_none());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CountRequest<'a> {
    /// The number of colours (ignored when `content` is given).
    pub k: u64,
    /// If given, colour `j` must be used exactly `content[j]` times (Pólya's pattern inventory).
    pub content: Option<&'a [u64]>,
    /// If given, the count is reduced modulo it.
    pub modulus: Option<&'a BigUint>,
    /// Whether the cycle index is computed and returned.
    pub want_cycle_index: bool,
}

impl CountRequest<'_> {
    /// The plain count of colourings in `k` colours: no content, no modulus, no cycle index.
    pub fn colours(k: u64) -> Self {
        CountRequest {
            k,
            ..CountRequest::default()
        }
    }
}

/// What [`count_group`] computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupCount {
    /// The number of orbits (or its residue).
    pub count: BigUint,
    /// `|G|`.
    pub group_order: BigUint,
    /// What the engine proved the group to be; `None` when the group is cyclic (one generator)
    /// and was counted by divisors without building a stabiliser chain; `General` for a proven
    /// dihedral group (`d >= 4`: neither trivial nor a giant; no chain is built either).
    pub kind: Option<GroupKind>,
    /// Elements enumerated one by one (0 for a giant, a cyclic or a dihedral group).
    pub enumerated: u64,
    /// For a cyclic group counted by divisors: the number of divisors of its order summed over.
    pub cyclic_divisors: Option<u64>,
    /// For a group proven to be the natural dihedral group `D_d` and counted by the divisors of
    /// `d` (the bracelet cycle index): the number of divisors of `d` summed over.
    pub dihedral_divisors: Option<u64>,
    /// The cycle index, when asked for.
    pub cycle_index: Option<CycleIndex>,
}

/// Upper bound on the bytes [`count_group`] allocates for a group of degree `degree` from
/// `generators` permutations besides what is only known while it runs (the stabiliser chain, the
/// enumeration and its tally, the cycle index, the pattern inventory's tables), which is charged
/// against the chain budget (see [`count_group_memory_estimate`]):
/// * the copy of the generators the job hands over (`k (4d + 16)`) and the group's construction
///   ([`perm_group_memory_estimate`]);
/// * the shortcuts: a generator's cycle type and prime powers (`d` plus a few words per distinct
///   cycle length), the dihedral test (its product-replacement slots, up to 16 inverses and
///   products: `4d (max(10, k) + 22)`) and the divisors of `d`;
/// * the enumeration's fixed scratch, the counts by number of cycles (`40d`);
/// * big integers: the Burnside sums (numbers below `|G| k^d`, or `|G| M` with a modulus; `|G|`
///   has at most `d log2 d` bits), `Sym`/`Alt`'s binomial `C(d + k - 1, d)`, and with a content
///   the products of multinomial-sized counts by class sizes.
fn count_group_fixed_memory(
    degree: u64,
    generators: u64,
    k: u64,
    content: Option<&[u64]>,
    modulus_bits: Option<u64>,
) -> u64 {
    let (d, gens) = (degree, generators);
    let order_bits = crate::group::order_bits_bound(d);
    let colours = content.map_or(k, |c| c.len() as u64).max(1);
    let lengths = (2 * d).isqrt() + 2;
    let shortcuts = d
        .saturating_add(lengths.saturating_mul(256))
        .saturating_add(d.saturating_mul(4).saturating_mul(gens.max(10) + 22))
        .saturating_add(divisors_memory_estimate(d));
    let binomial_bits =
        (d.min(k.saturating_sub(1)) as f64 * ((d as f64) + (k as f64)).log2()).ceil() as u64 + 64;
    let content_bits = content.map_or(0, |c| {
        multinomial_bits_bound(c)
            .saturating_add(order_bits)
            .saturating_add(64)
    });
    gens.saturating_mul(4 * d + 16 + 24)
        .saturating_add(perm_group_memory_estimate(d, gens))
        .saturating_add(shortcuts)
        .saturating_add(d.saturating_mul(40))
        .saturating_add(burnside_memory_estimate(
            colours,
            d,
            order_bits,
            modulus_bits,
        ))
        .saturating_add(bigint_work_bytes(binomial_bits, 2))
        .saturating_add(if content.is_some() {
            bigint_work_bytes(content_bits, 3)
        } else {
            0
        })
        .saturating_add(SMALL_ALLOCATIONS)
}

/// Upper bound on the bytes [`count_group`] allocates (the answer included) for a group of degree
/// `degree` from `generators` permutations, `k` colours or a `content`, and a modulus of
/// `modulus_bits` bits if any: the fixed part (see the derivation on `count_group_fixed_memory`)
/// plus the budget — [`chain_budget`] — that everything only known while running is charged
/// against before it is allocated: the stabiliser chain, then the transversals and their copies
/// for the enumeration, the tally's cycle types, the cycle index, each pattern-inventory table.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::counting::count_group_memory_estimate;
/// let limits = Limits { max_job_memory: 64 << 20, ..Limits::default() };
/// // Small groups get the rest of the job's limit as their budget.
/// assert_eq!(count_group_memory_estimate(6, 2, 2, None, None, &limits), 64 << 20);
/// ```
pub fn count_group_memory_estimate(
    degree: u64,
    generators: u64,
    k: u64,
    content: Option<&[u64]>,
    modulus_bits: Option<u64>,
    limits: &Limits,
) -> u64 {
    let fixed = count_group_fixed_memory(degree, generators, k, content, modulus_bits);
    fixed.saturating_add(chain_budget(limits, fixed))
}

/// Counts the orbits of colourings of `0..degree` under the group generated by `generators`.
///
/// Arguments: `degree`, `generators` (each of that degree); the [`CountRequest`] (`k` colours,
/// or a `content` — then `k` is ignored —, a `modulus`, whether the cycle index is wanted);
/// `ctx`; `limits` (`max_group_elements` bounds the elements enumerated, or the partitions
/// visited for a giant's cycle index).
///
/// Before building anything, a group with one non-identity generator is counted by the divisors
/// of its order, and a group proven (from its generators, see [`is_natural_dihedral`]) to be the
/// dihedral group `D_d` in its natural action on all `d >= 4` points by the divisors of `d`
/// (the bracelet cycle index, whatever the labels of the points).
///
/// Returns a [`GroupCount`], or `LimitExceeded` naming `max_group_elements` when the group is not
/// a recognised giant, cyclic or dihedral group and has more elements than the limit; errors of
/// the group engine pass through.
///
/// Complexity: for a recognised dihedral group O(s^2 · d) for the proof (`s` generators) and one
/// big power per divisor of `d`; otherwise building the group (see [`PermGroup::new`]); then for
/// a giant O(d) big-integer operations (O(p(d)) for its cycle index), otherwise O(|G| · d) for
/// the enumeration plus one big power per distinct number of cycles (or one pattern-inventory
/// table per cycle type).
///
/// ```
/// use orbit_worker::{Limits, SolveContext};
/// use orbit_worker::counting::{CountRequest, bracelet_count, count_group};
/// use orbit_worker::group::Perm;
/// let d = 100_000u32;
/// let c = Perm::from_images((0..d).map(|i| (i + 1) % d).collect(), "c").unwrap();
/// let r = Perm::from_images((0..d).map(|i| (d - i) % d).collect(), "r").unwrap();
/// let (ctx, limits) = (SolveContext::detached(), Limits::default());
/// let g = count_group(d as usize, vec![c, r], &CountRequest::colours(2), &ctx, &limits).unwrap();
/// assert_eq!(g.count, bracelet_count(100_000, 2, None, &ctx).unwrap());
/// assert_eq!(g.group_order, 200_000u32.into());
/// ```
///
/// Reference: W. Burnside, *Theory of Groups of Finite Order* (1897), §145; G. Pólya (1937).
pub fn count_group(
    degree: usize,
    generators: Vec<Perm>,
    request: &CountRequest<'_>,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GroupCount, SolveError> {
    count_group_with(degree, generators, request, ctx, limits, true)
}

/// [`count_group`] without the divisor shortcuts: the cyclic and dihedral groups are built and
/// enumerated like any other group (a proven `Sym`/`Alt` still uses its closed forms). This is
/// the independent path the tests and benchmarks compare the shortcuts against.
///
/// Arguments, returns: as [`count_group`] (`cyclic_divisors` and `dihedral_divisors` are `None`).
///
/// Complexity: building the group, then O(|G| · d).
///
/// ```
/// use orbit_worker::{Limits, SolveContext};
/// use orbit_worker::counting::{CountRequest, count_group_enumerated};
/// use orbit_worker::group::Perm;
/// let c = Perm::from_images(vec![1, 2, 3, 4, 0], "c").unwrap();
/// let r = Perm::from_images(vec![0, 4, 3, 2, 1], "r").unwrap();
/// let (ctx, limits) = (SolveContext::detached(), Limits::default());
/// let g = count_group_enumerated(5, vec![c, r], &CountRequest::colours(2), &ctx, &limits).unwrap();
/// assert_eq!((g.count, g.enumerated), (8u32.into(), 10)); // OEIS A000029
/// ```
///
/// Reference: W. Burnside (1897), §145.
pub fn count_group_enumerated(
    degree: usize,
    generators: Vec<Perm>,
    request: &CountRequest<'_>,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GroupCount, SolveError> {
    count_group_with(degree, generators, request, ctx, limits, false)
}

/// [`count_group`], with the cyclic and dihedral shortcuts only when `shortcuts`.
fn count_group_with(
    degree: usize,
    generators: Vec<Perm>,
    request: &CountRequest<'_>,
    ctx: &SolveContext,
    limits: &Limits,
    shortcuts: bool,
) -> Result<GroupCount, SolveError> {
    let &CountRequest {
        k,
        content,
        modulus,
        want_cycle_index,
    } = request;
    if let Some(c) = content {
        check_content(c, degree as u64)?;
    }
    let fixed = count_group_fixed_memory(
        degree as u64,
        generators.len() as u64,
        k,
        content,
        modulus.map(BigUint::bits),
    );
    let mut budget = MemoryBudget::new(chain_budget(limits, fixed));
    if shortcuts {
        let moving: Vec<&Perm> = generators.iter().filter(|g| !g.is_identity()).collect();
        if let [g] = moving.as_slice()
            && let Some(found) = count_cyclic(g, request, ctx, limits, &mut budget)?
        {
            return Ok(found);
        }
        if is_natural_dihedral(degree, &generators, ctx)? {
            return count_dihedral(degree as u64, request, ctx, &mut budget);
        }
    }
    let chain_limits = Limits {
        max_group_chain_bytes: budget.remaining(),
        ..limits.clone()
    };
    let group = PermGroup::new(degree, generators, ctx, &chain_limits)?;
    budget.charge(group.chain_bytes(), || "the stabiliser chain".to_string())?;
    let order = group.order();
    let kind = group.kind();
    let d = degree as u64;
    let reduce = |x: BigUint| match modulus {
        Some(m) => x % m,
        None => x,
    };
    if matches!(kind, GroupKind::Symmetric | GroupKind::Alternating) {
        let alternating = kind == GroupKind::Alternating;
        let count = match content {
            Some(c) => giant_count_with_content(d, c, alternating),
            None => giant_count(d, k, alternating)?,
        };
        let cycle_index = if want_cycle_index {
            // Charge the terms before building them (when their number is within the limit;
            // otherwise `giant_cycle_index` refuses, stating it).
            if let Some(types) = super::graphs::partition_count(d)
                .filter(|&p| p <= u128::from(limits.max_group_elements))
            {
                let max_parts = ((8 * d + 1).isqrt() - 1) / 2;
                let term = cycle_index_term_bytes(max_parts, crate::group::order_bits_bound(d));
                budget.charge((types as u64).saturating_mul(term), || {
                    format!("the cycle index of the degree-{d} giant ({types} terms)")
                })?;
            }
            Some(giant_cycle_index(
                d,
                alternating,
                limits.max_group_elements,
                ctx,
            )?)
        } else {
            None
        };
        return Ok(GroupCount {
            count: reduce(count),
            group_order: order,
            kind: Some(kind),
            enumerated: 0,
            cyclic_divisors: None,
            dihedral_divisors: None,
            cycle_index,
        });
    }
    if order > BigUint::from(limits.max_group_elements) {
        return Err(SolveError::limit_shown(
            format!("group elements to enumerate (order {order})"),
            "max_group_elements",
            limits.max_group_elements,
            format!("{} (max_group_elements)", limits.max_group_elements),
        )
        .requested(order));
    }
    // Charge the transversals and their copies before building them: the engine's (on the moved
    // points, then expanded to all of them), the `u32` image arrays and the enumeration's own.
    let lengths = group.transversal_lengths();
    let (d_bytes, m_bytes) = (4 * d, 4 * group.moved_points() as u64);
    let reps: u64 = lengths.iter().sum();
    let level_vecs = 48 * (lengths.len() as u64 + 1);
    let engine = reps
        .saturating_mul(m_bytes + 16 + if m_bytes < d_bytes { d_bytes + 16 } else { 0 })
        .saturating_add(m_bytes)
        .saturating_add(level_vecs);
    let copies = reps.saturating_mul(d_bytes + 24).saturating_add(level_vecs);
    let enumeration = enumeration_bytes(degree, &lengths);
    let what = || format!("the transversals of the group of order {order} to enumerate");
    budget.charge(engine.saturating_add(copies), what)?;
    let transversals = group.transversals()?;
    // The engine's elements are u_{L-1} * ... * u_0 ("first u_{L-1}"): application order is the
    // reverse of its level order.
    let levels: Vec<Vec<Vec<u32>>> = transversals
        .iter()
        .rev()
        .map(|level| level.iter().map(|p| p.images().to_vec()).collect())
        .collect();
    drop(transversals);
    budget.release(engine);
    budget.charge(enumeration, what)?;
    let want_types = want_cycle_index || content.is_some();
    let tally = enumerate_levels_within(degree, &levels, want_types, ctx, &mut budget)?;
    drop(levels);
    budget.release(copies.saturating_add(enumeration));
    debug_assert_eq!(BigUint::from(tally.elements), order);
    if let Some(types) = &tally.by_type {
        let parts = types.iter().map(|(t, _)| t.parts().len() as u64);
        let bytes = parts
            .map(|p| cycle_index_term_bytes(p, order.bits()))
            .fold(0u64, u64::saturating_add);
        budget.charge(bytes, || {
            format!("the cycle index ({} cycle types)", types.len())
        })?;
    }
    let cycle_index = tally.by_type.as_ref().map(|types| {
        CycleIndex::from_counts(d, types.iter().map(|(t, n)| (t.clone(), BigUint::from(*n))))
    });
    let count = match (content, &cycle_index) {
        (Some(c), Some(z)) => z.count_with_content_within(c, modulus, ctx, &mut budget)?,
        _ => {
            let mut sum = BurnsideSum::new(k, order.clone(), modulus);
            for (c, &n) in tally.by_cycles.iter().enumerate() {
                if n != 0 {
                    sum.add_small(n, c as u64);
                }
            }
            sum.finish()
        }
    };
    Ok(GroupCount {
        count,
        group_order: order,
        kind: Some(kind),
        enumerated: tally.elements,
        cyclic_divisors: None,
        dihedral_divisors: None,
        cycle_index: if want_cycle_index { cycle_index } else { None },
    })
}
