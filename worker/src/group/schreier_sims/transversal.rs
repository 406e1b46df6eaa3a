//! The chain's transversals: each level's orbit with its Schreier tree (Schreier vector), stored
//! explicitly (every `u_β⁻¹`) when small enough and made shallow by cube doubling otherwise
//! (Seress 2003, §4.1 and §4.4, Lemma 4.4.2); see the [module documentation](super).

use super::{
    Chain, INDEX_ENTRIES, LEVEL_ENTRIES, Level, NONE, POINT_ENTRIES, apply_inv_rep, ceil_log2,
    charge, code, label,
};
use crate::context::SolveContext;

/// Level 0 with an orbit of at least this many points starts as a Schreier tree (see
/// `add_level`). Measured on the GAP-library corpus (degree 1,000..2,047, where the table fits the
/// default bound): 3-4x faster for some groups (`primitive(1613,12)`, `primitive(1182,2)`), none
/// slower beyond the run-to-run noise.
const TREE_FIRST_LEVEL_MIN_ORBIT: u64 = 1_000;
/// Explicit representatives are a cache for speed (a sift through a tree gives the same answer):
/// they may fill this share of the chain's budget (numerator, denominator), and beyond it a level
/// stays or becomes a tree. The rest is for the trees' labels, new levels and the proofs, so that
/// a group whose tables alone would exceed the budget (`Sym(2) wr Sym(500)`: 500 levels of up to
/// 1,000 points at degree 1,000, 1.4 GB) still gets its chain.
const EXPLICIT_SHARE: (u64, u64) = (3, 4);
use crate::error::SolveError;
use crate::group::perm::Perm;

impl Chain {
    /// Adds a level with base point `base_point`, explicit if an orbit of `expected_orbit`
    /// points would fit the explicit bound.
    pub(super) fn add_level(
        &mut self,
        base_point: u32,
        expected_orbit: u64,
    ) -> Result<(), SolveError> {
        let n = self.n;
        // Level 0 of a long orbit is a tree whatever the bound: only the random phase's few dozen
        // elements sift through it (the proofs sift from level 1), far fewer than its table's
        // `|Δ_0|` representatives; memberships make it explicit first (`prepare_for_sifts`).
        let table = expected_orbit.saturating_mul(n as u64);
        let explicit = table <= self.tuning.max_explicit_entries
            && explicit_fits(self.entries, table, self.budget_entries)
            && !(self.levels.is_empty() && expected_orbit >= TREE_FIRST_LEVEL_MIN_ORBIT);
        // The point array, the header, the first point and, explicitly, the identity.
        let charged = if explicit { 2 * n as u64 } else { n as u64 } + LEVEL_ENTRIES;
        charge(
            &mut self.entries,
            POINT_ENTRIES,
            self.budget_entries,
            self.budget_bytes,
            n,
        )?;
        charge(
            &mut self.entries,
            charged,
            self.budget_entries,
            self.budget_bytes,
            n,
        )?;
        let mut pos = vec![NONE; n];
        pos[base_point as usize] = 0;
        self.levels.push(Level {
            base_point,
            gens: Vec::new(),
            gens_applied: 0,
            extras: Vec::new(),
            orbit: vec![base_point],
            pos,
            inv_reps: explicit.then(|| (0..n as u32).collect()),
            parent: vec![(NONE, NONE)],
            checked: vec![0],
            charged,
            points_charged: 1,
            proof: None,
            reproof_work: 0,
        });
        Ok(())
    }

    /// Explicit mode: applies the generators of level `l` not yet applied to the old orbit
    /// points, and all generators to new points, storing the inverse representative of each new
    /// point. Switches the level to tree mode when it outgrows the explicit bound or the explicit
    /// share of the budget ([`EXPLICIT_SHARE`]).
    pub(super) fn extend_orbit(&mut self, l: usize, ctx: &SolveContext) -> Result<(), SolveError> {
        let n = self.n;
        let max_explicit = self.tuning.max_explicit_entries;
        let Chain {
            strong,
            strong_inv,
            levels,
            entries,
            budget_entries,
            budget_bytes,
            ..
        } = self;
        let lvl = &mut levels[l];
        let Some(inv_reps) = lvl.inv_reps.as_mut() else {
            return self.rebuild_tree(l, ctx);
        };
        let old_len = lvl.orbit.len();
        let mut j = 0;
        let mut too_big = false;
        'outer: while j < lvl.orbit.len() {
            if j % 64 == 0 {
                ctx.check()?;
            }
            let first = if j < old_len { lvl.gens_applied } else { 0 };
            for k in first..lvl.gens.len() {
                let sidx = lvl.gens[k] as usize;
                let s = strong[sidx].images();
                let y = s[lvl.orbit[j] as usize];
                if lvl.pos[y as usize] != NONE {
                    continue;
                }
                if (lvl.orbit.len() as u64 + 1).saturating_mul(n as u64) > max_explicit {
                    too_big = true;
                    break 'outer;
                }
                if lvl.orbit.len() as u64 >= lvl.points_charged {
                    charge(entries, POINT_ENTRIES, *budget_entries, *budget_bytes, n)?;
                    lvl.points_charged += 1;
                }
                // Grow the representatives by doubling (never past the explicit bound), charging
                // the new capacity before allocating it.
                if inv_reps.len() + n > inv_reps.capacity() {
                    let cap = inv_reps.capacity();
                    let bound = usize::try_from(max_explicit).unwrap_or(usize::MAX);
                    let new_cap = (2 * cap).min(bound).max(inv_reps.len() + n);
                    let extra = (new_cap - cap) as u64;
                    if !explicit_fits(*entries, extra, *budget_entries) {
                        too_big = true;
                        break 'outer;
                    }
                    charge(entries, extra, *budget_entries, *budget_bytes, n)?;
                    lvl.charged += extra;
                    inv_reps.reserve_exact(new_cap - inv_reps.len());
                }
                lvl.pos[y as usize] = lvl.orbit.len() as u32;
                lvl.orbit.push(y);
                lvl.parent.push((j as u32, code(sidx, false)));
                lvl.checked.push(0);
                let sinv = strong_inv[sidx].images();
                // u_new = u_j · s, so u_new⁻¹ = s⁻¹ · u_j⁻¹: x -> u_j⁻¹[s⁻¹[x]].
                let base = j * n;
                for &sx in sinv.iter().take(n) {
                    let v = inv_reps[base + sx as usize];
                    inv_reps.push(v);
                }
            }
            j += 1;
        }
        if too_big {
            return self.rebuild_tree(l, ctx);
        }
        lvl.gens_applied = lvl.gens.len();
        Ok(())
    }

    /// Tree mode: recomputes level `l`'s orbit and a shallow Schreier tree from scratch
    /// (breadth-first over the generators, the extra labels and their inverses), adding extra
    /// labels by cube doubling until the depth is at most `2k + ⌈log₂|Δ|⌉ + 2`. Resets the
    /// level's verification progress (the representatives change).
    ///
    /// Complexity: O(k · |Δ| · (|S^(i)| + k) + k · d · depth) for `k` rounds.
    pub(super) fn rebuild_tree(&mut self, l: usize, ctx: &SolveContext) -> Result<(), SolveError> {
        let n = self.n;
        // Leave explicit mode: refund the representatives.
        if let Some(reps) = self.levels[l].inv_reps.take() {
            let freed = reps.capacity() as u64;
            drop(reps);
            self.entries = self.entries.saturating_sub(freed);
            self.levels[l].charged = self.levels[l].charged.saturating_sub(freed);
        }
        let mut depth: Vec<u32> = Vec::new();
        loop {
            ctx.check()?;
            let codes: Vec<u32> = {
                let lvl = &self.levels[l];
                lvl.gens
                    .iter()
                    .chain(lvl.extras.iter())
                    .flat_map(|&i| [code(i as usize, false), code(i as usize, true)])
                    .collect()
            };
            let Chain {
                strong,
                strong_inv,
                levels,
                entries,
                budget_entries,
                budget_bytes,
                ..
            } = self;
            let lvl = &mut levels[l];
            for &x in &lvl.orbit {
                lvl.pos[x as usize] = NONE;
            }
            lvl.orbit.clear();
            lvl.parent.clear();
            depth.clear();
            lvl.orbit.push(lvl.base_point);
            lvl.parent.push((NONE, NONE));
            lvl.pos[lvl.base_point as usize] = 0;
            depth.push(0);
            let mut j = 0;
            while j < lvl.orbit.len() {
                if j % 4096 == 0 {
                    ctx.check()?;
                }
                let x = lvl.orbit[j] as usize;
                for &c in &codes {
                    let y = label(strong, strong_inv, c)[x];
                    if lvl.pos[y as usize] == NONE {
                        if lvl.orbit.len() as u64 >= lvl.points_charged {
                            charge(entries, POINT_ENTRIES, *budget_entries, *budget_bytes, n)?;
                            lvl.points_charged += 1;
                        }
                        lvl.pos[y as usize] = lvl.orbit.len() as u32;
                        lvl.orbit.push(y);
                        lvl.parent.push((j as u32, c));
                        depth.push(depth[j] + 1);
                    }
                }
                j += 1;
            }
            let max_depth = depth.last().copied().unwrap_or(0) as usize;
            let bound = 2 * lvl.extras.len() + ceil_log2(lvl.orbit.len()) + 2;
            if max_depth <= bound {
                break;
            }
            // A point at depth bound + 1 (outside the ball of radius `bound`): its
            // representative doubles the cube of extra labels.
            let Some(delta) = depth.iter().position(|&d| d as usize == bound + 1) else {
                break;
            };
            let mut inv = (0..n as u32).collect::<Vec<u32>>();
            apply_inv_rep(lvl, strong, strong_inv, delta, &mut inv);
            let t_inv = Perm::from_images_unchecked(inv.into_boxed_slice());
            let idx = self.push_pool(t_inv.inverse())?;
            charge(
                &mut self.entries,
                INDEX_ENTRIES,
                self.budget_entries,
                self.budget_bytes,
                n,
            )?;
            self.levels[l].extras.push(idx);
        }
        let lvl = &mut self.levels[l];
        lvl.checked.clear();
        lvl.checked.resize(lvl.orbit.len(), 0);
        lvl.gens_applied = lvl.gens.len();
        Ok(())
    }

    /// Stores the inverse representatives of every tree level below the first whose orbit turned
    /// out to fit the explicit bound (a level starts as a tree when the group's orbit of its base
    /// point is too long, but a deeper level's own orbit is often far shorter: 60 points in a
    /// group of degree 2,500), so that sifting through it costs O(d) instead of O(d · depth).
    /// The Schreier vector stays (`u_child = u_parent · label`), so the representatives and the
    /// levels' verification progress do not change.
    ///
    /// Complexity: O(|Δ_l| · d) per converted level.
    pub(super) fn make_short_levels_explicit(
        &mut self,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let n = self.n;
        for l in 1..self.levels.len() {
            let lvl = &self.levels[l];
            let entries = (lvl.orbit.len() as u64).saturating_mul(n as u64);
            if lvl.inv_reps.is_some()
                || entries > self.tuning.max_explicit_entries
                || !explicit_fits(self.entries, entries, self.budget_entries)
            {
                continue;
            }
            ctx.check()?;
            self.make_level_explicit(l)?;
        }
        Ok(())
    }

    /// Before `sifts` sifts from level 0 (membership tests): makes level 0 explicit when it is a
    /// Schreier tree within the explicit bound and what is left of the budget, and the sifts
    /// would walk its tree more often than building the table costs (`sifts · depth >= |Δ_0|`).
    /// Level 0 of a large orbit starts as a tree (see `add_level`): the random phase and the
    /// proofs sift through it only a few dozen times.
    ///
    /// Complexity: O(|Δ_0| · d) when converted.
    pub(crate) fn prepare_for_sifts(
        &mut self,
        sifts: u64,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let Some(lvl) = self.levels.first() else {
            return Ok(());
        };
        let entries = (lvl.orbit.len() as u64).saturating_mul(self.n as u64);
        if lvl.inv_reps.is_some()
            || entries > self.tuning.max_explicit_entries
            || !explicit_fits(self.entries, entries, self.budget_entries)
            || sifts.saturating_mul(self.level_depth(lvl)) < lvl.orbit.len() as u64
        {
            return Ok(());
        }
        ctx.check()?;
        self.make_level_explicit(0)
    }

    /// Stores level `l`'s inverse representatives explicitly, computed from its Schreier vector.
    ///
    /// Complexity: O(|Δ_l| · d).
    fn make_level_explicit(&mut self, l: usize) -> Result<(), SolveError> {
        let n = self.n;
        let entries = (self.levels[l].orbit.len() as u64).saturating_mul(n as u64);
        charge(
            &mut self.entries,
            entries,
            self.budget_entries,
            self.budget_bytes,
            n,
        )?;
        let mut inv_reps: Vec<u32> = Vec::with_capacity(entries as usize);
        inv_reps.extend(0..n as u32);
        let lvl = &self.levels[l];
        for j in 1..lvl.orbit.len() {
            // u_j = u_p · t, so u_j⁻¹ = t⁻¹ · u_p⁻¹: x -> u_p⁻¹[t⁻¹[x]] (the parent p < j:
            // the orbit is in discovery order).
            let (p, c) = lvl.parent[j];
            let t_inv = super::label_inverse(&self.strong, &self.strong_inv, c);
            let base = p as usize * n;
            for &tx in t_inv.iter().take(n) {
                let v = inv_reps[base + tx as usize];
                inv_reps.push(v);
            }
        }
        let lvl = &mut self.levels[l];
        lvl.charged += entries;
        lvl.inv_reps = Some(inv_reps);
        Ok(())
    }

    /// Writes representative `j` of level `l` (maps the base point to `orbit[j]`) into `out`.
    ///
    /// Complexity: O(d) explicit, O(d · depth) tree.
    pub(crate) fn rep_into(&self, l: usize, j: usize, out: &mut [u32]) {
        let mut inv: Vec<u32> = (0..self.n as u32).collect();
        apply_inv_rep(&self.levels[l], &self.strong, &self.strong_inv, j, &mut inv);
        for (x, &y) in inv.iter().enumerate() {
            out[y as usize] = x as u32;
        }
    }

    /// Replaces `g` by `u_j · g` (first `u_j`, then `g`), `u_j` representative `j` of level `l`;
    /// `scratch` (length `d`) is overwritten.
    ///
    /// Complexity: O(d) explicit, O(d · depth) tree; no allocation.
    pub(crate) fn left_multiply_rep(&self, l: usize, j: usize, g: &mut [u32], scratch: &mut [u32]) {
        let lvl = &self.levels[l];
        let n = self.n;
        if let Some(inv_reps) = &lvl.inv_reps {
            // (u · g)[u⁻¹[y]] = g[y].
            let inv = &inv_reps[j * n..(j + 1) * n];
            for (y, &x) in inv.iter().enumerate() {
                scratch[x as usize] = g[y];
            }
            g.copy_from_slice(scratch);
            return;
        }
        // u_j = t_1 · … · t_L along the path from the root: t_L · g first, walking upwards.
        let mut k = j;
        while k != 0 {
            let (p, c) = lvl.parent[k];
            let t = super::label(&self.strong, &self.strong_inv, c);
            for (out, &tx) in scratch.iter_mut().zip(t.iter()) {
                *out = g[tx as usize];
            }
            g.copy_from_slice(scratch);
            k = p as usize;
        }
    }

    /// Replaces `g` by `g · u_j⁻¹`, `u_j` representative `j` of level `l` (a sifting step).
    ///
    /// Complexity: O(d) explicit, O(d · depth) tree; no allocation.
    pub(crate) fn right_multiply_inverse_rep(&self, l: usize, j: usize, g: &mut [u32]) {
        super::apply_inv_rep(&self.levels[l], &self.strong, &self.strong_inv, j, g);
    }

    /// The explicit transversal of level `l`: `result[j]` maps the base point to `orbit[j]`.
    pub(crate) fn transversal(&self, l: usize) -> Vec<Perm> {
        let lvl = &self.levels[l];
        (0..lvl.orbit.len())
            .map(|j| {
                let mut img = vec![0u32; self.n];
                self.rep_into(l, j, &mut img);
                Perm::from_images_unchecked(img.into_boxed_slice())
            })
            .collect()
    }
}

/// Whether `extra` more entries of explicit representatives keep the chain's `entries` within
/// [`EXPLICIT_SHARE`] of its `budget_entries`.
fn explicit_fits(entries: u64, extra: u64, budget_entries: u64) -> bool {
    let (num, den) = EXPLICIT_SHARE;
    entries.saturating_add(extra) <= budget_entries / den * num
}
