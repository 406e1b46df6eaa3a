//! Breadth-first search over every arrangement of a small graph: the last part of each block's
//! construction (at most [`MAX_TABLE_VERTICES`] vertices) is finished by looking the arrangement
//! up here.
//!
//! # Arguments
//! A connected graph on local vertices `0..r` (`r <= 8`) and a goal vertex `g` for the blank.
//!
//! # Returns
//! An [`ArrangementTable`]: for every arrangement reachable from the goal arrangement (label `i`
//! on vertex `i`, the blank being label `g`), the next vertex the blank steps to on a shortest
//! walk back to the goal. Walks are reversible, so a shortest walk from the goal read backwards is
//! a shortest walk to it.
//!
//! # Complexity
//! `O(r! · r · Δ)` time (Lehmer ranks are `O(r)`, `Δ` the largest degree) and `r!` bytes: at
//! most 40,320 states for `r = 8`. A lookup costs `O(d · r²)` for a walk of `d` steps.
//!
//! # Reference
//! The state-space search every text on the 15-puzzle starts with (e.g. Ratner & Warmuth, "The
//! (n²−1)-puzzle and related relocation problems", J. Symbolic Comput. 10 (1990)); here only for
//! parts small enough to enumerate.

/// Largest part searched exhaustively: `8! = 40,320` states.
pub(crate) const MAX_TABLE_VERTICES: usize = 8;

const UNREACHED: u8 = u8::MAX;

/// Shortest walks to the goal arrangement from every arrangement that can reach it.
#[derive(Debug, Clone)]
pub(crate) struct ArrangementTable {
    goal_blank: usize,
    /// For each arrangement's Lehmer rank: the vertex the blank steps to next, `UNREACHED`, or
    /// the blank's own vertex at the goal.
    next: Box<[u8]>,
    /// How many arrangements with the blank on the goal vertex are reachable: the order of the
    /// puzzle group of the part.
    pub group_order: u64,
}

impl ArrangementTable {
    /// Bytes [`build`](Self::build) keeps for `r` vertices (the table), plus its search queue.
    pub(crate) fn bytes(r: usize) -> u64 {
        let states: u64 = (1..=r as u64).product();
        states * 5
    }

    /// Searches the graph `adj` (`adj[v]` the neighbours of local vertex `v`) from the goal
    /// arrangement with the blank on `goal_blank`.
    ///
    /// The queue holds the arrangements themselves, packed three bits a label, so a state is
    /// never unranked; ranks are Lehmer codes counted with a bit mask (`O(r)` each).
    pub(crate) fn build(adj: &[Vec<u8>], goal_blank: usize) -> Self {
        let r = adj.len();
        debug_assert!(r <= MAX_TABLE_VERTICES && goal_blank < r);
        let states: usize = (1..=r).product();
        let mut next = vec![UNREACHED; states].into_boxed_slice();
        let goal: Vec<u8> = (0..r as u8).collect();
        let goal_packed = pack(&goal);
        next[rank(&goal)] = goal_blank as u8;
        let mut queue: Vec<u32> = Vec::with_capacity(states);
        queue.push(goal_packed);
        let mut head = 0;
        let mut group_order = 0u64;
        while head < queue.len() {
            let s = queue[head];
            head += 1;
            let blank = (0..r)
                .find(|&v| label(s, v) == goal_blank as u32)
                .unwrap_or(0);
            if blank == goal_blank {
                group_order += 1;
            }
            for &y in &adj[blank] {
                let y = y as usize;
                // Swap the labels on `blank` and `y`.
                let (lb, ly) = (label(s, blank), label(s, y));
                let t = s ^ ((lb ^ ly) << (3 * blank)) ^ ((lb ^ ly) << (3 * y));
                let tr = rank_packed(t, r);
                if next[tr] == UNREACHED {
                    // From `t` (blank on `y`) the blank steps back to `blank`.
                    next[tr] = blank as u8;
                    queue.push(t);
                }
            }
        }
        Self {
            goal_blank,
            next,
            group_order,
        }
    }

    /// The walk of the blank from `arr` (`arr[v]` the label on vertex `v`; the blank is label
    /// `goal_blank`) to the goal arrangement, as the vertices stepped to; `None` if the goal cannot
    /// be reached from `arr`.
    pub(crate) fn walk(&self, arr: &[u8]) -> Option<Vec<u8>> {
        let mut a = arr.to_vec();
        let mut out = Vec::new();
        let mut blank = a.iter().position(|&x| x as usize == self.goal_blank)?;
        loop {
            let s = rank(&a);
            let step = self.next[s];
            if step == UNREACHED {
                return None;
            }
            if a.iter().enumerate().all(|(i, &x)| x as usize == i) {
                return Some(out);
            }
            let step = step as usize;
            a.swap(blank, step);
            blank = step;
            out.push(step as u8);
            if out.len() > self.next.len() {
                return None; // cannot happen for a table built by `build`
            }
        }
    }

    /// The goal vertex of the blank.
    pub(crate) fn goal_blank(&self) -> usize {
        self.goal_blank
    }
}

/// Lexicographic rank of a permutation of `0..len`.
fn rank(p: &[u8]) -> usize {
    rank_packed(pack(p), p.len())
}

/// A permutation of at most [`MAX_TABLE_VERTICES`] labels packed three bits a label, vertex 0
/// lowest.
fn pack(p: &[u8]) -> u32 {
    p.iter()
        .enumerate()
        .fold(0, |acc, (i, &x)| acc | (x as u32) << (3 * i))
}

/// The label on vertex `v` of a packed arrangement.
fn label(s: u32, v: usize) -> u32 {
    (s >> (3 * v)) & 7
}

/// Lexicographic rank of a packed permutation of `0..len`: the Lehmer code, the labels smaller
/// than `x` still unseen being `x` less those seen (a popcount).
fn rank_packed(s: u32, len: usize) -> usize {
    let mut r = 0;
    let mut seen = 0u32;
    for i in 0..len {
        let x = label(s, i);
        let smaller = x - (seen & ((1 << x) - 1)).count_ones();
        seen |= 1 << x;
        r = r * (len - i) + smaller as usize;
    }
    r
}

/// Inverse of [`rank`].
#[cfg(test)]
fn unrank(mut r: usize, out: &mut [u8]) {
    let len = out.len();
    let mut digits = [0usize; MAX_TABLE_VERTICES];
    for i in (0..len).rev() {
        let base = len - i;
        digits[i] = r % base;
        r /= base;
    }
    let mut free: Vec<u8> = (0..len as u8).collect();
    for i in 0..len {
        out[i] = free.remove(digits[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook rank: for each place, how many later labels are smaller.
    fn rank_by_counting(p: &[u8]) -> usize {
        let mut r = 0;
        for (i, &x) in p.iter().enumerate() {
            let smaller = p[i + 1..].iter().filter(|&&y| y < x).count();
            r = r * (p.len() - i) + smaller;
        }
        r
    }

    #[test]
    fn rank_and_unrank_are_inverse() {
        for len in 1..=MAX_TABLE_VERTICES {
            let mut out = vec![0u8; len];
            let states: usize = (1..=len).product();
            for r in (0..states).step_by(1 + states / 5000) {
                unrank(r, &mut out);
                assert_eq!(rank(&out), r);
                assert_eq!(rank_by_counting(&out), r);
            }
        }
    }

    #[test]
    fn square_group_is_the_three_rotations() {
        // A 4-cycle 0-1-2-3: with the blank back on 3, only the 3 rotations of the others.
        let adj = vec![vec![1, 3], vec![0, 2], vec![1, 3], vec![2, 0]];
        let t = ArrangementTable::build(&adj, 3);
        assert_eq!(t.group_order, 3);
        // Tokens 0 and 1 swapped: unreachable.
        assert!(t.walk(&[1, 0, 2, 3]).is_none());
        let w = t.walk(&[1, 2, 0, 3]).expect("a rotation");
        assert_eq!(w.len() % 4, 0);
    }
}
