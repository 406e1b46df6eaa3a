//! The `cop_thief` kind on the wire: `CopThiefJob` → [`CopThiefJob`], [`CopThiefAnswer`] →
//! `CopThiefResult`.
//!
//! [job]: orbit_worker::cop_thief::CopThiefJob

use orbit_api::v1 as pb;
use orbit_worker::cop_thief::{
    Cell, CopThiefAnswer, CopThiefJob, CopThiefLine, CopThiefMove, CopThiefQuery, CopThiefValue,
    Grid,
};
use orbit_worker::game::GameWitness;
use orbit_worker::{Limits, SolveError};

/// proto → domain: the grid from its rows, and the queried states; a missing cell is an error
/// naming it.
pub fn from_proto(job: pb::CopThiefJob, _limits: &Limits) -> Result<CopThiefJob, SolveError> {
    Ok(CopThiefJob {
        grid: Grid::from_rows(&job.rows)?,
        queries: job
            .queries
            .iter()
            .enumerate()
            .map(|(i, q)| query_from_proto(q, i))
            .collect::<Result<_, _>>()?,
        witness: GameWitness {
            moves: job.moves,
            line: job.line,
        },
    })
}

/// proto → domain for one queried state.
fn query_from_proto(q: &pb::CopThiefState, i: usize) -> Result<CopThiefQuery, SolveError> {
    let cell = |c: &Option<pb::GridCell>, who: &str| {
        c.as_ref()
            .map(|c| (c.row as usize, c.col as usize))
            .ok_or_else(|| SolveError::invalid(format!("cop_thief.queries[{i}].{who}"), "missing"))
    };
    Ok(CopThiefQuery {
        cop: cell(&q.cop, "cop")?,
        thief: cell(&q.thief, "thief")?,
        cop_to_move: !q.thief_to_move,
    })
}

/// domain → proto: the start position's value and every queried state's, with their moves and
/// lines when asked for.
pub fn result_to_proto(answer: CopThiefAnswer) -> pb::CopThiefResult {
    let (winner, half_moves) = winner_to_proto(answer.value);
    let queries = answer
        .queries
        .into_iter()
        .map(|state| {
            let (winner, half_moves) = winner_to_proto(state.value);
            let (line, line_truncated) = line_to_proto(state.line);
            pb::CopThiefStateResult {
                state: Some(state_to_proto(state.query)),
                winner: winner as i32,
                half_moves,
                best_move: state.best_move.map(cell_to_proto),
                moves: state.moves.into_iter().map(move_to_proto).collect(),
                line,
                line_truncated,
            }
        })
        .collect();
    let (line, line_truncated) = line_to_proto(answer.line);
    pb::CopThiefResult {
        winner: winner as i32,
        half_moves,
        queries,
        moves: answer.moves.into_iter().map(move_to_proto).collect(),
        line,
        line_truncated,
    }
}

fn state_to_proto(state: CopThiefQuery) -> pb::CopThiefState {
    pb::CopThiefState {
        cop: Some(cell_to_proto(state.cop)),
        thief: Some(cell_to_proto(state.thief)),
        thief_to_move: !state.cop_to_move,
    }
}

fn move_to_proto(m: CopThiefMove) -> pb::CopThiefMove {
    let (winner, half_moves) = winner_to_proto(m.value);
    pb::CopThiefMove {
        to: Some(cell_to_proto(m.to)),
        winner: winner as i32,
        half_moves,
    }
}

fn line_to_proto(line: CopThiefLine) -> (Vec<pb::CopThiefState>, bool) {
    (
        line.states.into_iter().map(state_to_proto).collect(),
        line.truncated,
    )
}

fn winner_to_proto(value: CopThiefValue) -> (pb::Winner, Option<u32>) {
    match value {
        CopThiefValue::Cop(n) => (pb::Winner::Cop, Some(n)),
        CopThiefValue::Thief(n) => (pb::Winner::Thief, Some(n)),
        CopThiefValue::Draw => (pb::Winner::Draw, None),
    }
}

fn cell_to_proto((row, col): Cell) -> pb::GridCell {
    pb::GridCell {
        row: row as u32,
        col: col as u32,
    }
}

/// The smallest valid job of the kind, for tests that walk every kind.
pub fn example() -> pb::CopThiefJob {
    pb::CopThiefJob {
        rows: vec!["CT".into()],
        ..Default::default()
    }
}
