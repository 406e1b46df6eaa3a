//! The board: the grid reduced to what the solver needs — free cells numbered row-major, each
//! with the policeman's (king) and the thief's (rook step) move lists — and the indexing of the
//! states `(policeman, thief, whose turn)`.

use super::grid::{Cell, Grid};
use super::word::Word;

/// The grid reduced to what the solver needs: free cells numbered `0..F` row-major, each with its
/// move list (itself first, then neighbours).
#[derive(Debug, Clone)]
pub(super) struct Board {
    pub(super) rows: usize,
    pub(super) cols: usize,
    /// Free-cell number of each grid cell, `u32::MAX` for walls.
    pub(super) id: Vec<u32>,
    /// Grid cell of each free-cell number.
    pub(super) cell: Vec<Cell>,
    pub(super) cop_moves: Vec<[u32; 9]>,
    pub(super) cop_len: Vec<u8>,
    pub(super) thief_moves: Vec<[u32; 5]>,
    pub(super) thief_len: Vec<u8>,
    pub(super) exit: Option<u32>,
    /// `F` and the row stride `F` rounded up to a multiple of 64 (bitmap rows are word-aligned).
    pub(super) free: usize,
    pub(super) stride: usize,
    /// Largest difference between the free-cell numbers of a cell and a neighbour.
    pub(super) halo: usize,
}

const KING: [(isize, isize); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
const ROOK: [(isize, isize); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];

impl Board {
    pub(super) fn new(grid: &Grid) -> Board {
        let (rows, cols) = (grid.rows, grid.cols);
        let mut id = vec![u32::MAX; rows * cols];
        let mut cell = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                if !grid.wall[r * cols + c] {
                    id[r * cols + c] = cell.len() as u32;
                    cell.push((r, c));
                }
            }
        }
        let step = |(r, c): Cell, (dr, dc): (isize, isize)| -> Option<u32> {
            let r = r.checked_add_signed(dr).filter(|&r| r < rows)?;
            let c = c.checked_add_signed(dc).filter(|&c| c < cols)?;
            Some(id[r * cols + c]).filter(|&i| i != u32::MAX)
        };
        let mut cop_moves = Vec::with_capacity(cell.len());
        let mut cop_len = Vec::with_capacity(cell.len());
        let mut thief_moves = Vec::with_capacity(cell.len());
        let mut thief_len = Vec::with_capacity(cell.len());
        for (i, &at) in cell.iter().enumerate() {
            let mut k = [i as u32; 9];
            let mut len = 1;
            for d in KING {
                if let Some(j) = step(at, d) {
                    k[len] = j;
                    len += 1;
                }
            }
            cop_moves.push(k);
            cop_len.push(len as u8);
            let mut k = [i as u32; 5];
            let mut len = 1;
            for d in ROOK {
                if let Some(j) = step(at, d) {
                    k[len] = j;
                    len += 1;
                }
            }
            thief_moves.push(k);
            thief_len.push(len as u8);
        }
        let free = cell.len();
        let exit = grid.exit.map(|(r, c)| id[r * cols + c]);
        let halo = cop_moves
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.iter().map(move |&j| (j as usize).abs_diff(i)))
            .max()
            .unwrap_or(0);
        Board {
            rows,
            cols,
            id,
            cell,
            cop_moves,
            cop_len,
            thief_moves,
            thief_len,
            exit,
            free,
            stride: free.div_ceil(64) * 64,
            halo,
        }
    }

    // `#[inline]` on the small accessors the solver's inner loops call: they sat in the solver's
    // module (and codegen unit) before the split.
    #[inline]
    pub(super) fn cop_moves(&self, c: usize) -> &[u32] {
        &self.cop_moves[c][..usize::from(self.cop_len[c])]
    }

    #[inline]
    pub(super) fn thief_moves(&self, t: usize) -> &[u32] {
        &self.thief_moves[t][..usize::from(self.thief_len[t])]
    }

    /// Free-cell number of a grid cell, if free.
    pub(super) fn id_of(&self, (r, c): Cell) -> Option<usize> {
        if r < self.rows && c < self.cols {
            let i = self.id[r * self.cols + c];
            (i != u32::MAX).then_some(i as usize)
        } else {
            None
        }
    }

    /// Index of state (cop, thief, plane): plane 0 = policeman to move, 1 = thief to move.
    /// Bitmap row `plane * F + cop` holds the thief positions. Processing a row of plane 1 in
    /// order touches the predecessors in plane 0 as up to 9 sequential streams (one per cop move);
    /// the predecessors of a plane-0 state share its row.
    #[inline]
    pub(super) fn index(&self, plane: usize, cop: usize, thief: usize) -> usize {
        (plane * self.free + cop) * self.stride + thief
    }

    /// Total words (including the padding of each row).
    pub(super) fn slots(&self) -> usize {
        2 * self.free * self.stride
    }

    /// Initial word of a state: resolved terminals, or the mover's move count.
    pub(super) fn initial<W: Word>(&self, plane: usize, cop: usize, thief: usize) -> u32 {
        let cop_wins = cop == thief;
        let thief_wins = !cop_wins && self.exit == Some(thief as u32);
        if cop_wins || thief_wins {
            let mover_wins = (plane == 0) == cop_wins;
            W::RESOLVED | if mover_wins { W::WIN } else { 0 }
        } else if plane == 0 {
            u32::from(self.cop_len[cop])
        } else {
            u32::from(self.thief_len[thief])
        }
    }
}
