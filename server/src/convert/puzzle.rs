//! The `puzzle` kind on the wire: `PuzzleJob` → [`PuzzleJob`], verdicts (and move sequences) →
//! `PuzzleResult`.

use orbit_api::v1 as pb;
use orbit_worker::puzzle::{PuzzleAnswer, PuzzleJob, PuzzleProblem};
use orbit_worker::{Limits, SolveError};

/// proto → domain. Targets come either as `Arrangement`s or packed (`targets_packed`: every
/// target's n tokens as 4-byte little-endian integers), not both.
pub fn from_proto(puzzle: pb::PuzzleJob, _limits: &Limits) -> Result<PuzzleJob, SolveError> {
    let pb::PuzzleJob {
        n,
        edges,
        start,
        targets,
        targets_packed,
        moves,
    } = puzzle;
    let targets = if targets_packed.is_empty() {
        targets.into_iter().map(|a| a.tokens).collect()
    } else {
        if !targets.is_empty() {
            return Err(SolveError::invalid(
                "puzzle.targets_packed",
                "set either targets or targets_packed, not both",
            ));
        }
        let target_bytes = 4 * n as usize;
        if n == 0 || targets_packed.len() % target_bytes != 0 {
            return Err(SolveError::invalid(
                "puzzle.targets_packed",
                format!(
                    "holds {} bytes, not a multiple of 4n = {target_bytes} (n tokens of 4 bytes per target)",
                    targets_packed.len()
                ),
            ));
        }
        targets_packed
            .chunks_exact(target_bytes)
            .map(|target| {
                target
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            })
            .collect()
    };
    Ok(PuzzleJob {
        problem: PuzzleProblem {
            n,
            edges: edges.iter().map(|e| (e.from, e.to)).collect(),
            start: start.map(|a| a.tokens).unwrap_or_default(),
            targets,
        },
        moves,
    })
}

/// domain → proto: one verdict per target, in order, and one `PuzzleMoves` per target when the
/// sequences were asked for.
pub fn result_to_proto(answer: PuzzleAnswer) -> pb::PuzzleResult {
    let PuzzleAnswer { reachable, moves } = answer;
    pb::PuzzleResult {
        reachable,
        moves: moves
            .unwrap_or_default()
            .into_iter()
            .map(|m| pb::PuzzleMoves {
                has_moves: m.is_some(),
                vertices: m.unwrap_or_default(),
            })
            .collect(),
    }
}

/// The smallest valid job of the kind, for tests that walk every kind.
pub fn example() -> pb::PuzzleJob {
    pb::PuzzleJob {
        n: 1,
        edges: vec![],
        start: Some(pb::Arrangement { tokens: vec![0] }),
        targets: vec![],
        targets_packed: vec![],
        moves: false,
    }
}
