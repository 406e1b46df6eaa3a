//! The individualisation–refinement search on a sparse graph: automorphism group generators
//! (kept sparse, as their moved points), the exact group order and orbits, and a canonical
//! labelling, for graphs too large or too sparse for the bit matrix.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use num_bigint::BigUint;

use super::canonical_form::CanonicalForm;
use super::sparse_permutation::SparsePermutation;
use super::sparse_refinement::{OrderedPartition, SparseAdjacency, UndoMark};
use super::undirected_graph::UndirectedGraph;
use crate::context::SolveContext;
use crate::error::SolveError;

/// What the sparse search finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseSearchResult {
    /// `labelling[i]` is the vertex placed at canonical position `i`.
    pub labelling: Vec<u32>,
    /// Generators of the automorphism group (of the coloured graph), sparse, in the order found;
    /// none for a trivial group. With the deeper ones, those found at a level generate the
    /// stabiliser of the first path's vertices above it.
    pub generators: Vec<SparsePermutation>,
    /// `stabilised[i]`: the first-path vertex of the level generator `i` was found at.
    pub stabilised: Vec<u32>,
    /// The exact order of the automorphism group.
    pub order: BigUint,
    /// `orbit_of[v]`: the least vertex of `v`'s orbit under the group.
    pub orbit_of: Vec<u32>,
}

/// Frames the direct automorphism search may take for one candidate before giving up to the
/// subtree search (see [`SparseSearchOptions`]): enough for the small-support automorphisms of
/// trees, grids and the like, which it finds in a few; on Cai–Fürer–Immerman graphs, where it
/// meets nodes that refinement cannot tell from the first path's, the subtree search with
/// McKay's orbit pruning along the first path's cells is the cheaper way.
pub const DIRECT_SEARCH_FRAMES: u32 = 128;

/// How the sparse search looks for an automorphism onto a first-level candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SparseSearchOptions {
    /// Frames (pairs of individualisations) the direct search (saucy's) may take for one
    /// candidate before the candidate's subtree is searched for a leaf equivalent to the first
    /// path's leaf instead (nauty's). Either way the answer is the same; 0 always searches the
    /// subtree.
    pub direct_search_frames: u32,
}

impl Default for SparseSearchOptions {
    fn default() -> Self {
        SparseSearchOptions {
            direct_search_frames: DIRECT_SEARCH_FRAMES,
        }
    }
}

/// Bytes the sparse search allocates for `n` vertices and `m` edges, its generators aside: the
/// adjacency (`8m + 4n`), two partitions with their undo logs and target-cell index (about
/// `120n` each), the first path's traces and marks (`40n`), the union-find and scratch (`40n`),
/// the generators' index by moved point (`24n`).
pub fn sparse_search_bytes(n: u64, m: u64) -> u64 {
    n.saturating_mul(4 + 2 * 120 + 40 + 40 + 24)
        .saturating_add(m.saturating_mul(8))
        .saturating_add(1 << 16)
}

/// Bytes one sparse generator with `support` moved points takes: its pairs (8 bytes each, held
/// exactly), its entries in the index by moved point (4 bytes each, up to 8 with the index
/// vectors' spare capacity), its vector's header and level (32 bytes, up to 64 with spare
/// capacity).
pub fn sparse_generator_bytes(support: u64) -> u64 {
    support.saturating_mul(16).saturating_add(64)
}

/// One level of the first path: the target cell, the vertex individualised in it, the marks
/// before (`marks[level]`), and the refinement's trace.
struct Level {
    target: u32,
    vertex: u32,
    trace: Vec<u64>,
}

/// The search's state (see [`sparse_search`]).
struct Search<'a> {
    graph: &'a UndirectedGraph,
    adjacency: SparseAdjacency,
    ctx: &'a SolveContext,
    /// The first path's partition (at `ζ_{k+1}` while level `k` is worked on).
    left: OrderedPartition,
    /// The partition of the node being explored (a child of `ζ_k`).
    right: OrderedPartition,
    levels: Vec<Level>,
    /// `marks[k]`: the undo mark of `ζ_k` (the same in both partitions).
    marks: Vec<UndoMark>,
    root_trace: Vec<u64>,
    /// The best leaf so far: its traces below the root, its labelling, its form (made when
    /// first needed).
    best_traces: Vec<Vec<u64>>,
    best_labelling: Vec<u32>,
    best_form: Option<CanonicalForm>,
    /// How many times the best leaf changed.
    best_changes: u64,
    /// `(level, best_changes, equal)`: whether the best trace equals the first path's there.
    best_is_first: Option<(usize, u64, bool)>,
    /// The traces of the path being explored below the first path's level being worked on.
    path_traces: Vec<Vec<u64>>,
    /// The vertices individualised on the path being explored, from the first path's level
    /// being worked on down (`w`, then each child's vertex).
    path_vertices: Vec<u32>,
    /// Where the best leaf's path leaves the first path: `(level, vertices)` as
    /// `path_vertices` was when it was found; `None` for the first path's own leaf.
    best_path: Option<(usize, Vec<u32>)>,
    /// Set when a leaf equivalent to the best one was found: the depth of the two leaves'
    /// deepest common node, to which the search returns (the subtree of that node's child on
    /// the current path is the image of the best leaf's and holds nothing new).
    abandon_to: Option<usize>,
    /// Union-find over the generators' supports: the orbits of the group found so far.
    parent: Vec<u32>,
    size: Vec<u32>,
    /// `explored[root] == k + 1`: the orbit was explored at level `k` and is not that of the
    /// first path's vertex.
    explored: Vec<u32>,
    generators: Vec<SparsePermutation>,
    stabilised: Vec<u32>,
    /// `moved_by[x]`: the indices of the generators moving `x` (for the orbits of a node's
    /// cell under the generators fixing the node, without scanning every generator).
    moved_by: Vec<Vec<u32>>,
    /// The vertices individualised on the right side of [`Self::automorphism_onto_right`]
    /// below `ζ_k` (`w`, then each candidate tried): the right node is `ζ_k` with these.
    right_fixed: Vec<u32>,
    /// The pairs (left vertex, right vertex) of the singletons [`Self::automorphism_onto_right`]
    /// has matched so far, frame by frame.
    auto_pairs: Vec<(u32, u32)>,
    /// Frames [`Self::automorphism_onto_right`] may still take for the candidate being tried;
    /// at zero it gives up and the candidate's subtree is searched for a leaf equivalent to
    /// the first path's leaf instead.
    frames_left: u32,
    options: SparseSearchOptions,
    /// The first path's leaf: its labelling and its form (made when first needed).
    first_labelling: Vec<u32>,
    first_form: Option<CanonicalForm>,
    generator_bytes: u64,
    generator_budget: u64,
    /// Scratch for the automorphism test: the candidate's images, and a stamp per vertex.
    image: Vec<u32>,
    stamp: Vec<u32>,
    stamp_now: u32,
    /// The level being worked on (generators found now are charged to it).
    level: usize,
}

impl Search<'_> {
    fn check(&self) -> Result<(), SolveError> {
        self.ctx.check()
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let (big, small) = if self.size[a as usize] >= self.size[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[small as usize] = big;
        self.size[big as usize] += self.size[small as usize];
        let mark = self.explored[small as usize].max(self.explored[big as usize]);
        self.explored[big as usize] = mark;
    }

    /// Keeps an automorphism found at the current level: charged to the budget, its support
    /// merged into the orbits.
    fn add_generator(&mut self, g: SparsePermutation) -> Result<(), SolveError> {
        let bytes = sparse_generator_bytes(g.moved().len() as u64);
        self.generator_bytes = self.generator_bytes.saturating_add(bytes);
        if self.generator_bytes > self.generator_budget {
            return Err(SolveError::limit_shown(
                format!(
                    "the automorphism group's generators ({} so far, {} bytes)",
                    self.generators.len() + 1,
                    self.generator_bytes
                ),
                "max_job_memory",
                self.generator_budget,
                format!(
                    "{} bytes (the generators' share of max_job_memory)",
                    self.generator_budget
                ),
            )
            .requested(self.generator_bytes));
        }
        let index = self.generators.len() as u32;
        for i in 0..g.moved().len() {
            let (x, y) = g.moved()[i];
            self.union(x, y);
            self.moved_by[x as usize].push(index);
        }
        self.generators.push(g);
        self.stabilised.push(self.levels[self.level].vertex);
        Ok(())
    }

    fn keep_going(ctx: &SolveContext) -> impl FnMut() -> bool + '_ {
        move || !ctx.is_cancelled()
    }

    /// Refines `right` after an individualisation, against `equal_to` and `at_least` (see
    /// [`OrderedPartition::refine_traced`]).
    fn refine_right(
        &mut self,
        equal_to: Option<&[u64]>,
        at_least: Option<&[u64]>,
        trace: &mut Vec<u64>,
    ) -> Result<(Ordering, Ordering), SolveError> {
        let ctx = self.ctx;
        self.right
            .refine_traced(
                &self.adjacency,
                equal_to,
                at_least,
                trace,
                &mut Self::keep_going(ctx),
            )
            .ok_or(SolveError::Cancelled)
    }

    /// The first path: from the root, individualise the first vertex of the target cell and
    /// refine, until the partition is discrete.
    fn first_path(&mut self) -> Result<(), SolveError> {
        let ctx = self.ctx;
        let mut trace = Vec::new();
        self.left
            .refine_traced(
                &self.adjacency,
                None,
                None,
                &mut trace,
                &mut Self::keep_going(ctx),
            )
            .ok_or(SolveError::Cancelled)?;
        self.root_trace = trace;
        while let Some(target) = self.left.smallest_non_singleton() {
            self.check()?;
            let vertex = self.left.cell_at(target)[0];
            self.marks.push(self.left.mark());
            self.left.individualise(vertex);
            let mut trace = Vec::new();
            self.left
                .refine_traced(
                    &self.adjacency,
                    None,
                    None,
                    &mut trace,
                    &mut Self::keep_going(ctx),
                )
                .ok_or(SolveError::Cancelled)?;
            self.levels.push(Level {
                target,
                vertex,
                trace,
            });
        }
        self.marks.push(self.left.mark());
        self.best_labelling = self.left.elements().to_vec();
        self.first_labelling = self.best_labelling.clone();
        self.best_traces = self.levels.iter().map(|l| l.trace.clone()).collect();
        Ok(())
    }

    /// Works on the levels bottom-up: at level `k`, every vertex `w` of the target cell not yet
    /// known to be in the orbit of the first path's vertex `v` (under the generators found,
    /// which fix the vertices above) is tried: an automorphism mapping `ζ_{k+1}` onto `ζ_k · w`
    /// is looked for directly ([`Self::automorphism_onto_right`]); when there is none, the
    /// node's subtree is explored for the canonical leaf (unless its trace is already worse).
    fn levels_bottom_up(&mut self) -> Result<BigUint, SolveError> {
        let mut order = BigUint::from(1u32);
        for k in (0..self.levels.len()).rev() {
            self.level = k;
            self.left.undo_to(self.marks[k + 1]);
            self.right.undo_to(self.marks[k]);
            let v = self.levels[k].vertex;
            let target = self.levels[k].target;
            // Often one try makes the cell one orbit (a tree's leaves, an empty graph): try the
            // first candidate before copying the cell.
            let cell_len = self.right.cell_at(target).len();
            let first = self.right.cell_at(target).iter().copied().find(|&w| w != v);
            if let Some(w) = first {
                self.check()?;
                self.try_vertex(k, w)?;
                let root_w = self.find(w);
                if self.find(v) != root_w {
                    self.explored[root_w as usize] = k as u32 + 1;
                }
            }
            let root_v = self.find(v);
            let cell: Vec<u32> = if self.size[root_v as usize] as usize == cell_len {
                Vec::new()
            } else {
                self.right.cell_at(target).to_vec()
            };
            for &w in &cell {
                let root_v = self.find(v);
                if self.size[root_v as usize] as usize == cell_len {
                    break;
                }
                let root_w = self.find(w);
                if root_w == root_v || self.explored[root_w as usize] == k as u32 + 1 {
                    continue;
                }
                self.check()?;
                self.try_vertex(k, w)?;
                let root_w = self.find(w);
                if self.find(v) != root_w {
                    self.explored[root_w as usize] = k as u32 + 1;
                }
            }
            let root_v = self.find(v);
            order *= self.size[root_v as usize];
        }
        Ok(order)
    }

    /// Level `k`, vertex `w` of the target cell (`right` is at `ζ_k`).
    fn try_vertex(&mut self, k: usize, w: u32) -> Result<(), SolveError> {
        let mark = self.right.mark();
        self.right.individualise(w);
        // Whether the best path's trace at this level is the first path's (compared once per
        // level and best leaf).
        let best_is_first = match self.best_is_first {
            Some((level, changes, equal)) if level == k && changes == self.best_changes => equal,
            _ => {
                let equal = self.best_traces[k] == self.levels[k].trace;
                self.best_is_first = Some((k, self.best_changes, equal));
                equal
            }
        };
        let first = std::mem::take(&mut self.levels[k].trace);
        let best = if best_is_first {
            Vec::new()
        } else {
            std::mem::take(&mut self.best_traces[k])
        };
        let mut trace = Vec::new();
        let orders = self.refine_right(
            Some(&first),
            Some(if best_is_first { &first } else { &best }),
            &mut trace,
        );
        self.levels[k].trace = first;
        if !best_is_first {
            self.best_traces[k] = best;
        }
        let (against_first, against_best) = orders?;
        self.right_fixed.clear();
        self.right_fixed.push(w);
        self.frames_left = self.options.direct_search_frames;
        if against_first == Ordering::Equal
            && let Some(g) = self.automorphism_onto_right(self.marks[k], self.marks[k], &[])?
        {
            self.add_generator(g)?;
            self.right.undo_to(mark);
            return Ok(());
        }
        // The direct search gave up: whether an automorphism maps `v` to `w` is decided by
        // the subtree, as in nauty (a leaf equivalent to the first path's leaf).
        let look_for_first = against_first == Ordering::Equal && self.frames_left == 0;
        // Otherwise no automorphism from the first path: the node matters only for the
        // canonical leaf.
        if against_best != Ordering::Less || look_for_first {
            self.path_traces.clear();
            self.path_traces.push(trace);
            self.path_vertices.clear();
            self.path_vertices.push(w);
            self.abandon_to = None;
            self.explore(k, k + 1, against_best, look_for_first)?;
            self.abandon_to = None;
        }
        self.right.undo_to(mark);
        Ok(())
    }

    /// Explores the subtree of the node `right` is at (depth `depth`, below level `k` of the
    /// first path), whose traces compare with the best leaf's as `status` so far (`Equal`,
    /// `Greater`, or `Less` when only `first` keeps it), for a better canonical leaf; leaves
    /// equal to the best give automorphisms. With `first` (its traces so far equal to the first
    /// path's, and looked for), a leaf equivalent to the first path's leaf gives the
    /// automorphism mapping the first path's vertex at level `k` to the node's, and ends the
    /// search of the candidate's subtree.
    fn explore(
        &mut self,
        k: usize,
        depth: usize,
        mut status: Ordering,
        first: bool,
    ) -> Result<(), SolveError> {
        self.check()?;
        let Some(target) = self.right.smallest_non_singleton() else {
            return self.leaf(k, status, first);
        };
        let cell: Vec<u32> = self.right.cell_at(target).to_vec();
        // The orbits on the cell of the generators fixing the node, made again when generators
        // were found since (with the children explored so far marked).
        let mut orbits = NodeOrbits::default();
        let mut seen_generators = 0;
        let mut children: Vec<u32> = Vec::new();
        for &y in &cell {
            if seen_generators < self.generators.len() {
                orbits = self.cell_orbits(&cell, &self.path_vertices);
                for &x in &children {
                    orbits.mark_explored(x);
                }
                seen_generators = self.generators.len();
            }
            if orbits.is_explored(y) {
                continue;
            }
            orbits.mark_explored(y);
            children.push(y);
            let mark = self.right.mark();
            self.right.individualise(y);
            let mut trace = Vec::new();
            // The first path's trace at this depth, while this path's have equalled it.
            let first_trace = if first && depth < self.levels.len() {
                std::mem::take(&mut self.levels[depth].trace)
            } else {
                Vec::new()
            };
            let watch_first = first && depth < self.levels.len();
            let refined = match status {
                Ordering::Equal if depth < self.best_traces.len() => {
                    let best = std::mem::take(&mut self.best_traces[depth]);
                    let reference = watch_first.then_some(first_trace.as_slice());
                    let result = self.refine_right(reference, Some(&best), &mut trace);
                    self.best_traces[depth] = best;
                    result.map(|(f, b)| (watch_first && f == Ordering::Equal, b))
                }
                Ordering::Less => self
                    .refine_right(Some(&first_trace), None, &mut trace)
                    .map(|(f, _)| (watch_first && f == Ordering::Equal, Ordering::Less)),
                _ => self
                    .refine_right(None, None, &mut trace)
                    .map(|_| (watch_first && trace == first_trace, Ordering::Greater)),
            };
            if watch_first {
                self.levels[depth].trace = first_trace;
            }
            let (child_first, result) = refined?;
            if result != Ordering::Less || child_first {
                self.path_traces.push(trace);
                self.path_vertices.push(y);
                let best_before = self.best_changes;
                self.explore(k, depth + 1, result, child_first)?;
                if self.best_changes != best_before {
                    // The new best leaf lies below this node: compare with it from here on.
                    status = Ordering::Equal;
                }
                self.path_traces.pop();
                self.path_vertices.pop();
            }
            self.right.undo_to(mark);
            match self.abandon_to {
                Some(common) if common < depth => return Ok(()),
                Some(_) => self.abandon_to = None,
                None => {}
            }
        }
        Ok(())
    }

    /// A leaf below level `k`: a new best, or an automorphism with the best leaf.
    fn leaf(&mut self, k: usize, status: Ordering, first: bool) -> Result<(), SolveError> {
        if first {
            if self.first_form.is_none() {
                self.first_form = Some(CanonicalForm::new(self.graph, &self.first_labelling));
            }
            let form = CanonicalForm::new(self.graph, self.right.elements());
            if self
                .first_form
                .as_ref()
                .is_some_and(|f| f.edges == form.edges)
            {
                // Equivalent to the first path's leaf (so of its traces, not above the best's):
                // the automorphism joins the orbits of the first path's vertex at level `k`
                // and the candidate's; the candidate's subtree holds nothing more.
                let pairs: Vec<(u32, u32)> = self
                    .first_labelling
                    .iter()
                    .zip(self.right.elements())
                    .filter(|(a, b)| a != b)
                    .map(|(&a, &b)| (a, b))
                    .collect();
                self.add_generator(SparsePermutation::from_pairs(pairs))?;
                self.abandon_to = Some(k);
                return Ok(());
            }
            if status == Ordering::Less {
                return Ok(());
            }
        }
        let labelling = self.right.elements();
        let order = if status == Ordering::Greater {
            Ordering::Greater
        } else {
            if self.best_form.is_none() {
                self.best_form = Some(CanonicalForm::new(self.graph, &self.best_labelling));
            }
            let form = CanonicalForm::new(self.graph, labelling);
            let best = self.best_form.as_ref().map(|f| &f.edges);
            match best {
                Some(best) => form.edges.cmp(best),
                None => Ordering::Greater,
            }
        };
        match order {
            Ordering::Greater => {
                self.best_labelling = labelling.to_vec();
                self.best_form = None;
                self.best_traces.truncate(k);
                self.best_traces.extend(self.path_traces.iter().cloned());
                self.best_changes += 1;
                self.best_path = Some((k, self.path_vertices.clone()));
            }
            Ordering::Equal => {
                let pairs: Vec<(u32, u32)> = self
                    .best_labelling
                    .iter()
                    .zip(labelling)
                    .filter(|(a, b)| a != b)
                    .map(|(&a, &b)| (a, b))
                    .collect();
                // Kept only when it joins orbits of the generators so far: one that does not
                // leaves every orbit, hence the order and the generated group (by the orbit
                // lengths of the first path's vertices, McKay's Theorem 2.34), as they are.
                let mut joins = false;
                for &(x, y) in &pairs {
                    if self.find(x) != self.find(y) {
                        joins = true;
                        break;
                    }
                }
                if joins {
                    self.add_generator(SparsePermutation::from_pairs(pairs))?;
                }
                // McKay's jump back: the automorphism maps the current path's subtree at the
                // child of the two leaves' deepest common node onto the best leaf's, explored
                // already.
                let common = match &self.best_path {
                    Some((level, path)) if *level == k => {
                        k + path
                            .iter()
                            .zip(&self.path_vertices)
                            .take_while(|(a, b)| a == b)
                            .count()
                    }
                    _ => k,
                };
                self.abandon_to = Some(common);
            }
            Ordering::Less => {}
        }
        Ok(())
    }

    /// An automorphism mapping the ordered partition `left` onto `right` cell by cell (both
    /// equitable, refined from the partition at `ζ_k` with equal traces), or `None` when
    /// there is none: cells that differ are individualised on both sides (one vertex on the
    /// left, each vertex of the matching cell in turn on the right) until the singletons'
    /// correspondence, the identity elsewhere, is an automorphism (checked on the edges at
    /// its moved points).
    ///
    /// Incremental from frame to frame: a call looks only at the cells split since
    /// `left_since` / `right_since` (at the top, `ζ_k`'s mark; below, the parent's marks before
    /// its individualisations). The parent's cells of more than one vertex touched since `ζ_k`
    /// come in `open` as `(start, differing)` (a cell neither side split since keeps its
    /// verdict); the singletons' pairs accumulate in `auto_pairs`, taken back on return.
    ///
    /// Reference: P. T. Darga, K. A. Sakallah and I. L. Markov, "Faster symmetry discovery
    /// using sparsity of symmetries" (saucy), DAC 2008.
    fn automorphism_onto_right(
        &mut self,
        left_since: UndoMark,
        right_since: UndoMark,
        open: &[(u32, bool)],
    ) -> Result<Option<SparsePermutation>, SolveError> {
        self.check()?;
        if self.frames_left == 0 {
            return Ok(None);
        }
        self.frames_left -= 1;
        let pairs_before = self.auto_pairs.len();
        let found = self.automorphism_onto_right_frame(left_since, right_since, open);
        for &(x, _) in &self.auto_pairs[pairs_before..] {
            self.image[x as usize] = x;
        }
        self.auto_pairs.truncate(pairs_before);
        found
    }

    fn next_stamp(&mut self) -> u32 {
        self.stamp_now = self.stamp_now.wrapping_add(1);
        if self.stamp_now == 0 {
            self.stamp.fill(0);
            self.stamp_now = 1;
        }
        self.stamp_now
    }

    /// One frame of [`Self::automorphism_onto_right`] (its pairs left in `auto_pairs`).
    fn automorphism_onto_right_frame(
        &mut self,
        left_since: UndoMark,
        right_since: UndoMark,
        open: &[(u32, bool)],
    ) -> Result<Option<SparsePermutation>, SolveError> {
        // The cells split since the marks (on either side), each once.
        let now = self.next_stamp();
        let mut split: Vec<u32> = Vec::new();
        for &(s, f) in self
            .left
            .splits_since(left_since)
            .iter()
            .chain(self.right.splits_since(right_since))
        {
            for p in [s, f] {
                if self.stamp[p as usize] != now {
                    self.stamp[p as usize] = now;
                    split.push(p);
                }
            }
        }
        // The parent's open cells that neither side split keep their verdict.
        let mut cells: Vec<(u32, bool)> = open
            .iter()
            .copied()
            .filter(|&(p, _)| self.stamp[p as usize] != now)
            .collect();
        for &s in &split {
            if !self.left.is_cell_start(s) || !self.right.is_cell_start(s) {
                return Ok(None);
            }
            let (l, r) = (self.left.cell_at(s), self.right.cell_at(s));
            if l.len() != r.len() {
                return Ok(None);
            }
            if l.len() == 1 {
                if l[0] != r[0] {
                    self.auto_pairs.push((l[0], r[0]));
                    self.image[l[0] as usize] = r[0];
                }
                continue;
            }
            let now = self.next_stamp();
            let (l, r) = (self.left.cell_at(s), self.right.cell_at(s));
            for &x in l {
                self.stamp[x as usize] = now;
            }
            let differing = r.iter().any(|&y| self.stamp[y as usize] != now);
            cells.push((s, differing));
        }
        // The first (by position) differing cell, else the first cell of more than one vertex.
        let differing = cells.iter().filter(|c| c.1).map(|c| c.0).min();
        let non_singleton = cells.iter().map(|c| c.0).min();
        if differing.is_none() && self.pairs_are_automorphism() {
            return Ok(Some(SparsePermutation::from_pairs(self.auto_pairs.clone())));
        }
        let Some(s) = differing
            .or(non_singleton)
            .or_else(|| self.left.smallest_non_singleton())
        else {
            return Ok(None);
        };
        // Guess well first: on a differing cell, a vertex of the left cell not in the right
        // one, tried against the right cell's vertices not in the left one; otherwise a vertex
        // tried against itself first.
        self.stamp_now = self.stamp_now.wrapping_add(1);
        if self.stamp_now == 0 {
            self.stamp.fill(0);
            self.stamp_now = 1;
        }
        for &y in self.right.cell_at(s) {
            self.stamp[y as usize] = self.stamp_now;
        }
        let left_cell = self.left.cell_at(s);
        let x = left_cell
            .iter()
            .copied()
            .find(|&x| self.stamp[x as usize] != self.stamp_now)
            .unwrap_or(left_cell[0]);
        let mut candidates: Vec<u32> = self.right.cell_at(s).to_vec();
        self.stamp_now = self.stamp_now.wrapping_add(1);
        if self.stamp_now == 0 {
            self.stamp.fill(0);
            self.stamp_now = 1;
        }
        for &l in self.left.cell_at(s) {
            self.stamp[l as usize] = self.stamp_now;
        }
        let stamp = &self.stamp;
        let now = self.stamp_now;
        candidates.sort_by_key(|&y| (y != x, stamp[y as usize] == now));
        let left_mark = self.left.mark();
        self.left.individualise(x);
        let ctx = self.ctx;
        let mut left_trace = Vec::new();
        if self
            .left
            .refine_traced(
                &self.adjacency,
                None,
                None,
                &mut left_trace,
                &mut Self::keep_going(ctx),
            )
            .is_none()
        {
            return Err(SolveError::Cancelled);
        }
        let mut found = None;
        // Orbit pruning on the right (McKay's, at the right node): the orbits on the cell of
        // the generators fixing the right node's individualised vertices, made at the first
        // candidate that fails. Such a generator maps the right node onto itself and one
        // candidate's child onto another's, so an automorphism onto one child exists exactly
        // when one onto the other does: a failed candidate's orbit fails with it. Without it
        // the search is exhaustive below a node no automorphism reaches (Cai–Fürer–Immerman
        // graphs, whose refinement cannot tell such a node from the first path's).
        let mut orbits: Option<NodeOrbits> = None;
        for &y in &candidates {
            if let Some(orbits) = orbits.as_mut()
                && orbits.is_explored(y)
            {
                continue;
            }
            let right_mark = self.right.mark();
            self.right.individualise(y);
            let mut trace = Vec::new();
            let result = self.refine_right(Some(&left_trace), None, &mut trace);
            let result = match result {
                Ok((Ordering::Equal, _)) => {
                    self.right_fixed.push(y);
                    let result = self.automorphism_onto_right(left_mark, right_mark, &cells);
                    self.right_fixed.pop();
                    result
                }
                Ok(_) => Ok(None),
                Err(e) => Err(e),
            };
            self.right.undo_to(right_mark);
            match result {
                Ok(Some(g)) => {
                    found = Some(g);
                    break;
                }
                Ok(None) if self.frames_left == 0 => break,
                Ok(None) => orbits
                    .get_or_insert_with(|| self.cell_orbits(&candidates, &self.right_fixed))
                    .mark_explored(y),
                Err(e) => {
                    self.left.undo_to(left_mark);
                    return Err(e);
                }
            }
        }
        self.left.undo_to(left_mark);
        Ok(found)
    }

    /// McKay's orbit pruning at a node off the first path: the orbits on `cell` (a cell of the
    /// node) of the generators that fix the node's individualised vertices below `ζ_k`
    /// (`fixed`; every generator found fixes the first path's vertices above the level being
    /// worked on). Such a generator maps the node's cells onto themselves, so its pairs
    /// `(x, g(x))` for `x` in the cell stay in the cell, found through `moved_by`.
    fn cell_orbits(&self, cell: &[u32], fixed: &[u32]) -> NodeOrbits {
        let mut orbits = NodeOrbits::default();
        let mut fixes: HashMap<u32, bool> = HashMap::new();
        for &x in cell {
            for &index in &self.moved_by[x as usize] {
                let g = &self.generators[index as usize];
                let fixing = *fixes
                    .entry(index)
                    .or_insert_with(|| fixed.iter().all(|&f| g.image(f) == f));
                if fixing {
                    orbits.union(x, g.image(x));
                }
            }
        }
        orbits
    }

    /// Whether the map `auto_pairs` (moved point → image, a bijection of its points, kept in
    /// `image`), the identity elsewhere, is an automorphism: checked on the edges at the moved
    /// points only, the newest pairs first (a frame's new pairs are where a map that was not an
    /// automorphism usually still fails).
    fn pairs_are_automorphism(&self) -> bool {
        self.auto_pairs.iter().rev().all(|&(x, y)| {
            let row = self.adjacency.of(x);
            row.len() == self.adjacency.of(y).len()
                && row
                    .iter()
                    .all(|&z| self.adjacency.has_edge(y, self.image[z as usize]))
        })
    }
}

/// McKay's orbit pruning at a node off the first path: the orbits, on the node's target cell, of
/// the automorphisms found so far that fix the node's individualised vertices. Two children in
/// one orbit have subtrees mapped onto each other by such an automorphism (the same leaf forms,
/// and automorphisms that are products of those found), so one child per orbit is explored.
/// Union-find over the cell's points, each root marked when a child of its orbit has been
/// explored (see `Search::cell_orbits`).
#[derive(Default)]
struct NodeOrbits {
    parent: HashMap<u32, u32>,
    explored: HashSet<u32>,
}

impl NodeOrbits {
    fn find(&mut self, mut x: u32) -> u32 {
        while let Some(&up) = self.parent.get(&x) {
            if up == x {
                break;
            }
            let grand = self.parent.get(&up).copied().unwrap_or(up);
            self.parent.insert(x, grand);
            x = up;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent.insert(a, b);
            if self.explored.remove(&a) {
                self.explored.insert(b);
            }
        }
    }

    fn is_explored(&mut self, x: u32) -> bool {
        let root = self.find(x);
        self.explored.contains(&root)
    }

    fn mark_explored(&mut self, x: u32) {
        let root = self.find(x);
        self.explored.insert(root);
    }
}

/// The ranks of the colour numbers (equal colours, equal ranks; the colours' order kept).
fn colour_ranks(graph: &UndirectedGraph) -> Vec<u32> {
    match &graph.colours {
        None => vec![0; graph.vertices as usize],
        Some(colours) => {
            let mut distinct = colours.clone();
            distinct.sort_unstable();
            distinct.dedup();
            colours
                .iter()
                .map(|c| distinct.binary_search(c).unwrap_or(0) as u32)
                .collect()
        }
    }
}

/// Canonical labelling, automorphism group generators (sparse), exact order and orbits of a
/// sparse graph, by individualisation and refinement on adjacency lists.
///
/// # Arguments
/// `graph` (checked with [`UndirectedGraph::check`]), `ctx` (checked at every node of the search
/// tree and every 4,096 splitters of a refinement), `generator_budget` (bytes the generators
/// may take, charged by their supports as they are found).
///
/// # Returns
/// A [`SparseSearchResult`]: isomorphic graphs (colour numbers included) get labellings under
/// which their edge sets coincide.
///
/// How: the search tree of ordered partitions (McKay): a node individualises a vertex of its
/// target cell (the smallest non-singleton cell, the first on a tie) and refines
/// ([`OrderedPartition`]). The first path goes down to a discrete partition; then, level by
/// level from the bottom, each vertex `w` of the level's target cell not already in the orbit
/// of the first path's vertex `v` under the generators found is tried: an automorphism mapping
/// the first path's child onto `w`'s child is searched for directly, individualising only
/// where the two partitions differ (saucy's idea), which finds an automorphism of small support
/// in time proportional to it; a failed right-side candidate's orbit under the generators fixing
/// the right node fails with it, and the search gives up after
/// [`SparseSearchOptions::direct_search_frames`]. When there is none, `w`'s orbit is not `v`'s,
/// and its subtree is explored for the canonical leaf: the best leaf by (traces, relabelled
/// edges), subtrees with a worse trace cut off, one child per orbit of the generators fixing the
/// node (McKay), a leaf equal to the best giving an automorphism and a jump back. When the direct
/// search gave up, the subtree is also searched for a leaf equivalent to the first path's leaf
/// (nodes whose traces equal the first path's kept), as nauty does. An automorphism from two
/// equal leaves is kept only if it joins orbits of the generators so far (otherwise it changes
/// neither the orbits nor the group they generate). The generators found at a level, with those found below, generate the
/// stabiliser of the first path's vertices above, so the order is the product over the levels
/// of the orbit lengths of their first-path vertices (McKay 1981, Theorem 2.34): exact, not
/// randomised.
///
/// # Errors
/// [`SolveError::Cancelled`]; [`SolveError::LimitExceeded`] naming `max_job_memory` when the
/// generators outgrow `generator_budget`.
///
/// Complexity: one refinement along a path costs O(m log² n); the number of nodes is about the
/// number of generators plus the target cells' vertices for graphs whose refinement splits
/// orbits (trees, grids, random regular graphs), exponential in the worst case. Memory:
/// [`sparse_search_bytes`] plus the generators' supports.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::graph::{UndirectedGraph, sparse_search};
/// // The 4-cycle: the dihedral group of order 8.
/// let c4 = UndirectedGraph { vertices: 4, edges: vec![(0, 1), (1, 2), (2, 3), (3, 0)], colours: None };
/// let found = sparse_search(&c4, &SolveContext::detached(), 1 << 20).unwrap();
/// assert_eq!(found.order.to_string(), "8");
/// assert_eq!(found.orbit_of, vec![0, 0, 0, 0]);
/// ```
///
/// Reference: B. D. McKay, "Practical graph isomorphism" (1981); B. D. McKay and A. Piperno,
/// "Practical graph isomorphism, II" (Traces), J. Symbolic Comput. 60 (2014); T. Junttila and
/// P. Kaski, "Conflict propagation and component recursion for canonical labeling" (bliss),
/// TAPAS 2011; P. T. Darga, K. A. Sakallah and I. L. Markov, "Faster symmetry discovery using
/// sparsity of symmetries" (saucy), DAC 2008.
pub fn sparse_search(
    graph: &UndirectedGraph,
    ctx: &SolveContext,
    generator_budget: u64,
) -> Result<SparseSearchResult, SolveError> {
    sparse_search_with(graph, ctx, generator_budget, SparseSearchOptions::default())
}

/// [`sparse_search`] with its [`SparseSearchOptions`] (the same answer whatever they are; for
/// tests of both ways of finding automorphisms and for measurements).
pub fn sparse_search_with(
    graph: &UndirectedGraph,
    ctx: &SolveContext,
    generator_budget: u64,
    options: SparseSearchOptions,
) -> Result<SparseSearchResult, SolveError> {
    ctx.check()?;
    let n = graph.vertices as usize;
    let adjacency = SparseAdjacency::new(n, &graph.edges);
    let mut partition = OrderedPartition::from_colours(&colour_ranks(graph));
    partition.queue_all();
    let mut search = Search {
        graph,
        adjacency,
        ctx,
        right: OrderedPartition::unit(0),
        left: partition,
        levels: Vec::new(),
        marks: Vec::new(),
        root_trace: Vec::new(),
        best_traces: Vec::new(),
        best_labelling: Vec::new(),
        best_form: None,
        best_changes: 0,
        best_is_first: None,
        path_traces: Vec::new(),
        path_vertices: Vec::new(),
        best_path: None,
        abandon_to: None,
        parent: (0..n as u32).collect(),
        size: vec![1; n],
        explored: vec![0; n],
        generators: Vec::new(),
        stabilised: Vec::new(),
        moved_by: vec![Vec::new(); n],
        right_fixed: Vec::new(),
        auto_pairs: Vec::new(),
        frames_left: 0,
        options,
        first_labelling: Vec::new(),
        first_form: None,
        generator_bytes: 0,
        generator_budget,
        image: (0..n as u32).collect(),
        stamp: vec![0; n],
        stamp_now: 0,
        level: 0,
    };
    search.first_path()?;
    search.right = search.left.clone();
    let order = search.levels_bottom_up()?;
    let mut orbit_of = vec![0u32; n];
    let mut least = vec![u32::MAX; n];
    for v in 0..n as u32 {
        let r = search.find(v) as usize;
        least[r] = least[r].min(v);
    }
    for v in 0..n as u32 {
        orbit_of[v as usize] = least[search.find(v) as usize];
    }
    Ok(SparseSearchResult {
        labelling: search.best_labelling,
        generators: search.generators,
        stabilised: search.stabilised,
        order,
        orbit_of,
    })
}
