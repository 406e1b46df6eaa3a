//! The random phase of Schreier–Sims (Seress 2003, §4.3): random elements (product replacement)
//! sifted through the chain, every non-trivial residue becoming a strong generator, until a run
//! of them sifts to the identity; and the variant for a group of known order, which stops when
//! the product of the orbit lengths reaches it.

use super::{
    Chain, ChainInputs, KNOWN_ORDER_PATIENCE, LevelProof, OPTIMISTIC_EXPLICIT_MAX_DEGREE,
    is_identity_slice,
};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::Perm;
use crate::group::product_replacement::ProductReplacement;

impl Chain {
    /// The random phase only: a chain whose strong generators lie in `<generators>` (so a
    /// permutation that sifts to the identity is certainly a member) but which is not proven
    /// complete.
    pub(crate) fn build_random(
        inputs: &ChainInputs<'_>,
        ctx: &SolveContext,
    ) -> Result<Chain, SolveError> {
        Chain::build_random_from(inputs, None, ctx)
    }

    /// [`build_random`](Self::build_random) with the first base point `b0` when given.
    pub(super) fn build_random_from(
        inputs: &ChainInputs<'_>,
        b0: Option<u32>,
        ctx: &SolveContext,
    ) -> Result<Chain, SolveError> {
        let generators = inputs.generators;
        let first = b0.or_else(|| generators.iter().find_map(Perm::first_moved_point));
        let Some(b0) = first else {
            return Ok(Chain::new(inputs.n, inputs.budget_bytes, inputs.tuning));
        };
        let mut chain = Chain::started_at(inputs, b0, ctx)?;
        chain.random_phase(generators, inputs.seed, ctx)?;
        Ok(chain)
    }

    /// A complete chain for `<generators>`, whose order must be `order`, with first base point
    /// `b0` (a point some generator moves): random Schreier–Sims until the product of the orbit
    /// lengths reaches `order`. That product is a lower bound on the order of the group the
    /// strong generators generate, a subgroup of `<generators>`, so reaching `order` proves the
    /// chain complete (a Las Vegas algorithm). `Ok(None)` if `KNOWN_ORDER_PATIENCE` consecutive
    /// random elements sift to the identity first (the order was not reached; nothing is proven).
    ///
    /// Complexity: that of the random phase, O(r · d · Σ depth_i) for r random elements.
    ///
    /// Reference: Seress (2003), §4.3 (random Schreier–Sims with a known order).
    pub(crate) fn build_with_known_order(
        inputs: &ChainInputs<'_>,
        b0: u32,
        order: &num_bigint::BigUint,
        ctx: &SolveContext,
    ) -> Result<Option<Chain>, SolveError> {
        let pr = ProductReplacement::new(inputs.n, inputs.generators, inputs.seed, ctx)?;
        Chain::build_with_known_order_from(inputs, b0, order, pr, ctx)
    }

    /// [`build_with_known_order`](Self::build_with_known_order) drawing its random elements from
    /// `pr`, a stream of random elements of `<generators>` (already warmed up: a clone of one
    /// stream serves several chains of the same group, e.g. with different first base points;
    /// `inputs.seed` is not used).
    pub(crate) fn build_with_known_order_from(
        inputs: &ChainInputs<'_>,
        b0: u32,
        order: &num_bigint::BigUint,
        pr: ProductReplacement,
        ctx: &SolveContext,
    ) -> Result<Option<Chain>, SolveError> {
        let mut chain = Chain::started_at(inputs, b0, ctx)?;
        if !chain.grow_to_order(order, pr, ctx)? {
            return Ok(None);
        }
        for lvl in &mut chain.levels {
            lvl.proof = Some(LevelProof::KnownOrder);
        }
        Ok(Some(chain))
    }

    /// Sifts random elements from `pr` until the product of the orbit lengths is `order`:
    /// `true` then (the chain is complete when `order` is the group's), `false` when
    /// `KNOWN_ORDER_PATIENCE` consecutive elements sift to the identity first.
    ///
    /// Complexity: O(r · d · Σ depth_i) for r random elements.
    pub(super) fn grow_to_order(
        &mut self,
        order: &num_bigint::BigUint,
        mut pr: ProductReplacement,
        ctx: &SolveContext,
    ) -> Result<bool, SolveError> {
        let mut buf = vec![0u32; self.n];
        // The product changes only when a residue is added (the streak restarts at 0).
        let mut streak = 0;
        while streak > 0 || &self.order() != order {
            if streak >= KNOWN_ORDER_PATIENCE {
                return Ok(false);
            }
            streak = self.random_step(&mut pr, &mut buf, streak, ctx)?;
        }
        Ok(true)
    }

    pub(super) fn random_phase(
        &mut self,
        generators: &[Perm],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let mut pr = ProductReplacement::new(self.n, generators, seed, ctx)?;
        let mut buf = vec![0u32; self.n];
        let mut streak = 0;
        while streak < self.tuning.random_streak {
            streak = self.random_step(&mut pr, &mut buf, streak, ctx)?;
        }
        Ok(())
    }

    /// Sifts the next random element; a non-trivial residue becomes a strong generator. Returns
    /// the new count of consecutive elements that sifted to the identity (`streak + 1`, or 0).
    pub(super) fn random_step(
        &mut self,
        pr: &mut ProductReplacement,
        buf: &mut [u32],
        streak: usize,
        ctx: &SolveContext,
    ) -> Result<usize, SolveError> {
        ctx.check()?;
        buf.copy_from_slice(pr.next_element().images());
        let l = self.sift(buf, 0);
        if l == self.levels.len() && is_identity_slice(buf) {
            return Ok(streak + 1);
        }
        self.add_residue(buf, 1, l, ctx)?;
        Ok(0)
    }

    /// Adds the non-trivial residue `h` (which fixes `b_0..b_{l-1}`) to levels `lo..=l`, creating
    /// level `l` first when `l` is the number of levels.
    pub(super) fn add_residue(
        &mut self,
        h: &[u32],
        lo: usize,
        l: usize,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let h = Perm::from_images_unchecked(h.to_vec().into_boxed_slice());
        if l == self.levels.len() {
            let Some(b) = h.first_moved_point() else {
                return Ok(()); // the identity adds nothing (never reached: residues are non-trivial)
            };
            // The group's orbit of `b` bounds the level's orbit, but a deeper level of a
            // large-base group (Alt(m) on 2-sets: 2,145 points, then orbits of 128 and fewer)
            // is far shorter: with `optimistic_explicit`, at moderate degrees the level starts
            // explicit, and
            // `extend_orbit` turns it into a tree if it outgrows the explicit bound (having
            // built at most that bound's worth of representatives).
            let bound =
                if self.tuning.optimistic_explicit && self.n <= OPTIMISTIC_EXPLICIT_MAX_DEGREE {
                    1
                } else {
                    self.group_orbit_len(b)
                };
            self.add_level(b, bound)?;
        }
        self.add_gen(h, lo.min(l), l, ctx)
    }
}
