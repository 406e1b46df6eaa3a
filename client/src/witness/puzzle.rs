//! Checks a puzzle answer's move sequences by replaying them, without solving the puzzle.
//!
//! A sequence is right iff, starting from the job's start arrangement, every listed vertex is
//! adjacent (by an edge of the job, self-loops excluded) to the vertex token 0 is on at that
//! moment, and swapping token 0 with the token there, step after step, ends in the target. This
//! is checked exactly, in `O(len · log deg)` per sequence. A "no moves" entry must go with a
//! `No` verdict and a sequence with a `Yes`; whether an unreachable target really is unreachable
//! cannot be replayed (it is the decider's claim, Wilson's theorem).

use crate::pb;

/// Why a puzzle answer's witness is wrong: the target (0-based, in job order) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("puzzle.targets[{target}]: {reason}")]
pub struct PuzzleWitnessError {
    /// The target whose sequence is wrong.
    pub target: usize,
    /// What is wrong, in words.
    pub reason: String,
}

/// A puzzle's graph and start, ready to replay sequences on.
#[derive(Debug, Clone)]
pub struct PuzzleReplay {
    start: Vec<u32>,
    /// Sorted neighbours of each vertex: `adj[adj_start[v]..adj_start[v + 1]]`.
    adj_start: Vec<usize>,
    adj: Vec<u32>,
}

impl PuzzleReplay {
    /// The graph on `n` vertices with `edges` (0-based) and the start arrangement `start`
    /// (`start[v]` the token on vertex `v`). Edges out of range are ignored (no step can use
    /// them).
    pub fn new(n: u32, edges: &[(u32, u32)], start: &[u32]) -> Self {
        let n = n as usize;
        let mut pairs: Vec<(u32, u32)> = edges
            .iter()
            .filter(|&&(u, v)| u != v && (u as usize) < n && (v as usize) < n)
            .flat_map(|&(u, v)| [(u, v), (v, u)])
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut adj_start = vec![0usize; n + 1];
        for &(u, _) in &pairs {
            adj_start[u as usize + 1] += 1;
        }
        for i in 0..n {
            adj_start[i + 1] += adj_start[i];
        }
        Self {
            start: start.to_vec(),
            adj_start,
            adj: pairs.into_iter().map(|(_, v)| v).collect(),
        }
    }

    fn adjacent(&self, u: u32, v: u32) -> bool {
        let (u, v) = (u as usize, v);
        u + 1 < self.adj_start.len()
            && self.adj[self.adj_start[u]..self.adj_start[u + 1]]
                .binary_search(&v)
                .is_ok()
    }

    /// Replays `moves` (0-based vertices token 0 steps to) from the start and compares the end
    /// with `target`.
    ///
    /// # Errors
    /// What is wrong, in words: the first step that is not along an edge from token 0's vertex,
    /// or the first vertex where the end differs from the target.
    pub fn check(&self, target: &[u32], moves: &[u32]) -> Result<(), String> {
        let mut arr = self.start.clone();
        let Some(mut blank) = arr.iter().position(|&t| t == 0) else {
            return Err("the start has no token 0".into());
        };
        for (i, &v) in moves.iter().enumerate() {
            if !self.adjacent(blank as u32, v) {
                return Err(format!(
                    "move {} steps from vertex {blank} to vertex {v}, which is not adjacent",
                    i + 1
                ));
            }
            arr.swap(blank, v as usize);
            blank = v as usize;
        }
        if arr.len() != target.len() {
            return Err(format!(
                "the target has {} tokens, the start {}",
                target.len(),
                arr.len()
            ));
        }
        if let Some(v) = (0..arr.len()).find(|&v| arr[v] != target[v]) {
            return Err(format!(
                "after the {} moves vertex {v} holds token {}, the target wants {}",
                moves.len(),
                arr[v],
                target[v]
            ));
        }
        Ok(())
    }
}

/// Checks every move sequence of `result` against `job` (its graph, start and targets, given
/// either as `targets` or `targets_packed`).
///
/// # Errors
/// The first wrong witness, naming its target: a sequence that does not replay to its target,
/// a sequence for a `No` or none for a `Yes`, or a count of sequences that is not the count of
/// targets.
///
/// # Example
/// ```
/// use orbit_client::pb;
/// use orbit_client::witness::check_puzzle_witness;
///
/// // A triangle 0-1-2 with token 0 on vertex 0: going round once swaps tokens 1 and 2.
/// let job = pb::PuzzleJob {
///     n: 3,
///     edges: vec![pb::Edge { from: 0, to: 1 }, pb::Edge { from: 1, to: 2 }, pb::Edge { from: 2, to: 0 }],
///     start: Some(pb::Arrangement { tokens: vec![0, 1, 2] }),
///     targets: vec![pb::Arrangement { tokens: vec![0, 2, 1] }],
///     moves: true,
///     ..Default::default()
/// };
/// let good = pb::PuzzleResult {
///     reachable: vec![true],
///     moves: vec![pb::PuzzleMoves { has_moves: true, vertices: vec![1, 2, 0] }],
/// };
/// assert!(check_puzzle_witness(&job, &good).is_ok());
/// // There and back again changes nothing.
/// let bad = pb::PuzzleResult {
///     reachable: vec![true],
///     moves: vec![pb::PuzzleMoves { has_moves: true, vertices: vec![1, 0] }],
/// };
/// assert_eq!(
///     check_puzzle_witness(&job, &bad).unwrap_err().to_string(),
///     "puzzle.targets[0]: after the 2 moves vertex 1 holds token 1, the target wants 2"
/// );
/// ```
pub fn check_puzzle_witness(
    job: &pb::PuzzleJob,
    result: &pb::PuzzleResult,
) -> Result<(), PuzzleWitnessError> {
    let edges: Vec<(u32, u32)> = job.edges.iter().map(|e| (e.from, e.to)).collect();
    let start = job
        .start
        .as_ref()
        .map(|a| a.tokens.clone())
        .unwrap_or_default();
    let replay = PuzzleReplay::new(job.n, &edges, &start);
    let n = job.n as usize;
    let targets: Vec<Vec<u32>> = if job.targets_packed.is_empty() {
        job.targets.iter().map(|a| a.tokens.clone()).collect()
    } else {
        job.targets_packed
            .chunks(4 * n.max(1))
            .map(|t| {
                t.chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            })
            .collect()
    };
    check_puzzle_moves(&replay, &targets, &result.reachable, &result.moves)
}

/// As [`check_puzzle_witness`], for targets and answers already at hand (`reachable[i]` the
/// verdict and `moves[i]` the witness of `targets[i]`).
///
/// # Errors
/// As [`check_puzzle_witness`].
pub fn check_puzzle_moves(
    replay: &PuzzleReplay,
    targets: &[Vec<u32>],
    reachable: &[bool],
    moves: &[pb::PuzzleMoves],
) -> Result<(), PuzzleWitnessError> {
    let fail = |target: usize, reason: String| PuzzleWitnessError { target, reason };
    if moves.len() != targets.len() || reachable.len() != targets.len() {
        return Err(fail(
            moves.len().min(reachable.len()).min(targets.len()),
            format!(
                "{} targets but {} verdicts and {} move sequences",
                targets.len(),
                reachable.len(),
                moves.len()
            ),
        ));
    }
    for (i, ((target, &yes), m)) in targets.iter().zip(reachable).zip(moves).enumerate() {
        match (yes, m.has_moves) {
            (true, true) => replay.check(target, &m.vertices).map_err(|r| fail(i, r))?,
            (false, false) if m.vertices.is_empty() => {}
            (false, false) => return Err(fail(i, "moves listed without has_moves".into())),
            (true, false) => return Err(fail(i, "`Yes` without a move sequence".into())),
            (false, true) => return Err(fail(i, "a move sequence for a `No`".into())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_rejects_a_jump_and_names_the_move() {
        // A path 0-1-2, token 0 on vertex 0: stepping to 2 at once is no move.
        let r = PuzzleReplay::new(3, &[(0, 1), (1, 2)], &[0, 1, 2]);
        assert_eq!(
            r.check(&[2, 1, 0], &[2]).unwrap_err(),
            "move 1 steps from vertex 0 to vertex 2, which is not adjacent"
        );
        assert!(r.check(&[1, 2, 0], &[1, 2]).is_ok());
        assert!(r.check(&[0, 1, 2], &[]).is_ok());
    }

    #[test]
    fn verdicts_and_sequences_must_agree() {
        let r = PuzzleReplay::new(2, &[(0, 1)], &[0, 1]);
        let t = vec![vec![1, 0]];
        let none = pb::PuzzleMoves::default();
        let err = check_puzzle_moves(&r, &t, &[true], std::slice::from_ref(&none)).unwrap_err();
        assert_eq!(err.target, 0);
        assert!(check_puzzle_moves(&r, &t, &[false], &[none]).is_ok());
    }
}
