//! Equitable refinement of an ordered partition of a dense graph's vertices, bit-parallel on the
//! adjacency bit matrix (as nauty's dense `refine`): the root of the search tree, computed by
//! Orbit before the search so that a graph whose root partition is already discrete (almost
//! every random dense graph) needs no search at all.

use super::bit_matrix::row_bit;
use crate::context::SolveContext;
use crate::error::SolveError;

/// An ordered partition of the vertices refined to equitable on a bit matrix: every vertex of a
/// cell has the same number of neighbours in each cell.
///
/// Cells are ranges of positions of [`order`](Self::order), named by their first position. The
/// refinement is isomorphism-invariant: relabelling the graph and the initial partition by a
/// permutation relabels the refined partition cell by cell (every choice it makes depends on
/// cell positions, cell sizes and neighbour counts, never on vertex numbers). So whether it ends
/// discrete is an invariant of the (coloured) graph, and when it does, its order is a canonical
/// labelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DensePartition {
    /// The vertices, cell after cell; the order inside a cell is arbitrary.
    pub order: Vec<u32>,
    /// `cell_end[p]` for the first position `p` of a cell: one past its last position.
    cell_end: Vec<u32>,
    /// Number of cells.
    cells: usize,
}

impl DensePartition {
    /// Whether every cell is a single vertex.
    pub fn is_discrete(&self) -> bool {
        self.cells == self.order.len()
    }

    /// The equitable refinement of the partition of `0..n` into the classes of `ranks` (cells
    /// ordered by rank), or of the unit partition without ranks, stopping early once discrete.
    ///
    /// # Arguments
    /// `matrix`: the symmetric adjacency bit matrix, `words` words a row (nauty's layout, see
    /// `bit_matrix`); `n` vertices; `ranks`: a class number per vertex (cells in increasing
    /// order of rank), or `None` for one cell; `ctx`: checked at every splitter.
    ///
    /// # Returns
    /// The refined ordered partition: equitable, or discrete (a discrete partition is
    /// equitable). Each split cell is replaced in place by its fragments in increasing order of
    /// their neighbour counts in the splitter.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    ///
    /// Complexity: splitters are processed in the Hopcroft manner (a split cell's fragments join
    /// the queue, all but its first largest when the cell was not queued); one splitter `W` costs
    /// O(k · w) word operations for the k vertices in non-singleton cells and the w words of the
    /// matrix's rows that meet `W`, plus sorting the cells it splits. Memory: O(n + words).
    ///
    /// ```text
    /// // The path 0 - 1 - 2: cells {0, 2} (degree 1) and {1} (degree 2), in that order.
    /// ```
    ///
    /// Reference: B. D. McKay, "Practical graph isomorphism", Congressus Numerantium 30 (1981),
    /// Algorithm 2.5 (refinement to an equitable partition) and §2 (its invariance); J. E.
    /// Hopcroft, "An n log n algorithm for minimizing states in a finite automaton" (1971), for
    /// the splitter queue.
    pub fn refine(
        matrix: &[usize],
        words: usize,
        n: usize,
        ranks: Option<&[u32]>,
        ctx: &SolveContext,
    ) -> Result<DensePartition, SolveError> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        let mut cell_end = vec![0u32; n];
        // cell_of[v]: the first position of v's cell.
        let mut cell_of = vec![0u32; n];
        let mut queued = vec![false; n];
        let mut queue = std::collections::VecDeque::new();
        let mut cells = 0usize;
        if let Some(ranks) = ranks {
            order.sort_unstable_by_key(|&v| ranks[v as usize]);
        }
        // The initial cells, all queued.
        let mut start = 0;
        while start < n {
            let rank = ranks.map(|r| r[order[start] as usize]);
            let mut end = start + 1;
            while end < n && ranks.map(|r| r[order[end] as usize]) == rank {
                end += 1;
            }
            cell_end[start] = end as u32;
            for &v in &order[start..end] {
                cell_of[v as usize] = start as u32;
            }
            queued[start] = true;
            queue.push_back(start as u32);
            cells += 1;
            start = end;
        }
        // First positions of the cells of more than one vertex, in order.
        let mut open: Vec<u32> = Vec::new();
        let mut p = 0;
        while p < n {
            if cell_end[p] as usize - p > 1 {
                open.push(p as u32);
            }
            p = cell_end[p] as usize;
        }
        let mut next_open = Vec::new();
        let mut splitter_set = vec![0usize; words];
        let mut splitter_words: Vec<usize> = Vec::new();
        let mut count = vec![0u32; n];
        while let Some(splitter) = queue.pop_front() {
            if cells == n {
                break;
            }
            ctx.check()?;
            let splitter = splitter as usize;
            queued[splitter] = false;
            let members = &order[splitter..cell_end[splitter] as usize];
            // The neighbour counts of every vertex in a non-singleton cell.
            if let [w] = members {
                let row = &matrix[*w as usize * words..][..words];
                for &cell in &open {
                    let cell = cell as usize;
                    for &v in &order[cell..cell_end[cell] as usize] {
                        count[v as usize] = u32::from(row_bit(row, v as usize));
                    }
                }
            } else {
                for &w in members {
                    let word = w as usize / 64;
                    if splitter_set[word] == 0 {
                        splitter_words.push(word);
                    }
                    splitter_set[word] |= (1usize << 63) >> (w % 64);
                }
                for &cell in &open {
                    let cell = cell as usize;
                    for &v in &order[cell..cell_end[cell] as usize] {
                        let row = &matrix[v as usize * words..][..words];
                        count[v as usize] = splitter_words
                            .iter()
                            .map(|&k| (row[k] & splitter_set[k]).count_ones())
                            .sum();
                    }
                }
                for &k in &splitter_words {
                    splitter_set[k] = 0;
                }
                splitter_words.clear();
            }
            // Split each open cell by the counts, fragments in increasing order of count.
            next_open.clear();
            for &cell in &open {
                let (first, end) = (cell as usize, cell_end[cell as usize] as usize);
                let slice = &mut order[first..end];
                let c0 = count[slice[0] as usize];
                if slice.iter().all(|&v| count[v as usize] == c0) {
                    next_open.push(cell);
                    continue;
                }
                slice.sort_unstable_by_key(|&v| count[v as usize]);
                // The fragments and the first largest of them.
                let was_queued = queued[first];
                let mut largest = (0usize, first);
                let mut fragment = first;
                let mut fragments = Vec::new();
                while fragment < end {
                    let c = count[order[fragment] as usize];
                    let mut stop = fragment + 1;
                    while stop < end && count[order[stop] as usize] == c {
                        stop += 1;
                    }
                    cell_end[fragment] = stop as u32;
                    for &v in &order[fragment..stop] {
                        cell_of[v as usize] = fragment as u32;
                    }
                    if stop - fragment > largest.0 {
                        largest = (stop - fragment, fragment);
                    }
                    if stop - fragment > 1 {
                        next_open.push(fragment as u32);
                    }
                    fragments.push(fragment);
                    fragment = stop;
                }
                cells += fragments.len() - 1;
                for &f in &fragments {
                    let wanted = was_queued || f != largest.1;
                    if wanted && !queued[f] {
                        queued[f] = true;
                        queue.push_back(f as u32);
                    }
                }
            }
            std::mem::swap(&mut open, &mut next_open);
        }
        Ok(DensePartition {
            order,
            cell_end,
            cells,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::bit_matrix::symmetric_bit_matrix;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_edges(n: u32, p: f64, rng: &mut ChaCha8Rng) -> Vec<(u32, u32)> {
        let mut edges = Vec::new();
        for u in 0..n {
            for v in u + 1..n {
                if rng.random_bool(p) {
                    edges.push((u, v));
                }
            }
        }
        edges
    }

    /// The cells as vertex sets, in order.
    fn cells(partition: &DensePartition) -> Vec<Vec<u32>> {
        let mut found = Vec::new();
        let mut p = 0;
        while p < partition.order.len() {
            let end = partition.cell_end[p] as usize;
            let mut cell = partition.order[p..end].to_vec();
            cell.sort_unstable();
            found.push(cell);
            p = end;
        }
        found
    }

    fn refine(n: usize, edges: &[(u32, u32)], ranks: Option<&[u32]>) -> DensePartition {
        let words = n.div_ceil(64).max(1);
        let matrix = symmetric_bit_matrix(n, words, edges);
        DensePartition::refine(&matrix, words, n, ranks, &SolveContext::detached()).unwrap()
    }

    /// Equitable by the definition: every two vertices of a cell have the same number of
    /// neighbours in every cell (checked on the edge list, not the matrix).
    fn is_equitable(n: usize, edges: &[(u32, u32)], cells: &[Vec<u32>]) -> bool {
        let mut adjacent = vec![vec![false; n]; n];
        for &(u, v) in edges {
            adjacent[u as usize][v as usize] = true;
            adjacent[v as usize][u as usize] = true;
        }
        cells.iter().all(|x| {
            cells.iter().all(|y| {
                let degree = |v: u32| {
                    y.iter()
                        .filter(|&&w| adjacent[v as usize][w as usize])
                        .count()
                };
                x.iter().all(|&v| degree(v) == degree(x[0]))
            })
        })
    }

    /// The classes of colour refinement by its definition (each round a vertex's colour becomes
    /// its colour with the multiset of its neighbours' colours, until no class splits): the
    /// coarsest equitable partition finer than the colours.
    fn colour_refinement_classes(n: usize, edges: &[(u32, u32)], ranks: &[u32]) -> Vec<Vec<u32>> {
        let mut lists = vec![Vec::new(); n];
        for &(u, v) in edges {
            lists[u as usize].push(v as usize);
            lists[v as usize].push(u as usize);
        }
        let mut colour: Vec<usize> = ranks.iter().map(|&r| r as usize).collect();
        loop {
            let signature: Vec<(usize, Vec<usize>)> = (0..n)
                .map(|v| {
                    let mut around: Vec<usize> = lists[v].iter().map(|&w| colour[w]).collect();
                    around.sort_unstable();
                    (colour[v], around)
                })
                .collect();
            let mut distinct = signature.clone();
            distinct.sort();
            distinct.dedup();
            let next: Vec<usize> = signature
                .iter()
                .map(|s| distinct.binary_search(s).unwrap_or(0))
                .collect();
            let before = colour
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            colour = next;
            if distinct.len() == before {
                break;
            }
        }
        let mut classes: Vec<Vec<u32>> = vec![Vec::new(); n];
        for v in 0..n {
            classes[colour[v]].push(v as u32);
        }
        classes.retain(|c| !c.is_empty());
        classes.sort();
        classes
    }

    #[test]
    fn the_cells_are_the_classes_of_colour_refinement() {
        let mut rng = ChaCha8Rng::seed_from_u64(47);
        for round in 0..300 {
            let n = rng.random_range(1..=70usize);
            let edges = random_edges(n as u32, [0.05, 0.15, 0.5][round % 3], &mut rng);
            let ranks: Vec<u32> = (0..n)
                .map(|_| rng.random_range(0..[1, 2][round % 2]))
                .collect();
            let partition = refine(n, &edges, Some(&ranks));
            let mut found = cells(&partition);
            found.sort();
            assert_eq!(
                found,
                colour_refinement_classes(n, &edges, &ranks),
                "round {round}"
            );
        }
    }

    #[test]
    fn path_of_three() {
        let partition = refine(3, &[(0, 1), (1, 2)], None);
        assert_eq!(cells(&partition), vec![vec![0, 2], vec![1]]);
        assert!(!partition.is_discrete());
    }

    #[test]
    fn refined_partitions_are_equitable_and_keep_the_colours() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        for round in 0..300 {
            let n = rng.random_range(1..=40usize);
            let p = [0.1, 0.3, 0.5, 0.8][round % 4];
            let edges = random_edges(n as u32, p, &mut rng);
            let ranks: Vec<u32> = (0..n).map(|_| rng.random_range(0..3)).collect();
            let coloured = round % 2 == 0;
            let partition = refine(n, &edges, coloured.then_some(&ranks[..]));
            let found = cells(&partition);
            assert_eq!(found.iter().map(Vec::len).sum::<usize>(), n);
            assert!(is_equitable(n, &edges, &found), "round {round}");
            if coloured {
                // Cells refine the colour classes, in increasing colour order.
                let colour_of_cell: Vec<u32> = found
                    .iter()
                    .map(|c| {
                        assert!(c.iter().all(|&v| ranks[v as usize] == ranks[c[0] as usize]));
                        ranks[c[0] as usize]
                    })
                    .collect();
                assert!(colour_of_cell.windows(2).all(|w| w[0] <= w[1]));
            }
        }
    }

    #[test]
    fn refinement_commutes_with_relabelling() {
        let mut rng = ChaCha8Rng::seed_from_u64(43);
        for round in 0..200 {
            let n = rng.random_range(2..=150usize);
            let edges = random_edges(n as u32, [0.2, 0.5][round % 2], &mut rng);
            let ranks: Vec<u32> = (0..n).map(|_| rng.random_range(0..2)).collect();
            let mut relabel: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                relabel.swap(i, rng.random_range(0..=i));
            }
            let moved: Vec<(u32, u32)> = edges
                .iter()
                .map(|&(u, v)| (relabel[u as usize], relabel[v as usize]))
                .collect();
            let mut moved_ranks = vec![0u32; n];
            for v in 0..n {
                moved_ranks[relabel[v] as usize] = ranks[v];
            }
            let a = refine(n, &edges, Some(&ranks));
            let b = refine(n, &moved, Some(&moved_ranks));
            let mapped: Vec<Vec<u32>> = cells(&a)
                .iter()
                .map(|c| {
                    let mut c: Vec<u32> = c.iter().map(|&v| relabel[v as usize]).collect();
                    c.sort_unstable();
                    c
                })
                .collect();
            assert_eq!(mapped, cells(&b), "round {round}");
        }
    }
}
