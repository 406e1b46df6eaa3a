//! The `cop_thief` kind on the wire: `CopThiefJob` → [`CopThiefJob`](job), [`CopThiefAnswer`] →
//! `CopThiefResult`.
//!
//! [job]: orbit_worker::cop_thief::CopThiefJob

use orbit_api::v1 as pb;
use orbit_worker::cop_thief::{
    Cell, CopThiefAnswer, CopThiefJob, CopThiefQuery, CopThiefValue, Grid,
};
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

/// domain → proto: the start position's value and every queried state's.
pub fn result_to_proto(answer: CopThiefAnswer) -> pb::CopThiefResult {
    let (winner, half_moves) = winner_to_proto(answer.value);
    let queries = answer
        .queries
        .iter()
        .map(|state| {
            let (winner, half_moves) = winner_to_proto(state.value);
            pb::CopThiefStateResult {
                state: Some(pb::CopThiefState {
                    cop: Some(cell_to_proto(state.query.cop)),
                    thief: Some(cell_to_proto(state.query.thief)),
                    thief_to_move: !state.query.cop_to_move,
                }),
                winner: winner as i32,
                half_moves,
                best_move: state.best_move.map(cell_to_proto),
            }
        })
        .collect();
    pb::CopThiefResult {
        winner: winner as i32,
        half_moves,
        queries,
    }
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
        queries: vec![],
    }
}
