//! Equitable colour refinement of an ordered partition of a sparse graph's vertices, on
//! adjacency lists, with a trace of its splits and an undo log (the partition of one node of a
//! search tree, taken back to an ancestor's cheaply).

use std::cmp::Ordering;
use std::collections::{BTreeSet, VecDeque};

/// A graph's adjacency as compressed rows, each row sorted (so an edge test is a binary search).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SparseAdjacency {
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

impl SparseAdjacency {
    /// The adjacency of `n` vertices with the undirected `edges` (each listed once).
    ///
    /// Complexity: O(n + m log Δ).
    pub fn new(n: usize, edges: &[(u32, u32)]) -> SparseAdjacency {
        let mut offsets = vec![0u32; n + 1];
        for &(u, v) in edges {
            offsets[u as usize + 1] += 1;
            offsets[v as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill: Vec<u32> = offsets[..n].to_vec();
        let mut neighbours = vec![0u32; 2 * edges.len()];
        for &(u, v) in edges {
            neighbours[fill[u as usize] as usize] = v;
            fill[u as usize] += 1;
            neighbours[fill[v as usize] as usize] = u;
            fill[v as usize] += 1;
        }
        for v in 0..n {
            neighbours[offsets[v] as usize..offsets[v + 1] as usize].sort_unstable();
        }
        SparseAdjacency {
            offsets,
            neighbours,
        }
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The neighbours of `v`, sorted.
    pub fn of(&self, v: u32) -> &[u32] {
        &self.neighbours[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Whether `{u, v}` is an edge. Complexity: O(log deg u).
    pub fn has_edge(&self, u: u32, v: u32) -> bool {
        self.of(u).binary_search(&v).is_ok()
    }
}

/// A mark in a partition's undo log: [`OrderedPartition::undo_to`] takes the partition back to
/// the state it had when the mark was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UndoMark(usize);

/// An ordered partition of `0..n` (cells are ranges of positions of one array of vertices)
/// refined to equitable by neighbour counts, as in McKay's partition refinement.
///
/// The refinement is isomorphism-invariant: relabelling the graph and the partition by a
/// permutation relabels the refined partition (cell by cell) and leaves the trace unchanged.
/// Cells are named by their first position. The order of vertices inside a cell is arbitrary.
///
/// Complexity: one [`refine`](Self::refine) costs O(Σ (deg of the splitters' vertices) · log)
/// in the Hopcroft manner (a split cell's fragments join the queue, all but the largest when the
/// cell was not queued), so a path from the unit partition to a discrete one costs
/// O(m log² n); an undo costs what the splits it reverts cost. Memory: O(n).
///
/// ```
/// use orbit_worker::graph::{OrderedPartition, SparseAdjacency};
/// // The path 0 - 1 - 2: the ends and the middle vertex form two cells.
/// let adjacency = SparseAdjacency::new(3, &[(0, 1), (1, 2)]);
/// let mut p = OrderedPartition::unit(3);
/// p.queue_all();
/// p.refine(&adjacency);
/// assert_eq!(p.cells(), 2);
/// ```
///
/// Reference: B. D. McKay, "Practical graph isomorphism" (1981), §2 (equitable partitions);
/// A. Cardon and M. Crochemore, "Partitioning a graph in O(|A| log2 |V|)", Theoret. Comput.
/// Sci. 19 (1982); R. Paige and R. E. Tarjan, "Three partition refinement algorithms", SIAM J.
/// Comput. 16 (1987); T. Junttila and P. Kaski, "Engineering an efficient canonical labeling
/// tool for large and sparse graphs" (bliss), ALENEX 2007.
#[derive(Debug, Clone)]
pub struct OrderedPartition {
    /// `elements[p]`: the vertex at position `p`.
    elements: Vec<u32>,
    /// `position[v]`: where `v` is in `elements`.
    position: Vec<u32>,
    /// `cell[v]`: the first position of `v`'s cell.
    cell: Vec<u32>,
    /// `length[s]`: the length of the cell starting at `s` (meaningful at cell starts only).
    length: Vec<u32>,
    /// Number of cells.
    cells: usize,
    /// The cells of more than one vertex, as `(length, start)`: the target cell rule's index.
    non_singletons: BTreeSet<(u32, u32)>,
    /// Every split, as `(cell start, fragment start)`, in order (the undo log).
    splits: Vec<(u32, u32)>,
    /// Scratch: neighbour counts per vertex, the touched vertices, the queue, the splitter.
    count: Vec<u32>,
    in_queue: Vec<bool>,
    queue: VecDeque<u32>,
    touched_vertices: Vec<u32>,
    splitter: Vec<u32>,
}

/// The trace's mixing step (a 64-bit multiply–xorshift): order-sensitive, so a trace records the
/// sequence of splits.
fn mix(h: u64, x: u64) -> u64 {
    let v = (h ^ x.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    v ^ (v >> 31)
}

impl OrderedPartition {
    /// The partition with one cell holding every vertex.
    pub fn unit(n: usize) -> OrderedPartition {
        OrderedPartition::from_colours(&vec![0u32; n])
    }

    /// The partition into colour classes, ordered by colour rank (`ranks[v]`).
    ///
    /// Complexity: O(n log n).
    pub fn from_colours(ranks: &[u32]) -> OrderedPartition {
        let n = ranks.len();
        let mut elements: Vec<u32> = (0..n as u32).collect();
        elements.sort_by_key(|&v| (ranks[v as usize], v));
        let mut position = vec![0u32; n];
        let mut cell = vec![0u32; n];
        let mut length = vec![0u32; n];
        let mut cells = 0;
        let mut start = 0;
        for p in 0..n {
            position[elements[p] as usize] = p as u32;
            if p > 0 && ranks[elements[p] as usize] != ranks[elements[p - 1] as usize] {
                length[start] = (p - start) as u32;
                start = p;
                cells += 1;
            }
            cell[elements[p] as usize] = start as u32;
        }
        if n > 0 {
            length[start] = (n - start) as u32;
            cells += 1;
        }
        let mut non_singletons = BTreeSet::new();
        let mut s = 0;
        while s < n {
            if length[s] > 1 {
                non_singletons.insert((length[s], s as u32));
            }
            s += length[s] as usize;
        }
        OrderedPartition {
            non_singletons,
            elements,
            position,
            cell,
            length,
            cells,
            splits: Vec::new(),
            count: vec![0; n],
            in_queue: vec![false; n],
            queue: VecDeque::new(),
            touched_vertices: Vec::new(),
            splitter: Vec::new(),
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether the partition is of no vertices.
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Whether every cell is a singleton.
    pub fn is_discrete(&self) -> bool {
        self.cells == self.elements.len()
    }

    /// The vertices by position (position → vertex): a labelling once discrete.
    pub fn elements(&self) -> &[u32] {
        &self.elements
    }

    /// The first position of `v`'s cell.
    pub fn cell_of(&self, v: u32) -> u32 {
        self.cell[v as usize]
    }

    /// Whether a cell starts at position `p`.
    pub fn is_cell_start(&self, p: u32) -> bool {
        (p as usize) < self.elements.len() && self.cell[self.elements[p as usize] as usize] == p
    }

    /// The vertices of the cell starting at position `start`.
    pub fn cell_at(&self, start: u32) -> &[u32] {
        &self.elements[start as usize..(start + self.length[start as usize]) as usize]
    }

    /// The target cell rule: the smallest cell of more than one vertex, the first of those
    /// (by position) on a tie; `None` when the partition is discrete. Isomorphism-invariant.
    ///
    /// Complexity: O(log n).
    pub fn smallest_non_singleton(&self) -> Option<u32> {
        self.non_singletons.first().map(|&(_, s)| s)
    }

    /// A mark to come back to with [`undo_to`](Self::undo_to).
    pub fn mark(&self) -> UndoMark {
        UndoMark(self.splits.len())
    }

    /// The splits made since `mark`, as `(cell start, fragment start)`.
    pub fn splits_since(&self, mark: UndoMark) -> &[(u32, u32)] {
        &self.splits[mark.0..]
    }

    /// Merges back every split made since `mark` (the cells are those of then; the order inside
    /// a cell may differ).
    ///
    /// Complexity: O(size of the fragments merged back).
    pub fn undo_to(&mut self, mark: UndoMark) {
        while self.splits.len() > mark.0 {
            let (start, fragment) = self.splits.pop().unwrap_or((0, 0));
            let len = self.length[fragment as usize];
            for p in fragment..fragment + len {
                self.cell[self.elements[p as usize] as usize] = start;
            }
            let before = self.length[start as usize];
            self.forget_cell(fragment, len);
            self.forget_cell(start, before);
            self.length[start as usize] += len;
            self.note_cell(start, before + len);
            self.cells -= 1;
        }
    }

    /// Splits `v` off its cell (the rest first, `v` last) and queues it as a splitter; then
    /// [`refine`](Self::refine) makes the partition equitable again.
    ///
    /// Complexity: O(log n) (only `v` changes cell).
    pub fn individualise(&mut self, v: u32) {
        let start = self.cell[v as usize];
        let len = self.length[start as usize];
        if len == 1 {
            return;
        }
        let last = start + len - 1;
        let other = self.elements[last as usize];
        let p = self.position[v as usize];
        self.elements.swap(last as usize, p as usize);
        self.position[other as usize] = p;
        self.position[v as usize] = last;
        self.forget_cell(start, len);
        self.length[start as usize] = len - 1;
        self.length[last as usize] = 1;
        self.note_cell(start, len - 1);
        self.cell[v as usize] = last;
        self.splits.push((start, last));
        self.cells += 1;
        self.enqueue(last);
    }

    /// Queues every cell as a splitter (for the first refinement of a colour partition).
    pub fn queue_all(&mut self) {
        let mut s = 0usize;
        while s < self.elements.len() {
            self.enqueue(s as u32);
            s += self.length[s] as usize;
        }
    }

    fn forget_cell(&mut self, start: u32, len: u32) {
        if len > 1 {
            self.non_singletons.remove(&(len, start));
        }
    }

    fn note_cell(&mut self, start: u32, len: u32) {
        if len > 1 {
            self.non_singletons.insert((len, start));
        }
    }

    fn enqueue(&mut self, start: u32) {
        if !self.in_queue[start as usize] {
            self.in_queue[start as usize] = true;
            self.queue.push_back(start);
        }
    }

    /// Refines to the coarsest equitable partition finer than this one: a cell splits by the
    /// number of neighbours its vertices have in a splitter cell, the fragments in increasing
    /// order of that number. Returns the trace: the running hash of the splits after each
    /// splitter (isomorphic inputs give equal traces).
    ///
    /// Complexity: see the type.
    pub fn refine(&mut self, adjacency: &SparseAdjacency) -> Vec<u64> {
        let mut trace = Vec::new();
        let _ = self.refine_traced(adjacency, None, None, &mut trace, &mut || true);
        trace
    }

    /// [`refine`](Self::refine), recording the trace into `trace` and comparing it as it grows
    /// (lexicographically, a proper prefix first) with `equal_to` (a node it may be equivalent
    /// to) and `at_least` (the best node so far). The refinement stops as soon as the trace has
    /// left `equal_to` and fallen below `at_least` (the node can be neither: the caller
    /// abandons it); without either reference it runs to the end. `keep_going` is asked every
    /// 4,096 splitters; when it says no the refinement stops.
    ///
    /// # Returns
    /// `Some(orders)`: the trace against `equal_to` and against `at_least` (`Equal` for a
    /// missing reference), as far as it went; `None` when `keep_going` stopped it. When it
    /// stopped early, the partition is not equitable: undo it.
    pub fn refine_traced(
        &mut self,
        adjacency: &SparseAdjacency,
        equal_to: Option<&[u64]>,
        at_least: Option<&[u64]>,
        trace: &mut Vec<u64>,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Option<(Ordering, Ordering)> {
        trace.clear();
        let mut orders = (Ordering::Equal, Ordering::Equal);
        let mut hash = mix(0x243f_6a88_85a3_08d3, self.cells as u64);
        let mut steps = 0u32;
        let watching = equal_to.is_some() || at_least.is_some();
        let compare = |reference: Option<&[u64]>, at: usize, hash: u64, order: &mut Ordering| {
            if *order == Ordering::Equal
                && let Some(r) = reference
            {
                *order = match r.get(at) {
                    Some(&x) => hash.cmp(&x),
                    None => Ordering::Greater,
                };
            }
        };
        // Pushes a trace entry; false when the node can be neither.
        let push = |trace: &mut Vec<u64>, hash: u64, orders: &mut (Ordering, Ordering)| {
            compare(equal_to, trace.len(), hash, &mut orders.0);
            compare(at_least, trace.len(), hash, &mut orders.1);
            trace.push(hash);
            !watching
                || (equal_to.is_some() && orders.0 == Ordering::Equal)
                || (at_least.is_some() && orders.1 != Ordering::Less)
        };
        while let Some(s) = self.queue.pop_front() {
            self.in_queue[s as usize] = false;
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(4_096) && !keep_going() {
                self.clear_queue();
                return None;
            }
            if self.is_discrete() {
                self.clear_queue();
                break;
            }
            hash = mix(hash, u64::from(s));
            self.splitter.clear();
            let end = (s + self.length[s as usize]) as usize;
            self.splitter
                .extend_from_slice(&self.elements[s as usize..end]);
            for i in 0..self.splitter.len() {
                let x = self.splitter[i];
                for &y in adjacency.of(x) {
                    let c = self.cell[y as usize];
                    if self.length[c as usize] == 1 {
                        continue;
                    }
                    if self.count[y as usize] == 0 {
                        self.touched_vertices.push(y);
                    }
                    self.count[y as usize] += 1;
                }
            }
            let cell = &self.cell;
            let count = &self.count;
            self.touched_vertices
                .sort_unstable_by_key(|&y| (cell[y as usize], count[y as usize]));
            let touched = std::mem::take(&mut self.touched_vertices);
            let mut i = 0;
            while i < touched.len() {
                let c = self.cell[touched[i] as usize];
                let mut j = i + 1;
                while j < touched.len() && self.cell[touched[j] as usize] == c {
                    j += 1;
                }
                hash = self.split_cell(c, &touched[i..j], hash);
                i = j;
            }
            self.touched_vertices = touched;
            for &y in &self.touched_vertices {
                self.count[y as usize] = 0;
            }
            self.touched_vertices.clear();
            if !push(trace, hash, &mut orders) {
                self.clear_queue();
                return Some(orders);
            }
        }
        hash = mix(hash, self.cells as u64);
        let _ = push(trace, hash, &mut orders);
        for (reference, order) in [(equal_to, &mut orders.0), (at_least, &mut orders.1)] {
            if *order == Ordering::Equal
                && let Some(r) = reference
                && r.len() > trace.len()
            {
                *order = Ordering::Less;
            }
        }
        Some(orders)
    }

    fn clear_queue(&mut self) {
        while let Some(s) = self.queue.pop_front() {
            self.in_queue[s as usize] = false;
        }
    }

    /// Splits the cell at `start` by the counts of its touched vertices (`touched`, sorted by
    /// count; the untouched, count 0, come first), queues the fragments, and extends the trace.
    fn split_cell(&mut self, start: u32, touched: &[u32], mut trace: u64) -> u64 {
        let len = self.length[start as usize];
        let end = start + len;
        let first_touched = end - touched.len() as u32;
        // Move the touched vertices to the end of the cell, the highest count last: each goes to
        // the next free place from the back, whose vertex (not yet placed) takes its place.
        let mut next = end;
        for &v in touched.iter().rev() {
            next -= 1;
            let p = self.position[v as usize];
            let w = self.elements[next as usize];
            self.elements.swap(p as usize, next as usize);
            self.position[w as usize] = p;
            self.position[v as usize] = next;
        }
        // Fragment boundaries.
        let mut fragments: Vec<(u32, u32)> = Vec::new(); // (start, count)
        if first_touched > start {
            fragments.push((start, 0));
        }
        let mut q = first_touched;
        while q < end {
            let c = self.count[self.elements[q as usize] as usize];
            if fragments.last().is_none_or(|&(_, last)| last != c) {
                fragments.push((q, c));
            }
            q += 1;
        }
        if fragments.len() == 1 {
            trace = mix(trace, u64::from(start) << 32 | u64::from(fragments[0].1));
            return trace;
        }
        let was_queued = self.in_queue[start as usize];
        self.forget_cell(start, len);
        let mut largest = 0usize;
        let mut largest_len = 0u32;
        for (i, &(f, c)) in fragments.iter().enumerate() {
            let f_end = fragments.get(i + 1).map_or(end, |&(g, _)| g);
            let f_len = f_end - f;
            trace = mix(
                trace,
                (u64::from(f) << 40) ^ (u64::from(f_len) << 20) ^ u64::from(c),
            );
            if f_len > largest_len {
                largest = i;
                largest_len = f_len;
            }
            self.length[f as usize] = f_len;
            self.note_cell(f, f_len);
            if i > 0 {
                for r in f..f_end {
                    self.cell[self.elements[r as usize] as usize] = f;
                }
                self.splits.push((start, f));
                self.cells += 1;
            }
        }
        for (i, &(f, _)) in fragments.iter().enumerate() {
            if was_queued || i != largest {
                self.enqueue(f);
            }
        }
        trace
    }
}
