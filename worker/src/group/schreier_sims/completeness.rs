//! The proof that a chain is complete, level by level from the deepest up: each level by the
//! first proof that applies — its Schreier generators (Schreier's lemma), Sims's one-generator
//! lemma ([`sims_verify`](super::sims_verify)), a normal series of the level
//! ([`normal_series`](super::normal_series)) or a block system
//! ([`block_system`](super::block_system)), and level 0 first by a regular abelian normal
//! subgroup ([`regular_normal`](super::regular_normal)); see the [module documentation](super).

use super::regular_normal::{self, RegularNormalSubgroup};
use super::sims_verify::LemmaOutcome;
use super::{
    BLOCK_SYSTEM_REPROOF_FACTOR, BLOCK_SYSTEM_WORK_PER_POINT, Chain, DIRECT_LEVEL_WORK,
    LEMMA_ADVANTAGE, LevelProof, LevelProofPolicy, SERIES_CHAIN_WORK_PER_POINT,
    STRUCTURAL_MIN_ORBIT, apply_inv_rep, code, is_identity_slice,
};
use super::{block_system, normal_series, sims_verify};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::Perm;

/// Seed offset of the random elements searching for a regular normal subgroup.
const REGULAR_NORMAL_SEED: u64 = 0x7261_6e73_6c61_7465;

impl Chain {
    /// Proves the chain level by level from the deepest up (see the module documentation); a
    /// failed proof's residue becomes a strong generator and the levels it changed are proven
    /// again. On return every level is proven.
    pub(super) fn prove(&mut self, seed: u64, ctx: &SolveContext) -> Result<(), SolveError> {
        let mut buf = vec![0u32; self.n];
        // Searched for once, when level 0 is reached (its generators never change).
        let mut normal = None;
        let mut i = self.levels.len();
        while i > 0 {
            let level = i - 1;
            ctx.progress(1.0 - level as f64 / self.levels.len() as f64);
            let found = if level == 0 {
                self.prove_first_level(&mut normal, &mut buf, seed, ctx)?
            } else {
                self.prove_level(level, &mut buf, seed, ctx)?
            };
            match found {
                None => i -= 1,
                Some(j) => {
                    self.add_residue(&buf, level + 1, j, ctx)?;
                    i = j + 1;
                }
            }
        }
        Ok(())
    }

    /// Proves level 0 (every deeper level proven) by a regular abelian normal subgroup when the
    /// group is transitive of prime-power degree, would otherwise take a structural proof and has
    /// one (see [`regular_normal`]; `normal` caches the search), else by
    /// [`prove_level`](Self::prove_level). Returns as that does.
    fn prove_first_level(
        &mut self,
        normal: &mut Option<Option<RegularNormalSubgroup>>,
        buf: &mut [u32],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<Option<usize>, SolveError> {
        let lvl = &self.levels[0];
        let applies = self.tuning.level_proofs == LevelProofPolicy::WhereExpensive
            && lvl.orbit.len() == self.n
            && self.n >= regular_normal::MIN_DEGREE
            && self.schreier_generator_work(0) > DIRECT_LEVEL_WORK;
        if !applies {
            return self.prove_level(0, buf, seed, ctx);
        }
        if normal.is_none()
            && regular_normal::search_bytes(self.n, self.levels[0].gens.len()) > self.budget_left()
        {
            *normal = Some(None);
        }
        if normal.is_none() {
            let generators: Vec<Perm> = self.level_generators(0).cloned().collect();
            let root = self.levels[0].base_point;
            let seed = seed ^ REGULAR_NORMAL_SEED;
            let found = RegularNormalSubgroup::find(self.n, &generators, root, seed, ctx)?;
            let held = regular_normal::search_bytes(self.n, generators.len());
            self.proof_peak = self.proof_peak.max(held);
            *normal = Some(found);
        }
        let Some(Some(normal)) = normal.as_ref() else {
            return self.prove_level(0, buf, seed, ctx);
        };
        // G_α = <s · t_{α^s}⁻¹ : s ∈ S^(0)>: each must lie in the group of levels 1.. .
        let n = self.n;
        let alpha = normal.root() as usize;
        let mut t = vec![0u32; n];
        let mut t_inv = vec![0u32; n];
        for k in 0..self.levels[0].gens.len() {
            ctx.check()?;
            let s = self.strong[self.levels[0].gens[k] as usize].images();
            normal.translation_into(s[alpha], &mut t);
            for (x, &y) in t.iter().enumerate() {
                t_inv[y as usize] = x as u32;
            }
            for (out, &y) in buf.iter_mut().zip(s.iter()) {
                *out = t_inv[y as usize];
            }
            debug_assert_eq!(buf[alpha] as usize, alpha);
            let l = self.sift(buf, 1);
            if l < self.levels.len() || !is_identity_slice(buf) {
                return Ok(Some(l));
            }
        }
        self.levels[0].proof = Some(LevelProof::RegularNormalSubgroup);
        Ok(None)
    }

    /// Proves level `level` (every deeper level proven), or finds an element of
    /// `<S^(level)>_{b_level}` outside `<S^(level+1)>`: then its residue is left in `buf` and the
    /// level where sifting it stopped is returned.
    pub(super) fn prove_level(
        &mut self,
        level: usize,
        buf: &mut [u32],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<Option<usize>, SolveError> {
        let direct = self.schreier_generator_work(level);
        let policy = self.tuning.level_proofs;
        let (lemma_allowed, series_allowed, blocks_allowed) = match policy {
            LevelProofPolicy::WhereExpensive => {
                // On a short orbit the Schreier generators are hardly more than the level's
                // generators, which every proof tests anyway.
                let expensive = direct > DIRECT_LEVEL_WORK
                    && self.levels[level].orbit.len() >= STRUCTURAL_MIN_ORBIT;
                (expensive, expensive, expensive)
            }
            LevelProofPolicy::Always => (true, true, true),
            LevelProofPolicy::LemmaOnly => (true, false, false),
            LevelProofPolicy::NormalSeriesOnly => (false, true, false),
            LevelProofPolicy::BlockSystemOnly => (false, false, true),
        };
        let blocks_allowed = blocks_allowed && self.tuning.block_proofs;
        let forced = policy != LevelProofPolicy::WhereExpensive;
        if lemma_allowed || series_allowed || blocks_allowed {
            let seed = seed ^ (level as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            // In order: the lemma when its tests are few (a fraction of the Schreier generators'
            // cost); the level's normal series; the lemma when its tests cost less than the
            // block system is expected to; the block system; the lemma at any cost below the
            // Schreier generators'.
            let (cheap, any) = if forced {
                (u64::MAX, u64::MAX)
            } else {
                ((direct / LEMMA_ADVANTAGE).max(DIRECT_LEVEL_WORK), direct)
            };
            let mut lemma_work = None;
            if lemma_allowed {
                match self.lemma(level, cheap, buf, seed, ctx)? {
                    LemmaOutcome::TooCostly(work) => lemma_work = Some(work),
                    out => {
                        if let Some(done) = self.settle(level, out, LevelProof::OneGeneratorLemma) {
                            return Ok(self.record_reproof(level, done, cheap.min(direct)));
                        }
                    }
                }
            }
            // The series search's random chains are capped so that a failing search costs about
            // as much as the lemma's tests it precedes (when their cost is known), and more
            // tightly before a block system that may apply.
            let max_chains = match lemma_work {
                _ if forced => usize::MAX,
                Some(work) => {
                    let chain_work = (self.n as u64 * SERIES_CHAIN_WORK_PER_POINT).max(1);
                    usize::try_from(work / chain_work)
                        .unwrap_or(usize::MAX)
                        .min(normal_series::MAX_SERIES_CHAINS_BEFORE_LEMMA)
                }
                None if blocks_allowed && block_system::may_apply(self, level) => {
                    normal_series::MAX_SERIES_CHAINS_BEFORE_BLOCKS
                }
                None => normal_series::MAX_LEVEL_SERIES_CHAINS,
            };
            let ok = series_allowed && self.level_series(level, max_chains, seed, ctx)?;
            let moderate = self.n as u64 * BLOCK_SYSTEM_WORK_PER_POINT;
            if ok {
                self.levels[level].proof = Some(LevelProof::LevelNormalSeries);
                let work = lemma_work.unwrap_or(moderate).min(direct);
                return Ok(self.record_reproof(level, None, work));
            }
            // The block system's chain proves again the levels below this one (by their lemma
            // or Schreier generators, blocks being off there), on top of its own first levels.
            let reproofs: u64 = self.levels[level + 1..]
                .iter()
                .map(|l| l.reproof_work)
                .fold(0, u64::saturating_add);
            let block_work =
                moderate.saturating_add(reproofs.saturating_mul(BLOCK_SYSTEM_REPROOF_FACTOR));
            if let Some(work) = lemma_work
                && work <= any
                && (work <= block_work || !blocks_allowed)
            {
                lemma_work = None;
                let out = self.lemma(level, any, buf, seed, ctx)?;
                if let Some(done) = self.settle(level, out, LevelProof::OneGeneratorLemma) {
                    return Ok(self.record_reproof(level, done, work));
                }
            }
            if blocks_allowed {
                let out = self.block_system(level, buf, seed, ctx)?;
                if let Some(done) = self.settle(level, out, LevelProof::BlockSystem) {
                    let work = lemma_work.unwrap_or(block_work).min(direct);
                    return Ok(self.record_reproof(level, done, work));
                }
            }
            if let Some(work) = lemma_work
                && work <= any
            {
                let out = self.lemma(level, any, buf, seed, ctx)?;
                if let Some(done) = self.settle(level, out, LevelProof::OneGeneratorLemma) {
                    return Ok(self.record_reproof(level, done, work));
                }
            }
        }
        let found = self.next_nontrivial_schreier_residue(level, buf, ctx)?;
        if found.is_none() {
            self.levels[level].proof = Some(LevelProof::SchreierGenerators);
        }
        Ok(self.record_reproof(level, found, direct))
    }

    /// Records `work` as the estimated cost of proving level `level` again when `found` says it
    /// was proven (`None`); returns `found`.
    fn record_reproof(&mut self, level: usize, found: Option<usize>, work: u64) -> Option<usize> {
        if found.is_none() {
            self.levels[level].reproof_work = work;
        }
        found
    }

    /// What a structural proof's outcome means for [`prove_level`](Self::prove_level): proven
    /// (recorded as `proof`), a residue, or `None` to try the next proof.
    pub(super) fn settle(
        &mut self,
        level: usize,
        out: LemmaOutcome,
        proof: LevelProof,
    ) -> Option<Option<usize>> {
        match out {
            LemmaOutcome::Proven => {
                self.levels[level].proof = Some(proof);
                Some(None)
            }
            LemmaOutcome::Residue(j) => Some(Some(j)),
            LemmaOutcome::NotApplicable | LemmaOutcome::TooCostly(_) => None,
        }
    }

    /// Whether a normal series of level `level` proves it (see
    /// [`normal_series::level_order_at_most`]), recording what it held beside the chain.
    pub(super) fn level_series(
        &mut self,
        level: usize,
        max_chains: usize,
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<bool, SolveError> {
        // `Π_{l >= level} |Δ_l| <= |<S^(level)>|` always; an upper bound equal to it proves the
        // level (and the deeper levels are proven already).
        let target = self.order_from(level);
        let mut peak = 0;
        let bounded = match normal_series::level_order_at_most(
            self, level, &target, max_chains, seed, ctx, &mut peak,
        ) {
            Ok(bounded) => bounded,
            Err(SolveError::LimitExceeded { .. }) => false,
            Err(e) => return Err(e),
        };
        self.proof_peak = self.proof_peak.max(peak);
        Ok(bounded)
    }

    /// The block-system proof of level `level` (see [`block_system`]), recording what it
    /// held beside the chain.
    pub(super) fn block_system(
        &mut self,
        level: usize,
        buf: &mut [u32],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<LemmaOutcome, SolveError> {
        let mut peak = 0;
        let out = block_system::prove_level(self, level, buf, seed, ctx, &mut peak);
        self.proof_peak = self.proof_peak.max(peak);
        out
    }

    /// Sims's one-generator lemma on level `level` (see [`sims_verify`]), recording what it
    /// held beside the chain.
    pub(super) fn lemma(
        &mut self,
        level: usize,
        max_work: u64,
        buf: &mut [u32],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<LemmaOutcome, SolveError> {
        let mut peak = 0;
        let out = sims_verify::prove_level(self, level, max_work, buf, seed, ctx, &mut peak);
        self.proof_peak = self.proof_peak.max(peak);
        out
    }

    /// Rough integer operations of proving level `level` by its Schreier generators: their number
    /// times the cost of forming and sifting one.
    pub(super) fn schreier_generator_work(&self, level: usize) -> u64 {
        let lvl = &self.levels[level];
        let sift: u64 = self.levels[level..]
            .iter()
            .map(|l| self.level_depth(l) + 1)
            .sum::<u64>()
            + self.level_depth(lvl);
        (lvl.orbit.len() as u64)
            .saturating_mul(lvl.gens.len() as u64)
            .saturating_mul(self.n as u64)
            .saturating_mul(sift)
    }

    /// Finds the next unverified Schreier generator of level `i` that does not sift to the
    /// identity through levels `i+1..`; leaves its residue in `buf` and returns the level where
    /// sifting stopped. `None` when every Schreier generator of level `i` is verified.
    pub(super) fn next_nontrivial_schreier_residue(
        &mut self,
        i: usize,
        buf: &mut [u32],
        ctx: &SolveContext,
    ) -> Result<Option<usize>, SolveError> {
        let n = self.n;
        let orbit_len = self.levels[i].orbit.len();
        let ngens = self.levels[i].gens.len();
        // The forward representative of the orbit point being checked (`usize::MAX`: none yet).
        let mut fwd = vec![0u32; n];
        let mut fwd_of = usize::MAX;
        for idx in 0..orbit_len {
            let start = self.levels[i].checked[idx] as usize;
            for k in start..ngens {
                ctx.check()?;
                self.levels[i].checked[idx] = k as u32 + 1;
                let lvl = &self.levels[i];
                let sidx = lvl.gens[k];
                let s = self.strong[sidx as usize].images();
                let gamma = s[lvl.orbit[idx] as usize];
                let m = lvl.pos[gamma as usize] as usize;
                if lvl.parent[m] == (idx as u32, code(sidx as usize, false)) {
                    continue; // tree edge: u_β · s = u_γ exactly
                }
                if fwd_of != idx {
                    self.rep_into(i, idx, &mut fwd);
                    fwd_of = idx;
                }
                let lvl = &self.levels[i];
                for (out, &r) in buf.iter_mut().zip(fwd.iter()) {
                    *out = s[r as usize];
                }
                apply_inv_rep(lvl, &self.strong, &self.strong_inv, m, buf);
                let l = self.sift(buf, i + 1);
                if l < self.levels.len() || !is_identity_slice(buf) {
                    return Ok(Some(l));
                }
            }
        }
        Ok(None)
    }
}
