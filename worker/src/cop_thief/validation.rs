//! The limits a policeman-and-thief job is checked against before anything is allocated: the
//! state count ([`validate_cop_thief`]) and the bytes the solver will hold ([`memory_estimate`]).

use super::grid::Grid;
use super::word::NARROW_MAX_DEPTH;
use crate::error::SolveError;
use crate::limits::Limits;
use crate::memory::{SMALL_ALLOCATIONS, grown_vec_bytes};

/// Checks the grid's state count `2 F²` against `limits.max_states` before anything is allocated.
///
/// # Arguments
/// * `grid` — the grid.
/// * `limits` — `max_states` bounds `2 F²` (`F` free cells).
///
/// # Returns
/// `Ok(())` or [`SolveError::LimitExceeded`].
///
/// # Complexity
/// `O(cells)`.
///
/// # Example
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::cop_thief::{Grid, validate_cop_thief};
///
/// let g = Grid::from_rows(&["C..", "..T"]).unwrap();
/// let small = Limits { max_states: 50, ..Limits::default() };
/// assert_eq!(
///     validate_cop_thief(&g, &small).unwrap_err().to_string(),
///     "cop_thief states (2 x 6^2 = 72) exceeds the limit of 50"
/// );
/// ```
pub fn validate_cop_thief(grid: &Grid, limits: &Limits) -> Result<(), SolveError> {
    let states = grid.states();
    if states > limits.max_states {
        return Err(SolveError::limit(
            format!("cop_thief states (2 x {}^2 = {states})", grid.free_cells()),
            "max_states",
            limits.max_states,
        )
        .requested(states));
    }
    Ok(())
}

/// Upper bound on the bytes [`solve_cop_thief`](super::solve_cop_thief) allocates for `grid`, the
/// solution included (a job's queried states are added by [`CopThiefJob`](super::CopThiefJob)).
///
/// With `F` free cells, `R x C` cells and rows padded to `S = 64 ⌈F / 64⌉` states, there are
/// `2 F S` state slots:
/// * the board: a free-cell number per cell (`4RC`), the cell of each free cell (a vector grown
///   by `push`, at most `16 (2F + 4)`), the policeman's and thief's move lists and lengths
///   (`36F + F + 20F + F`);
/// * the propagation: one word per slot (2 bytes, or 4 for games deeper than 16,383 half-moves),
///   two level bitmaps (1 bit per slot each) and two row flags per row (`2 · 2F` bytes). A game
///   can only be that deep when it has more states than levels, i.e. `2F² > 16,383`; then the
///   solver may restart with 4-byte words after dropping the 2-byte ones, so the bound takes the
///   4-byte words (about twice what most grids use: the 100 x 100 open grid needs 2 bytes per slot
///   but is estimated at 4).
///
/// Plus [`SMALL_ALLOCATIONS`] (thread handles, the per-query move candidates).
///
/// # Example
/// ```
/// use orbit_worker::cop_thief::{self, Grid};
/// // The 100 x 100 open grid of the scale benchmark: 815 MiB (it allocates about 431 MiB).
/// let mut rows = vec![".".repeat(100); 100];
/// rows[0].replace_range(0..1, "C");
/// rows[99].replace_range(99..100, "T");
/// let grid = Grid::from_rows(&rows).unwrap();
/// assert_eq!(cop_thief::memory_estimate(&grid) >> 20, 815);
/// ```
pub fn memory_estimate(grid: &Grid) -> u64 {
    let f = grid.free_cells() as u64;
    let cells = (grid.rows as u64).saturating_mul(grid.cols as u64);
    let board = cells
        .saturating_mul(4)
        .saturating_add(grown_vec_bytes(f, 16))
        .saturating_add(f.saturating_mul(58));
    let stride = f.div_ceil(64).saturating_mul(64);
    let slots = f.saturating_mul(2).saturating_mul(stride);
    let may_be_deep = f.saturating_mul(f).saturating_mul(2) > u64::from(NARROW_MAX_DEPTH);
    let word_bytes = if may_be_deep { 4 } else { 2 };
    let propagation = slots
        .saturating_mul(word_bytes)
        .saturating_add(slots / 4)
        .saturating_add(f.saturating_mul(4));
    board
        .saturating_add(propagation)
        .saturating_add(SMALL_ALLOCATIONS)
}
