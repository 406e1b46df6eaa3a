//! The Schreier–Sims algorithm: a base and strong generating set (a stabiliser chain) whose
//! transversals are stored either explicitly or as shallow Schreier trees (Schreier vectors).
//!
//! Two phases:
//! 1. **Random Schreier–Sims** (Seress 2003, §4.3): sift random elements (product replacement)
//!    through the chain built so far and add every non-trivial residue as a strong generator,
//!    until a run of consecutive random elements sifts to the identity. This usually produces the
//!    whole chain quickly, but proves nothing.
//! 2. **Proof of completeness.** First, when proving level by level would be expensive, an order
//!    certificate from a normal series of the generators (see [`normal_series`]): an
//!    upper bound on `|G|` equal to the product of the orbit lengths proves the whole chain
//!    complete at once (the product is always a lower bound). Otherwise the levels are proven
//!    **from the deepest up**: level `i` is proven once `<S^(i)>_{b_i} = <S^(i+1)>` is, the levels
//!    below it being proven already (so sifting through them is an exact membership test for
//!    `H = <S^(i+1)>`). Each level takes the first proof that applies ([`LevelProof`]):
//!    - **Schreier generators** (Sims; Holt–Eick–O'Brien 2005, §4.4.2, algorithm SCHREIERSIMS):
//!      every Schreier generator `u_β · s · u_{β^s}⁻¹` of level `i` is sifted through levels
//!      `i+1..` (Schreier's lemma). Used first when that is cheap, and last whatever it costs.
//!      Schreier generators whose edge is a tree edge of the orbit's spanning tree are the
//!      identity by construction and skipped;
//!    - **Sims's one-generator lemma** ([`sims_verify`]): with `<S^(i)> = <H, z>`, a
//!      number of membership tests in `H` that depends on the orbits of `H` and of a two-point
//!      stabiliser, not on the orbit length;
//!    - **a normal series of the level** ([`normal_series::level_order_at_most`]):
//!      an upper bound on `|<S^(i)>|` from a deeper level's group or a cyclic group extended by
//!      normalising elements (commutators and generators), equal to `Π_{l >= i} |Δ_l|`;
//!    - **a block system** ([`block_system`]): `|<S^(i)>|` computed exactly by a chain of
//!      the level's group acting on the points and on the blocks of the point stabiliser's fixed
//!      points, whose first level is the (smaller, often 2-transitive) action on the blocks.
//!    - on level 0 of a transitive group of prime-power degree, first, **a regular abelian normal
//!      subgroup** `N` ([`regular_normal`]; an affine group's translations, found from random
//!      elements and verified): `G_{b_0} = <s · t_s⁻¹>` over the generators `s`, `t_s ∈ N` mapping
//!      `b_0` to `b_0^s`, so `|S^(0)|` sifts prove it.
//!
//!    A failed membership test in any of them yields an element of `<S^(i)>_{b_i}` outside `H`:
//!    its residue becomes a new strong generator and the changed deeper levels are proven again.
//!
//! Convention: products are GAP's (first left, then right); level `i`'s representative `u_β` maps
//! its base point `b_i` to `β` and fixes `b_0..b_{i-1}`. Sifting `g` replaces it by `g · u_β⁻¹`
//! with `β = b_i^g`, so `g = r · u_{k-1} · … · u_1 · u_0` where `r` is the residue.
//!
//! **Transversals.** Each orbit point `β ≠ b_i` records the tree edge that reached it: its parent
//! `α` and a label `t` (a strong generator, the inverse of one, or an extra tree label of the
//! level), with `u_β = u_α · t` exactly — a Schreier vector. A level whose `orbit length × degree`
//! is at most [`ChainTuning::max_explicit_entries`] also stores every `u_β⁻¹` explicitly
//! (`degree` integers each: O(d) sifting); a larger level keeps only the tree and sifts by walking
//! it (O(d · depth)). To keep the walk short the tree is made *shallow* by cube doubling
//! (Babai–Cooperman–Finkelstein–Luks–Seress; Seress 2003, §4.4, Lemma 4.4.2): while the
//! breadth-first tree over the labels and their inverses is deeper than `R = 2k + ⌈log₂|Δ|⌉ + 2`
//! (`k` extra labels so far), the representative `t = u_δ` of a point `δ` at depth `R + 1` becomes
//! a new label. `b^t` lies outside the ball of radius `R ≥ 2k`, which contains `b^{C⁻¹C}` for the
//! cube `C` of the extra labels, so `t ∉ C⁻¹C` and the cube doubles: at most `log₂|G^(i)|` labels
//! are ever added, each costing O(d · R).
//!
//! Memory: pos arrays (d per level), the trees (O(|Δ_i|) per level), explicit representatives
//! where chosen, the strong generators and labels (2d each) and the bookkeeping vectors around
//! them are charged against a budget before allocating — by capacity, counting the slack of
//! vectors grown by doubling — so the chain never holds more than its budget and an oversized
//! chain ends with [`SolveError::LimitExceeded`].
//!
//! Reference: Seress, *Permutation Group Algorithms* (2003), §4.1 (Schreier vectors, sifting),
//! §4.2–4.3 (Schreier–Sims, random Schreier–Sims), §4.4 (shallow Schreier trees, Lemma 4.4.2);
//! Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §4.1 (Schreier vectors)
//! and §4.4.

mod block_system;
mod completeness;
mod normal_series;
mod random;
mod regular_normal;
mod sims_verify;
mod transversal;

use super::orbits::orbit_of_point;
use super::perm::Perm;
use super::product_replacement::ProductReplacement;
use crate::context::SolveContext;
use crate::error::SolveError;

/// Marks "no orbit index" in [`Level::pos`] and the root's parent.
pub(crate) const NONE: u32 = u32::MAX;

/// Consecutive random elements that must sift to the identity before the random phase stops.
const RANDOM_STREAK: usize = 12;

/// Integers (4 bytes each) charged per orbit point of a level besides its representative: its
/// orbit entry, tree edge and verification counter (1 + 2 + 1), doubled because those vectors
/// grow by doubling.
const POINT_ENTRIES: u64 = 8;

/// Integers charged per level besides its point array: its slot in the chain's vector of levels
/// (grown by doubling, so twice the `Level` header).
const LEVEL_ENTRIES: u64 = (2 * std::mem::size_of::<Level>() as u64).div_ceil(4);

/// Integers charged per pool permutation besides its `2d` images (itself and its inverse): its
/// two slots in the pool vectors (16 bytes each, doubled) and its two label codes in a tree
/// rebuild's list (doubled).
const POOL_ENTRIES: u64 = 24;

/// Integers charged per generator index a level records (`gens`, `extras`), doubled for growth.
const INDEX_ENTRIES: u64 = 2;

/// Default bound on `orbit length × degree` for explicit representatives (2^22 integers, 16 MiB
/// per level).
pub(crate) const DEFAULT_MAX_EXPLICIT_ENTRIES: u64 = 1 << 22;

/// Up to this degree, with [`ChainTuning::optimistic_explicit`], a new level below the first
/// starts with explicit representatives whatever the group's orbit of its base point (see
/// `add_residue`).
const OPTIMISTIC_EXPLICIT_MAX_DEGREE: usize = 10_000;

/// Estimated integer operations of proving the chain by Schreier generators above which the
/// whole-group normal-series certificate is tried first.
const CERTIFICATE_WORK_THRESHOLD: u64 = 200_000_000;

/// Estimated integer operations of sifting one level's Schreier generators below which that is
/// how the level is proven (the structural proofs have fixed costs of their own).
const DIRECT_LEVEL_WORK: u64 = 2_000_000;

/// Orbits shorter than this are proven by their Schreier generators (unless a test forces the
/// structural proofs).
const STRUCTURAL_MIN_ORBIT: usize = 64;

/// The one-generator lemma is tried before the level's normal series when its tests cost at most
/// this fraction of the Schreier generators' (few tests, whatever the orbit length).
const LEMMA_ADVANTAGE: u64 = 64;

/// Integer operations per point of the degree that one random chain of a level's normal-series
/// search is counted as: a search before the one-generator lemma builds at most the lemma's
/// estimated work in chains. Measured on the GAP-library corpus, a chain takes about half a
/// millisecond at degree 2,000 and the lemma's tests about 0.3-0.7 ns per estimated operation, so
/// a failed search costs at most about the lemma's time again (and builds at most
/// [`normal_series::MAX_SERIES_CHAINS_BEFORE_LEMMA`] chains: the successful searches that come
/// before a costed lemma build at most 2).
const SERIES_CHAIN_WORK_PER_POINT: u64 = 2_000;

/// Integer operations per point of the degree that proving a level through a block system is
/// expected to cost (a chain of the level's group on the points and the blocks): the lemma is
/// tried first when its tests cost less.
const BLOCK_SYSTEM_WORK_PER_POINT: u64 = 2_000;

/// What proving a level through a block system is expected to cost besides its
/// [`BLOCK_SYSTEM_WORK_PER_POINT`]: this many times the estimated cost of proving again the
/// deeper levels, which the block system's chain of the level's group proves again below its own
/// first levels (the action on the blocks and the block stabiliser's orbit, of about the cost of
/// the deeper levels again).
const BLOCK_SYSTEM_REPROOF_FACTOR: u64 = 2;

/// Consecutive random elements sifting to the identity after which a chain of a group of known
/// order that has not reached that order is given up ([`Chain::build_with_known_order`]).
const KNOWN_ORDER_PATIENCE: usize = 200;

/// Mixed into the seed of the random elements that grow a chain to an order proven outside it
/// (another stream than the random phase's).
const ORDER_PROOF_SEED: u64 = 0x0bde_a11e;

/// Where a chain's levels try the structural proofs (Sims's one-generator lemma, a normal series
/// of the level, a block system) before sifting their Schreier generators. Every choice gives the
/// same, proven answers; only the time differs. The choices other than the default are for tests,
/// which check each proof against brute force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LevelProofPolicy {
    /// Only on levels whose Schreier generators would be expensive to sift (the default).
    WhereExpensive,
    /// On every level: the lemma, the normal series, the block system.
    Always,
    /// On every level, only the lemma.
    LemmaOnly,
    /// On every level, only the normal series.
    NormalSeriesOnly,
    /// On every level, only the block system.
    BlockSystemOnly,
}

/// How a level of the chain was proven complete (`<S^(i)>_{b_i} = <S^(i+1)>`, the deeper levels
/// being complete).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LevelProof {
    /// Every Schreier generator of the level sifted to the identity (Schreier's lemma).
    SchreierGenerators,
    /// Sims's one-generator lemma: `<S^(i)> = <H, z>` and a few membership tests in `H`.
    OneGeneratorLemma,
    /// An upper bound on the level's group order from a normal series (a deeper level's group or
    /// a cyclic group, extended by normalising elements) equal to the chain's product.
    LevelNormalSeries,
    /// The level's group order, computed exactly by a chain of its action on the points and on a
    /// block system (the blocks of the point stabiliser's fixed points), equal to the chain's
    /// product.
    BlockSystem,
    /// The whole chain at once, by an upper bound on `|G|` from a normal series of the generators.
    WholeGroupNormalSeries,
    /// Level 0 of a transitive group with a regular abelian normal subgroup `N` (an affine
    /// group's translations): `G_α = <s · t_{α^s}⁻¹>` over the generators `s`, with `t_β ∈ N`
    /// mapping `α` to `β`, each sifted.
    RegularNormalSubgroup,
    /// The whole chain at once: the product of its orbit lengths equals an order known beforehand
    /// (the chains the structural proofs build for a proven subgroup).
    KnownOrder,
    /// The whole chain at once: the product of its orbit lengths equals the order proven from
    /// the group's action on the orientations of its minimal blocks, whose alternating groups it
    /// contains (`Sym(50) wr Sym(20)`; see `alternating_blocks`).
    AlternatingBlocks,
    /// The whole chain at once: the product of its orbit lengths equals an upper bound on the
    /// order proven from the group's action on its minimal blocks of two points and two signs
    /// (see `blocks_of_two`), where the groups of [`BlockWreath`](Self::BlockWreath)'s bound are
    /// beyond the chain's budget.
    BlocksOfTwo,
    /// The whole chain at once: the product of its orbit lengths equals an upper bound on the
    /// order proven from the group's action on its minimal blocks, the group a block's
    /// stabiliser induces on the block and the transfer into it (`D_5 wr Sym(200)`; see
    /// `block_wreath`).
    BlockWreath,
    /// The whole chain at once: the product of its orbit lengths equals an upper bound on the
    /// order of an intransitive group proven from its actions on its orbits and their signs
    /// (`Sym(100) wr Sym(9)` on 900 points beside `Sym(100)` on 100 more; see
    /// `orbit_constituents`), or from its orbits' wreath products and the joint group of their
    /// transfers, blocks and signs (`D_5 wr Sym(60)` beside `Sym(57)` beside `D_5 wr Sym(77)`;
    /// see `recognise_orbit_wreaths`).
    OrbitConstituents,
}

/// An upper bound on the group's order proven outside the chain, and the proof a chain reaching
/// it records (such a chain is complete: its product is the order of a subgroup); asked for only
/// when completing the chain by its own proofs would be expensive: called with the base length
/// the random phase found, the chain budget left and where to record the most bytes it held at
/// once (the chain's peak includes it), it returns `Ok(None)` when it does not apply.
pub(crate) type OrderProof<'a> = dyn Fn(
        usize,
        u64,
        &SolveContext,
        &mut u64,
    ) -> Result<Option<(num_bigint::BigUint, LevelProof)>, SolveError>
    + 'a;

/// Internal knobs of the chain (the answers never depend on them, only time and memory).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChainTuning {
    /// A level stores explicit inverse representatives while `orbit length × degree` is at most
    /// this; beyond it only the Schreier tree.
    pub(crate) max_explicit_entries: u64,
    /// Try the whole-group normal-series certificate even when the level proofs look cheap.
    pub(crate) always_try_certificate: bool,
    /// Where the structural level proofs (one-generator lemma, level normal series, block
    /// system) are tried.
    pub(crate) level_proofs: LevelProofPolicy,
    /// Whether a level may be proven through a block system ([`block_system`]); off in
    /// the chain that proof builds, so that it does not recurse.
    pub(crate) block_proofs: bool,
    /// Consecutive random elements that must sift to the identity before the random phase stops;
    /// small values leave chains incomplete for the proofs to finish (tests).
    pub(crate) random_streak: usize,
    /// New levels below the first start explicit up to [`OPTIMISTIC_EXPLICIT_MAX_DEGREE`],
    /// whatever the group's orbit of their base point: for large-base groups whose deeper orbits
    /// are short (Alt(m) on 2-sets, whose order is known from its action on lines). Off by
    /// default: a small-base group's long deeper orbits would build an explicit table up to the
    /// bound first, then switch to a tree (measured 2-3x slower on affine groups of degree 2,401).
    pub(crate) optimistic_explicit: bool,
}

impl Default for ChainTuning {
    fn default() -> Self {
        ChainTuning {
            max_explicit_entries: DEFAULT_MAX_EXPLICIT_ENTRIES,
            always_try_certificate: false,
            level_proofs: LevelProofPolicy::WhereExpensive,
            block_proofs: true,
            random_streak: RANDOM_STREAK,
            optimistic_explicit: false,
        }
    }
}

/// What a stabiliser chain is built from: the group `<generators>` on `0..n`, the memory budget
/// its storage is charged against, the seed of its random elements and its tuning. The chain
/// builders ([`Chain::build`], [`Chain::build_random`], [`Chain::build_with_known_order`] and
/// their variants with a first base point) take it together with the cancellation context.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChainInputs<'a> {
    /// The degree: the generators act on `0..n`.
    pub(crate) n: usize,
    pub(crate) generators: &'a [Perm],
    /// Bytes the chain may hold (see [`Chain::bytes`]).
    pub(crate) budget_bytes: u64,
    /// Seed of the product-replacement random elements (answers never depend on it).
    pub(crate) seed: u64,
    pub(crate) tuning: ChainTuning,
}

/// Edge label code: `2 · pool index`, plus 1 for the inverse of that permutation.
#[inline]
fn code(idx: usize, inverse: bool) -> u32 {
    (2 * idx + usize::from(inverse)) as u32
}

/// The inverse of the label with `code`, as an image array.
#[inline]
fn label_inverse<'a>(pool: &'a [Perm], pool_inv: &'a [Perm], code: u32) -> &'a [u32] {
    let idx = (code >> 1) as usize;
    if code & 1 == 0 {
        pool_inv[idx].images()
    } else {
        pool[idx].images()
    }
}

/// The label with `code`, as an image array.
#[inline]
fn label<'a>(pool: &'a [Perm], pool_inv: &'a [Perm], code: u32) -> &'a [u32] {
    label_inverse(pool, pool_inv, code ^ 1)
}

/// One level of the stabiliser chain.
pub(crate) struct Level {
    /// The base point `b_i`.
    pub(crate) base_point: u32,
    /// Pool indices of this level's generators `S^(i)` (their Schreier generators are verified).
    gens: Vec<u32>,
    /// Explicit mode: how many of `gens` have been applied to every orbit point so far.
    gens_applied: usize,
    /// Tree mode: pool indices of the extra tree labels (elements of `<S^(i)>`, cube doubling).
    extras: Vec<u32>,
    /// The orbit of `b_i` under `<S^(i)>`, in discovery order; `orbit[0] = b_i`.
    pub(crate) orbit: Vec<u32>,
    /// `pos[x]` = index of `x` in `orbit`, or [`NONE`]. Length = degree.
    pub(crate) pos: Vec<u32>,
    /// Explicit mode: inverses of the representatives, flat: `inv_reps[j·d .. (j+1)·d]` is `u_j⁻¹`.
    /// `None` in tree mode.
    inv_reps: Option<Vec<u32>>,
    /// Tree edge that discovered each orbit point: (parent orbit index, label code), with
    /// `u_child = u_parent · label` exactly (the Schreier vector).
    parent: Vec<(u32, u32)>,
    /// For each orbit point, how many of `gens` (a prefix) have had their Schreier generator
    /// verified.
    checked: Vec<u32>,
    /// Integers charged for this level's own storage: its point array, header and the
    /// representatives' capacity (excluding labels in the pool and per-point entries).
    charged: u64,
    /// Orbit points whose [`POINT_ENTRIES`] are charged (at least `orbit.len()`; never shrinks,
    /// as the vectors keep their capacity).
    points_charged: u64,
    /// How the level was last proven; `None` while unproven (and again after a new generator).
    proof: Option<LevelProof>,
    /// Estimated integer operations of proving the level again by its cheapest known proof other
    /// than a block system (set when it is proven): what a block-system proof of a higher level,
    /// whose chain proves this level again, is expected to spend on it.
    reproof_work: u64,
}

/// Replaces `g` by `g · u_j⁻¹` (level `lvl`'s representative `j`).
///
/// Complexity: O(d) in explicit mode, O(d · depth(j)) in tree mode.
#[inline]
fn apply_inv_rep(lvl: &Level, pool: &[Perm], pool_inv: &[Perm], j: usize, g: &mut [u32]) {
    let n = lvl.pos.len();
    if let Some(inv_reps) = &lvl.inv_reps {
        let inv = &inv_reps[j * n..(j + 1) * n];
        for x in g.iter_mut() {
            *x = inv[*x as usize];
        }
        return;
    }
    // u_j = t_1 · … · t_L along the path from the root, so u_j⁻¹ = t_L⁻¹ · … · t_1⁻¹: apply the
    // inverse labels from j upwards.
    let mut k = j;
    while k != 0 {
        let (p, c) = lvl.parent[k];
        let li = label_inverse(pool, pool_inv, c);
        for x in g.iter_mut() {
            *x = li[*x as usize];
        }
        k = p as usize;
    }
}

/// A base and strong generating set with explicit or tree transversals.
pub(crate) struct Chain {
    n: usize,
    /// The strong generators followed by (interleaved with) extra tree labels; all are elements
    /// of the group fixing the base points of the levels that use them, so together they are
    /// still a strong generating set.
    strong: Vec<Perm>,
    strong_inv: Vec<Perm>,
    pub(crate) levels: Vec<Level>,
    /// Integers allocated so far (chain storage), and the budget.
    entries: u64,
    budget_entries: u64,
    budget_bytes: u64,
    tuning: ChainTuning,
    /// The most bytes a proof of completeness held at once beside the chain (its permutations and
    /// subgroup chains, kept within the budget left at the time): the chain's peak is at most
    /// `bytes() + proof_peak`.
    proof_peak: u64,
}

impl std::fmt::Debug for Chain {
    /// A summary (the transversals are far too large to print).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("degree", &self.n)
            .field("base", &self.base())
            .field("orbit_lengths", &self.orbit_lengths())
            .field("strong_generators", &self.strong.len())
            .field(
                "tree_levels",
                &self.levels.iter().filter(|l| l.inv_reps.is_none()).count(),
            )
            .field("bytes", &(self.entries * 4))
            .finish()
    }
}

#[inline]
pub(crate) fn is_identity_slice(g: &[u32]) -> bool {
    g.iter().enumerate().all(|(i, &x)| i as u32 == x)
}

fn charge(
    entries: &mut u64,
    extra: u64,
    budget: u64,
    bytes: u64,
    n: usize,
) -> Result<(), SolveError> {
    *entries += extra;
    if *entries > budget {
        return Err(SolveError::limit_shown(
            format!("memory for the stabiliser chain of the degree-{n} group"),
            "max_group_chain_bytes",
            bytes,
            format!("{bytes} bytes"),
        )
        .requested(entries.saturating_mul(4)));
    }
    Ok(())
}

/// `⌈log₂ m⌉` for `m >= 1`.
fn ceil_log2(m: usize) -> usize {
    (usize::BITS - m.saturating_sub(1).leading_zeros()) as usize
}

impl Chain {
    /// An empty chain (the trivial group) on `n` points with a memory budget in bytes.
    pub(crate) fn new(n: usize, budget_bytes: u64, tuning: ChainTuning) -> Chain {
        Chain {
            n,
            strong: Vec::new(),
            strong_inv: Vec::new(),
            levels: Vec::new(),
            entries: 0,
            budget_entries: budget_bytes / 4,
            budget_bytes,
            tuning,
            proof_peak: 0,
        }
    }

    /// Builds an exact chain for `<generators>`: random phase, then a proof of completeness
    /// (a whole-group normal-series certificate, or level by level from the deepest up, see the
    /// module documentation).
    ///
    /// Complexity: random phase O(r · d · Σ depth_i) for r random elements; a level proven by its
    /// Schreier generators O(|Δ_i| · |S^(i)| · d · Σ_j depth_j) where the `Δ_i` are the
    /// fundamental orbits (depth 1 for explicit levels); the structural proofs O(d · Σ depth)
    /// per membership test, a number of tests independent of `|Δ_i|`, plus a few random
    /// Schreier–Sims runs of subgroups.
    ///
    /// `order_proof`, when given, is asked for an upper bound on the group's order where the
    /// chain's own proofs would be expensive: a chain whose product reaches it (more random
    /// elements sifted, [`KNOWN_ORDER_PATIENCE`] in a row at most without progress) is complete
    /// (with the proof `order_proof` names); otherwise the proofs go on as without it.
    pub(crate) fn build(
        inputs: &ChainInputs<'_>,
        order_proof: Option<&OrderProof<'_>>,
        ctx: &SolveContext,
    ) -> Result<Chain, SolveError> {
        Chain::build_from(inputs, None, order_proof, ctx)
    }

    /// [`build`](Self::build) with the first base point `b0` (a point some generator moves) when
    /// given.
    pub(crate) fn build_from(
        inputs: &ChainInputs<'_>,
        b0: Option<u32>,
        order_proof: Option<&OrderProof<'_>>,
        ctx: &SolveContext,
    ) -> Result<Chain, SolveError> {
        let &ChainInputs {
            n,
            generators,
            seed,
            tuning,
            ..
        } = inputs;
        let mut chain = Chain::build_random_from(inputs, b0, ctx)?;
        if chain.levels.is_empty() {
            return Ok(chain);
        }
        // The proofs sift many elements through the deeper levels.
        chain.make_short_levels_explicit(ctx)?;
        let expensive = chain.completion_work_estimate() > CERTIFICATE_WORK_THRESHOLD;
        if expensive
            && let Some(order_proof) = order_proof
            && let Some((bound, proof)) = {
                let mut peak = 0;
                let out = order_proof(chain.levels.len(), chain.budget_left(), ctx, &mut peak)?;
                chain.proof_peak = chain.proof_peak.max(peak);
                out
            }
        {
            let random = ProductReplacement::new(n, generators, seed ^ ORDER_PROOF_SEED, ctx)?;
            if chain.grow_to_order(&bound, random, ctx)? {
                for lvl in &mut chain.levels {
                    lvl.proof = Some(proof);
                }
                return Ok(chain);
            }
        }
        if tuning.always_try_certificate || expensive {
            // The subgroup chains of the certificate share what is left of the budget; running
            // out there only means no certificate.
            let left = chain.budget_left();
            let mut peak = 0;
            let bound =
                match normal_series::order_upper_bound(n, generators, left, seed, ctx, &mut peak) {
                    Ok(bound) => bound,
                    Err(SolveError::LimitExceeded { .. }) => None,
                    Err(e) => return Err(e),
                };
            chain.proof_peak = chain.proof_peak.max(peak);
            if let Some(bound) = bound {
                // `chain.order() <= |G| <= bound`; equality proves every level's orbit is the
                // true fundamental orbit and the base's pointwise stabiliser trivial.
                if chain.order() == bound {
                    for lvl in &mut chain.levels {
                        lvl.proof = Some(LevelProof::WholeGroupNormalSeries);
                    }
                    return Ok(chain);
                }
            }
        }
        chain.prove(seed, ctx)?;
        Ok(chain)
    }

    /// A chain with one level at `b0` holding the non-identity `generators` (`b0` must be moved
    /// by one of them).
    fn started_at(
        inputs: &ChainInputs<'_>,
        b0: u32,
        ctx: &SolveContext,
    ) -> Result<Chain, SolveError> {
        let &ChainInputs {
            n,
            generators,
            budget_bytes,
            tuning,
            ..
        } = inputs;
        let mut chain = Chain::new(n, budget_bytes, tuning);
        // The first level's orbit is the group's orbit of b0, known before anything is stored:
        // choose its representation now rather than filling explicit storage first.
        let first_orbit = orbit_of_point(n, generators, b0).len() as u64;
        chain.add_level(b0, first_orbit)?;
        for g in generators.iter().filter(|g| !g.is_identity()) {
            chain.add_gen(g.clone(), 0, 0, ctx)?;
        }
        Ok(chain)
    }

    /// The product of the orbit lengths: the group's order once the chain is complete.
    pub(crate) fn order(&self) -> num_bigint::BigUint {
        self.order_from(0)
    }

    /// The product of the orbit lengths of levels `from..`.
    pub(crate) fn order_from(&self, from: usize) -> num_bigint::BigUint {
        self.levels[from.min(self.levels.len())..]
            .iter()
            .map(|l| num_bigint::BigUint::from(l.orbit.len()))
            .product()
    }

    /// Rough integer operations of proving every level by its Schreier generators: their number
    /// times the cost of forming and sifting one.
    fn completion_work_estimate(&self) -> u64 {
        let n = self.n as u64;
        let sift: u64 = self.levels.iter().map(|l| self.level_depth(l) + 1).sum();
        self.levels
            .iter()
            .map(|l| (l.orbit.len() as u64).saturating_mul(l.gens.len() as u64))
            .sum::<u64>()
            .saturating_mul(n)
            .saturating_mul(sift)
    }

    /// Depth of level `l`'s tree (1 for an explicit level).
    pub(crate) fn level_depth_of(&self, l: usize) -> u64 {
        self.level_depth(&self.levels[l])
    }

    /// Depth of a level's tree (1 for an explicit level).
    fn level_depth(&self, lvl: &Level) -> u64 {
        if lvl.inv_reps.is_some() {
            return 1;
        }
        let mut depth = vec![0u32; lvl.orbit.len()];
        let mut max = 0;
        for j in 1..lvl.orbit.len() {
            depth[j] = depth[lvl.parent[j].0 as usize] + 1;
            max = max.max(depth[j]);
        }
        u64::from(max)
    }

    /// Length of the orbit of `x` under the whole group (level 0's generators): an upper bound
    /// on any level's orbit of `x`.
    ///
    /// Complexity: O(|orbit| · |S^(0)|) time, O(d) memory.
    fn group_orbit_len(&self, x: u32) -> u64 {
        let Some(level0) = self.levels.first() else {
            return 1;
        };
        let mut seen = vec![false; self.n];
        let mut queue = vec![x];
        seen[x as usize] = true;
        let mut head = 0;
        while head < queue.len() {
            let y = queue[head];
            head += 1;
            for &g in &level0.gens {
                let z = self.strong[g as usize].images()[y as usize];
                if !seen[z as usize] {
                    seen[z as usize] = true;
                    queue.push(z);
                }
            }
        }
        queue.len() as u64
    }

    /// Bytes charged to the chain's budget: an upper bound on what it holds.
    pub(crate) fn bytes(&self) -> u64 {
        self.entries.saturating_mul(4)
    }

    /// What is left of the chain's memory budget, in bytes (for the subgroup chains of a proof).
    pub(crate) fn budget_left(&self) -> u64 {
        self.budget_bytes.saturating_sub(self.bytes())
    }

    /// An upper bound on the bytes the chain and its proofs held at once: [`bytes`](Self::bytes)
    /// plus the most a proof held beside it.
    pub(crate) fn peak_bytes(&self) -> u64 {
        self.bytes().saturating_add(self.proof_peak)
    }

    /// The degree `d`.
    pub(crate) fn degree(&self) -> usize {
        self.n
    }

    /// The chain's knobs.
    pub(crate) fn tuning(&self) -> ChainTuning {
        self.tuning
    }

    /// The generators `S^(l)` of level `l` (strong generators fixing `b_0..b_{l-1}`).
    pub(crate) fn level_generators(&self, l: usize) -> impl Iterator<Item = &Perm> + '_ {
        self.levels[l]
            .gens
            .iter()
            .map(|&i| &self.strong[i as usize])
    }

    /// The extra tree labels of level `l` (elements of `<S^(l)>`).
    pub(crate) fn level_extra_labels(&self, l: usize) -> impl Iterator<Item = &Perm> + '_ {
        self.levels[l]
            .extras
            .iter()
            .map(|&i| &self.strong[i as usize])
    }

    /// How each level was proven (`None`: not proven).
    pub(crate) fn level_proofs(&self) -> Vec<Option<LevelProof>> {
        self.levels.iter().map(|l| l.proof).collect()
    }

    /// The base points.
    pub(crate) fn base(&self) -> Vec<u32> {
        self.levels.iter().map(|l| l.base_point).collect()
    }

    /// The strong generators (including the extra tree labels, which are group elements fixing
    /// the base points before their level).
    pub(crate) fn strong_generators(&self) -> &[Perm] {
        &self.strong
    }

    /// The orbit lengths (fundamental orbits), whose product is the order.
    pub(crate) fn orbit_lengths(&self) -> Vec<usize> {
        self.levels.iter().map(|l| l.orbit.len()).collect()
    }

    /// Appends `g` (and its inverse) to the pool; returns its index.
    fn push_pool(&mut self, g: Perm) -> Result<u32, SolveError> {
        let n = self.n;
        charge(
            &mut self.entries,
            2 * n as u64 + POOL_ENTRIES,
            self.budget_entries,
            self.budget_bytes,
            n,
        )?;
        let idx = self.strong.len() as u32;
        self.strong_inv.push(g.inverse());
        self.strong.push(g);
        Ok(idx)
    }

    /// Adds `g` as a strong generator of levels `lo..=hi` and extends their orbits.
    fn add_gen(
        &mut self,
        g: Perm,
        lo: usize,
        hi: usize,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let idx = self.push_pool(g)?;
        for l in lo..=hi {
            charge(
                &mut self.entries,
                INDEX_ENTRIES,
                self.budget_entries,
                self.budget_bytes,
                self.n,
            )?;
            self.levels[l].gens.push(idx);
            self.levels[l].proof = None;
            if self.levels[l].inv_reps.is_some() {
                self.extend_orbit(l, ctx)?;
            } else if self.maps_orbit_onto_itself(l, idx) {
                // The tree, hence every representative and the verification progress, stays as
                // it is: rebuilding it for each residue added to every level above the one it
                // stopped at cost `O(|Δ| · |S|)` per level and residue (minutes for the 500
                // tree levels of `Sym(2) wr Sym(500)`).
                self.levels[l].gens_applied = self.levels[l].gens.len();
            } else {
                self.rebuild_tree(l, ctx)?;
            }
        }
        Ok(())
    }

    /// Whether the pool's permutation `idx` maps level `l`'s orbit onto itself.
    ///
    /// Complexity: O(|Δ_l|).
    fn maps_orbit_onto_itself(&self, l: usize, idx: u32) -> bool {
        let lvl = &self.levels[l];
        let s = self.strong[idx as usize].images();
        lvl.orbit
            .iter()
            .all(|&x| lvl.pos[s[x as usize] as usize] != NONE)
    }

    /// Sifts `g` (an image array, modified in place) through levels `from..`; returns the level
    /// whose orbit does not contain the image of its base point, or `levels.len()` if `g` passed
    /// every level (then `g` holds the residue, which fixes every base point).
    ///
    /// Complexity: O(d) per explicit level passed, O(d · depth) per tree level.
    #[inline]
    pub(crate) fn sift(&self, g: &mut [u32], from: usize) -> usize {
        for (l, lvl) in self.levels.iter().enumerate().skip(from) {
            let beta = g[lvl.base_point as usize];
            let j = lvl.pos[beta as usize];
            if j == NONE {
                return l;
            }
            if j != 0 {
                apply_inv_rep(lvl, &self.strong, &self.strong_inv, j as usize, g);
            }
        }
        self.levels.len()
    }

    /// Whether the permutation `g` (image array of degree d, consumed) lies in the group (for a
    /// chain from [`build_random`](Self::build_random): `true` is certain, `false` is not).
    pub(crate) fn contains_in_place(&self, g: &mut [u32]) -> bool {
        self.sift(g, 0) == self.levels.len() && is_identity_slice(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dihedral(n: usize) -> Vec<Perm> {
        let r: Vec<u32> = (0..n as u32).map(|x| (x + 1) % n as u32).collect();
        let s: Vec<u32> = (0..n as u32).map(|x| (n as u32 - x) % n as u32).collect();
        vec![
            Perm::from_images(r, "r").expect("rotation"),
            Perm::from_images(s, "s").expect("reflection"),
        ]
    }

    /// A chain of `generators` with a 1 GiB budget and seed 3.
    fn test_inputs(generators: &[Perm], tuning: ChainTuning) -> ChainInputs<'_> {
        ChainInputs {
            n: generators[0].degree(),
            generators,
            budget_bytes: 1 << 30,
            seed: 3,
            tuning,
        }
    }

    /// The rotation `x ↦ x + k` and the reflection `x ↦ k - x` of `0..n` (members of `D_n` by
    /// its formula) sift to the identity in `chain`, for each `k` of `shifts`.
    fn assert_dihedral_members(chain: &Chain, n: usize, shifts: &[u32]) {
        for &k in shifts {
            let mut rot: Vec<u32> = (0..n as u32).map(|x| (x + k) % n as u32).collect();
            assert!(chain.contains_in_place(&mut rot));
            let mut refl: Vec<u32> = (0..n as u32)
                .map(|x| (k + n as u32 - x) % n as u32)
                .collect();
            assert!(chain.contains_in_place(&mut refl));
        }
    }

    #[test]
    fn schreier_trees_are_shallow_and_sift_correctly() {
        let n = 1000;
        let ctx = SolveContext::detached();
        let tuning = ChainTuning {
            max_explicit_entries: 0,
            ..ChainTuning::default()
        };
        let gens = dihedral(n);
        let chain = Chain::build(&test_inputs(&gens, tuning), None, &ctx).expect("chain");
        assert_eq!(chain.orbit_lengths().iter().product::<usize>(), 2 * n);
        let lvl = &chain.levels[0];
        assert!(lvl.inv_reps.is_none());
        let depth = chain.level_depth(lvl) as usize;
        assert!(
            depth <= 2 * lvl.extras.len() + ceil_log2(n) + 2 && depth <= 40,
            "depth {depth} with {} extra labels",
            lvl.extras.len()
        );
        // Every rotation and reflection sifts to the identity; a transposition does not.
        assert_dihedral_members(&chain, n, &[0, 1, 499, 999]);
        let mut tr: Vec<u32> = (0..n as u32).collect();
        tr.swap(0, 1);
        assert!(!chain.contains_in_place(&mut tr));
    }

    #[test]
    fn levels_choose_their_representation_by_size() {
        // D_100 on 0..100 and C_3 on 100..103: with the explicit bound 5000 integers, the level
        // whose orbit is the 100-point orbit (100 x 103 > 5000) is a tree; the others, the C_3
        // level (3 x 103) and the reflection's level (2 x 103, built as a tree since the group's
        // orbit of its base point has 100 points, then made explicit), are explicit.
        let n = 103;
        let ctx = SolveContext::detached();
        let tuning = ChainTuning {
            max_explicit_entries: 5000,
            ..ChainTuning::default()
        };
        let mut gens: Vec<Perm> = dihedral(100)
            .iter()
            .map(|p| {
                let mut img = p.images().to_vec();
                img.extend([100, 101, 102]);
                Perm::from_images(img, "d").expect("extended")
            })
            .collect();
        let mut c: Vec<u32> = (0..n as u32).collect();
        c[100..].copy_from_slice(&[101, 102, 100]);
        gens.push(Perm::from_images(c, "c").expect("3-cycle"));
        let chain = Chain::build(&test_inputs(&gens, tuning), None, &ctx).expect("chain");
        assert_eq!(chain.orbit_lengths().iter().product::<usize>(), 600);
        for lvl in &chain.levels {
            let explicit = lvl.orbit.len() * n <= 5000;
            assert_eq!(
                lvl.inv_reps.is_some(),
                explicit,
                "level at {}",
                lvl.base_point
            );
        }
        assert!(
            chain
                .levels
                .iter()
                .any(|l| l.base_point < 100 && l.orbit.len() == 2 && l.inv_reps.is_some()),
            "the reflection's level is made explicit"
        );
        // Sifting through the converted level: a reflection of D_100 times the 3-cycle is a
        // member, a transposition of two of the 100 points is not.
        let mut member: Vec<u32> = (0..100u32).map(|x| (100 - x) % 100).collect();
        member.extend([101, 102, 100]);
        assert!(chain.contains_in_place(&mut member));
        let mut other: Vec<u32> = (0..n as u32).collect();
        other.swap(1, 99);
        assert!(!chain.contains_in_place(&mut other));
        for l in 0..chain.levels.len() {
            let lvl = &chain.levels[l];
            for (j, u) in chain.transversal(l).iter().enumerate() {
                assert_eq!(u.image(lvl.base_point), lvl.orbit[j]);
            }
        }
    }

    /// D_1200: level 0 (1,200 points) starts as a tree; many memberships make it explicit, a
    /// few do not; either way rotations and reflections are members (the dihedral formula, not
    /// the chain) and transpositions are not.
    #[test]
    fn a_long_first_level_is_a_tree_until_memberships_make_it_explicit() {
        let n = 1200;
        let ctx = SolveContext::detached();
        let gens = dihedral(n);
        let mut chain =
            Chain::build(&test_inputs(&gens, ChainTuning::default()), None, &ctx).expect("chain");
        assert_eq!(chain.order(), num_bigint::BigUint::from(2 * n));
        assert!(chain.levels[0].inv_reps.is_none());
        let check = |chain: &Chain| {
            assert_dihedral_members(chain, n, &[0, 1, 599, 1199]);
            for k in [0u32, 1, 599, 1199] {
                let mut tr: Vec<u32> = (0..n as u32).collect();
                tr.swap(k as usize, (k as usize + 2) % n);
                assert!(!chain.contains_in_place(&mut tr));
            }
        };
        check(&chain);
        chain.prepare_for_sifts(1, &ctx).expect("no limit");
        assert!(chain.levels[0].inv_reps.is_none(), "one sift: no table");
        chain.prepare_for_sifts(10_000, &ctx).expect("no limit");
        assert!(chain.levels[0].inv_reps.is_some());
        check(&chain);
    }

    #[test]
    fn ceil_log2_values() {
        assert_eq!(
            [1, 2, 3, 4, 5, 1024, 1025].map(ceil_log2),
            [0, 1, 2, 2, 3, 10, 11]
        );
    }
}
