//! The `game` kind on the wire: `GameGraphJob` → [`GameJob`], [`GameAnswer`] →
//! `GameGraphResult`.

use orbit_api::v1 as pb;
use orbit_worker::game::{
    GameAnswer, GameGraph, GameJob, GameWitness, Line, MoveValue, NO_DEPTH, NO_MOVE, Outcome,
};
use orbit_worker::{Limits, SolveError};

/// proto → domain; only reshapes (the ranges are checked by the kind's `validate`).
pub fn from_proto(game: pb::GameGraphJob, _limits: &Limits) -> Result<GameJob, SolveError> {
    let graph = GameGraph {
        vertices: game.vertices,
        edges: game.edges.iter().map(|e| (e.from, e.to)).collect(),
    };
    Ok(GameJob {
        graph,
        query: game.query,
        witness: GameWitness {
            moves: game.moves,
            line: game.line,
        },
    })
}

/// domain → proto: the queried vertices (all when the query is empty), their witnesses when
/// asked for, and the totals.
pub fn result_to_proto(answer: GameAnswer) -> pb::GameGraphResult {
    let reported = answer.reported();
    let GameAnswer {
        solution,
        moves,
        lines,
        ..
    } = answer;
    let mut moves = moves.into_iter();
    let mut lines = lines.into_iter();
    let vertices = reported
        .into_iter()
        .map(|v| {
            let i = v as usize;
            let depth = solution.depth[i];
            let best = solution.best_move[i];
            let Line {
                vertices: line,
                truncated: line_truncated,
            } = lines.next().unwrap_or_default();
            pb::VertexOutcome {
                vertex: v,
                outcome: outcome_to_proto(solution.outcome[i]) as i32,
                depth: (depth != NO_DEPTH).then_some(depth),
                best_move: (best != NO_MOVE).then_some(best),
                moves: moves
                    .next()
                    .unwrap_or_default()
                    .into_iter()
                    .map(move_to_proto)
                    .collect(),
                line,
                line_truncated,
            }
        })
        .collect();
    let count = |o: Outcome| solution.outcome.iter().filter(|&&x| x == o).count() as u64;
    pb::GameGraphResult {
        vertices,
        wins: count(Outcome::Win),
        losses: count(Outcome::Lose),
        draws: count(Outcome::Draw),
    }
}

fn move_to_proto(m: MoveValue) -> pb::MoveValue {
    pb::MoveValue {
        to: m.to,
        outcome: outcome_to_proto(m.outcome) as i32,
        depth: (m.depth != NO_DEPTH).then_some(m.depth),
    }
}

fn outcome_to_proto(o: Outcome) -> pb::Outcome {
    match o {
        Outcome::Win => pb::Outcome::Win,
        Outcome::Lose => pb::Outcome::Lose,
        Outcome::Draw => pb::Outcome::Draw,
    }
}

/// The smallest valid job of the kind, for tests that walk every kind.
pub fn example() -> pb::GameGraphJob {
    pb::GameGraphJob {
        vertices: 2,
        edges: vec![pb::Edge { from: 0, to: 1 }],
        ..Default::default()
    }
}
