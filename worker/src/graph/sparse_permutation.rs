//! A permutation of a graph's vertices stored by its moved points: the sparse search's
//! generators (a tree's group has many, each moving few points), in GAP's cycle notation on the
//! wire for large graphs.

use std::fmt;

use super::sparse_refinement::SparseAdjacency;

/// A permutation of a graph's vertices stored by its moved points only: memory proportional to
/// its support, whatever the number of vertices.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SparsePermutation {
    /// `(point, image)` for every moved point, sorted by point.
    moved: Vec<(u32, u32)>,
}

impl SparsePermutation {
    /// The permutation moving each `point` to `image` (pairs with `point == image` are dropped)
    /// and fixing every other point. The pairs must describe a bijection of their points.
    ///
    /// ```
    /// use orbit_worker::graph::SparsePermutation;
    /// let g = SparsePermutation::from_pairs(vec![(5, 9), (9, 5), (2, 2)]);
    /// assert_eq!(g.image(5), 9);
    /// assert_eq!(g.image(7), 7);
    /// assert_eq!(g.cycles(), vec![vec![5, 9]]);
    /// ```
    pub fn from_pairs(mut pairs: Vec<(u32, u32)>) -> SparsePermutation {
        pairs.retain(|&(x, y)| x != y);
        pairs.sort_unstable();
        // Kept as long as it lives: exactly its support (a collected vector may hold twice).
        pairs.shrink_to_fit();
        SparsePermutation { moved: pairs }
    }

    /// The moved points with their images, sorted by point.
    pub fn moved(&self) -> &[(u32, u32)] {
        &self.moved
    }

    /// The image of `x`. Complexity: O(log support).
    pub fn image(&self, x: u32) -> u32 {
        match self.moved.binary_search_by_key(&x, |&(p, _)| p) {
            Ok(i) => self.moved[i].1,
            Err(_) => x,
        }
    }

    /// The image array on `0..n` (for small graphs and clients that want one).
    pub fn images(&self, n: usize) -> Vec<u32> {
        let mut images: Vec<u32> = (0..n as u32).collect();
        for &(x, y) in &self.moved {
            images[x as usize] = y;
        }
        images
    }

    /// The cycles of length > 1, each starting at its least point, ordered by it.
    ///
    /// Complexity: O(s log s) for support s.
    pub fn cycles(&self) -> Vec<Vec<u32>> {
        let mut done = vec![false; self.moved.len()];
        let mut cycles = Vec::new();
        for i in 0..self.moved.len() {
            if done[i] {
                continue;
            }
            let start = self.moved[i].0;
            let mut cycle = vec![start];
            done[i] = true;
            let mut x = self.moved[i].1;
            while x != start {
                cycle.push(x);
                if let Ok(j) = self.moved.binary_search_by_key(&x, |&(p, _)| p) {
                    done[j] = true;
                }
                x = self.image(x);
            }
            cycles.push(cycle);
        }
        cycles
    }
}

impl SparsePermutation {
    /// Parses GAP cycle notation (1-based points, `(1,2,3)(4,5)`, `()` for the identity) into a
    /// permutation of `0..n`, in time proportional to the text (not to `n`).
    ///
    /// # Errors
    /// A message naming the point outside `1..n`, the repeated point, or the unexpected
    /// character.
    ///
    /// ```
    /// use orbit_worker::graph::SparsePermutation;
    /// let g = SparsePermutation::parse_cycles("(1,3)(2, 5,4)", 100_000).unwrap();
    /// assert_eq!(g.image(1), 4);
    /// assert_eq!(g.to_string(), "(1,3)(2,5,4)");
    /// assert!(SparsePermutation::parse_cycles("(1,1)", 5).is_err());
    /// ```
    pub fn parse_cycles(text: &str, n: usize) -> Result<SparsePermutation, String> {
        let mut pairs = Vec::new();
        let mut cycle: Vec<u32> = Vec::new();
        let mut number: Option<u64> = None;
        let mut open = false;
        let close_number = |number: &mut Option<u64>, cycle: &mut Vec<u32>| -> Result<(), String> {
            if let Some(x) = number.take() {
                if x == 0 || x > n as u64 {
                    return Err(format!("point {x} outside 1..{n}"));
                }
                cycle.push((x - 1) as u32);
            }
            Ok(())
        };
        for c in text.chars() {
            match c {
                '0'..='9' if open => {
                    let d = u64::from(c as u8 - b'0');
                    number = Some(number.unwrap_or(0).saturating_mul(10).saturating_add(d));
                }
                ',' if open && number.is_some() => close_number(&mut number, &mut cycle)?,
                '(' if !open => open = true,
                ')' if open => {
                    close_number(&mut number, &mut cycle)?;
                    for (k, &x) in cycle.iter().enumerate() {
                        pairs.push((x, cycle[(k + 1) % cycle.len()]));
                    }
                    cycle.clear();
                    open = false;
                }
                c if c.is_whitespace() && number.is_none() => {}
                c => return Err(format!("unexpected '{c}'")),
            }
        }
        if open {
            return Err("a cycle is not closed".into());
        }
        let mut points: Vec<u32> = pairs.iter().map(|&(x, _)| x).collect();
        points.sort_unstable();
        if let Some(w) = points.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("point {} repeated", w[0] + 1));
        }
        Ok(SparsePermutation::from_pairs(pairs))
    }

    /// Whether this is an automorphism of the graph with `adjacency`: it moves points within
    /// `0..n` bijectively and maps the edges at its moved points onto edges (the others are
    /// fixed). Colours are the caller's to check.
    ///
    /// Complexity: O(Σ deg(x) · log Δ) over the moved points x.
    pub fn is_automorphism_of(&self, adjacency: &SparseAdjacency) -> bool {
        let n = adjacency.vertices() as u32;
        let mut images: Vec<u32> = self.moved.iter().map(|&(_, y)| y).collect();
        images.sort_unstable();
        let points: Vec<u32> = self.moved.iter().map(|&(x, _)| x).collect();
        if images != points || points.last().is_some_and(|&x| x >= n) {
            return false;
        }
        self.moved.iter().all(|&(x, y)| {
            let row = adjacency.of(x);
            row.len() == adjacency.of(y).len()
                && row.iter().all(|&z| adjacency.has_edge(y, self.image(z)))
        })
    }
}

impl fmt::Display for SparsePermutation {
    /// GAP cycle notation, 1-based; `()` for the identity.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::group::cycle_notation::write_cycles(f, &self.cycles())
    }
}
