//! [`MinkwitzTables`]: Minkwitz's tables of short words for the coset representatives of a
//! stabiliser chain, and the factorisation of members through them.
//!
//! For a base `b_0, …, b_{k-1}` with basic orbits `Δ_i`, level `i` of the table holds, for each
//! point `p ∈ Δ_i`, one element `u` of the stabiliser `G^(i)` of `b_0..b_{i-1}` with
//! `b_i^u = p`, *together with a word in the generators for it*. A member `g` then factors as
//! `g = u_{k-1} ⋯ u_1 u_0` by sifting (`h_0 = g`, `u_i` the entry for `b_i^{h_i}`,
//! `h_{i+1} = h_i u_i^{-1}`), and its word is the product of the entries' words.
//!
//! The tables are filled by sifting words of random walks in the Cayley graph, **replacing an
//! entry whenever a shorter word for the same coset reaches it**, and sifting the residue on
//! (Minkwitz's rule: the residues of short words are short words for deeper levels). They are
//! complete when every level holds `|Δ_i|` entries; the base and the orbit lengths come from the
//! group's proven stabiliser chain (or its proof that it is a giant), so completeness is known
//! exactly and every word is exact: the method is Las Vegas (random in its running time, never in
//! its answers). Then `effort` rounds of improvement sift the products of pairs of entries of a
//! level, and more random words, with the same replacement rule; at query time a member is also
//! factored after multiplying by the elements of a small ball of the Cayley graph, keeping the
//! shortest word.
//!
//! # Complexity
//! Filling: about `Σ_i |Δ_i| log |Δ_i|` sifts in the typical case (`m` moved points, `k` base
//! points), each of a walk of `s` steps read at the base points only, `O(k · (s + k))`, and its
//! residue's word as spans of the entries' words (see [`super::power_tables`] and
//! [`super::word_product`]), until it changes a table, `O((s + k) · m)` then; each improvement
//! round `Σ_i min(|Δ_i|², P)` more (`P` a per-level cap). Memory: `8 m + 16 · letters` bytes per
//! entry, `Σ_i |Δ_i|` entries, and `16 m` per generator. Factoring: `O(B · k · m)` for a ball of
//! `B` elements.
//!
//! # Reference
//! T. Minkwitz, "An algorithm for solving the factorization problem in permutation groups",
//! *J. Symbolic Computation* 26 (1998) 89–95. Seress, *Permutation Group Algorithms* (2003), §4.1
//! (sifting).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::super::perm::Perm;
use super::super::perm_group::PermGroup;
use super::group_words::WordEffort;
use super::moved_points::MovedPoints;
use super::power_tables::{PowerTables, Step};
use super::word::{GeneratorOrders, LETTER_BYTES, Word};
use super::word_product::WordProduct;
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::invert;

/// Seed of the random walks (words depend on it, their correctness does not).
const SEED: u64 = 0x5eed_3041;
const NONE: u32 = u32::MAX;
/// Products of pairs sifted per level and improvement round, at most.
const PAIRS_PER_LEVEL: usize = 4_096;
/// The walks and the residues' cap grow when fewer than one sift in this many inserts an entry.
const GROWTH_RATE: usize = 4_096;
/// Elements of the Cayley-graph ball tried at query time, per unit of effort.
const BALL_PER_EFFORT: usize = 96;

#[derive(Debug)]
struct Entry {
    perm: Box<[u32]>,
    inv: Box<[u32]>,
    word: Word,
}

#[derive(Debug)]
struct Level {
    base_point: u32,
    orbit_len: usize,
    /// Entry index for each moved point, `NONE` where the table has none yet.
    slot: Vec<u32>,
    entries: Vec<Entry>,
}

/// Words for every element of a permutation group, from Minkwitz's tables (see the module
/// documentation).
#[derive(Debug)]
pub(crate) struct MinkwitzTables {
    /// The moved points: the tables' permutations act on their numbers.
    points: MovedPoints,
    generators: Vec<Box<[u32]>>,
    inverses: Vec<Box<[u32]>>,
    /// The generators' cycles, for the random walks' base images.
    powers: PowerTables,
    orders: GeneratorOrders,
    levels: Vec<Level>,
    /// Query-time shifts: a ball of the Cayley graph, each as (inverse permutation, word).
    ball: Vec<(Box<[u32]>, Word)>,
    bytes: u64,
    budget: u64,
}

/// Which side of a member a query-time shift multiplies.
#[derive(Debug, Clone, Copy)]
enum Side {
    Right,
    Left,
}

/// What happened to an element sifted into the tables.
#[derive(Debug, PartialEq, Eq)]
enum Sifted {
    Inserted,
    Identity,
    TooLong,
}

impl MinkwitzTables {
    /// Builds the tables for `group`.
    ///
    /// # Arguments
    /// * `group` — the group, whose base and basic orbit lengths are proven.
    /// * `effort` — the set-up/length trade-off ([`WordEffort`]).
    /// * `ctx` — cancellation (checked every few dozen sifts) and progress.
    /// * `budget_bytes` — the memory the tables may take (permutations and words);
    ///   `limit_name` names the limit that set it in the error.
    ///
    /// # Returns
    /// The tables, [`SolveError::LimitExceeded`] naming `limit_name` when they would need more
    /// than `budget_bytes`, or [`SolveError::Cancelled`].
    ///
    /// # Complexity
    /// See the module documentation.
    ///
    /// # Reference
    /// Minkwitz (1998), §2–3.
    pub(crate) fn new(
        group: &PermGroup,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<MinkwitzTables, SolveError> {
        let points = MovedPoints::of(group);
        let (degree, m) = (points.degree(), points.len());
        let generators: Vec<Box<[u32]>> = group
            .generators()
            .iter()
            .map(|g| {
                points
                    .restrict(g)
                    .expect("a generator permutes the moved points")
                    .into_boxed_slice()
            })
            .collect();
        let inverses = generators.iter().map(|g| invert(g)).collect();
        let orbit_lens = group.transversal_lengths();
        let entries: u64 = orbit_lens.iter().sum();
        // The entries, the levels' slots and the generators' power tables.
        let fixed = entries
            .saturating_mul(8 * m as u64 + 64)
            .saturating_add((orbit_lens.len() as u64).saturating_mul(4 * m as u64))
            .saturating_add((generators.len() as u64).saturating_mul(16 * m as u64));
        if fixed > budget_bytes {
            return Err(SolveError::limit_shown(
                format!(
                    "words of the group of degree {degree} ({entries} table entries, {fixed} bytes)"
                ),
                limit_name,
                budget_bytes,
                format!("{budget_bytes} bytes ({limit_name})"),
            )
            .requested(fixed));
        }
        let levels = group
            .base()
            .iter()
            .zip(&orbit_lens)
            .map(|(&b, &len)| {
                let b = points.inner(b);
                let mut slot = vec![NONE; m];
                slot[b as usize] = 0;
                let identity: Box<[u32]> = (0..m as u32).collect();
                Level {
                    base_point: b,
                    orbit_len: len as usize,
                    slot,
                    entries: vec![Entry {
                        perm: identity.clone(),
                        inv: identity,
                        word: Word::identity(),
                    }],
                }
            })
            .collect();
        let mut words = MinkwitzTables {
            points,
            orders: GeneratorOrders::of(group.generators()),
            powers: PowerTables::new(&generators),
            generators,
            inverses,
            levels,
            ball: Vec::new(),
            bytes: fixed,
            budget: budget_bytes,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        words.fill(&mut rng, ctx, limit_name)?;
        for _ in 0..effort.0 {
            words.improve(&mut rng, ctx, limit_name)?;
        }
        words.ball = words.ball(BALL_PER_EFFORT * effort.0 as usize + 1);
        Ok(words)
    }

    /// The word of `g`, or `None` when `g` is not a member (or has another degree).
    ///
    /// # Complexity
    /// `O(B · k · m)` for the query ball of `B` elements (see the module documentation).
    pub(crate) fn word_of(&self, g: &Perm) -> Option<Word> {
        let inner = self.points.restrict(g)?;
        // Choose by the sum of the parts' lengths (an upper bound of the reduced length) and
        // build only the chosen word: building every candidate's word costs more than sifting.
        let mut parts = Vec::with_capacity(self.levels.len());
        let mut best_len = self.sift_parts(&inner, &mut parts)?;
        let mut best_parts = parts.clone();
        // The shift `s` of the ball on the right (`g = (g s⁻¹) s`) or on the left
        // (`g = s (s⁻¹ g)`), whichever gives the shortest word.
        let mut best_shift: Option<(usize, Side)> = None;
        let mut shifted = vec![0u32; inner.len()];
        for (i, (s_inv, s_word)) in self.ball.iter().enumerate() {
            for side in [Side::Right, Side::Left] {
                match side {
                    Side::Right => {
                        for (out, &x) in shifted.iter_mut().zip(&inner) {
                            *out = s_inv[x as usize];
                        }
                    }
                    Side::Left => {
                        for (out, &x) in shifted.iter_mut().zip(s_inv.iter()) {
                            *out = inner[x as usize];
                        }
                    }
                }
                if let Some(len) = self.sift_parts(&shifted, &mut parts)
                    && len + s_word.len() < best_len
                {
                    best_len = len + s_word.len();
                    best_parts.clone_from(&parts);
                    best_shift = Some((i, side));
                }
            }
        }
        let mut w = Word::identity();
        if let Some((i, Side::Left)) = best_shift {
            w.append(&self.ball[i].1, &self.orders);
        }
        for (level, &idx) in self.levels.iter().zip(&best_parts).rev() {
            w.append(&level.entries[idx as usize].word, &self.orders);
        }
        if let Some((i, Side::Right)) = best_shift {
            w.append(&self.ball[i].1, &self.orders);
        }
        Some(w)
    }

    /// Bytes the tables hold (permutations and words).
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Mean and largest word length of the table entries, for benchmarks.
    pub(crate) fn entry_lengths(&self) -> (f64, u64) {
        let all: Vec<u64> = self
            .levels
            .iter()
            .flat_map(|l| l.entries.iter().map(|e| e.word.len()))
            .collect();
        let max = all.iter().copied().max().unwrap_or(0);
        (
            all.iter().sum::<u64>() as f64 / all.len().max(1) as f64,
            max,
        )
    }

    /// Sifts `g`: `g = u_{k-1} ⋯ u_0` with `u_i` the table entry `parts[i]` of level `i`.
    /// Returns the sum of the entries' word lengths, or `None` if `g` does not sift to the
    /// identity (it is not a member).
    fn sift_parts(&self, g: &[u32], parts: &mut Vec<u32>) -> Option<u64> {
        let mut h = g.to_vec();
        parts.clear();
        let mut len = 0;
        for level in &self.levels {
            let idx = level.slot[h[level.base_point as usize] as usize];
            if idx == NONE {
                return None;
            }
            let u = &level.entries[idx as usize];
            for x in h.iter_mut() {
                *x = u.inv[*x as usize];
            }
            parts.push(idx);
            len += u.word.len();
        }
        if h.iter().enumerate().any(|(i, &x)| i as u32 != x) {
            return None;
        }
        Some(len)
    }

    fn missing(&self) -> usize {
        self.levels
            .iter()
            .map(|l| l.orbit_len - l.entries.len())
            .sum()
    }

    fn charge(&mut self, letters: u64, limit_name: &'static str) -> Result<(), SolveError> {
        self.bytes = self.bytes.saturating_add(letters * LETTER_BYTES);
        if self.bytes > self.budget {
            return Err(SolveError::limit_shown(
                format!(
                    "words of the group of degree {} ({} bytes)",
                    self.points.degree(),
                    self.bytes
                ),
                limit_name,
                self.budget,
                format!("{} bytes ({limit_name})", self.budget),
            )
            .requested(self.bytes));
        }
        Ok(())
    }

    /// Sifts `(t, w)` from level `from` with Minkwitz's replacement rule; residues longer than
    /// `max_len` are dropped.
    fn sift(
        &mut self,
        from: usize,
        mut t: Vec<u32>,
        mut w: Word,
        max_len: u64,
        limit_name: &'static str,
    ) -> Result<Sifted, SolveError> {
        for i in from..self.levels.len() {
            let level = &mut self.levels[i];
            let p = t[level.base_point as usize];
            let idx = level.slot[p as usize];
            if idx == NONE {
                level.slot[p as usize] = level.entries.len() as u32;
                let mut inv = vec![0u32; t.len()].into_boxed_slice();
                for (x, &y) in t.iter().enumerate() {
                    inv[y as usize] = x as u32;
                }
                let letters = w.letters().len() as u64;
                level.entries.push(Entry {
                    perm: t.into_boxed_slice(),
                    inv,
                    word: w,
                });
                self.charge(letters, limit_name)?;
                return Ok(Sifted::Inserted);
            }
            let entry = &mut level.entries[idx as usize];
            // The residue t u^-1 fixes b_0..b_i; its word is w u_w^-1.
            let mut residue_word = w.clone();
            residue_word.append_inverse(&entry.word, &self.orders);
            let residue: Vec<u32> = t.iter().map(|&x| entry.inv[x as usize]).collect();
            if w.len() < entry.word.len() {
                let old = entry.word.letters().len() as u64;
                let new = w.letters().len() as u64;
                for (x, &y) in t.iter().enumerate() {
                    entry.inv[y as usize] = x as u32;
                }
                entry.perm = t.into_boxed_slice();
                entry.word = w;
                if new > old {
                    self.charge(new - old, limit_name)?;
                }
            }
            if residue_word.len() > max_len {
                return Ok(Sifted::TooLong);
            }
            t = residue;
            w = residue_word;
        }
        Ok(Sifted::Identity)
    }

    /// A random walk of `len` steps in the Cayley graph (no immediate backtracking), as its
    /// steps and its word. Half of the steps are a random power of the generator rather than
    /// `±1`: with steps of `±1` alone a generator of large order `m` (a long cycle) only reaches
    /// powers of about `√len`, and the tables of its orbit would never fill; a power costs one
    /// letter of length at most `m/2`.
    fn random_walk(&self, rng: &mut ChaCha8Rng, len: usize) -> (Vec<Step>, Word) {
        let k = self.generators.len() as u32;
        debug_assert!(k > 0);
        let mut steps = Vec::with_capacity(len);
        let mut w = Word::identity();
        let mut last: Option<Step> = None;
        for _ in 0..len {
            let (g, e) = loop {
                let g = rng.random_range(0..k);
                let e = match self.orders.order(g as usize) {
                    Some(order) if order > 3 && rng.random_bool(0.5) => {
                        rng.random_range(2..=order - 2)
                    }
                    _ if rng.random_bool(0.5) => 1,
                    _ => -1,
                };
                if last != Some((g, -e)) {
                    break (g, e);
                }
            };
            last = Some((g, e));
            steps.push((g, e));
            w.push(g, e, &self.orders);
        }
        (steps, w)
    }

    /// [`sift`](Self::sift) of the walk `steps` (with its word `w`) from level 0, reading only
    /// the base points' images until a table changes: the residue is the walk followed by the
    /// inverses of the entries it has passed, and its permutation and word are made only for
    /// an entry to be inserted or replaced (the same tables as sifting the walk's permutation).
    fn sift_walk(
        &mut self,
        steps: &[Step],
        w: Word,
        max_len: u64,
        limit_name: &'static str,
    ) -> Result<Sifted, SolveError> {
        let mut passed: Vec<u32> = Vec::with_capacity(self.levels.len());
        let mut residue = WordProduct::of(&w);
        for i in 0..self.levels.len() {
            let mut p = self.powers.image(steps, self.levels[i].base_point);
            for (level, &e) in self.levels.iter().zip(&passed) {
                p = level.entries[e as usize].inv[p as usize];
            }
            let idx = self.levels[i].slot[p as usize];
            if idx == NONE || residue.len() < self.levels[i].entries[idx as usize].word.len() {
                let word = residue.to_word(&self.orders);
                let mut t = self.powers.permutation(steps);
                for (level, &e) in self.levels.iter().zip(&passed) {
                    let inv = &level.entries[e as usize].inv;
                    t.iter_mut().for_each(|x| *x = inv[*x as usize]);
                }
                return self.sift(i, t, word, max_len, limit_name);
            }
            residue.times_inverse(&self.levels[i].entries[idx as usize].word, &self.orders);
            if residue.len() > max_len {
                return Ok(Sifted::TooLong);
            }
            passed.push(idx);
        }
        Ok(Sifted::Identity)
    }

    /// Sifts random walks until every level holds its whole orbit. Walks start short and grow
    /// while the tables stop gaining entries.
    fn fill(
        &mut self,
        rng: &mut ChaCha8Rng,
        ctx: &SolveContext,
        limit_name: &'static str,
    ) -> Result<(), SolveError> {
        if self.generators.is_empty() {
            return Ok(());
        }
        let total = self
            .levels
            .iter()
            .map(|l| l.orbit_len)
            .sum::<usize>()
            .max(1);
        let mut walk = 4usize;
        // Residues longer than `cap` are dropped: without a cap, level i's first entries are
        // residues of residues, and their lengths can double from one level to the next. The
        // cap grows with the walks, so every level is eventually filled: when a window of sifts
        // inserts fewer than one entry in `GROWTH_RATE`. (Waiting instead for a whole window
        // with no entry at all kept the cap low for many seconds on a long base of large orbits:
        // `AGL(9,2)`, ten levels of 256 to 512 points, inserts an entry now and then at the
        // middle levels while the deep ones stay empty.)
        let mut cap = 64u64;
        let window = 4 * total.min(4_096);
        let (mut tried, mut inserted) = (0usize, 0usize);
        let mut tries = 0u64;
        while self.missing() > 0 {
            tries += 1;
            if tries.is_multiple_of(64) {
                ctx.check()?;
                ctx.progress(1.0 - self.missing() as f64 / total as f64);
            }
            let len = rng.random_range(1..=walk);
            let (steps, w) = self.random_walk(rng, len);
            if self.sift_walk(&steps, w, cap, limit_name)? == Sifted::Inserted {
                inserted += 1;
            }
            tried += 1;
            if tried == window {
                if inserted * GROWTH_RATE < window {
                    walk = (walk * 3 / 2).min(4 * total + 16);
                    cap = cap.saturating_mul(2);
                }
                (tried, inserted) = (0, 0);
            }
        }
        Ok(())
    }

    /// One round of improvement: the products of pairs of entries of each level (at most
    /// [`PAIRS_PER_LEVEL`], sampled when there are more), and as many random walks as there are
    /// entries, each sifted with the replacement rule.
    fn improve(
        &mut self,
        rng: &mut ChaCha8Rng,
        ctx: &SolveContext,
        limit_name: &'static str,
    ) -> Result<(), SolveError> {
        let m = self.points.len();
        for i in 0..self.levels.len() {
            let n = self.levels[i].entries.len();
            if n < 2 {
                continue;
            }
            let all_pairs = n * n <= PAIRS_PER_LEVEL;
            let pairs = if all_pairs { n * n } else { PAIRS_PER_LEVEL };
            let max_len = self.levels[i]
                .entries
                .iter()
                .map(|e| e.word.len())
                .max()
                .unwrap_or(0);
            for pair in 0..pairs {
                if pair % 64 == 0 {
                    ctx.check()?;
                }
                let (a, b) = if all_pairs {
                    (pair / n, pair % n)
                } else {
                    (rng.random_range(0..n), rng.random_range(0..n))
                };
                let level = &self.levels[i];
                let (ea, eb) = (&level.entries[a], &level.entries[b]);
                if ea.word.is_identity() || eb.word.is_identity() {
                    continue;
                }
                let t: Vec<u32> = (0..m).map(|x| eb.perm[ea.perm[x] as usize]).collect();
                let mut w = ea.word.clone();
                w.append(&eb.word, &self.orders);
                self.sift(i, t, w, max_len, limit_name)?;
            }
        }
        let total: usize = self.levels.iter().map(|l| l.orbit_len).sum();
        let mean = self.entry_lengths().0.ceil() as usize;
        for r in 0..total {
            if r % 64 == 0 {
                ctx.check()?;
            }
            let len = rng.random_range(1..=mean.max(2));
            let (steps, w) = self.random_walk(rng, len);
            let max_len = 2 * mean as u64 + 2;
            self.sift_walk(&steps, w, max_len, limit_name)?;
        }
        Ok(())
    }

    /// The first `size` elements of a breadth-first search of the Cayley graph from the
    /// identity (distinct elements; the identity first), as (inverse, word).
    fn ball(&self, size: usize) -> Vec<(Box<[u32]>, Word)> {
        let m = self.points.len();
        let identity: Box<[u32]> = (0..m as u32).collect();
        let mut seen = std::collections::HashSet::new();
        seen.insert(identity.clone());
        let mut out: Vec<(Box<[u32]>, Word)> = vec![(identity, Word::identity())];
        let mut step = Vec::new();
        for (g, (generator, inverse)) in self.generators.iter().zip(&self.inverses).enumerate() {
            step.push((generator.clone(), Word::letter(g as u32, 1, &self.orders)));
            step.push((inverse.clone(), Word::letter(g as u32, -1, &self.orders)));
        }
        // `out` holds inverses; walk with the elements themselves, then invert.
        let mut frontier: Vec<(Box<[u32]>, Word)> =
            vec![((0..m as u32).collect(), Word::identity())];
        let mut elements = Vec::new();
        while out.len() < size && !frontier.is_empty() {
            let mut next = Vec::new();
            for (p, w) in &frontier {
                for (s, sw) in &step {
                    let q: Box<[u32]> = p.iter().map(|&x| s[x as usize]).collect();
                    if seen.insert(q.clone()) {
                        let mut qw = w.clone();
                        qw.append(sw, &self.orders);
                        elements.push((q.clone(), qw.clone()));
                        next.push((q, qw));
                        if out.len() + elements.len() >= size {
                            break;
                        }
                    }
                }
                if out.len() + elements.len() >= size {
                    break;
                }
            }
            for (q, qw) in elements.drain(..) {
                let mut inv = vec![0u32; m].into_boxed_slice();
                for (x, &y) in q.iter().enumerate() {
                    inv[y as usize] = x as u32;
                }
                out.push((inv, qw));
            }
            frontier = next;
        }
        out.remove(0);
        out
    }
}

#[cfg(test)]
mod tests {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::Limits;

    /// Sifting a walk by its base images ([`MinkwitzTables::sift_walk`]) against sifting its
    /// whole permutation ([`MinkwitzTables::sift`]): two copies of the same tables (groups from
    /// two or three random permutations of up to 14 points) take the same random walks, under
    /// random caps on the residues' length, one way each; after every walk both say the same and
    /// hold the same entries.
    #[test]
    fn a_walk_sifted_by_its_base_images_changes_the_tables_as_its_permutation_does() {
        let mut rng = ChaCha8Rng::seed_from_u64(4102);
        let ctx = SolveContext::detached();
        for _ in 0..20 {
            let d = rng.random_range(4..=14usize);
            let generators: Vec<Perm> = (0..rng.random_range(2..=3))
                .map(|_| {
                    let mut images: Vec<u32> = (0..d as u32).collect();
                    images.shuffle(&mut rng);
                    Perm::from_images(images, "test").unwrap()
                })
                .collect();
            let group = PermGroup::new(d, generators, &ctx, &Limits::default()).unwrap();
            let tables = || MinkwitzTables::new(&group, WordEffort(0), &ctx, 1 << 30, "test");
            let (mut by_images, mut by_permutation) = (tables().unwrap(), tables().unwrap());
            if by_images.generators.is_empty() {
                continue;
            }
            for _ in 0..300 {
                let len = rng.random_range(1..=30);
                let (steps, w) = by_images.random_walk(&mut rng, len);
                let max_len = rng.random_range(1..=200);
                let t = by_permutation.powers.permutation(&steps);
                let expected = by_permutation.sift(0, t, w.clone(), max_len, "test");
                let got = by_images.sift_walk(&steps, w, max_len, "test");
                assert_eq!(got.unwrap(), expected.unwrap());
                for (a, b) in by_images.levels.iter().zip(&by_permutation.levels) {
                    assert_eq!(a.slot, b.slot);
                    for (x, y) in a.entries.iter().zip(&b.entries) {
                        assert_eq!((&x.perm, &x.inv, &x.word), (&y.perm, &y.inv, &y.word));
                    }
                }
            }
        }
    }
}
