//! Checks a policeman-and-thief answer's moves and optimal chases against the job's grid, by the
//! rules alone: each listed move is a legal move and every legal move is listed once, best first,
//! agreeing with the state's own value; each chase is a sequence of legal half-moves, as long as
//! the announced number of half-moves, ending with the announced winner (the policeman on the
//! thief's cell, or the thief on the exit without him) and no earlier; a drawn chase ends at its
//! first repeated state and never finishes the game.

use std::collections::HashSet;

use crate::pb;

/// Why a policeman-and-thief witness is wrong: which state (`start` or `queries[i]`) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{state}: {reason}")]
pub struct CopThiefWitnessError {
    /// `start`, or `queries[i]`.
    pub state: String,
    /// What is wrong, in words.
    pub reason: String,
}

type Cell = (u32, u32);

/// A state as the checks compare it: policeman, thief, whether the thief moves next.
type State = (Cell, Cell, bool);

struct Board<'a> {
    rows: &'a [String],
}

impl Board<'_> {
    fn at(&self, (r, c): Cell) -> Option<u8> {
        self.rows
            .get(r as usize)
            .and_then(|row| row.as_bytes().get(c as usize))
            .copied()
    }

    fn free(&self, cell: Cell) -> bool {
        self.at(cell).is_some_and(|b| b != b'*')
    }

    fn find(&self, wanted: u8) -> Option<Cell> {
        self.rows.iter().enumerate().find_map(|(r, row)| {
            row.bytes()
                .position(|b| b == wanted)
                .map(|c| (r as u32, c as u32))
        })
    }

    /// Who has won in `state`, if the game is over: `Some(true)` the policeman.
    fn finished(&self, (cop, thief, _): State) -> Option<bool> {
        if cop == thief {
            Some(true)
        } else if self.at(thief) == Some(b'E') {
            Some(false)
        } else {
            None
        }
    }

    /// The cells the side to move may go to, its own included, ascending.
    fn moves(&self, state: State) -> Vec<Cell> {
        if self.finished(state).is_some() {
            return Vec::new();
        }
        let (cop, thief, thief_to_move) = state;
        let (from, steps): (Cell, &[(i64, i64)]) = if thief_to_move {
            (thief, &[(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)])
        } else {
            (
                cop,
                &[
                    (-1, -1),
                    (-1, 0),
                    (-1, 1),
                    (0, -1),
                    (0, 0),
                    (0, 1),
                    (1, -1),
                    (1, 0),
                    (1, 1),
                ],
            )
        };
        steps
            .iter()
            .filter_map(|&(dr, dc)| {
                let r = u32::try_from(i64::from(from.0) + dr).ok()?;
                let c = u32::try_from(i64::from(from.1) + dc).ok()?;
                self.free((r, c)).then_some((r, c))
            })
            .collect()
    }
}

fn cell_of(cell: &Option<pb::GridCell>) -> Option<Cell> {
    cell.as_ref().map(|c| (c.row, c.col))
}

fn state_of(s: &pb::CopThiefState) -> Option<State> {
    Some((cell_of(&s.cop)?, cell_of(&s.thief)?, s.thief_to_move))
}

/// A value: the winner (`Some(true)` the policeman, `Some(false)` the thief, `None` a draw) and
/// the half-moves (`None` for a draw).
type Value = (Option<bool>, Option<u32>);

fn value_of(winner: i32, half_moves: Option<u32>) -> Result<Value, String> {
    match (pb::Winner::try_from(winner), half_moves) {
        (Ok(pb::Winner::Cop), Some(n)) => Ok((Some(true), Some(n))),
        (Ok(pb::Winner::Thief), Some(n)) => Ok((Some(false), Some(n))),
        (Ok(pb::Winner::Draw), None) => Ok((None, None)),
        other => Err(format!("malformed value {other:?}")),
    }
}

/// The sort key of a move for the side to move (`thief_to_move`): smaller is better.
fn rank(value: Value, thief_to_move: bool, to: Cell) -> (u8, i64, Cell) {
    match value {
        (Some(cop_wins), Some(n)) if cop_wins != thief_to_move => (0, i64::from(n), to),
        (None, _) => (1, 0, to),
        (_, n) => (2, -i64::from(n.unwrap_or(0)), to),
    }
}

/// Checks the moves and chases of the start and of every queried state in `result` against
/// `job`'s grid.
///
/// # Errors
/// The first wrong witness found, naming its state.
pub fn check_cop_thief_witness(
    job: &pb::CopThiefJob,
    result: &pb::CopThiefResult,
) -> Result<(), CopThiefWitnessError> {
    let board = Board { rows: &job.rows };
    let (Some(cop), Some(thief)) = (board.find(b'C'), board.find(b'T')) else {
        return Err(CopThiefWitnessError {
            state: "start".into(),
            reason: "the grid has no C or no T".into(),
        });
    };
    let start = Witnessed {
        state: (cop, thief, false),
        value: (result.winner, result.half_moves),
        moves: &result.moves,
        line: &result.line,
        line_truncated: result.line_truncated,
    };
    let fail = |state: String| move |reason: String| CopThiefWitnessError { state, reason };
    start
        .check(&board, job)
        .map_err(fail("start".to_string()))?;
    for (i, q) in result.queries.iter().enumerate() {
        let name = format!("queries[{i}]");
        let state = q
            .state
            .as_ref()
            .and_then(state_of)
            .ok_or_else(|| fail(name.clone())("no state".to_string()))?;
        Witnessed {
            state,
            value: (q.winner, q.half_moves),
            moves: &q.moves,
            line: &q.line,
            line_truncated: q.line_truncated,
        }
        .check(&board, job)
        .map_err(fail(name))?;
    }
    Ok(())
}

/// One state's value and witnesses as the answer gives them.
struct Witnessed<'a> {
    state: State,
    value: (i32, Option<u32>),
    moves: &'a [pb::CopThiefMove],
    line: &'a [pb::CopThiefState],
    line_truncated: bool,
}

impl Witnessed<'_> {
    fn check(&self, board: &Board<'_>, job: &pb::CopThiefJob) -> Result<(), String> {
        let own = value_of(self.value.0, self.value.1)?;
        if job.moves {
            self.check_moves(board, own)?;
        }
        if job.line {
            self.check_line(board, own)?;
        }
        Ok(())
    }

    fn check_moves(&self, board: &Board<'_>, own: Value) -> Result<(), String> {
        let thief_to_move = self.state.2;
        let mut listed: Vec<Cell> = self
            .moves
            .iter()
            .map(|m| cell_of(&m.to).ok_or_else(|| "a move without a cell".to_string()))
            .collect::<Result<_, _>>()?;
        listed.sort_unstable();
        let legal = board.moves(self.state);
        if listed != legal {
            return Err(format!(
                "moves to {listed:?}, but the legal moves go to {legal:?}"
            ));
        }
        let values: Vec<Value> = self
            .moves
            .iter()
            .map(|m| value_of(m.winner, m.half_moves))
            .collect::<Result<_, _>>()?;
        let keys: Vec<_> = self
            .moves
            .iter()
            .zip(&values)
            .map(|(m, &v)| rank(v, thief_to_move, cell_of(&m.to).unwrap_or_default()))
            .collect();
        if keys.windows(2).any(|w| w[0] > w[1]) {
            return Err("moves not in order, best first".to_string());
        }
        let mover_is_cop = !thief_to_move;
        let consistent = match (own, values.first()) {
            // A finished game: no moves, depth 0.
            ((Some(_), Some(0)), None) => true,
            // The mover wins: the first move wins one half-move sooner.
            ((Some(w), Some(n)), Some(&first)) if w == mover_is_cop => {
                first == (Some(w), n.checked_sub(1))
            }
            // The mover loses: every move loses, the longest one half-move shorter.
            ((Some(w), Some(n)), Some(&first)) => {
                values.iter().all(|v| v.0 == Some(w)) && first == (Some(w), n.checked_sub(1))
            }
            ((None, _), Some(&first)) => first.0.is_none(),
            _ => false,
        };
        if !consistent {
            return Err(format!("its value {own:?} does not follow from its moves"));
        }
        Ok(())
    }

    fn check_line(&self, board: &Board<'_>, own: Value) -> Result<(), String> {
        let mut at = self.state;
        let mut seen = HashSet::from([at]);
        for (i, step) in self.line.iter().enumerate() {
            let next = state_of(step).ok_or_else(|| format!("line step {i}: no state"))?;
            let (cop, thief, thief_to_move) = at;
            let legal = if thief_to_move {
                next.0 == cop && next.2 != thief_to_move && board.moves(at).contains(&next.1)
            } else {
                next.1 == thief && next.2 != thief_to_move && board.moves(at).contains(&next.0)
            };
            if !legal {
                return Err(format!(
                    "line step {i}: {next:?} is not a legal half-move from {at:?}"
                ));
            }
            if i == 0
                && let Some(best) = self.moves.first()
            {
                let moved = if thief_to_move { next.1 } else { next.0 };
                if cell_of(&best.to) != Some(moved) {
                    return Err(format!(
                        "the line starts with a move to {moved:?}, not the first move"
                    ));
                }
            }
            let last = i + 1 == self.line.len();
            let repeated = !seen.insert(next);
            match own {
                (Some(_), Some(_)) if board.finished(next).is_some() && !last => {
                    return Err(format!(
                        "the game is over at step {i}, before the line ends"
                    ));
                }
                (None, _) if board.finished(next).is_some() => {
                    return Err(format!("a drawn line finishes the game at step {i}"));
                }
                (None, _) if repeated && !last => {
                    return Err(format!(
                        "the drawn line repeats a state at step {i} and goes on"
                    ));
                }
                _ => {}
            }
            at = next;
        }
        match own {
            (Some(cop_wins), Some(n)) => {
                let len = self.line.len() as u64;
                if self.line_truncated {
                    if len >= u64::from(n) {
                        return Err(format!("a chase of {len} half-moves cut short of {n}"));
                    }
                } else if len != u64::from(n) || board.finished(at) != Some(cop_wins) {
                    return Err(format!(
                        "a chase of {len} half-moves ending at {at:?}, not {n} half-moves to a {} win",
                        if cop_wins { "policeman's" } else { "thief's" }
                    ));
                }
            }
            _ => {
                if !self.line_truncated
                    && (self.line.is_empty() || seen.len() == self.line.len() + 1)
                {
                    return Err("the drawn line does not end at a repeated state".to_string());
                }
            }
        }
        Ok(())
    }
}
