//! Reasons for a policeman-and-thief value: every move of the side to move with the value it
//! leads to, best first, and the principal variation (the optimal chase) as a list of states.
//!
//! The same reading as for explicit game graphs ([`crate::game::witness`]): a move's value is the
//! value of the state it leads to; for the mover, moves to states lost for the opponent come first
//! by rising depth, then moves keeping a draw, then the rest by falling depth; ties by the cell
//! moved to (row, then column). The line plays the first move at every state: `d` half-moves to
//! a finished game for a value of depth `d`, or, for a draw, up to the first state seen twice.

use std::collections::HashSet;

use super::grid::Cell;
use super::solution::{CopThiefQuery, CopThiefSolution, CopThiefValue};
use crate::game::retrograde::Outcome;

/// One move of the side to move and the value of the state it leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopThiefMove {
    /// The mover's cell after the move (its own cell: it stays).
    pub to: Cell,
    /// Who wins from the state the move leads to, in how many half-moves.
    pub value: CopThiefValue,
}

/// The optimal chase from a state: the states after each half-move, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopThiefLine {
    /// The states after each half-move (the start state not included).
    pub states: Vec<CopThiefQuery>,
    /// Whether the line was cut at `max_line` half-moves before the game ended (or repeated).
    pub truncated: bool,
}

/// The state after the mover goes to `to`.
fn after(state: CopThiefQuery, to: Cell) -> CopThiefQuery {
    if state.cop_to_move {
        CopThiefQuery {
            cop: to,
            thief: state.thief,
            cop_to_move: false,
        }
    } else {
        CopThiefQuery {
            cop: state.cop,
            thief: to,
            cop_to_move: true,
        }
    }
}

impl CopThiefSolution {
    /// Every move of the side to move in `state`, best first; empty for a finished game (same
    /// cell, or the thief on the exit) and for a state off the grid.
    ///
    /// # Example
    /// ```
    /// use orbit_worker::SolveContext;
    /// use orbit_worker::cop_thief::{CopThiefQuery, CopThiefValue, parse_grid_text, solve_cop_thief};
    ///
    /// let grid = parse_grid_text("1 3\nC.T\n").unwrap();
    /// let s = solve_cop_thief(&grid, 1, &SolveContext::detached()).unwrap();
    /// let start = CopThiefQuery { cop: (0, 0), thief: (0, 2), cop_to_move: true };
    /// let moves = s.moves(start);
    /// // Stepping next to the thief wins in 2 more half-moves; staying lets him wait.
    /// assert_eq!(moves[0].to, (0, 1));
    /// assert_eq!(moves[0].value, CopThiefValue::Cop(2));
    /// assert_eq!(moves.len(), 2);
    /// ```
    pub fn moves(&self, state: CopThiefQuery) -> Vec<CopThiefMove> {
        let mut moves: Vec<(CopThiefMove, (u8, i64, Cell))> = self
            .targets(state)
            .into_iter()
            .filter_map(|to| {
                let next = after(state, to);
                let value = self.outcome(next.cop, next.thief, next.cop_to_move)?;
                let (outcome, depth) =
                    self.mover_outcome(next.cop, next.thief, next.cop_to_move)?;
                Some((CopThiefMove { to, value }, rank(outcome, depth, to)))
            })
            .collect();
        moves.sort_unstable_by_key(|&(_, key)| key);
        moves.into_iter().map(|(m, _)| m).collect()
    }

    /// The principal variation from `state`, at most `max_line` half-moves.
    ///
    /// # Example
    /// ```
    /// use orbit_worker::SolveContext;
    /// use orbit_worker::cop_thief::{CopThiefQuery, parse_grid_text, solve_cop_thief};
    ///
    /// let grid = parse_grid_text("1 3\nC.T\n").unwrap();
    /// let s = solve_cop_thief(&grid, 1, &SolveContext::detached()).unwrap();
    /// let start = CopThiefQuery { cop: (0, 0), thief: (0, 2), cop_to_move: true };
    /// let line = s.line(start, 100);
    /// // Cop steps in, the thief waits (or steps in: both lose in 1), the cop takes him.
    /// assert_eq!(line.states.len(), 3);
    /// assert_eq!(line.states[2].cop, line.states[2].thief);
    /// ```
    pub fn line(&self, state: CopThiefQuery, max_line: u64) -> CopThiefLine {
        let mut line = CopThiefLine::default();
        let drawn =
            self.outcome(state.cop, state.thief, state.cop_to_move) == Some(CopThiefValue::Draw);
        let mut seen = HashSet::new();
        if drawn {
            seen.insert(state);
        }
        let mut at = state;
        while let Some(best) = self.moves(at).first() {
            if line.states.len() as u64 >= max_line {
                line.truncated = true;
                break;
            }
            let next = after(at, best.to);
            line.states.push(next);
            if drawn && !seen.insert(next) {
                break;
            }
            at = next;
        }
        line
    }

    /// The cells the side to move may go to (its own included), in no particular order; none
    /// for a finished game.
    fn targets(&self, state: CopThiefQuery) -> Vec<Cell> {
        let b = &self.board;
        let (Some(c), Some(t)) = (b.id_of(state.cop), b.id_of(state.thief)) else {
            return Vec::new();
        };
        if c == t || b.exit == Some(t as u32) {
            return Vec::new();
        }
        let ids = if state.cop_to_move {
            b.cop_moves(c)
        } else {
            b.thief_moves(t)
        };
        ids.iter().map(|&id| b.cell[id as usize]).collect()
    }
}

/// The sort key of a move for the mover, from the value of the state it leads to for the
/// player to move there: smaller is better.
fn rank(outcome: Outcome, depth: Option<u32>, to: Cell) -> (u8, i64, Cell) {
    let depth = i64::from(depth.unwrap_or(0));
    match outcome {
        Outcome::Lose => (0, depth, to),
        Outcome::Draw => (1, 0, to),
        Outcome::Win => (2, -depth, to),
    }
}
