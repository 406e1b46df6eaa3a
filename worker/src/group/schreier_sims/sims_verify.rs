//! Sims's one-generator lemma: proving one level of a stabiliser chain with a number of
//! membership tests that depends on orbit structure, not on the orbit length.
//!
//! **Setting.** Level `i` of a chain has base point `α`, generators `S = S^(i)` (the group
//! `P = <S>`) and orbit `Δ = α^P`; every deeper level is proven, so `H = <S^(i+1)> <= P_α` has an
//! exact membership test (sifting through levels `i+1..`) and a known order. The level is proven
//! when `P_α = H`. Sifting every Schreier generator (`|Δ| · |S|` membership tests, each costing
//! `O(d · depth)`) does that, but at degree 10^5 with an orbit of 10^5 points it takes hours.
//!
//! **Lemma** (after C. C. Sims's *Verify*; Seress 2003, §8.2). Let `z ∈ P` with
//! `α^{<H, z>} = Δ`. Let `O_1 = {α}, O_2, …, O_m` be the orbits of `H` on `Δ`, `p_j ∈ O_j`,
//! `r_j ∈ P` with `α^{r_j} = p_j` (`r_1 = 1`), and for `ε ∈ O_j` let `h_ε ∈ H` map `p_j` to `ε`;
//! put `u_ε = r_j h_ε` (so `α^{u_ε} = ε`, `u_α = 1`) and `X = ⋃_{ε ∈ Δ} H u_ε`, a set of
//! `|H| · |Δ|` elements of `P` (its cosets `H u_ε` are distinct: they map `α` to distinct points).
//! Let `γ = α^{z⁻¹}`. If
//! 1. `r_j y r_j⁻¹ ∈ H` for every `j` and every generator `y` of `H_{p_j}`,
//! 2. `u_ε z u_{ε^z}⁻¹ ∈ H` for one `ε` in each orbit of `H_γ` on `Δ`,
//! 3. `z⁻¹ y z ∈ H` for every generator `y` of `H_γ`,
//! 4. every `s ∈ S` lies in `X`, i.e. `s u_{α^s}⁻¹ ∈ H`,
//!
//! then `P = X`, so `|P| = |Δ| · |H|` and `P_α = H`.
//!
//! *Proof.* An element `x ∈ P` lies in `X` iff `x u_{α^x}⁻¹ ∈ H`. (a) `X H ⊆ X`: for `t ∈ H` and
//! `ε ∈ O_j`, `w = h_ε t h_{ε^t}⁻¹` fixes `p_j`, so `u_ε t = r_j w h_{ε^t} = (r_j w r_j⁻¹) u_{ε^t}`
//! with `r_j w r_j⁻¹ ∈ H` by 1 (conjugation is a homomorphism, so generators of `H_{p_j}`
//! suffice); hence `H u_ε t ⊆ X`. (b) `X z ⊆ X`: it suffices that `u_ε z ∈ X` for every `ε`. If it
//! holds for `ε ∈ O_j` and `y ∈ H_γ`, let `ε' = ε^y` and `w = h_ε y h_{ε'}⁻¹ ∈ H_{p_j}`; then
//! `u_{ε'} z = (r_j w⁻¹ r_j⁻¹) · u_ε z · (z⁻¹ y z)`, whose outer factors lie in `H` by 1 and 3,
//! so `u_{ε'} z ∈ H X H ⊆ X` by (a). Thus 2 for one point per `H_γ`-orbit gives it for all of
//! `Δ`. (c) By (a) and (b) `X <H, z> ⊆ X`, and `1 ∈ X`,
//! so `<H, z> ⊆ X ⊆ P`; by 4 `P = <S> ⊆ <H, z>`, so `P = X`. ∎
//!
//! Conversely, if `P_α = H` every element tested lies in `P_α` and so in `H`: a failed test
//! yields an element of `P_α` outside `H` (its residue is a missing strong generator), never a
//! wrong proof. Every tested element is checked to fix `α`.
//!
//! **Cost.** Tests: `Σ_j |gens(H_{p_j})|` + (orbits of `H_γ` on `Δ`) + `|gens(H_γ)|` + `|S|`,
//! each forming a few products of transversal elements and sifting, `O(d · Σ depth)`. For a
//! 2-transitive level (`m = 2`) with a large two-point stabiliser that is a handful of tests: the
//! projective line of PSL(2, p) needs about ten instead of `2(p+1)`. Generators of `H_{p_j}` come
//! from the chain when `p_j` is the next base point or is fixed by `H`; otherwise from a chain of
//! `H` rebuilt with first base point `p_j` by random Schreier–Sims until the known order `|H|` is
//! reached (a proof); `H_γ = h_γ⁻¹ H_{p_j} h_γ`. The lemma declines (the caller then tries other
//! proofs) when `H` has too many orbits on `Δ`, no `z` is found, or the tests would cost more than
//! sifting the Schreier generators.
//!
//! Reference: C. C. Sims, "Computation with permutation groups", Proc. 2nd Symposium on Symbolic
//! and Algebraic Manipulation (1971); Á. Seress, *Permutation Group Algorithms* (2003), §8.2
//! ("Sims's Verify routine"); Holt, Eick, O'Brien, *Handbook of Computational Group Theory*
//! (2005), §4.4.

use super::{Chain, ChainInputs, ChainTuning, NONE, is_identity_slice};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::Perm;
use crate::group::product_replacement::ProductReplacement;
use crate::group::proof_memory::Held;

/// What the lemma concluded about a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LemmaOutcome {
    /// `P_α = H`: the level is complete.
    Proven,
    /// An element of `P_α` outside `H` was found; its residue is in the caller's buffer, and
    /// sifting it stopped at this level.
    Residue(usize),
    /// The lemma does not apply here; nothing is proven.
    NotApplicable,
    /// The lemma applies but its tests would cost more than the work allowed (the estimate
    /// given); nothing is proven.
    TooCostly(u64),
}

/// More orbits of `H` on `Δ` than this and the lemma declines (each needs its stabiliser).
const MAX_H_ORBITS: usize = 1024;

/// Orbits of `H` needing a rebuilt chain of `H` (their point is neither fixed by `H` nor the
/// next base point) above which the lemma declines.
const MAX_REBUILT_CHAINS: usize = 64;

/// Random elements a rebuilt chain of `H` is expected to take per level of `H`, for the lemma's
/// cost estimate.
const REBUILD_ELEMENTS_PER_LEVEL: u64 = 10;

/// Random elements of `P` tried as `z` after the level's generators and tree labels.
const RANDOM_Z_TRIES: usize = 8;

/// Shortest orbits of `H` (besides `{α}`) one point `γ` of which is tried as `α^{z⁻¹}`, with `z =
/// u_γ⁻¹` (`u_γ` the level's transversal element), before random elements. Another point `γ^h`
/// of the same orbit gives `u_{γ^h} ∈ P_α u_γ h`, the same `<H, z>` once `P_α = H`: one point per
/// orbit.
const Z_TARGET_ORBITS: usize = 6;

/// Permutations the lemma may hold at once besides its stabiliser generators and the random
/// elements' state, charged to the chain's budget with them (`r_j`, `r_j⁻¹`, `h_γ`, `h_γ⁻¹`, `z`,
/// `z⁻¹`, two coset representatives, a product being formed and its factors).
const SCRATCH_PERMS: usize = 12;

/// How the lemma sees one orbit `O_j` of `H` on `Δ`: its point `p_j`, generators of `H_{p_j}` and
/// elements of `H` mapping `p_j` to any point of `O_j`.
enum OrbitView {
    /// `p_j` is fixed by `H` (`O_j = {p_j}`): `H_{p_j} = H`.
    Fixed,
    /// `p_j` is the next base point `b_{i+1}`: the chain's own levels `i+1..`.
    NextLevel,
    /// A complete chain of `H` with first base point `p_j`.
    Rebuilt(Box<Chain>),
}

/// The lemma's data for level `level` of `chain`.
struct Level<'a> {
    chain: &'a Chain,
    level: usize,
    n: usize,
    alpha: u32,
    /// `Δ` and the index of each point in it (`NONE` outside).
    orbit: &'a [u32],
    pos: &'a [u32],
    /// Generators of `H`.
    h_gens: Vec<&'a Perm>,
}

impl Level<'_> {
    /// The H-orbit partition of `Δ` under `gens` (all elements of `H`): the orbit index of each
    /// point of `Δ` (by position) and a point of each orbit, the orbit of `α` first.
    ///
    /// Complexity: O(|Δ| · |gens|).
    fn orbits_under(&self, gens: &[&Perm]) -> (Vec<u32>, Vec<u32>) {
        let mut label = vec![NONE; self.orbit.len()];
        let mut reps = Vec::new();
        let mut queue: Vec<u32> = Vec::new();
        for (start, &x) in self.orbit.iter().enumerate() {
            if label[start] != NONE {
                continue;
            }
            let id = reps.len() as u32;
            reps.push(x);
            label[start] = id;
            queue.clear();
            queue.push(x);
            while let Some(y) = queue.pop() {
                for g in gens {
                    let w = g.images()[y as usize];
                    let k = self.pos[w as usize] as usize;
                    if label[k] == NONE {
                        label[k] = id;
                        queue.push(w);
                    }
                }
            }
        }
        (label, reps)
    }

    /// Whether `α^{<H, z>}` is all of `Δ`: one orbit of `H` and `z` on it.
    ///
    /// Complexity: O(|Δ| · |gens(H)|).
    fn generates_orbit(&self, z: &Perm) -> bool {
        let mut gens = self.h_gens.clone();
        gens.push(z);
        self.orbits_under(&gens).1.len() == 1
    }

    /// `r_j`: the level's transversal element mapping `α` to `p`.
    fn level_rep(&self, p: u32) -> Perm {
        let mut img = vec![0u32; self.n];
        self.chain
            .rep_into(self.level, self.pos[p as usize] as usize, &mut img);
        Perm::from_images_unchecked(img.into_boxed_slice())
    }

    /// An element of `H` mapping `p_j` (the view's point) to `eps` (in the same `H`-orbit).
    fn h_rep(&self, view: &OrbitView, eps: u32) -> Perm {
        let mut img = vec![0u32; self.n];
        match view {
            OrbitView::Fixed => return Perm::identity(self.n),
            OrbitView::NextLevel => {
                let j = self.chain.levels[self.level + 1].pos[eps as usize];
                self.chain.rep_into(self.level + 1, j as usize, &mut img);
            }
            OrbitView::Rebuilt(c) => {
                let j = c.levels[0].pos[eps as usize];
                c.rep_into(0, j as usize, &mut img);
            }
        }
        Perm::from_images_unchecked(img.into_boxed_slice())
    }

    /// Replaces `g` by `h_ε · g` (`h_ε` as in [`h_rep`](Self::h_rep)); `scratch` is overwritten.
    fn left_multiply_h_rep(&self, view: &OrbitView, eps: u32, g: &mut [u32], scratch: &mut [u32]) {
        match view {
            OrbitView::Fixed => {}
            OrbitView::NextLevel => {
                let j = self.chain.levels[self.level + 1].pos[eps as usize];
                self.chain
                    .left_multiply_rep(self.level + 1, j as usize, g, scratch);
            }
            OrbitView::Rebuilt(c) => {
                let j = c.levels[0].pos[eps as usize];
                c.left_multiply_rep(0, j as usize, g, scratch);
            }
        }
    }

    /// Replaces `g` by `g · h_ε⁻¹` (`h_ε` as in [`h_rep`](Self::h_rep)).
    fn right_multiply_inverse_h_rep(&self, view: &OrbitView, eps: u32, g: &mut [u32]) {
        match view {
            OrbitView::Fixed => {}
            OrbitView::NextLevel => {
                let j = self.chain.levels[self.level + 1].pos[eps as usize];
                self.chain
                    .right_multiply_inverse_rep(self.level + 1, j as usize, g);
            }
            OrbitView::Rebuilt(c) => {
                let j = c.levels[0].pos[eps as usize];
                c.right_multiply_inverse_rep(0, j as usize, g);
            }
        }
    }

    /// Generators of `H_{p_j}` (borrowed from the chain, the view's chain or `H`'s generators).
    fn stabiliser_gens<'v>(&'v self, view: &'v OrbitView) -> Vec<&'v Perm> {
        match view {
            OrbitView::Fixed => self.h_gens.clone(),
            OrbitView::NextLevel if self.level + 2 < self.chain.levels.len() => {
                self.chain.level_generators(self.level + 2).collect()
            }
            OrbitView::Rebuilt(c) if c.levels.len() > 1 => c.level_generators(1).collect(),
            OrbitView::NextLevel | OrbitView::Rebuilt(_) => Vec::new(),
        }
    }

    /// Tests `g ∈ H` (exact: the deeper levels are proven). On failure the residue is left in
    /// `buf` and the outcome to return is given.
    fn test(&self, g: &Perm, buf: &mut [u32]) -> Option<LemmaOutcome> {
        buf.copy_from_slice(g.images());
        self.test_in_place(buf)
    }

    /// [`test`](Self::test) of the permutation in `buf` (consumed).
    fn test_in_place(&self, buf: &mut [u32]) -> Option<LemmaOutcome> {
        if buf[self.alpha as usize] != self.alpha {
            // Every tested element fixes α by construction; anything else is a bug, and must not
            // become a strong generator.
            debug_assert!(false, "a tested element moves the base point");
            return Some(LemmaOutcome::NotApplicable);
        }
        let l = self.chain.sift(buf, self.level + 1);
        if l < self.chain.levels.len() || !is_identity_slice(buf) {
            return Some(LemmaOutcome::Residue(l));
        }
        None
    }
}

/// Tries to prove level `level` of `chain` (every deeper level proven) by the one-generator lemma
/// (see the module documentation).
///
/// Arguments: `max_work`, the estimated integer operations its tests may cost (else it returns
/// [`LemmaOutcome::TooCostly`] before testing); `buf` (length `d`) receives a residue;
/// `seed` for the random choices of `z` and of rebuilt chains (never affecting an answer).
///
/// Returns [`LemmaOutcome::Proven`], a residue, or [`LemmaOutcome::NotApplicable`];
/// [`SolveError::Cancelled`] when cancelled.
///
/// Complexity: O(|Δ| · (|S^(i+1)| + k)) for the orbit computations with `k` stabiliser
/// generators, plus O(d · Σ depth) per membership test (see the module documentation for their
/// number), plus a random Schreier–Sims run of `H` per rebuilt chain.
///
/// Reference: Seress (2003), §8.2.
pub(crate) fn prove_level(
    chain: &Chain,
    level: usize,
    max_work: u64,
    buf: &mut [u32],
    seed: u64,
    ctx: &SolveContext,
    peak: &mut u64,
) -> Result<LemmaOutcome, SolveError> {
    let n = chain.degree();
    let lvl = &chain.levels[level];
    let h_gens: Vec<&Perm> = if level + 1 < chain.levels.len() {
        chain.level_generators(level + 1).collect()
    } else {
        Vec::new()
    };
    let at = Level {
        chain,
        level,
        n,
        alpha: lvl.base_point,
        orbit: &lvl.orbit,
        pos: &lvl.pos,
        h_gens,
    };
    // Memory: permutations held at once (scratch, the random elements' slots, later the
    // stabilisers' generators) and rebuilt chains, within what the chain's budget leaves.
    let mut held = Held::new(n, chain.budget_left(), peak);
    let perm_bytes = 4 * n as u64;
    let slots = chain.level_generators(level).count().max(10) + 3;
    if !held.hold(SCRATCH_PERMS + slots) {
        return Ok(LemmaOutcome::NotApplicable);
    }
    // Step 1: the orbits of H on Δ.
    let (h_orbit, h_reps) = at.orbits_under(&at.h_gens);
    if h_reps.len() > MAX_H_ORBITS {
        return Ok(LemmaOutcome::NotApplicable);
    }
    // Step 2: z with α^<H, z> = Δ, chosen so that γ = α^{z⁻¹} lies in a short orbit of `H`
    // (condition 2 tests one point per orbit of `H_γ`, about `|Δ| · |γ^H| / |H|` of them).
    let mut h_orbit_sizes = vec![0usize; h_reps.len()];
    for &o in &h_orbit {
        h_orbit_sizes[o as usize] += 1;
    }
    let gamma_orbit_size = |z_inv_alpha: u32| -> usize {
        h_orbit_sizes[h_orbit[lvl.pos[z_inv_alpha as usize] as usize] as usize]
    };
    // A point of each of the shortest orbits of `H` besides `{α}`, shortest first (`h_reps`).
    let mut short_orbits: Vec<usize> = (1..h_reps.len()).collect();
    short_orbits.sort_by_key(|&j| h_orbit_sizes[j]);
    let targets: Vec<u32> = short_orbits
        .iter()
        .take(Z_TARGET_ORBITS)
        .map(|&j| h_reps[j])
        .collect();
    let shortest = short_orbits.first().map(|&j| h_orbit_sizes[j]);
    let Some(z) = choose_z(&at, &gamma_orbit_size, shortest, &targets, seed, ctx)? else {
        return Ok(LemmaOutcome::NotApplicable);
    };
    // Step 3: each orbit's point and how it is seen; orbit 0 is {α}. Rebuilt chains are made
    // only once the tests are known to be affordable, except for the orbit of γ = α^{z⁻¹}.
    let next_base = chain.levels.get(level + 1).map(|l| l.base_point);
    let next_orbit = next_base
        .map(|b| lvl.pos[b as usize])
        .filter(|&k| k != NONE)
        .map(|k| h_orbit[k as usize]);
    // The random elements' state is gone; the scratch stays.
    held.release(slots as u64 * perm_bytes);
    let mut points = h_reps.clone();
    let mut views: Vec<Option<OrbitView>> = Vec::with_capacity(h_reps.len());
    let mut to_rebuild = 0;
    for (j, &p) in h_reps.iter().enumerate() {
        if at.h_gens.iter().all(|g| g.image(p) == p) {
            views.push(Some(OrbitView::Fixed));
        } else if next_orbit == Some(j as u32) {
            points[j] = next_base.expect("the next level exists");
            views.push(Some(OrbitView::NextLevel));
        } else {
            to_rebuild += 1;
            views.push(None);
        }
    }
    if to_rebuild > MAX_REBUILT_CHAINS {
        return Ok(LemmaOutcome::NotApplicable);
    }
    let h_order = chain.order_from(level + 1);
    // A rebuilt chain serves a few representatives and its first stabiliser: Schreier trees
    // (O(|orbit|) per level) beat explicit transversals (O(|orbit| · d)).
    let rebuilt_tuning = ChainTuning {
        max_explicit_entries: 0,
        ..chain.tuning()
    };
    // The rebuilt chains draw their random elements from clones of one warmed-up stream of `H`
    // (its warm-up costs more than a small `H`'s chain): the stream and a clone are held while
    // they exist, that is from the first rebuild to the last.
    let h_gen_perms: Vec<Perm> = at.h_gens.iter().map(|&g| g.clone()).collect();
    let stream_perms = 2 * (h_gen_perms.len().max(10) + 3);
    let mut h_stream: Option<ProductReplacement> = None;
    let mut rebuild = |p: u32, held: &mut Held<'_>| -> Result<Option<OrbitView>, SolveError> {
        ctx.check()?;
        if h_stream.is_none() {
            if !held.hold(stream_perms) {
                return Ok(None);
            }
            h_stream = Some(ProductReplacement::new(n, &h_gen_perms, seed, ctx)?);
        }
        let stream = h_stream.clone().expect("made above");
        let inputs = ChainInputs {
            n,
            generators: &h_gen_perms,
            budget_bytes: held.left(),
            seed,
            tuning: rebuilt_tuning,
        };
        let built = match Chain::build_with_known_order_from(&inputs, p, &h_order, stream, ctx) {
            Ok(built) => built,
            Err(SolveError::LimitExceeded { .. }) => None,
            Err(e) => return Err(e),
        };
        Ok(built.map(|c| {
            held.record(c.bytes());
            OrbitView::Rebuilt(Box::new(c))
        }))
    };
    // Step 4: γ = α^{z⁻¹} and generators of H_γ = h_γ⁻¹ H_{p} h_γ.
    let z_inv = z.inverse();
    let gamma = z_inv.image(at.alpha);
    let j_gamma = h_orbit[lvl.pos[gamma as usize] as usize] as usize;
    if views[j_gamma].is_none() {
        let Some(view) = rebuild(points[j_gamma], &mut held)? else {
            return Ok(LemmaOutcome::NotApplicable);
        };
        views[j_gamma] = Some(view);
        to_rebuild -= 1;
    }
    let gamma_view = views[j_gamma].as_ref().expect("built above");
    let gamma_count = at.stabiliser_gens(gamma_view).len();
    if !held.hold(gamma_count) {
        return Ok(LemmaOutcome::NotApplicable);
    }
    let h_gamma = at.h_rep(gamma_view, gamma);
    let h_gamma_inv = h_gamma.inverse();
    let gamma_gens: Vec<Perm> = at
        .stabiliser_gens(gamma_view)
        .iter()
        .map(|y| h_gamma_inv.compose(y).compose(&h_gamma))
        .collect();
    let gamma_refs: Vec<&Perm> = gamma_gens.iter().collect();
    let (_, gamma_reps) = at.orbits_under(&gamma_refs);
    // Step 5: decline if the tests (and the chains still to rebuild) would cost more than
    // allowed; an orbit not yet seen is counted with as many stabiliser generators as `H` has.
    let unseen = at.h_gens.len();
    let stab_tests: usize = views
        .iter()
        .skip(1)
        .map(|v| v.as_ref().map_or(unseen, |v| at.stabiliser_gens(v).len()))
        .sum();
    let tests =
        stab_tests + gamma_gens.len() + gamma_reps.len() + chain.level_generators(level).count();
    let h_depth: u64 = (level + 1..chain.levels.len())
        .map(|l| chain.level_depth_of(l) + 1)
        .sum();
    let depth_sum = h_depth
        + 2 * chain.level_depth_of(level)
        + 2 * views
            .iter()
            .flatten()
            .map(|v| match v {
                OrbitView::Rebuilt(c) => c.level_depth_of(0),
                OrbitView::NextLevel => chain.level_depth_of(level + 1),
                OrbitView::Fixed => 0,
            })
            .max()
            .unwrap_or(0);
    // A rebuild sifts some random elements per level of H through all of H's levels.
    let h_levels = (chain.levels.len() - level - 1) as u64;
    let rebuild_work = (to_rebuild as u64)
        .saturating_mul(REBUILD_ELEMENTS_PER_LEVEL)
        .saturating_mul(h_levels + 2)
        .saturating_mul(n as u64)
        .saturating_mul(h_depth + 2);
    let work = (tests as u64)
        .saturating_mul(n as u64)
        .saturating_mul(depth_sum + 4)
        .saturating_add(rebuild_work);
    if work > max_work {
        return Ok(LemmaOutcome::TooCostly(work));
    }
    // Step 6: the other orbits' chains; then one stabiliser's generators at a time.
    for j in 0..views.len() {
        if views[j].is_none() {
            let Some(view) = rebuild(points[j], &mut held)? else {
                return Ok(LemmaOutcome::NotApplicable);
            };
            views[j] = Some(view);
        }
    }
    let views: Vec<OrbitView> = views.into_iter().flatten().collect();
    let most = views
        .iter()
        .map(|v| at.stabiliser_gens(v).len())
        .max()
        .unwrap_or(0);
    if !held.hold(most) {
        return Ok(LemmaOutcome::NotApplicable);
    }
    // The products below are formed in `buf` by multiplying transversal elements on either side
    // along their Schreier trees (no representative is formed on its own).
    let mut scratch = vec![0u32; n];
    // Condition 1: r_j H_{p_j} r_j⁻¹ ⊆ H.
    for (j, view) in views.iter().enumerate().skip(1) {
        let r = lvl.pos[points[j] as usize] as usize;
        for y in at.stabiliser_gens(view) {
            ctx.check()?;
            buf.copy_from_slice(y.images());
            chain.left_multiply_rep(level, r, buf, &mut scratch);
            chain.right_multiply_inverse_rep(level, r, buf);
            if let Some(out) = at.test_in_place(buf) {
                return Ok(out);
            }
        }
    }
    // Condition 3: z⁻¹ H_γ z ⊆ H.
    for y in &gamma_gens {
        ctx.check()?;
        if let Some(out) = at.test(&z_inv.compose(y).compose(&z), buf) {
            return Ok(out);
        }
    }
    // `u_ε · m · u_{ε^m}⁻¹` into `buf`, with `u_ε = r_j h_ε`.
    let coset_product = |eps: u32, m: &Perm, buf: &mut [u32], scratch: &mut [u32]| {
        buf.copy_from_slice(m.images());
        let j = h_orbit[lvl.pos[eps as usize] as usize] as usize;
        if j != 0 {
            at.left_multiply_h_rep(&views[j], eps, buf, scratch);
            chain.left_multiply_rep(level, lvl.pos[points[j] as usize] as usize, buf, scratch);
        }
        let image = m.image(eps);
        let j = h_orbit[lvl.pos[image as usize] as usize] as usize;
        if j != 0 {
            at.right_multiply_inverse_h_rep(&views[j], image, buf);
            chain.right_multiply_inverse_rep(level, lvl.pos[points[j] as usize] as usize, buf);
        }
    };
    // Condition 2: u_ε z u_{ε^z}⁻¹ ∈ H, one ε per orbit of H_γ.
    for &eps in &gamma_reps {
        ctx.check()?;
        coset_product(eps, &z, buf, &mut scratch);
        if let Some(out) = at.test_in_place(buf) {
            return Ok(out);
        }
    }
    // Condition 4: S ⊆ X (u_α = 1).
    for s in chain.level_generators(level) {
        ctx.check()?;
        coset_product(at.alpha, s, buf, &mut scratch);
        if let Some(out) = at.test_in_place(buf) {
            return Ok(out);
        }
    }
    Ok(LemmaOutcome::Proven)
}

/// A `z ∈ P` with `α^{<H, z>} = Δ` whose `γ = α^{z⁻¹}` has the shortest orbit under `H`
/// (`gamma_orbit_size` of `γ`) among the candidates, or `None` when none of them works. The
/// candidates, until one reaches `shortest` (the shortest orbit of `H` besides `{α}`): the
/// level's generators and tree labels, `u_γ⁻¹` for each point `γ` of `targets` (the level's
/// transversal element: `α^{z⁻¹} = γ`), then [`RANDOM_Z_TRIES`] random elements of `P`.
///
/// Complexity: O(|Δ| · |gens(H)|) per candidate, plus the random elements' O(d) each.
fn choose_z(
    at: &Level<'_>,
    gamma_orbit_size: &dyn Fn(u32) -> usize,
    shortest: Option<usize>,
    targets: &[u32],
    seed: u64,
    ctx: &SolveContext,
) -> Result<Option<Perm>, SolveError> {
    let alpha = at.alpha;
    let mut best: Option<(usize, Perm)> = None;
    let done = |best: &Option<(usize, Perm)>| {
        best.as_ref()
            .is_some_and(|(size, _)| shortest.is_none_or(|s| *size <= s))
    };
    let consider = |z: &Perm, best: &mut Option<(usize, Perm)>| {
        if z.image(alpha) == alpha {
            return;
        }
        // γ = α^{z⁻¹}: the point z maps to α.
        let Some(gamma) = z.images().iter().position(|&y| y == alpha) else {
            return;
        };
        let size = gamma_orbit_size(gamma as u32);
        if best.as_ref().is_some_and(|(b, _)| *b <= size) {
            return;
        }
        if at.generates_orbit(z) {
            *best = Some((size, z.clone()));
        }
    };
    let level_gens: Vec<&Perm> = at.chain.level_generators(at.level).collect();
    for z in level_gens
        .iter()
        .copied()
        .chain(at.chain.level_extra_labels(at.level))
    {
        ctx.check()?;
        consider(z, &mut best);
        if done(&best) {
            return Ok(best.map(|(_, z)| z));
        }
    }
    for &gamma in targets {
        ctx.check()?;
        consider(&at.level_rep(gamma).inverse(), &mut best);
        if done(&best) {
            return Ok(best.map(|(_, z)| z));
        }
    }
    let gens: Vec<Perm> = level_gens.iter().map(|&g| g.clone()).collect();
    let mut pr = ProductReplacement::new(at.n, &gens, seed, ctx)?;
    for _ in 0..RANDOM_Z_TRIES {
        ctx.check()?;
        let z = pr.next_element();
        consider(z, &mut best);
        if done(&best) {
            break;
        }
    }
    Ok(best.map(|(_, z)| z))
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).expect("valid test permutation")
    }

    fn psl27() -> Vec<Perm> {
        vec![perm("(1,2,3,4,5,6,7)", 8), perm("(1,8)(2,7)(3,4)(5,6)", 8)]
    }

    /// A chain of [`psl27`]'s generators with `budget_bytes`, seed 7 and the default tuning.
    fn psl27_inputs(generators: &[Perm], budget_bytes: u64) -> ChainInputs<'_> {
        ChainInputs {
            n: 8,
            generators,
            budget_bytes,
            seed: 7,
            tuning: ChainTuning::default(),
        }
    }

    /// PSL(2,7) on 8 points: the top level (2-transitive) of a complete chain is proven by the
    /// lemma.
    #[test]
    fn psl27_top_level_by_the_lemma() {
        let ctx = SolveContext::detached();
        let chain = Chain::build(&psl27_inputs(&psl27(), 1 << 30), None, &ctx).expect("chain");
        assert_eq!(chain.order(), BigUint::from(168u32));
        assert_eq!(chain.order_from(1), BigUint::from(21u32));
        let mut buf = vec![0u32; 8];
        let mut peak = 0;
        let out = prove_level(&chain, 0, u64::MAX, &mut buf, 3, &ctx, &mut peak).expect("runs");
        assert_eq!(out, LemmaOutcome::Proven);
        assert!(peak > 0);
    }

    /// With no random phase the chain of the dihedral group of the square is one level whose
    /// `H` is trivial; `z` = the 4-cycle makes `<H, z>` transitive, so the lemma runs and must
    /// find an element of the point stabiliser (order 2) outside `H`: a non-trivial residue
    /// fixing the base point, the reflection through it.
    #[test]
    fn an_incomplete_level_yields_a_stabiliser_element() {
        let ctx = SolveContext::detached();
        let tuning = ChainTuning {
            random_streak: 0,
            ..ChainTuning::default()
        };
        let gens = vec![perm("(1,2,3,4)", 4), perm("(2,4)", 4)];
        let inputs = ChainInputs {
            n: 4,
            generators: &gens,
            budget_bytes: 1 << 30,
            seed: 7,
            tuning,
        };
        let chain = Chain::build_random(&inputs, &ctx).expect("chain");
        assert_eq!(chain.levels.len(), 1);
        let mut buf = vec![0u32; 4];
        let mut peak = 0;
        let out = prove_level(&chain, 0, u64::MAX, &mut buf, 3, &ctx, &mut peak).expect("runs");
        assert_eq!(out, LemmaOutcome::Residue(1));
        assert_eq!(buf, vec![0, 3, 2, 1], "the reflection (2,4)");
    }

    /// Sym(5) on the 10 two-sets: the stabiliser `H` of a two-set has orbits of 1, 6 (meeting it)
    /// and 3 (disjoint) two-sets, so `z` is chosen with `γ` among the 3; the lemma proves the
    /// top level, and the order is 120 = 5! (known, not computed by the chain alone).
    #[test]
    fn the_lemma_proves_a_rank_three_level_with_gamma_in_the_short_orbit() {
        let pairs: Vec<(u32, u32)> = (0..5u32)
            .flat_map(|a| (a + 1..5).map(move |b| (a, b)))
            .collect();
        let on_pairs = |f: &dyn Fn(u32) -> u32| -> Perm {
            let images: Vec<u32> = pairs
                .iter()
                .map(|&(a, b)| {
                    let (x, y) = (f(a).min(f(b)), f(a).max(f(b)));
                    pairs.iter().position(|&p| p == (x, y)).expect("a two-set") as u32
                })
                .collect();
            Perm::from_images(images, "on two-sets").expect("a permutation")
        };
        let gens = vec![
            on_pairs(&|x| (x + 1) % 5),
            on_pairs(&|x| match x {
                0 => 1,
                1 => 0,
                x => x,
            }),
        ];
        let ctx = SolveContext::detached();
        let inputs = ChainInputs {
            n: 10,
            generators: &gens,
            budget_bytes: 1 << 30,
            seed: 5,
            tuning: ChainTuning::default(),
        };
        let chain = Chain::build(&inputs, None, &ctx).expect("chain");
        assert_eq!(chain.order(), BigUint::from(120u32));
        assert_eq!(chain.orbit_lengths()[0], 10);
        let mut buf = vec![0u32; 10];
        let mut peak = 0;
        let out = prove_level(&chain, 0, u64::MAX, &mut buf, 3, &ctx, &mut peak).expect("runs");
        assert_eq!(out, LemmaOutcome::Proven);
    }

    /// A budget too small for the lemma's permutations: it declines instead of allocating.
    #[test]
    fn a_small_budget_declines() {
        let ctx = SolveContext::detached();
        let gens = psl27();
        let chain = Chain::build(&psl27_inputs(&gens, 1 << 30), None, &ctx).expect("chain");
        let tight =
            Chain::build(&psl27_inputs(&gens, chain.bytes() + 64), None, &ctx).expect("chain");
        let mut buf = vec![0u32; 8];
        let mut peak = 0;
        let out = prove_level(&tight, 0, u64::MAX, &mut buf, 3, &ctx, &mut peak).expect("runs");
        assert_eq!(out, LemmaOutcome::NotApplicable);
        assert_eq!(peak, 0);
    }
}
