//! The Schreier–Sims algorithm: a base and strong generating set (a stabiliser chain) with
//! explicit transversals.
//!
//! Two phases:
//! 1. **Random Schreier–Sims** (Seress 2003, §4.3): sift random elements (product replacement)
//!    through the chain built so far and add every non-trivial residue as a strong generator,
//!    until a run of consecutive random elements sifts to the identity. This usually produces the
//!    whole chain quickly, but proves nothing.
//! 2. **Deterministic completion** (Sims; Holt–Eick–O'Brien 2005, §4.4.2, algorithm
//!    SCHREIERSIMS): from the deepest level up, every Schreier generator `u_β · s · u_{β^s}⁻¹` of
//!    level `i` is sifted through levels `i+1..`; a non-trivial residue becomes a new strong
//!    generator and the deeper levels are completed again. When every Schreier generator of every
//!    level sifts to the identity, Schreier's lemma proves that level `i+1` generates the stabiliser
//!    of the base point of level `i`, so the chain is exact (the order is the product of the orbit
//!    lengths). Schreier generators whose edge is a tree edge of the orbit's spanning tree are the
//!    identity by construction and skipped.
//!
//! Convention: products are GAP's (first left, then right); level `i`'s representative `u_β` maps
//! its base point `b_i` to `β` and fixes `b_0..b_{i-1}`. Sifting `g` replaces it by `g · u_β⁻¹`
//! with `β = b_i^g`, so `g = r · u_{k-1} · … · u_1 · u_0` where `r` is the residue.
//!
//! Memory: every orbit point of every level stores the inverse of its representative explicitly
//! (`degree` integers; the representative itself is recomputed when needed); the total is charged
//! against a budget before allocating, so an oversized chain ends with
//! [`SolveError::LimitExceeded`].

use super::orbits::orbit_of_point;
use super::perm::Perm;
use super::product_replacement::ProductReplacement;
use crate::context::SolveContext;
use crate::error::SolveError;

/// Marks "no orbit index" in [`Level::pos`] and the root's parent.
pub(crate) const NONE: u32 = u32::MAX;

/// Consecutive random elements that must sift to the identity before the random phase stops.
const RANDOM_STREAK: usize = 12;

/// One level of the stabiliser chain.
pub(crate) struct Level {
    /// The base point `b_i`.
    pub(crate) base_point: u32,
    /// Indices into [`Chain::strong`] of this level's generators `S^(i)`.
    gens: Vec<u32>,
    /// How many of `gens` have been applied to every orbit point so far.
    gens_applied: usize,
    /// The orbit of `b_i` under `<S^(i)>`, in discovery order; `orbit[0] = b_i`.
    pub(crate) orbit: Vec<u32>,
    /// `pos[x]` = index of `x` in `orbit`, or [`NONE`]. Length = degree.
    pub(crate) pos: Vec<u32>,
    /// Inverses of the representatives, flat: `inv_reps[j·d .. (j+1)·d]` is `u_j⁻¹`, where `u_j`
    /// maps `b_i` to `orbit[j]`. Only inverses are stored (sifting needs them; the few places
    /// that need `u_j` invert it), halving the memory.
    inv_reps: Vec<u32>,
    /// Spanning-tree edge that discovered each orbit point: (parent orbit index, strong generator
    /// index), with `u_child = u_parent · s` exactly.
    parent: Vec<(u32, u32)>,
    /// For each orbit point, how many of `gens` (a prefix) have had their Schreier generator
    /// verified.
    checked: Vec<u32>,
}

impl Level {
    /// Writes representative `j` (maps the base point to `orbit[j]`) into `out`.
    pub(crate) fn rep_into(&self, j: usize, n: usize, out: &mut [u32]) {
        for (x, &y) in self.inv_rep(j, n).iter().enumerate() {
            out[y as usize] = x as u32;
        }
    }

    /// Inverse of representative `j`.
    #[inline]
    pub(crate) fn inv_rep(&self, j: usize, n: usize) -> &[u32] {
        &self.inv_reps[j * n..(j + 1) * n]
    }
}

/// A base and strong generating set with explicit transversals.
pub(crate) struct Chain {
    n: usize,
    strong: Vec<Perm>,
    strong_inv: Vec<Perm>,
    pub(crate) levels: Vec<Level>,
    /// Integers allocated so far (chain storage), and the budget.
    entries: u64,
    budget_entries: u64,
    budget_bytes: u64,
}

impl std::fmt::Debug for Chain {
    /// A summary (the transversals are far too large to print).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("degree", &self.n)
            .field("base", &self.base())
            .field("orbit_lengths", &self.orbit_lengths())
            .field("strong_generators", &self.strong.len())
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
        return Err(SolveError::limit(
            format!("memory for the stabiliser chain of the degree-{n} group"),
            format!("{bytes} bytes"),
        ));
    }
    Ok(())
}

impl Chain {
    /// An empty chain (the trivial group) on `n` points with a memory budget in bytes.
    pub(crate) fn new(n: usize, budget_bytes: u64) -> Chain {
        Chain {
            n,
            strong: Vec::new(),
            strong_inv: Vec::new(),
            levels: Vec::new(),
            entries: 0,
            budget_entries: budget_bytes / 4,
            budget_bytes,
        }
    }

    /// Builds an exact chain for `<generators>`: random phase, then deterministic completion.
    ///
    /// Complexity: random phase O(r · d · |B|) for r random elements; completion
    /// O(Σ_i |Δ_i| · |S^(i)| · d · |B|) where the `Δ_i` are the fundamental orbits.
    pub(crate) fn build(
        n: usize,
        generators: &[Perm],
        budget_bytes: u64,
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<Chain, SolveError> {
        let mut chain = Chain::new(n, budget_bytes);
        let gens: Vec<&Perm> = generators.iter().filter(|g| !g.is_identity()).collect();
        let Some(first) = gens.first() else {
            return Ok(chain);
        };
        let b0 = first
            .first_moved_point()
            .expect("a non-identity permutation moves a point");
        // The first level's orbit is the group's orbit of b0, known before any transversal is
        // stored: refuse at once if its representatives alone would exceed the budget.
        let first_orbit = orbit_of_point(n, generators, b0).len() as u64;
        if first_orbit.saturating_add(2).saturating_mul(n as u64) > chain.budget_entries {
            return Err(SolveError::limit(
                format!(
                    "memory for the stabiliser chain of the degree-{n} group (an orbit of \
                     {first_orbit} points needs {} bytes of coset representatives)",
                    first_orbit.saturating_mul(n as u64).saturating_mul(4)
                ),
                format!("{} bytes", chain.budget_bytes),
            ));
        }
        chain.add_level(b0)?;
        for g in &gens {
            chain.add_gen((*g).clone(), 0, 0, ctx)?;
        }
        chain.random_phase(generators, seed, ctx)?;
        chain.complete(ctx)?;
        Ok(chain)
    }

    /// The base points.
    pub(crate) fn base(&self) -> Vec<u32> {
        self.levels.iter().map(|l| l.base_point).collect()
    }

    /// The strong generators.
    pub(crate) fn strong_generators(&self) -> &[Perm] {
        &self.strong
    }

    /// The orbit lengths (fundamental orbits), whose product is the order.
    pub(crate) fn orbit_lengths(&self) -> Vec<usize> {
        self.levels.iter().map(|l| l.orbit.len()).collect()
    }

    fn add_level(&mut self, base_point: u32) -> Result<(), SolveError> {
        let n = self.n;
        charge(
            &mut self.entries,
            2 * n as u64,
            self.budget_entries,
            self.budget_bytes,
            n,
        )?;
        let mut pos = vec![NONE; n];
        pos[base_point as usize] = 0;
        let id: Vec<u32> = (0..n as u32).collect();
        self.levels.push(Level {
            base_point,
            gens: Vec::new(),
            gens_applied: 0,
            orbit: vec![base_point],
            pos,
            inv_reps: id,
            parent: vec![(NONE, NONE)],
            checked: vec![0],
        });
        Ok(())
    }

    /// Adds `g` as a strong generator of levels `lo..=hi` and extends their orbits.
    fn add_gen(
        &mut self,
        g: Perm,
        lo: usize,
        hi: usize,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let n = self.n;
        charge(
            &mut self.entries,
            2 * n as u64,
            self.budget_entries,
            self.budget_bytes,
            n,
        )?;
        let idx = self.strong.len() as u32;
        self.strong_inv.push(g.inverse());
        self.strong.push(g);
        for l in lo..=hi {
            self.levels[l].gens.push(idx);
            self.extend_orbit(l, ctx)?;
        }
        Ok(())
    }

    /// Applies the generators of level `l` not yet applied to the old orbit points, and all
    /// generators to new points, storing a representative and its inverse for each new point.
    fn extend_orbit(&mut self, l: usize, ctx: &SolveContext) -> Result<(), SolveError> {
        let n = self.n;
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
        let old_len = lvl.orbit.len();
        let mut j = 0;
        while j < lvl.orbit.len() {
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
                charge(entries, n as u64, *budget_entries, *budget_bytes, n)?;
                lvl.pos[y as usize] = lvl.orbit.len() as u32;
                lvl.orbit.push(y);
                lvl.parent.push((j as u32, sidx as u32));
                lvl.checked.push(0);
                let sinv = strong_inv[sidx].images();
                // u_new = u_j · s, so u_new⁻¹ = s⁻¹ · u_j⁻¹: x -> u_j⁻¹[s⁻¹[x]].
                lvl.inv_reps.reserve(n);
                let base = j * n;
                for &sx in sinv.iter().take(n) {
                    let v = lvl.inv_reps[base + sx as usize];
                    lvl.inv_reps.push(v);
                }
            }
            j += 1;
        }
        lvl.gens_applied = lvl.gens.len();
        Ok(())
    }

    /// Sifts `g` (an image array, modified in place) through levels `from..`; returns the level
    /// whose orbit does not contain the image of its base point, or `levels.len()` if `g` passed
    /// every level (then `g` holds the residue, which fixes every base point).
    ///
    /// Complexity: O(d) per level passed.
    #[inline]
    pub(crate) fn sift(&self, g: &mut [u32], from: usize) -> usize {
        let n = self.n;
        for (l, lvl) in self.levels.iter().enumerate().skip(from) {
            let beta = g[lvl.base_point as usize];
            let j = lvl.pos[beta as usize];
            if j == NONE {
                return l;
            }
            if j != 0 {
                let inv = lvl.inv_rep(j as usize, n);
                for x in g.iter_mut() {
                    *x = inv[*x as usize];
                }
            }
        }
        self.levels.len()
    }

    /// Whether the permutation `g` (image array of degree d, consumed) lies in the group.
    pub(crate) fn contains_in_place(&self, g: &mut [u32]) -> bool {
        self.sift(g, 0) == self.levels.len() && is_identity_slice(g)
    }

    fn random_phase(
        &mut self,
        generators: &[Perm],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let mut pr = ProductReplacement::new(self.n, generators, seed, ctx)?;
        let mut buf = vec![0u32; self.n];
        let mut streak = 0;
        while streak < RANDOM_STREAK {
            ctx.check()?;
            buf.copy_from_slice(pr.next_element().images());
            let l = self.sift(&mut buf, 0);
            if l == self.levels.len() && is_identity_slice(&buf) {
                streak += 1;
                continue;
            }
            streak = 0;
            self.add_residue(&buf, 1, l, ctx)?;
        }
        Ok(())
    }

    /// Adds the non-trivial residue `h` (which fixes `b_0..b_{l-1}`) to levels `lo..=l`, creating
    /// level `l` first when `l` is the number of levels.
    fn add_residue(
        &mut self,
        h: &[u32],
        lo: usize,
        l: usize,
        ctx: &SolveContext,
    ) -> Result<(), SolveError> {
        let h = Perm::from_images_unchecked(h.to_vec().into_boxed_slice());
        if l == self.levels.len() {
            let b = h.first_moved_point().expect("residue is not the identity");
            self.add_level(b)?;
        }
        self.add_gen(h, lo.min(l), l, ctx)
    }

    /// Deterministic Schreier–Sims from the deepest level up; on return the chain is proven
    /// complete.
    fn complete(&mut self, ctx: &SolveContext) -> Result<(), SolveError> {
        let mut buf = vec![0u32; self.n];
        let mut i = self.levels.len();
        while i > 0 {
            let level = i - 1;
            ctx.progress(1.0 - level as f64 / self.levels.len() as f64);
            match self.next_nontrivial_schreier_residue(level, &mut buf, ctx)? {
                None => i -= 1,
                Some(j) => {
                    self.add_residue(&buf, level + 1, j, ctx)?;
                    i = j + 1;
                }
            }
        }
        Ok(())
    }

    /// Finds the next unverified Schreier generator of level `i` that does not sift to the
    /// identity through levels `i+1..`; leaves its residue in `buf` and returns the level where
    /// sifting stopped. `None` when every Schreier generator of level `i` is verified.
    fn next_nontrivial_schreier_residue(
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
                if lvl.parent[m] == (idx as u32, sidx) {
                    continue; // tree edge: u_β · s = u_γ exactly
                }
                if fwd_of != idx {
                    lvl.rep_into(idx, n, &mut fwd);
                    fwd_of = idx;
                }
                let inv = lvl.inv_rep(m, n);
                for (out, &r) in buf.iter_mut().zip(fwd.iter()) {
                    *out = inv[s[r as usize] as usize];
                }
                let l = self.sift(buf, i + 1);
                if l < self.levels.len() || !is_identity_slice(buf) {
                    return Ok(Some(l));
                }
            }
        }
        Ok(None)
    }

    /// The explicit transversal of level `l`: `result[j]` maps the base point to `orbit[j]`.
    pub(crate) fn transversal(&self, l: usize) -> Vec<Perm> {
        let lvl = &self.levels[l];
        (0..lvl.orbit.len())
            .map(|j| {
                let mut img = vec![0u32; self.n];
                lvl.rep_into(j, self.n, &mut img);
                Perm::from_images_unchecked(img.into_boxed_slice())
            })
            .collect()
    }
}
