//! [`PermGroup`]: a permutation group with an exact order, membership testing and explicit
//! transversals, built by giant recognition, giant-product recognition or Schreier–Sims.
//!
//! One concept, hence the length (about 900 lines with its tests): the group type, its
//! construction (which structure is proven) and its queries, all reading the same `Structure`.
//! The size checks and memory estimates, the moved-point support and the giant products are in
//! child files.

use std::borrow::Cow;

use num_bigint::BigUint;
use num_traits::One;

mod giant_product;
mod orbit_constituents;
mod parity_span;
mod sizes;
mod support;

pub(crate) use giant_product::{IntransitiveGenerators, link_classes};
pub(crate) use sizes::order_bits_bound;
pub use sizes::{chain_budget, check_group_sizes, perm_group_memory_estimate};
pub(crate) use support::restrictions_to_orbit;

use super::alternating_blocks::recognise_alternating_blocks;
use super::block_wreath::{OrbitAction, recognise_block_wreath, recognise_orbit_wreaths};
use super::blocks_of_two::recognise_blocks_of_two;
use super::cyclic::CyclicGroup;
use super::giant_recognition::{Giant, recognise_giant};
use super::invariant_lines::action_on_lines;
use super::orbits::orbits_of;
use super::perm::Perm;
use super::schreier_sims::{Chain, ChainInputs, ChainTuning, LevelProof, LevelProofPolicy};
use crate::context::SolveContext;
use crate::counting::arith::factorial;
use crate::error::SolveError;
use crate::limits::Limits;
use giant_product::{GiantProduct, recognise_giant_product};
use orbit_constituents::orbit_constituents;
use support::Support;

/// Seed of the random elements (answers never depend on it; only the running time does).
const SEED: u64 = 0x5eed_0f0b;

/// Smallest orbit a giant product's recognition looks at (the smallest degree with a prime in
/// `(n/2, n-3]`).
const GIANT_ORBIT_MIN: usize = 8;

/// Internal knobs of [`PermGroup::new_with_tuning`]: they change time and memory, never an
/// answer (every answer is proven whatever they are). Mainly for tests and benchmarks.
///
/// ```
/// use orbit_worker::group::GroupTuning;
/// let t = GroupTuning { max_explicit_transversal_entries: 0, ..GroupTuning::default() };
/// assert!(t.max_explicit_transversal_entries < GroupTuning::default().max_explicit_transversal_entries);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupTuning {
    /// A stabiliser-chain level stores its coset representatives explicitly (O(d) sifting) while
    /// `orbit length × degree` is at most this many integers; a larger level stores only a shallow
    /// Schreier tree (a Schreier vector: O(orbit length) integers, O(d · depth) sifting).
    /// `0` forces Schreier trees everywhere.
    pub max_explicit_transversal_entries: u64,
    /// Always try the whole-group normal-series order certificate before the level proofs (by
    /// default it is tried only when sifting every level's Schreier generators would be
    /// expensive).
    pub always_try_order_certificate: bool,
    /// Try to prove an intransitive group a *giant product* (its action on each orbit of at least
    /// 8 points `Alt` or `Sym`, linked or not, the other orbits handled by the ordinary engine)
    /// before Schreier–Sims. `false` forces the stabiliser chain; tests compare the two.
    pub recognise_giant_products: bool,
    /// Where the structural proofs of a chain level (Sims's one-generator lemma, a normal series
    /// of the level, a block system) are tried before sifting all its Schreier generators: by
    /// default only where that would be expensive; tests force them everywhere to check them
    /// against brute force.
    pub level_proofs: LevelProofPolicy,
    /// Try to find a faithful action of a transitive group on fewer invariant subsets (the stars
    /// of `Alt(m)` on 2-sets, the lines of a product action; see `invariant_lines`), whose order
    /// is the group's, before proving a stabiliser chain level by level. `false` forces the level
    /// proofs; tests compare the two.
    pub recognise_line_actions: bool,
    /// Consecutive random elements that must sift to the identity before random Schreier–Sims
    /// stops and the proof of completeness starts (default 12). Small values leave the chain
    /// incomplete more often, so that the proofs must find the missing strong generators.
    pub random_phase_streak: usize,
}

impl Default for GroupTuning {
    fn default() -> Self {
        let chain = ChainTuning::default();
        GroupTuning {
            max_explicit_transversal_entries: chain.max_explicit_entries,
            always_try_order_certificate: chain.always_try_certificate,
            recognise_giant_products: true,
            recognise_line_actions: true,
            level_proofs: chain.level_proofs,
            random_phase_streak: chain.random_streak,
        }
    }
}

/// What a group is, when that is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupKind {
    /// The group of order 1.
    Trivial,
    /// The full symmetric group `Sym(d)` on all `d` points (proven, never guessed).
    Symmetric,
    /// The alternating group `Alt(d)` on all `d` points, `d >= 3` (proven, never guessed).
    Alternating,
    /// Anything else (possibly a giant on fewer points than the degree).
    General,
}

#[derive(Debug)]
enum Structure {
    /// Proven `Alt(d)` / `Sym(d)`; no chain stored.
    Giant(Giant),
    /// An exact stabiliser chain (empty for the trivial group).
    Chain(Chain),
    /// A group generated by one permutation, handled in linear time.
    Cyclic(CyclicGroup),
    /// An intransitive group proven to act as `Alt`/`Sym` on its large orbits (see
    /// [`giant_product`]); a chain only for the rest.
    GiantProduct(GiantProduct),
}

/// A permutation group on the points `0..degree`, with a proven base and strong generating set
/// (or a proof that it is `Alt(d)` or `Sym(d)`).
///
/// Products follow GAP: `p * q` is "first `p`, then `q`" (see [`Perm::compose`]).
pub struct PermGroup {
    degree: usize,
    generators: Vec<Perm>,
    order: BigUint,
    kind: GroupKind,
    base: Vec<u32>,
    orbits: Vec<Vec<u32>>,
    structure: Structure,
    /// When some points are fixed by every generator, the structure works on the moved points
    /// only, renumbered `0..m`.
    support: Option<Support>,
    max_chain_bytes: u64,
    /// The most a declined giant-product attempt charged to the chain budget (its groups on the
    /// other orbits, dropped since).
    attempt_chain_bytes: u64,
}

impl std::fmt::Debug for PermGroup {
    /// A summary: degree, order, kind, base and the chain's shape (not every permutation).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermGroup")
            .field("degree", &self.degree)
            .field("generators", &self.generators.len())
            .field("order", &self.order)
            .field("kind", &self.kind)
            .field("base", &self.base)
            .field("orbits", &self.orbits.len())
            .field("structure", &self.structure)
            .field(
                "moved_points",
                &self.support.as_ref().map(|s| s.to_outer.len()),
            )
            .finish()
    }
}

impl PermGroup {
    /// Builds the group generated by `generators` on `0..degree`, with a proof of its structure.
    ///
    /// Works on the points some generator moves. A group generated by one permutation is handled
    /// directly (order = lcm of its cycle lengths, membership by congruences, linear time at any
    /// degree). Otherwise it first tries to prove the group is `Alt(d)`/`Sym(d)` (transitive + an
    /// element with a prime cycle of length `p`, `d/2 < p <= d-3`: Jordan's theorem); for an
    /// intransitive group with an orbit of at least 8 points, that it is a giant product (`Alt` or
    /// `Sym` on each orbit of at least 8 points, by the same theorem per orbit; their linkage by
    /// exact bijection search; the parities by GF(2) elimination; a chain only for the other
    /// orbits, see `giant_product`); otherwise runs random
    /// Schreier–Sims followed by a proof that the chain is complete: an upper bound on the order
    /// from a normal series of the generators (tried when the next step would be expensive), or,
    /// level by level from the deepest up, Sims's one-generator lemma, a normal series of the
    /// level, a block system, or every Schreier generator sifted (see
    /// [`PermGroup::level_proofs`]); so the result
    /// is exact either way. A chain level keeps explicit coset representatives while
    /// `orbit length × degree` is small and a shallow Schreier tree (Schreier vector) otherwise.
    ///
    /// Arguments: `degree` the number of points; `generators` permutations of that degree (an
    /// empty list gives the trivial group); `ctx` for cancellation and progress; `limits` for the
    /// degree bound and the chain memory budget (`limits.max_group_chain_bytes`).
    ///
    /// Returns the group, [`SolveError::InvalidArgument`] for a generator of the wrong degree,
    /// [`SolveError::LimitExceeded`] if the degree or the stabiliser chain's memory exceeds the
    /// limits, or [`SolveError::Cancelled`].
    ///
    /// Complexity: giants O(d · (k + log d)) plus computing d!; giant products O(d · (k + log d))
    /// plus O(n · k) per candidate linking bijection (at most `n` per pair of equal orbits of `n`
    /// points), the factorials, and the engine on the other orbits; otherwise random Schreier–Sims
    /// (nearly linear in d for small-base groups) plus either the certificate (a few more random
    /// runs for subgroups) or the level proofs: O(d · Σ_j depth_j) per membership test of the
    /// lemma (their number depends on the orbits of the point and two-point stabilisers, not on
    /// `|Δ_i|`) or a few random runs for a level's series, and O(|Δ_i| · |S^(i)| · d · Σ_j depth_j)
    /// for a level proven by its Schreier generators, where `depth_j` is 1 for an explicit level
    /// and O(log |G|) for a Schreier tree;
    /// memory O(d · (|B| + |S|) + Σ_i |Δ_i|) plus `d · |Δ_i|` for each explicit level.
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{GroupKind, Perm, PermGroup}};
    /// let gens = vec![
    ///     Perm::parse_cycles("(1,2,3,4,5,6,7,8)", 8).unwrap(),
    ///     Perm::parse_cycles("(1,2)", 8).unwrap(),
    /// ];
    /// let g = PermGroup::new(8, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.order().to_string(), "40320");
    /// assert_eq!(g.kind(), GroupKind::Symmetric);
    /// ```
    ///
    /// Reference: Seress, *Permutation Group Algorithms* (2003), §4.1 (Schreier vectors),
    /// §4.2–4.4 and §10.2; Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005),
    /// §4.1 and §4.4; Sims, "Computational methods in the study of permutation groups" (1970).
    pub fn new(
        degree: usize,
        generators: Vec<Perm>,
        ctx: &SolveContext,
        limits: &Limits,
    ) -> Result<PermGroup, SolveError> {
        Self::new_with_tuning(degree, generators, ctx, limits, &GroupTuning::default())
    }

    /// Like [`new`](Self::new), with explicit internal knobs (see [`GroupTuning`]); the answers
    /// are the same for every tuning.
    ///
    /// Arguments, returns and complexity: as [`new`](Self::new); with Schreier-tree levels the
    /// chain takes O(d · |B| + Σ_i |Δ_i|) memory plus 2d integers per strong generator or tree
    /// label, and sifting O(d · Σ_i depth_i).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{GroupTuning, Perm, PermGroup}};
    /// let gens = vec![
    ///     Perm::parse_cycles("(1,2,3,4,5,6)", 6).unwrap(),
    ///     Perm::parse_cycles("(2,6)(3,5)", 6).unwrap(),
    /// ];
    /// let tuning = GroupTuning { max_explicit_transversal_entries: 0, ..GroupTuning::default() };
    /// let g = PermGroup::new_with_tuning(6, gens, &SolveContext::detached(), &Limits::default(), &tuning)
    ///     .unwrap();
    /// assert_eq!(g.order(), num_bigint::BigUint::from(12u32));
    /// ```
    ///
    /// Reference: Seress (2003), §4.1 (Schreier vectors) and §4.4 (shallow Schreier trees);
    /// Holt–Eick–O'Brien (2005), §4.1.
    pub fn new_with_tuning(
        degree: usize,
        generators: Vec<Perm>,
        ctx: &SolveContext,
        limits: &Limits,
        tuning: &GroupTuning,
    ) -> Result<PermGroup, SolveError> {
        check_group_sizes(degree as u64, generators.len() as u64, limits)?;
        for (i, g) in generators.iter().enumerate() {
            if g.degree() != degree {
                return Err(SolveError::invalid(
                    format!("generators[{i}]"),
                    format!("has degree {}, expected {degree}", g.degree()),
                ));
            }
        }
        let orbits = orbits_of(degree, &generators);
        let max_chain_bytes = limits.max_group_chain_bytes;
        // Work on the moved points only: a small group embedded in a large degree then costs
        // what it costs on its own points.
        let support = Support::of(degree, &generators);
        let inner_gens: Cow<'_, [Perm]> = match &support {
            Some(s) => Cow::Owned(generators.iter().map(|g| s.restrict(g)).collect()),
            None => Cow::Borrowed(&generators),
        };
        let inner_degree = support.as_ref().map_or(degree, |s| s.to_outer.len());
        let outer = |x: u32| support.as_ref().map_or(x, |s| s.to_outer[x as usize]);
        // One distinct non-identity generator: a cyclic group, exact in linear time at any degree
        // (a cyclic group is a giant only for d <= 3, where the order decides the kind below).
        let mut moving = inner_gens.iter().filter(|g| !g.is_identity());
        if let Some(first) = moving.next()
            && moving.all(|g| g == first)
        {
            let cyclic = CyclicGroup::new(first.clone());
            let order = cyclic.order().clone();
            let base: Vec<u32> = cyclic.base().into_iter().map(outer).collect();
            let kind = kind_from_order(&order, orbits.len() == 1, degree, base.len());
            drop(inner_gens);
            return Ok(PermGroup {
                degree,
                generators,
                order,
                kind,
                base,
                orbits,
                structure: Structure::Cyclic(cyclic),
                support,
                max_chain_bytes,
                attempt_chain_bytes: 0,
            });
        }
        if let Some(giant) = recognise_giant(inner_degree, &inner_gens, SEED, ctx)? {
            let full = factorial(inner_degree as u64);
            let natural = inner_degree == degree;
            let (order, kind, base_len) = match giant {
                Giant::Symmetric => (full, GroupKind::Symmetric, inner_degree - 1),
                Giant::Alternating => (full / 2u32, GroupKind::Alternating, inner_degree - 2),
            };
            let base = (0..base_len as u32).map(outer).collect();
            drop(inner_gens);
            return Ok(PermGroup {
                degree,
                generators,
                order,
                kind: if natural { kind } else { GroupKind::General },
                base,
                orbits,
                structure: Structure::Giant(giant),
                support,
                max_chain_bytes,
                attempt_chain_bytes: 0,
            });
        }
        // Intransitive with a large orbit: try to prove a giant product (exact when it succeeds).
        let nontrivial = orbits.iter().filter(|o| o.len() >= 2).count();
        let mut attempt_chain_bytes = 0u64;
        if tuning.recognise_giant_products
            && nontrivial >= 2
            && orbits.iter().any(|o| o.len() >= GIANT_ORBIT_MIN)
        {
            let computed;
            let inner_orbits: &[Vec<u32>] = if support.is_some() {
                computed = orbits_of(inner_degree, &inner_gens);
                &computed
            } else {
                &orbits
            };
            let intransitive = IntransitiveGenerators {
                degree: inner_degree,
                generators: &inner_gens,
                orbits: inner_orbits,
            };
            let product = recognise_giant_product(
                &intransitive,
                SEED,
                ctx,
                limits,
                tuning,
                &mut attempt_chain_bytes,
            )?;
            if let Some(product) = product {
                let order = product.order().clone();
                let base = product.base().into_iter().map(outer).collect();
                drop(inner_gens);
                return Ok(PermGroup {
                    degree,
                    generators,
                    order,
                    // Intransitive: never Sym(d) or Alt(d), and not trivial.
                    kind: GroupKind::General,
                    base,
                    orbits,
                    structure: Structure::GiantProduct(product),
                    support,
                    max_chain_bytes,
                    attempt_chain_bytes: 0,
                });
            }
        }
        let chain_tuning = ChainTuning {
            max_explicit_entries: tuning.max_explicit_transversal_entries,
            always_try_certificate: tuning.always_try_order_certificate,
            level_proofs: tuning.level_proofs,
            random_streak: tuning.random_phase_streak,
            ..ChainTuning::default()
        };
        let inputs = ChainInputs {
            n: inner_degree,
            generators: &inner_gens,
            budget_bytes: max_chain_bytes,
            seed: SEED,
            tuning: chain_tuning,
        };
        // A transitive group acting faithfully on fewer invariant lines (Alt(m) on k-sets, product
        // actions): its order is that of the smaller action, and a chain reaching it is complete.
        let mut known_order_chain = None;
        // (Only with the default level-proof policy: the others are for testing the level proofs.)
        if tuning.recognise_line_actions
            && tuning.level_proofs == LevelProofPolicy::WhereExpensive
            && let Some(line_action) = action_on_lines(inner_degree, &inner_gens, SEED, ctx)?
        {
            let line_gens = line_action.images;
            drop(line_action.lines); // only the order is needed
            let lines = line_gens[0].degree();
            // Only the order is kept: the image group's chain is gone before the main chain grows.
            let image_order =
                PermGroup::new_with_tuning(lines, line_gens, ctx, limits, tuning)?.order;
            let optimistic = ChainInputs {
                tuning: ChainTuning {
                    optimistic_explicit: true,
                    ..chain_tuning
                },
                ..inputs
            };
            known_order_chain = Chain::build_with_known_order(&optimistic, 0, &image_order, ctx)?;
        }
        // A transitive group containing its minimal blocks' alternating groups (a wreath product
        // of giants) has a base of nearly every point: its order comes from the blocks'
        // orientations instead (see `alternating_blocks`); one with other minimal blocks
        // (`D_5 wr Sym(200)`, or `Sym(2) wr Sym(500)` with a base of half its points), an upper
        // bound from the action on the blocks, the group a block's stabiliser induces on it and
        // the transfer (see `block_wreath`; for blocks of two points beyond its budget, the
        // action on the blocks and two signs, see `blocks_of_two`). An intransitive group's order
        // is bounded by its constituents' (its actions on its orbits, each transitive and taken
        // the same way) and their signs (see `orbit_constituents`), and by its orbits' wreath
        // products and the joint group of their transfers, blocks and signs (see
        // `recognise_orbit_wreaths`): the smaller is kept. Asked for only where the
        // chain's own proofs would be expensive, and only for a long base: such a group's base
        // has at least a quarter of its points (`Alt(m)^b` needs `b · (m - 2)` with `m >= 3`;
        // `2^b`, `b`; `PSL(2,11)^b` on blocks of 12 points, `3b`), a primitive group's other than
        // a giant far fewer, and the 3-cycle's search is not free.
        let blocks_order =
            |base_len: usize, budget_left: u64, ctx: &SolveContext, peak: &mut u64| {
                if 4 * base_len < inner_degree
                    || tuning.level_proofs != LevelProofPolicy::WhereExpensive
                {
                    return Ok(None);
                }
                // The order of the group of an action (the generators' images), within what the
                // chain left; `None` beyond it (the chain's own proofs then). One is held at a
                // time.
                let image_order = |images: Vec<Perm>, peak: &mut u64| {
                    let image_limits = Limits {
                        max_group_chain_bytes: budget_left,
                        ..limits.clone()
                    };
                    let degree = images[0].degree();
                    match PermGroup::new_with_tuning(degree, images, ctx, &image_limits, tuning) {
                        Ok(image) => {
                            *peak = (*peak).max(image.chain_bytes());
                            Ok(Some(image.order))
                        }
                        Err(SolveError::LimitExceeded { .. }) => Ok(None),
                        Err(e) => Err(e),
                    }
                };
                let local_limits = Limits {
                    max_group_chain_bytes: budget_left,
                    ..limits.clone()
                };
                let inner_orbits = orbits_of(inner_degree, &inner_gens);
                if let Some(mut constituents) =
                    orbit_constituents(inner_degree, &inner_orbits, &inner_gens, ctx)?
                {
                    drop(inner_orbits);
                    // Two bounds, the smaller kept: the constituents' wreath products and the
                    // joint group of their transfers, blocks and signs (ties through any
                    // abelian quotient: `D_5 wr Sym(60)` beside `Sym(57)` beside `D_5 wr
                    // Sym(77)`, whose constituents' signs miss the reflections' tie), and the
                    // constituents' own orders with their signs (exact where a constituent is
                    // smaller than its wreath product's bound).
                    let actions: Vec<OrbitAction<'_>> = constituents
                        .restrictions
                        .iter()
                        .zip(&constituents.blocks)
                        .map(|(generators, block_of)| OrbitAction {
                            generators,
                            block_of: block_of.as_deref(),
                        })
                        .collect();
                    let mut wreaths_peak = 0;
                    let wreaths = recognise_orbit_wreaths(
                        &actions,
                        ctx,
                        &local_limits,
                        tuning,
                        &mut wreaths_peak,
                    )?;
                    *peak = (*peak).max(wreaths_peak);
                    drop(actions);
                    let restrictions = std::mem::take(&mut constituents.restrictions);
                    let classes = restrictions.len();
                    let mut orders = Vec::with_capacity(classes);
                    for images in restrictions {
                        match image_order(images, peak)? {
                            Some(order) => orders.push(order),
                            None => break,
                        }
                    }
                    let signs =
                        (orders.len() == classes).then(|| constituents.order_bound(&orders));
                    let bound = match (wreaths, signs) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    return Ok(bound.map(|bound| (bound, LevelProof::OrbitConstituents)));
                }
                let all: Vec<u32> = (0..inner_degree as u32).collect();
                if let Some(mut blocks) =
                    recognise_alternating_blocks(inner_degree, &all, &inner_gens, SEED, ctx)?
                {
                    let images = std::mem::take(&mut blocks.orientations);
                    return Ok(image_order(images, peak)?
                        .map(|order| (blocks.group_order(&order), LevelProof::AlternatingBlocks)));
                }
                let mut wreath_peak = 0;
                let wreath = recognise_block_wreath(
                    inner_degree,
                    &inner_gens,
                    ctx,
                    &local_limits,
                    tuning,
                    &mut wreath_peak,
                )?;
                *peak = (*peak).max(wreath_peak);
                if let Some(bound) = wreath {
                    return Ok(Some((bound, LevelProof::BlockWreath)));
                }
                // Blocks of two points whose `P` (on the blocks and two more points) is beyond the
                // budget, while the action on the blocks alone is not: the bound from the two signs
                // (never below the wreath's, which sees every character of the blocks' group).
                Ok(
                    match recognise_blocks_of_two(inner_degree, &inner_gens, ctx)? {
                        Some(blocks) => image_order(blocks.on_blocks.clone(), peak)?
                            .map(|order| (blocks.order_bound(&order), LevelProof::BlocksOfTwo)),
                        None => None,
                    },
                )
            };
        let chain = match known_order_chain {
            Some(chain) => chain,
            None => Chain::build(&inputs, Some(&blocks_order), ctx)?,
        };
        drop(inner_gens);
        let mut order = BigUint::one();
        for len in chain.orbit_lengths() {
            order *= len as u64;
        }
        let kind = kind_from_order(&order, orbits.len() == 1, degree, chain.levels.len());
        Ok(PermGroup {
            degree,
            generators,
            order,
            kind,
            base: chain.base().into_iter().map(outer).collect(),
            orbits,
            structure: Structure::Chain(chain),
            support,
            max_chain_bytes,
            attempt_chain_bytes,
        })
    }

    /// Bytes the stabiliser chain holds, as charged against its budget, plus the most its proofs
    /// of completeness held beside it at once (their permutations and subgroup chains, charged to
    /// the same budget); 0 for a proven giant or a cyclic group, which keep no chain (their memory
    /// is in [`perm_group_memory_estimate`]). For a giant product, or after a declined
    /// giant-product attempt, the most charged to the budget at once: a group built on the other
    /// orbits (construction and chain) or the chain.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2)(3,4)", 4).unwrap(), Perm::parse_cycles("(1,3)", 4).unwrap()];
    /// let g = PermGroup::new(4, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert!(g.chain_bytes() > 0);
    /// ```
    pub fn chain_bytes(&self) -> u64 {
        match &self.structure {
            Structure::Chain(chain) => chain.peak_bytes().max(self.attempt_chain_bytes),
            Structure::GiantProduct(product) => product.chain_bytes(),
            Structure::Giant(_) | Structure::Cyclic(_) => 0,
        }
    }

    /// How each level of the stabiliser chain was proven complete, deepest last; empty when the
    /// group keeps no chain (a proven giant, a cyclic group); for a giant product, those of the
    /// group on its other orbits.
    ///
    /// Complexity: O(|B|).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{LevelProof, Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2)(3,4)", 4).unwrap(), Perm::parse_cycles("(1,3)", 4).unwrap()];
    /// let g = PermGroup::new(4, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.level_proofs(), vec![LevelProof::SchreierGenerators; 2]);
    /// ```
    ///
    /// Reference: Seress (2003), §4.2 and §8.2.
    pub fn level_proofs(&self) -> Vec<LevelProof> {
        match &self.structure {
            Structure::Chain(chain) => chain.level_proofs().into_iter().flatten().collect(),
            Structure::GiantProduct(product) => product.tail_level_proofs(),
            Structure::Giant(_) | Structure::Cyclic(_) => Vec::new(),
        }
    }

    /// The degree `d` (the group acts on `0..d`).
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::PermGroup};
    /// let g = PermGroup::new(5, vec![], &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.degree(), 5);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The generators the group was built from.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let g = PermGroup::new(3, vec![Perm::parse_cycles("(1,2)", 3).unwrap()],
    ///     &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.generators().len(), 1);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn generators(&self) -> &[Perm] {
        &self.generators
    }

    /// The exact order `|G|`.
    ///
    /// Complexity: O(1) (computed at construction).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let g = PermGroup::new(4, vec![Perm::parse_cycles("(1,2,3,4)", 4).unwrap()],
    ///     &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.order(), num_bigint::BigUint::from(4u32));
    /// ```
    ///
    /// Reference: Seress (2003), §4.1 (order = product of fundamental orbit lengths).
    pub fn order(&self) -> BigUint {
        self.order.clone()
    }

    /// What the group is proven to be: trivial, `Sym(d)`, `Alt(d)` (natural action on all `d`
    /// points), or general.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{GroupKind, Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3)", 3).unwrap()];
    /// let g = PermGroup::new(3, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.kind(), GroupKind::Alternating);
    /// ```
    ///
    /// Reference: Seress (2003), §10.2.
    pub fn kind(&self) -> GroupKind {
        self.kind
    }

    /// Whether the group is proven to be `Sym(d)` on all its points.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2)", 2).unwrap()];
    /// let g = PermGroup::new(2, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert!(g.is_natural_symmetric());
    /// ```
    ///
    /// Reference: Seress (2003), §10.2; GAP's `IsNaturalSymmetricGroup`.
    pub fn is_natural_symmetric(&self) -> bool {
        self.kind == GroupKind::Symmetric
    }

    /// Whether the group is proven to be `Alt(d)` on all its points (`d >= 3`).
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3)", 3).unwrap()];
    /// let g = PermGroup::new(3, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert!(g.is_natural_alternating());
    /// ```
    ///
    /// Reference: Seress (2003), §10.2; GAP's `IsNaturalAlternatingGroup`.
    pub fn is_natural_alternating(&self) -> bool {
        self.kind == GroupKind::Alternating
    }

    /// The base `b_0, …, b_{k-1}`: only the identity fixes every base point, and level `i` of
    /// [`transversals`](Self::transversals) belongs to `b_i`. For a proven giant it is
    /// `0, 1, …, d-2` (`Sym(d)`) or `0, …, d-3` (`Alt(d)`). Base points are always points some
    /// generator moves (the structure is built on the moved points only).
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3)", 3).unwrap()];
    /// let g = PermGroup::new(3, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.base().len(), 1);
    /// ```
    ///
    /// Reference: Seress (2003), §4.1 (bases and strong generating sets).
    pub fn base(&self) -> &[u32] {
        &self.base
    }

    /// The orbits on `0..d` (fixed points included), each in breadth-first order from its smallest
    /// point, ordered by smallest point.
    ///
    /// Complexity: O(number of orbits) to clone (computed at construction in O(d·k)).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2)", 3).unwrap()];
    /// let g = PermGroup::new(3, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.orbits(), vec![vec![0, 1], vec![2]]);
    /// ```
    ///
    /// Reference: Seress (2003), §2.1.1.
    pub fn orbits(&self) -> Vec<Vec<u32>> {
        self.orbits.clone()
    }

    /// The orbits, borrowed.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::PermGroup};
    /// let g = PermGroup::new(2, vec![], &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.orbits_ref().len(), 2);
    /// ```
    ///
    /// Reference: Seress (2003), §2.1.1.
    pub fn orbits_ref(&self) -> &[Vec<u32>] {
        &self.orbits
    }

    /// Prepares for `count` membership tests ([`contains`](Self::contains)): a stabiliser chain
    /// whose first level is a Schreier tree (as a long first orbit starts, its table rarely paying
    /// for itself while the chain is built and proven) stores it explicitly when the tests would
    /// walk the tree more than building the table costs and the chain's budget allows it. Never
    /// changes an answer.
    ///
    /// Complexity: O(|Δ_0| · d) when the level is converted, else O(1).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3,4)", 4).unwrap()];
    /// let ctx = SolveContext::detached();
    /// let mut g = PermGroup::new(4, gens, &ctx, &Limits::default()).unwrap();
    /// g.prepare_for_memberships(1_000, &ctx).unwrap();
    /// assert!(g.contains(&Perm::parse_cycles("(1,3)(2,4)", 4).unwrap()));
    /// ```
    pub fn prepare_for_memberships(
        &mut self,
        count: usize,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        match &mut self.structure {
            Structure::Chain(chain) => chain.prepare_for_sifts(count as u64, ctx),
            _ => Ok(()),
        }
    }

    /// Whether `p` is an element of the group (sifting through the stabiliser chain; for a proven
    /// giant a parity check; for a giant product the orbits, the linkage bijections, the parities
    /// and a membership test for the other orbits). A permutation of another degree is never a
    /// member.
    ///
    /// Complexity: O(d · |B|) for a chain, O(d) for a giant, O(d) plus the other orbits' test for a
    /// giant product.
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3,4)", 4).unwrap()];
    /// let g = PermGroup::new(4, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert!(g.contains(&Perm::parse_cycles("(1,3)(2,4)", 4).unwrap()));
    /// assert!(!g.contains(&Perm::parse_cycles("(1,2)", 4).unwrap()));
    /// ```
    ///
    /// Reference: Seress (2003), §4.1 (sifting); Holt–Eick–O'Brien (2005), §4.4.1.
    pub fn contains(&self, p: &Perm) -> bool {
        let mut scratch = Vec::new();
        self.contains_with(p, &mut scratch)
    }

    /// Like [`contains`](Self::contains), reusing `scratch` (any vector) so that testing many
    /// permutations allocates once.
    ///
    /// Complexity: as [`contains`](Self::contains).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2)", 2).unwrap()];
    /// let g = PermGroup::new(2, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// let mut scratch = Vec::new();
    /// assert!(g.contains_with(&Perm::identity(2), &mut scratch));
    /// ```
    ///
    /// Reference: Seress (2003), §4.1.
    pub fn contains_with(&self, p: &Perm, scratch: &mut Vec<u32>) -> bool {
        if p.degree() != self.degree {
            return false;
        }
        match &self.support {
            Some(s) => {
                if !s.restrict_into(p.images(), scratch) {
                    return false;
                }
            }
            None => {
                scratch.clear();
                scratch.extend_from_slice(p.images());
            }
        }
        match &self.structure {
            Structure::Giant(Giant::Symmetric) => true,
            // Outside the support `p` is the identity, so its parity is that of the restriction.
            Structure::Giant(Giant::Alternating) => p.is_even(),
            Structure::Chain(chain) => chain.contains_in_place(scratch),
            Structure::Cyclic(cyclic) => cyclic.contains_images(scratch),
            Structure::GiantProduct(product) => product.contains_images(scratch),
        }
    }

    /// Explicit coset representatives for every base level.
    ///
    /// `result[i]` lists representatives of the cosets of `G^(i+1)` in `G^(i)` (where `G^(i)`
    /// fixes `b_0..b_{i-1}`): `result[i][0]` is the identity, and `result[i][j]` maps the base
    /// point `b_i` to a distinct point of its fundamental orbit, fixing `b_0..b_{i-1}`.
    ///
    /// **Product order.** With `k = result.len()`, every group element is uniquely
    /// `u_{k-1} * … * u_1 * u_0` with `u_i ∈ result[i]`, in GAP's order ("first `u_{k-1}`, …,
    /// last `u_0`"), i.e. as image arrays `g[x] = u_0[u_1[…u_{k-1}[x]…]]`. Hence
    /// `|G| = Π |result[i]|`.
    ///
    /// Returns [`SolveError::LimitExceeded`] when the representatives would need more than
    /// `limits.max_group_chain_bytes` (as given to [`new`](Self::new)); they take
    /// `4 · d · Σ|result[i]|` bytes. For a proven giant they are synthesised (transpositions
    /// `(b_i, x)` for `Sym(d)`, 3-cycles for `Alt(d)`), `O(d^3)` bytes.
    ///
    /// Complexity: `O(d · Σ_i |result[i]|)`.
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3)", 3).unwrap(), Perm::parse_cycles("(1,2)", 3).unwrap()];
    /// let g = PermGroup::new(3, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// let t = g.transversals().unwrap();
    /// let sizes: Vec<usize> = t.iter().map(|l| l.len()).collect();
    /// assert_eq!(sizes.iter().product::<usize>(), 6);
    /// // Rebuild one element as u_1 * u_0 (first u_1, then u_0).
    /// let e = t[1][1].compose(&t[0][2]);
    /// assert!(g.contains(&e));
    /// ```
    ///
    /// Reference: Seress (2003), §4.1 (transversals, sifting); Holt–Eick–O'Brien (2005), §4.4.1.
    pub fn transversals(&self) -> Result<Vec<Vec<Perm>>, SolveError> {
        let d = self.degree as u64;
        let levels = self.transversal_lengths();
        let bytes = levels
            .iter()
            .sum::<u64>()
            .saturating_mul(d)
            .saturating_mul(4);
        if bytes > self.max_chain_bytes {
            return Err(SolveError::limit_shown(
                format!("transversals of the degree-{d} group ({bytes} bytes)"),
                "max_group_chain_bytes",
                self.max_chain_bytes,
                format!("{} bytes", self.max_chain_bytes),
            )
            .requested(bytes));
        }
        let inner = match &self.structure {
            Structure::Chain(chain) => (0..chain.levels.len())
                .map(|l| chain.transversal(l))
                .collect(),
            Structure::Giant(giant) => {
                let inner_base: Vec<u32> = (0..self.base.len() as u32).collect();
                giant_transversals(self.inner_degree(), &inner_base, *giant)
            }
            Structure::Cyclic(cyclic) => cyclic.transversals(),
            Structure::GiantProduct(product) => product.transversals()?,
        };
        Ok(self.expand_all(inner))
    }

    /// The number of coset representatives [`transversals`](Self::transversals) would return per
    /// level (the fundamental orbits' lengths), without building them: what a caller needs to
    /// bound their memory first.
    ///
    /// Complexity: O(|B|).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3,4)", 4).unwrap(), Perm::parse_cycles("(1,3)", 4).unwrap()];
    /// let g = PermGroup::new(4, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert_eq!(g.transversal_lengths().iter().product::<u64>(), 8);
    /// ```
    pub fn transversal_lengths(&self) -> Vec<u64> {
        match &self.structure {
            Structure::Chain(chain) => chain.orbit_lengths().iter().map(|&l| l as u64).collect(),
            Structure::Giant(_) => {
                let m = self.inner_degree() as u64;
                (0..self.base.len() as u64).map(|i| m - i).collect()
            }
            Structure::Cyclic(cyclic) => cyclic.orbit_lengths(),
            Structure::GiantProduct(product) => product.transversal_lengths(),
        }
    }

    /// Number of points the structure works on: the points some generator moves.
    ///
    /// Complexity: O(1).
    pub fn moved_points(&self) -> usize {
        self.inner_degree()
    }

    /// The strong generating set of the stabiliser chain (for a cyclic group `<c>` the powers
    /// `c^{m_i}` generating its levels; empty for a proven giant or giant product, which keep
    /// no chain for their giant orbits — use [`transversals`](Self::transversals) instead).
    ///
    /// Complexity: O(d · |S|) (a copy).
    ///
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{Perm, PermGroup}};
    /// let gens = vec![Perm::parse_cycles("(1,2)", 3).unwrap()];
    /// let g = PermGroup::new(3, gens, &SolveContext::detached(), &Limits::default()).unwrap();
    /// assert!(!g.strong_generators().is_empty());
    /// ```
    ///
    /// Reference: Seress (2003), §4.1.
    pub fn strong_generators(&self) -> Vec<Perm> {
        match &self.structure {
            Structure::Chain(chain) => match &self.support {
                Some(s) => chain
                    .strong_generators()
                    .iter()
                    .map(|q| s.expand(q, self.degree))
                    .collect(),
                None => chain.strong_generators().to_vec(),
            },
            Structure::Cyclic(cyclic) => self.expand_all(vec![cyclic.level_generators()]).remove(0),
            Structure::Giant(_) | Structure::GiantProduct(_) => Vec::new(),
        }
    }

    /// Number of points the structure works on (the moved points).
    fn inner_degree(&self) -> usize {
        self.support
            .as_ref()
            .map_or(self.degree, |s| s.to_outer.len())
    }

    /// Expands inner transversals to all points.
    fn expand_all(&self, inner: Vec<Vec<Perm>>) -> Vec<Vec<Perm>> {
        match &self.support {
            None => inner,
            Some(s) => inner
                .iter()
                .map(|level| level.iter().map(|q| s.expand(q, self.degree)).collect())
                .collect(),
        }
    }
}

/// The kind of a group of known order: `Sym(d)`/`Alt(d)` exactly when transitive of order `d!` or
/// `d!/2` (`Sym(d)` has base length `d-1` and `Alt(d)` `d-2`, so the factorial is only computed
/// when the base is long enough to match).
fn kind_from_order(order: &BigUint, transitive: bool, degree: usize, base_len: usize) -> GroupKind {
    if order.is_one() {
        return GroupKind::Trivial;
    }
    if !transitive || base_len + 2 < degree {
        return GroupKind::General;
    }
    // Order 1 returned above: `Alt(2)` is trivial.
    match Giant::of_order(order, degree) {
        Some(Giant::Symmetric) => GroupKind::Symmetric,
        Some(Giant::Alternating) => GroupKind::Alternating,
        None => GroupKind::General,
    }
}

/// Coset representatives for `Sym(d)` (base `0..d-2`) or `Alt(d)` (base `0..d-3`).
fn giant_transversals(d: usize, base: &[u32], giant: Giant) -> Vec<Vec<Perm>> {
    base.iter()
        .map(|&b| {
            let b = b as usize;
            (b..d)
                .map(|x| {
                    let mut img: Vec<u32> = (0..d as u32).collect();
                    if x != b {
                        match giant {
                            Giant::Symmetric => img.swap(b, x),
                            Giant::Alternating => {
                                // 3-cycle (b, x, k) with k > b distinct from x: maps b to x.
                                let k = if x == d - 1 { d - 2 } else { d - 1 };
                                img[b] = x as u32;
                                img[x] = k as u32;
                                img[k] = b as u32;
                            }
                        }
                    }
                    Perm::from_images_unchecked(img.into_boxed_slice())
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Giant recognition and Schreier–Sims agree (two independent methods) on random pairs.
    #[test]
    fn giant_recognition_agrees_with_schreier_sims() {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let ctx = SolveContext::detached();
        let mut giants = 0;
        for n in (8..=16).chain(8..=16) {
            let gens: Vec<Perm> = (0..2)
                .map(|_| {
                    let mut v: Vec<u32> = (0..n as u32).collect();
                    v.shuffle(&mut rng);
                    Perm::from_images(v, "g").expect("shuffle")
                })
                .collect();
            let inputs = ChainInputs {
                n,
                generators: &gens,
                budget_bytes: 1 << 30,
                seed: 1,
                tuning: ChainTuning::default(),
            };
            let chain = Chain::build(&inputs, None, &ctx).expect("chain");
            let chain_order: BigUint = chain
                .orbit_lengths()
                .iter()
                .map(|&l| BigUint::from(l))
                .product();
            let g = PermGroup::new(n, gens, &ctx, &Limits::default()).expect("group");
            assert_eq!(g.order(), chain_order, "n = {n}");
            if matches!(g.structure, Structure::Giant(_)) {
                giants += 1;
            }
        }
        assert!(giants >= 12, "only {giants} giants recognised");
    }

    #[test]
    fn giant_transversals_are_valid() {
        for (d, giant) in [(6, Giant::Symmetric), (7, Giant::Alternating)] {
            let base_len = if giant == Giant::Symmetric {
                d - 1
            } else {
                d - 2
            };
            let base: Vec<u32> = (0..base_len as u32).collect();
            let t = giant_transversals(d, &base, giant);
            for (i, level) in t.iter().enumerate() {
                assert!(level[0].is_identity());
                for (j, u) in level.iter().enumerate() {
                    assert_eq!(u.image(i as u32), (i + j) as u32);
                    assert!((0..i as u32).all(|x| u.image(x) == x));
                    if giant == Giant::Alternating {
                        assert!(u.is_even());
                    }
                }
            }
        }
    }
}
