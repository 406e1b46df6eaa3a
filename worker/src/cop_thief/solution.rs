//! The solved game decoded: the value of a state (who wins and in how many half-moves), the
//! mover's best move, and the states a job asks about ([`CopThiefQuery`]).

use std::fmt;
use std::sync::atomic::{AtomicU16, AtomicU32};

use super::board::Board;
use super::grid::Cell;
use super::word::{Word, Words};
use crate::game::retrograde::Outcome;

/// The value of a state, as the CLI prints it: who wins and in how many half-moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopThiefValue {
    /// The policeman wins in this many half-moves with optimal play.
    Cop(u32),
    /// The thief wins in this many half-moves with optimal play.
    Thief(u32),
    /// Neither can force a win.
    Draw,
}

impl fmt::Display for CopThiefValue {
    /// `cop N`, `thief N` or `draw`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CopThiefValue::Cop(n) => write!(f, "cop {n}"),
            CopThiefValue::Thief(n) => write!(f, "thief {n}"),
            CopThiefValue::Draw => f.write_str("draw"),
        }
    }
}

/// The solved game: the value of every state and an optimal move from it. Query it with
/// [`outcome`](Self::outcome) and [`best_move`](Self::best_move).
pub struct CopThiefSolution {
    pub(super) board: Board,
    pub(super) words: Words,
    pub(super) start: (usize, usize),
    pub(super) levels: u32,
    pub(super) resolved: u64,
}

impl fmt::Debug for CopThiefSolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CopThiefSolution")
            .field("free_cells", &self.board.free)
            .field("states", &self.states())
            .field("resolved", &self.resolved)
            .field("levels", &self.levels)
            .field("start", &self.start_value())
            .finish()
    }
}

/// Decoded state word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decoded {
    Win(u32),
    Lose(u32),
    Draw,
}

impl CopThiefSolution {
    fn decode(&self, s: usize) -> Decoded {
        fn dec<W: Word>(w: u32) -> Decoded {
            if w & W::RESOLVED == 0 {
                Decoded::Draw
            } else if w & W::WIN != 0 {
                Decoded::Win(w & W::MAX_DEPTH)
            } else {
                Decoded::Lose(w & W::MAX_DEPTH)
            }
        }
        match &self.words {
            Words::Narrow(v) => dec::<AtomicU16>(v[s].get()),
            Words::Wide(v) => dec::<AtomicU32>(v[s].get()),
        }
    }

    fn absolute(plane: usize, d: Decoded) -> CopThiefValue {
        match (d, plane == 0) {
            (Decoded::Win(n), true) | (Decoded::Lose(n), false) => CopThiefValue::Cop(n),
            (Decoded::Win(n), false) | (Decoded::Lose(n), true) => CopThiefValue::Thief(n),
            (Decoded::Draw, _) => CopThiefValue::Draw,
        }
    }

    /// The value of the starting position (policeman to move): the CLI's answer line.
    pub fn start_value(&self) -> CopThiefValue {
        let (c, t) = self.start;
        Self::absolute(0, self.decode(self.board.index(0, c, t)))
    }

    /// The value of any state, or `None` if a cell is a wall or off the grid.
    ///
    /// # Arguments
    /// * `cop`, `thief` — the two cells, `(row, column)`.
    /// * `cop_to_move` — whose turn it is.
    ///
    /// # Example
    /// ```
    /// use orbit_worker::SolveContext;
    /// use orbit_worker::cop_thief::{CopThiefValue, parse_grid_text, solve_cop_thief};
    ///
    /// let grid = parse_grid_text("1 3\nC.T\n").unwrap();
    /// let s = solve_cop_thief(&grid, 1, &SolveContext::detached()).unwrap();
    /// // The thief is cornered: cop steps next to him, he must stay or walk in, cop takes him.
    /// assert_eq!(s.start_value(), CopThiefValue::Cop(3));
    /// assert_eq!(s.outcome((0, 1), (0, 2), true), Some(CopThiefValue::Cop(1)));
    /// assert_eq!(s.outcome((0, 0), (0, 0), false), Some(CopThiefValue::Cop(0)));
    /// assert_eq!(s.best_move((0, 0), (0, 2), true), Some((0, 1)));
    /// ```
    pub fn outcome(&self, cop: Cell, thief: Cell, cop_to_move: bool) -> Option<CopThiefValue> {
        let (c, t) = (self.board.id_of(cop)?, self.board.id_of(thief)?);
        let plane = usize::from(!cop_to_move);
        Some(Self::absolute(
            plane,
            self.decode(self.board.index(plane, c, t)),
        ))
    }

    /// The outcome for the player to move and the depth (`None` for a draw), or `None` if a cell
    /// is a wall or off the grid.
    pub fn mover_outcome(
        &self,
        cop: Cell,
        thief: Cell,
        cop_to_move: bool,
    ) -> Option<(Outcome, Option<u32>)> {
        let (c, t) = (self.board.id_of(cop)?, self.board.id_of(thief)?);
        let plane = usize::from(!cop_to_move);
        Some(match self.decode(self.board.index(plane, c, t)) {
            Decoded::Win(d) => (Outcome::Win, Some(d)),
            Decoded::Lose(d) => (Outcome::Lose, Some(d)),
            Decoded::Draw => (Outcome::Draw, None),
        })
    }

    /// An optimal move of the player to move: the cell he moves to (his own cell when staying is
    /// best). For a won state a move to a lost state one half-move nearer the end; for a lost
    /// state the longest resistance; for a drawn state a move keeping the draw. `None` for a
    /// finished game (same cell, or the thief on the exit) and for walls or cells off the grid.
    pub fn best_move(&self, cop: Cell, thief: Cell, cop_to_move: bool) -> Option<Cell> {
        let (c, t) = (self.board.id_of(cop)?, self.board.id_of(thief)?);
        let b = &self.board;
        if c == t || b.exit == Some(t as u32) {
            return None;
        }
        let plane = usize::from(!cop_to_move);
        let here = self.decode(b.index(plane, c, t));
        let candidates: Vec<(u32, usize)> = if cop_to_move {
            b.cop_moves(c)
                .iter()
                .map(|&c2| (c2, b.index(1, c2 as usize, t)))
                .collect()
        } else {
            b.thief_moves(t)
                .iter()
                .map(|&t2| (t2, b.index(0, c, t2 as usize)))
                .collect()
        };
        let pick = candidates.iter().find(|&&(_, s)| {
            let next = self.decode(s);
            match here {
                Decoded::Win(d) => next == Decoded::Lose(d - 1),
                Decoded::Lose(d) => next == Decoded::Win(d - 1),
                Decoded::Draw => next == Decoded::Draw,
            }
        });
        pick.map(|&(to, _)| b.cell[to as usize])
    }

    /// Number of states `2 F²`.
    pub fn states(&self) -> u64 {
        2 * (self.board.free as u64) * (self.board.free as u64)
    }

    /// Number of states won by one side (the rest are draws).
    pub fn resolved(&self) -> u64 {
        self.resolved
    }

    /// Number of retrograde levels: one more than the largest depth.
    pub fn levels(&self) -> u32 {
        self.levels
    }
}

/// A policeman-and-thief state to report: the policeman's and the thief's cells, and whether the
/// policeman moves next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CopThiefQuery {
    /// The policeman's cell.
    pub cop: Cell,
    /// The thief's cell.
    pub thief: Cell,
    /// Whether the policeman moves next.
    pub cop_to_move: bool,
}
