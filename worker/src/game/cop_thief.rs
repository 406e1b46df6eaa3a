//! The policeman-and-thief game on a grid, solved exactly by retrograde analysis over the implicit
//! state graph.
//!
//! # Rules (seed 000, "Полицейский и вор")
//! A grid of `.` free cells, `*` walls, `C` the policeman's start, `T` the thief's start and at
//! most one `E` exit (all but walls are free). A state is (policeman's cell, thief's cell, whose
//! turn); the policeman moves first. The policeman moves to one of the 8 neighbouring free cells
//! or stays; the thief moves to one of the 4 orthogonally neighbouring free cells or stays. The
//! policeman wins when both stand on one cell; the thief wins when he stands on the exit and the
//! policeman is not there; a game that never ends is a draw. Depths count half-moves (both sides'
//! moves), the winner hurrying and the loser delaying.
//!
//! # Method
//! The state graph is never stored. Every state has one *word* (`u16`, or `u32` when a game is
//! deeper than 16,383 half-moves): before it is resolved the word holds the number of the mover's
//! moves not yet refuted; afterwards a resolved flag, whether the mover wins, and the depth.
//! Predecessors are generated from the grid on the fly (a cop-to-move state's predecessors are
//! the thief's moves that led to it, and vice versa). The analysis runs level by level: level `d`
//! is the set of states of depth `d`, kept as a bitmap, so states are visited in index order
//! (cache-friendly) and no queue is stored. Level `d + 1` is produced from level `d` by one or more
//! threads working on disjoint *superblocks* of rows in two phases, largest first (see `Shared`),
//! so that no two threads ever write the same word and plain loads and stores suffice, and no
//! thread is left alone with a big superblock at the end of a phase. Memory: 2 bytes per state
//! plus 2 bits of bitmap, `2 F²` states for `F` free cells (rows padded to a multiple of 64).
//!
//! # Reference
//! Seed 000, "Игры на произвольных графах" and "Полицейский и вор"; the notes' "Games on graphs".

use std::fmt;

use bytemuck::Zeroable;
use bytemuck::allocation::zeroed_vec;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::game::retrograde::Outcome;
use crate::limits::Limits;
use crate::memory::{SMALL_ALLOCATIONS, grown_vec_bytes};

/// A grid cell as `(row, column)`, 0-based.
pub type Cell = (usize, usize);

/// A parsed policeman-and-thief grid. Build it with [`parse_grid_text`] or [`Grid::from_rows`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    rows: usize,
    cols: usize,
    /// `true` for a wall, row-major.
    wall: Vec<bool>,
    cop: Cell,
    thief: Cell,
    exit: Option<Cell>,
}

impl Grid {
    /// Builds a grid from its rows (`.`, `*`, `C`, `T`, `E`); errors name the row as
    /// `grid.rows[i]`.
    ///
    /// # Arguments
    /// * `rows` — the grid's rows, top first, all of the same length.
    ///
    /// # Returns
    /// The grid, or [`SolveError::InvalidArgument`]: no rows, ragged rows, an unknown character,
    /// a missing or repeated `C` or `T`, a second `E`.
    ///
    /// # Complexity
    /// `O(cells)`.
    ///
    /// # Example
    /// ```
    /// use orbit_worker::game::Grid;
    ///
    /// let g = Grid::from_rows(&["C.*", "..T"]).unwrap();
    /// assert_eq!((g.rows(), g.cols(), g.free_cells()), (2, 3, 5));
    /// assert_eq!(g.cop(), (0, 0));
    /// let err = Grid::from_rows(&["C.", "T"]).unwrap_err();
    /// assert_eq!(err.to_string(), "grid.rows[1]: row has 1 characters, expected 2");
    /// ```
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Grid, SolveError> {
        let cols = rows.first().map_or(0, |r| r.as_ref().chars().count());
        build_grid(
            rows.iter()
                .enumerate()
                .map(|(i, r)| (format!("grid.rows[{i}]"), r.as_ref())),
            cols,
            rows.len(),
            "grid.rows",
        )
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The policeman's starting cell.
    pub fn cop(&self) -> Cell {
        self.cop
    }

    /// The thief's starting cell.
    pub fn thief(&self) -> Cell {
        self.thief
    }

    /// The exit, if any.
    pub fn exit(&self) -> Option<Cell> {
        self.exit
    }

    /// Whether `cell` is inside the grid and not a wall.
    pub fn is_free(&self, cell: Cell) -> bool {
        cell.0 < self.rows && cell.1 < self.cols && !self.wall[cell.0 * self.cols + cell.1]
    }

    /// The grid as rows of `. * C T E`, top first: what [`Grid::from_rows`] accepts (for sending a
    /// parsed grid on, e.g. in a protobuf job).
    ///
    /// # Example
    /// ```
    /// use orbit_worker::game::{Grid, parse_grid_text};
    ///
    /// let g = parse_grid_text("\n2 3\nC.*\n.ET\n").unwrap();
    /// assert_eq!(g.row_strings(), ["C.*", ".ET"]);
    /// assert_eq!(Grid::from_rows(&g.row_strings()).unwrap(), g);
    /// ```
    pub fn row_strings(&self) -> Vec<String> {
        (0..self.rows)
            .map(|r| {
                (0..self.cols)
                    .map(|c| match (r, c) {
                        p if p == self.cop => 'C',
                        p if p == self.thief => 'T',
                        p if Some(p) == self.exit => 'E',
                        _ if self.wall[r * self.cols + c] => '*',
                        _ => '.',
                    })
                    .collect()
            })
            .collect()
    }

    /// Number of free (non-wall) cells `F`.
    pub fn free_cells(&self) -> usize {
        self.wall.iter().filter(|&&w| !w).count()
    }

    /// Number of game states, `2 F²`.
    pub fn states(&self) -> u64 {
        let f = self.free_cells() as u64;
        2 * f * f
    }
}

/// Shared by [`Grid::from_rows`] and [`parse_grid_text`]: `rows` yields (field name, row text).
fn build_grid<'a>(
    rows: impl Iterator<Item = (String, &'a str)>,
    cols: usize,
    expected_rows: usize,
    whole: &str,
) -> Result<Grid, SolveError> {
    if expected_rows == 0 || cols == 0 {
        return Err(SolveError::invalid(whole, "the grid is empty"));
    }
    let mut wall = Vec::with_capacity(expected_rows.saturating_mul(cols).min(1 << 24));
    let mut cop: Option<(Cell, String)> = None;
    let mut thief: Option<(Cell, String)> = None;
    let mut exit: Option<(Cell, String)> = None;
    let mut n = 0usize;
    for (r, (field, text)) in rows.enumerate() {
        n += 1;
        let len = text.chars().count();
        if len != cols {
            return Err(SolveError::invalid(
                field,
                format!("row has {len} characters, expected {cols}"),
            ));
        }
        for (c, ch) in text.chars().enumerate() {
            let slot = match ch {
                '.' => None,
                '*' => None,
                'C' => Some((&mut cop, "policeman `C`")),
                'T' => Some((&mut thief, "thief `T`")),
                'E' => Some((&mut exit, "exit `E`")),
                other => {
                    return Err(SolveError::invalid(
                        field,
                        format!(
                            "unknown character {other:?} in column {} (expected one of . * C T E)",
                            c + 1
                        ),
                    ));
                }
            };
            if let Some((slot, name)) = slot {
                if let Some((_, first)) = slot {
                    return Err(SolveError::invalid(
                        field,
                        format!(
                            "a second {name} in column {} (the first is in {first})",
                            c + 1
                        ),
                    ));
                }
                *slot = Some(((r, c), field.clone()));
            }
            wall.push(ch == '*');
        }
    }
    if n != expected_rows {
        return Err(SolveError::invalid(
            whole,
            format!("{n} rows, expected {expected_rows}"),
        ));
    }
    let Some((cop, _)) = cop else {
        return Err(SolveError::invalid(whole, "no policeman `C` on the grid"));
    };
    let Some((thief, _)) = thief else {
        return Err(SolveError::invalid(whole, "no thief `T` on the grid"));
    };
    Ok(Grid {
        rows: expected_rows,
        cols,
        wall,
        cop,
        thief,
        exit: exit.map(|(e, _)| e),
    })
}

/// Parses the CLI text format: a first line `n m`, then `n` rows of `m` characters from
/// `. * C T E`. Blank lines are ignored; trailing whitespace on a row is ignored.
///
/// # Arguments
/// * `text` — the whole input.
///
/// # Returns
/// The grid, or [`SolveError::InvalidArgument`] whose field names the line (`line 3: row has 4
/// characters, expected 5`): a bad header, a ragged row, an unknown character, a missing `C` or
/// `T`, a second `C`, `T` or `E`, too few or too many rows.
///
/// # Complexity
/// `O(length of text)`.
///
/// # Example
/// ```
/// use orbit_worker::game::parse_grid_text;
///
/// let g = parse_grid_text("2 3\nC.E\n*.T\n").unwrap();
/// assert_eq!(g.exit(), Some((0, 2)));
/// let err = parse_grid_text("2 3\nC.E\n*.E\n").unwrap_err();
/// assert_eq!(err.to_string(), "line 3: a second exit `E` in column 3 (the first is in line 2)");
/// ```
pub fn parse_grid_text(text: &str) -> Result<Grid, SolveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end()))
        .filter(|(_, l)| !l.trim_start().is_empty());
    let Some((hline, header)) = lines.next() else {
        return Err(SolveError::invalid(
            "line 1",
            "empty input: expected a first line `n m`",
        ));
    };
    let mut tokens = header.split_ascii_whitespace();
    let mut dims = [0usize; 2];
    for slot in &mut dims {
        let tok = tokens.next().ok_or_else(|| {
            SolveError::invalid(format!("line {hline}"), "too few numbers (expected `n m`)")
        })?;
        *slot = tok.parse::<usize>().map_err(|_| {
            SolveError::invalid(
                format!("line {hline}"),
                format!("`{tok}` is not a non-negative integer (expected `n m`)"),
            )
        })?;
    }
    if let Some(tok) = tokens.next() {
        return Err(SolveError::invalid(
            format!("line {hline}"),
            format!("unexpected `{tok}` after two numbers (expected `n m`)"),
        ));
    }
    let [n, m] = dims;
    if n == 0 || m == 0 {
        return Err(SolveError::invalid(
            format!("line {hline}"),
            format!("a {n} x {m} grid has no cells"),
        ));
    }
    let body: Vec<(usize, &str)> = lines.collect();
    if body.len() > n {
        return Err(SolveError::invalid(
            format!("line {}", body[n].0),
            format!("more rows than the {n} announced on line {hline}"),
        ));
    }
    if body.len() < n {
        let next = body.last().map_or(hline, |&(l, _)| l) + 1;
        return Err(SolveError::invalid(
            format!("line {next}"),
            format!(
                "end of input after {} rows; line {hline} announced {n}",
                body.len()
            ),
        ));
    }
    let grid = build_grid(
        body.iter().map(|&(l, r)| (format!("line {l}"), r)),
        m,
        n,
        "grid",
    );
    grid.map_err(|e| match e {
        // Name the missing piece's absence against the whole input.
        SolveError::InvalidArgument { field, reason } if field == "grid" => {
            SolveError::invalid(format!("lines {}-{}", hline, body[n - 1].0), reason)
        }
        other => other,
    })
}

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
/// use orbit_worker::game::{Grid, validate_cop_thief};
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
            limits.max_states,
        ));
    }
    Ok(())
}

/// Upper bound on the bytes [`solve_cop_thief`] allocates for `grid` (the solution included; a
/// job's queried states are added by its kind, `CopThiefJob`).
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
/// use orbit_worker::game::{Grid, cop_thief};
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

/// A state word: `u16` normally, `u32` for games deeper than the `u16` encoding holds.
///
/// Encoding: below `RESOLVED` the word is the number of the mover's moves not yet refuted;
/// from `RESOLVED` up: `RESOLVED | (WIN if the mover wins) | depth`.
trait Word: Send + Sync + Sized + Zeroable {
    const BITS: u32;
    const RESOLVED: u32 = 1 << (Self::BITS - 1);
    const WIN: u32 = 1 << (Self::BITS - 2);
    const MAX_DEPTH: u32 = Self::WIN - 1;
    fn get(&self) -> u32;
    fn set(&self, v: u32);
}

impl Word for AtomicU16 {
    const BITS: u32 = 16;
    #[inline]
    fn get(&self) -> u32 {
        u32::from(self.load(Ordering::Relaxed))
    }
    #[inline]
    fn set(&self, v: u32) {
        self.store(v as u16, Ordering::Relaxed)
    }
}

impl Word for AtomicU32 {
    const BITS: u32 = 32;
    #[inline]
    fn get(&self) -> u32 {
        self.load(Ordering::Relaxed)
    }
    #[inline]
    fn set(&self, v: u32) {
        self.store(v, Ordering::Relaxed)
    }
}

/// The grid reduced to what the solver needs: free cells numbered `0..F` row-major, each with its
/// move list (itself first, then neighbours).
#[derive(Debug, Clone)]
struct Board {
    rows: usize,
    cols: usize,
    /// Free-cell number of each grid cell, `u32::MAX` for walls.
    id: Vec<u32>,
    /// Grid cell of each free-cell number.
    cell: Vec<Cell>,
    cop_moves: Vec<[u32; 9]>,
    cop_len: Vec<u8>,
    thief_moves: Vec<[u32; 5]>,
    thief_len: Vec<u8>,
    exit: Option<u32>,
    /// `F` and the row stride `F` rounded up to a multiple of 64 (bitmap rows are word-aligned).
    free: usize,
    stride: usize,
    /// Largest difference between the free-cell numbers of a cell and a neighbour.
    halo: usize,
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
    fn new(grid: &Grid) -> Board {
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

    fn cop_moves(&self, c: usize) -> &[u32] {
        &self.cop_moves[c][..usize::from(self.cop_len[c])]
    }

    fn thief_moves(&self, t: usize) -> &[u32] {
        &self.thief_moves[t][..usize::from(self.thief_len[t])]
    }

    /// Free-cell number of a grid cell, if free.
    fn id_of(&self, (r, c): Cell) -> Option<usize> {
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
    fn index(&self, plane: usize, cop: usize, thief: usize) -> usize {
        (plane * self.free + cop) * self.stride + thief
    }

    /// Total words (including the padding of each row).
    fn slots(&self) -> usize {
        2 * self.free * self.stride
    }

    /// Initial word of a state: resolved terminals, or the mover's move count.
    fn initial<W: Word>(&self, plane: usize, cop: usize, thief: usize) -> u32 {
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

/// How deep the `u16` encoding may go before the solver switches to `u32` words.
const NARROW_MAX_DEPTH: u32 = <AtomicU16 as Word>::MAX_DEPTH;

/// Rows of a superblock between two cancellation checks.
const ROWS_PER_CHECK: usize = 64;

/// Levels with fewer states are processed by one thread (the others wait at the barrier).
const SOLO_LEVEL: u64 = 1 << 12;

/// Superblocks are handed out largest first only up to this many (each hand-out looks at all of
/// a phase's); beyond it (long thin grids) in index order.
const LARGEST_FIRST_MAX_SUPERBLOCKS: usize = 128;

enum Words {
    Narrow(Vec<AtomicU16>),
    Wide(Vec<AtomicU32>),
}

/// The solved game: the value of every state and an optimal move from it. Query it with
/// [`outcome`](Self::outcome) and [`best_move`](Self::best_move).
pub struct CopThiefSolution {
    board: Board,
    words: Words,
    start: (usize, usize),
    levels: u32,
    resolved: u64,
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
    /// use orbit_worker::game::{CopThiefValue, parse_grid_text, solve_cop_thief};
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

/// Solves the policeman-and-thief game for every state of the grid.
///
/// # Arguments
/// * `grid` — the grid; check its size with [`validate_cop_thief`] first.
/// * `threads` — worker threads for the level-synchronous propagation (`0` counts as `1`); small
///   levels always run on the calling thread.
/// * `ctx` — polled for cancellation every few rows (within a millisecond); receives progress as
///   the fraction of states resolved.
///
/// # Returns
/// A [`CopThiefSolution`], or [`SolveError::Cancelled`], or [`SolveError::LimitExceeded`] if the
/// states do not fit in memory addressing.
///
/// # Complexity
/// `O(S · 9)` time for `S = 2 F²` states (each resolved state generates at most 9 predecessors)
/// plus `O(S / 64)` per level for the bitmap scan; memory 2 bytes per state (4 for games deeper
/// than 16,383 half-moves) plus 2 bits per state of bitmaps.
///
/// # Example
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::game::{parse_grid_text, solve_cop_thief};
///
/// let grid = parse_grid_text("3 4\nC...\n.**.\n.ET.\n").unwrap();
/// let s = solve_cop_thief(&grid, 2, &SolveContext::detached()).unwrap();
/// // The policeman moves (1 half-move), then the thief steps onto the exit (2).
/// assert_eq!(s.start_value().to_string(), "thief 2");
/// ```
///
/// # Reference
/// Seed 000, "Полицейский и вор" (explicit graph, DFS); this is the same retrograde analysis with
/// implicit predecessors and breadth-first levels.
pub fn solve_cop_thief(
    grid: &Grid,
    threads: usize,
    ctx: &SolveContext,
) -> Result<CopThiefSolution, SolveError> {
    solve_with(grid, threads, ctx, Tuning::default())
}

/// Knobs for tests and benchmarks; not part of the stable API.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Deepest level the `u16` words may hold before the solver restarts with `u32` words.
    pub narrow_max_depth: u32,
    /// Use `u32` words from the start.
    pub wide: bool,
    /// Levels with fewer states run on one thread.
    pub solo_level: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            narrow_max_depth: NARROW_MAX_DEPTH,
            wide: false,
            solo_level: SOLO_LEVEL,
        }
    }
}

/// [`solve_cop_thief`] with [`Tuning`] knobs. Not part of the stable API.
#[doc(hidden)]
pub fn solve_cop_thief_tuned(
    grid: &Grid,
    threads: usize,
    ctx: &SolveContext,
    tuning: Tuning,
) -> Result<CopThiefSolution, SolveError> {
    solve_with(grid, threads, ctx, tuning)
}

fn solve_with(
    grid: &Grid,
    threads: usize,
    ctx: &SolveContext,
    tuning: Tuning,
) -> Result<CopThiefSolution, SolveError> {
    let board = Board::new(grid);
    if board.slots() as u64 >= 1 << 40 {
        return Err(SolveError::limit(
            format!("cop_thief states (2 x {}^2)", board.free),
            "2^40",
        ));
    }
    let threads = threads.max(1);
    let start = (
        board
            .id_of(grid.cop)
            .expect("the policeman stands on a free cell"),
        board
            .id_of(grid.thief)
            .expect("the thief stands on a free cell"),
    );
    if !tuning.wide {
        let max = tuning.narrow_max_depth.min(NARROW_MAX_DEPTH);
        if let Some((words, levels, resolved)) =
            propagate::<AtomicU16>(&board, threads, ctx, max, tuning.solo_level)?
        {
            return Ok(CopThiefSolution {
                board,
                words: Words::Narrow(words),
                start,
                levels,
                resolved,
            });
        }
    }
    let (words, levels, resolved) =
        propagate::<AtomicU32>(&board, threads, ctx, u32::MAX, tuning.solo_level)?.ok_or_else(
            || SolveError::limit("cop_thief game depth", <AtomicU32 as Word>::MAX_DEPTH),
        )?;
    Ok(CopThiefSolution {
        board,
        words: Words::Wide(words),
        start,
        levels,
        resolved,
    })
}

/// State shared by the threads of one propagation.
///
/// Work is split into *superblocks*: runs of `z` consecutive cop cells with all their bitmap rows
/// in both planes. Processing a superblock writes only the words and bitmap rows of its own cop
/// cells (predecessors by a thief move share the cop cell) and of cop cells at most `halo` away
/// (a cop move changes the free-cell number by at most `halo`), and `z >= 2 * halo`. So the
/// even-numbered superblocks can be processed concurrently with plain loads and stores (no two
/// write the same row), then, after a barrier, the odd ones. The states read but not written
/// (those of the current level) are never written during the level.
///
/// A level's work is far from even across superblocks (in the open grid's deep levels the two
/// superblocks along the top and bottom edges hold 15 times more states than the others, and
/// which two changes from level to level), so a phase hands out its superblocks largest first
/// (longest-processing-time order), by their exact number of states in the level, counted as the
/// previous level produced them: the big ones start at once on different threads and the small
/// ones fill in, instead of a big one coming last while the other threads wait at the barrier
/// (for levels split between threads, and up to [`LARGEST_FIRST_MAX_SUPERBLOCKS`]).
struct Shared<'a, W> {
    board: &'a Board,
    words: Vec<W>,
    /// Level bitmaps: level `d` is `maps[d % 2]`, level `d + 1` is built in the other.
    maps: [Vec<AtomicU64>; 2],
    /// Per bitmap row and level parity: whether the row has a state in that level, so sparse
    /// levels (deep games in mazes have thousands) skip empty rows without scanning them.
    live: [Vec<AtomicBool>; 2],
    /// Cells per superblock, and the number of superblocks.
    z: usize,
    superblocks: usize,
    /// States per superblock in level `d`: `states[d % 3]`, added to while level `d - 1` runs,
    /// read while level `d` runs, and reset by thread 0 during level `d + 2` (three buffers, so a
    /// reset never meets a reader or a writer).
    states: [Vec<AtomicU64>; 3],
    /// `d + 1` once a superblock has been taken by a thread in level `d`.
    taken: Vec<AtomicU32>,
    /// States resolved into the next level, per level parity.
    produced: [AtomicU64; 2],
    /// Initialisation: next row to fill, and the terminal states found.
    init_row: AtomicU64,
    terminals: AtomicU64,
    barrier: Barrier,
    /// Cancellation seen during initialisation; written only before the first barrier.
    init_cancelled: AtomicBool,
    /// Cancellation seen during a level, per level parity. Like `produced`, it is written during
    /// the level, read by every thread after the level's last barrier, and reset for the level
    /// after next in the middle of the next level, so all threads agree on when to stop (a
    /// thread that stopped on a flag set by a faster thread in the following level would leave
    /// the others waiting at a barrier).
    cancelled: [AtomicBool; 2],
    ctx: &'a SolveContext,
    max_depth: u32,
    /// Levels with fewer states are processed by thread 0 alone.
    solo_level: u64,
}

/// Level-by-level retrograde analysis on `threads` threads. `Ok(None)` when the game is deeper
/// than `max_depth` (the caller retries with wider words); otherwise the words, the number of
/// levels and the number of resolved states.
fn propagate<W: Word>(
    board: &Board,
    threads: usize,
    ctx: &SolveContext,
    max_depth: u32,
    solo_level: u64,
) -> Result<Option<(Vec<W>, u32, u64)>, SolveError> {
    let slots = board.slots();
    let bitmap_words = slots / 64;
    let z = (2 * board.halo).max(1);
    let superblocks = board.free.div_ceil(z);
    let threads = threads.min(superblocks.div_ceil(2)).max(1);
    // Zeroed allocations (`calloc`): the pages are mapped lazily and first touched by the threads
    // filling in the initial words, so the page faults are spread over the threads instead of a
    // serial `memset` (about 10% of a 2-thread run otherwise).
    let sh = Shared {
        board,
        words: zeroed_vec(slots),
        maps: [zeroed_vec(bitmap_words), zeroed_vec(bitmap_words)],
        live: [zeroed_vec(2 * board.free), zeroed_vec(2 * board.free)],
        z,
        superblocks,
        states: std::array::from_fn(|_| zeroed_vec(superblocks)),
        taken: zeroed_vec(superblocks),
        produced: Default::default(),
        init_row: AtomicU64::new(0),
        terminals: AtomicU64::new(0),
        barrier: Barrier::new(threads),
        init_cancelled: AtomicBool::new(false),
        cancelled: Default::default(),
        ctx,
        max_depth: max_depth.min(W::MAX_DEPTH),
        solo_level,
    };
    let outcome = std::thread::scope(|scope| {
        let sh = &sh;
        let handles: Vec<_> = (1..threads)
            .map(|me| scope.spawn(move || worker(sh, me)))
            .collect();
        let mine = worker(sh, 0);
        for h in handles {
            // Every worker returns the same verdict; a panic is passed on.
            let _ = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
        mine
    })?;
    Ok(outcome.map(|(levels, resolved)| (sh.words, levels, resolved)))
}

/// One thread's part: fill the initial words, then run the levels in lockstep with the others.
/// Returns `Ok(Some((levels, resolved)))`, `Ok(None)` on depth overflow, or `Cancelled`.
fn worker<W: Word>(sh: &Shared<'_, W>, me: usize) -> Result<Option<(u32, u64)>, SolveError> {
    let b = sh.board;
    let f = b.free;
    let row_words = b.stride / 64;
    // Initial words and level 0 (the finished games).
    loop {
        let row = sh.init_row.fetch_add(1, Ordering::Relaxed) as usize;
        if row >= 2 * f {
            break;
        }
        if row.is_multiple_of(ROWS_PER_CHECK) && sh.ctx.is_cancelled() {
            sh.init_cancelled.store(true, Ordering::Relaxed);
            break;
        }
        let (plane, cop) = (row / f, row % f);
        let mut found = 0;
        for thief in 0..f {
            let w = b.initial::<W>(plane, cop, thief);
            sh.words[row * b.stride + thief].set(w);
            if w & W::RESOLVED != 0 {
                let slot = &sh.maps[0][row * row_words + thief / 64];
                slot.store(
                    slot.load(Ordering::Relaxed) | 1 << (thief % 64),
                    Ordering::Relaxed,
                );
                found += 1;
            }
        }
        if found > 0 {
            sh.live[0][row].store(true, Ordering::Relaxed);
            sh.states[0][cop / sh.z].fetch_add(found, Ordering::Relaxed);
        }
        sh.terminals.fetch_add(found, Ordering::Relaxed);
    }
    sh.barrier.wait();
    if sh.init_cancelled.load(Ordering::Relaxed) {
        return Err(SolveError::Cancelled);
    }
    let total = 2 * (f as u64) * (f as u64);
    let mut level_size = sh.terminals.load(Ordering::Relaxed);
    let mut resolved = level_size;
    let mut depth = 0u32;
    loop {
        if level_size == 0 {
            if me == 0 {
                sh.ctx.progress(1.0);
            }
            return Ok(Some((depth, resolved)));
        }
        if depth >= sh.max_depth {
            return Ok(None);
        }
        let parity = (depth % 2) as usize;
        // A small level is not worth splitting: thread 0 does it alone.
        let takes_part = me == 0 || level_size >= sh.solo_level;
        for phase in 0..2 {
            if takes_part {
                // Largest first only where it pays: a level split between the threads, and few
                // enough superblocks that looking at all of them per hand-out costs nothing.
                let largest_first =
                    level_size >= sh.solo_level && sh.superblocks <= LARGEST_FIRST_MAX_SUPERBLOCKS;
                run_phase(sh, parity, phase, depth, largest_first);
            }
            sh.barrier.wait();
            if phase == 0 && me == 0 {
                // Everyone has read the previous level's count: reset the next level's counters,
                // and order its superblocks by the previous level's work (that level is done).
                sh.produced[1 - parity].store(0, Ordering::Relaxed);
                sh.cancelled[1 - parity].store(false, Ordering::Relaxed);
                for count in &sh.states[(depth as usize + 2) % 3] {
                    count.store(0, Ordering::Relaxed);
                }
            }
        }
        if sh.cancelled[parity].load(Ordering::Relaxed) {
            return Err(SolveError::Cancelled);
        }
        level_size = sh.produced[parity].load(Ordering::Relaxed);
        resolved += level_size;
        depth += 1;
        if me == 0 {
            sh.ctx.progress(resolved as f64 / total as f64);
        }
    }
}

/// Takes superblocks of one phase (even or odd) of level `depth` until none are left, the largest
/// remaining first if `largest_first`, else in index order; a failure (cancellation) sets the
/// level's cancelled flag, which makes every thread skip the rest.
fn run_phase<W: Word>(
    sh: &Shared<'_, W>,
    parity: usize,
    phase: usize,
    depth: u32,
    largest_first: bool,
) {
    let states = &sh.states[depth as usize % 3];
    let mark = depth + 1;
    let untaken = |sb: &usize| sh.taken[*sb].load(Ordering::Relaxed) != mark;
    // In index order, this thread's cursor: superblocks before it are all taken.
    let mut cursor = phase;
    loop {
        if sh.cancelled[parity].load(Ordering::Relaxed) {
            return;
        }
        let next = if largest_first {
            (phase..sh.superblocks)
                .step_by(2)
                .filter(untaken)
                .max_by_key(|&sb| (states[sb].load(Ordering::Relaxed), std::cmp::Reverse(sb)))
        } else {
            (cursor..sh.superblocks).step_by(2).find(untaken)
        };
        let Some(sb) = next else {
            return;
        };
        cursor = sb;
        let seen = sh.taken[sb].load(Ordering::Relaxed);
        if seen == mark
            || sh.taken[sb]
                .compare_exchange(seen, mark, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            continue; // taken by another thread meanwhile
        }
        match run_superblock(sh, sb, depth) {
            Ok(n) => {
                sh.produced[parity].fetch_add(n, Ordering::Relaxed);
            }
            Err(_) => {
                sh.cancelled[parity].store(true, Ordering::Relaxed);
                return;
            }
        }
    }
}

/// Processes superblock `sb` of level `depth`: every state of the level in its rows relaxes its
/// predecessors, and the states resolved are counted into the next level's `states` of their
/// superblocks (this one or a neighbour). Returns the number of states resolved.
fn run_superblock<W: Word>(sh: &Shared<'_, W>, sb: usize, depth: u32) -> Result<u64, SolveError> {
    let b = sh.board;
    let f = b.free;
    let row_words = b.stride / 64;
    let parity = (depth % 2) as usize;
    let (cur, next) = (&sh.maps[parity], &sh.maps[1 - parity]);
    let (live, live_next) = (&sh.live[parity], &sh.live[1 - parity]);
    let to = Next {
        words: &sh.words,
        stride: b.stride,
        map: next,
        live: live_next,
    };
    let next_depth = depth + 1;
    // States resolved, and an estimate of those in the superblocks `sb - 1` and `sb + 1`, for
    // the next level's hand-out order only. A cop move changes the cop cell by at most `halo`, and
    // about a third of a cell's king moves go to the grid row above (or below), so a thief-to-move
    // row in the first (second) half of the superblock is taken to resolve a third of its states
    // in the superblock before (after). Counting exactly would cost a compare per move in the
    // innermost loop: 15% of the solve.
    let mut produced = 0u64;
    let (mut below, mut above) = (0u64, 0u64);
    let middle = sb * sh.z + sh.z / 2;
    let cells = sb * sh.z..((sb + 1) * sh.z).min(f);
    for (i, row) in cells
        .clone()
        .chain(cells.start + f..cells.end + f)
        .enumerate()
    {
        if i.is_multiple_of(ROWS_PER_CHECK) {
            sh.ctx.check()?;
        }
        if !live[row].load(Ordering::Relaxed) {
            continue;
        }
        live[row].store(false, Ordering::Relaxed);
        let (plane, fixed) = (row / f, row % f);
        let before = produced;
        for k in 0..row_words {
            let slot = &cur[row * row_words + k];
            let mut bits = slot.load(Ordering::Relaxed);
            if bits == 0 {
                continue;
            }
            slot.store(0, Ordering::Relaxed);
            while bits != 0 {
                let pos = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let mover_wins = sh.words[row * b.stride + pos].get() & W::WIN != 0;
                if plane == 0 {
                    // Cop to move at (cop = fixed, thief = pos). Predecessors: the thief's moves
                    // into `pos`, thief to move, same cop cell (one row of plane 1).
                    for &t2 in b.thief_moves(pos) {
                        produced += to.relax(f + fixed, t2 as usize, mover_wins, next_depth);
                    }
                } else {
                    // Thief to move at (cop = fixed, thief = pos). Predecessors: the cop's moves
                    // into `fixed`, cop to move, same thief cell (rows of plane 0).
                    for &c2 in b.cop_moves(fixed) {
                        produced += to.relax(c2 as usize, pos, mover_wins, next_depth);
                    }
                }
            }
        }
        if plane == 1 {
            let spill = (produced - before) / 3;
            if fixed < middle {
                below += spill;
            } else {
                above += spill;
            }
        }
    }
    // The first and the last superblock have no neighbour on one side.
    let below = if sb == 0 { 0 } else { below };
    let above = if sb + 1 == sh.superblocks { 0 } else { above };
    let counts = &sh.states[(depth as usize + 1) % 3];
    for (target, n) in [
        (sb.wrapping_sub(1), below),
        (sb, produced - below - above),
        (sb + 1, above),
    ] {
        if n > 0 {
            counts[target].fetch_add(n, Ordering::Relaxed);
        }
    }
    Ok(produced)
}

/// Where a level writes: the state words and the next level's bitmap and row flags.
struct Next<'a, W> {
    words: &'a [W],
    stride: usize,
    map: &'a [AtomicU64],
    live: &'a [AtomicBool],
}

impl<W: Word> Next<'_, W> {
    /// Updates the predecessor at (`row`, `pos`) of a state of the current level: if that state
    /// is lost for its mover, the predecessor is won at `depth`; if won, one of the predecessor's
    /// moves is refuted and it is lost at `depth` when that was the last. Returns 1 when the
    /// predecessor was resolved (and marked in the next level). Plain loads and stores suffice:
    /// within a phase no other thread writes this row (see [`Shared`]).
    #[inline]
    fn relax(&self, row: usize, pos: usize, succ_wins: bool, depth: u32) -> u64 {
        let p = row * self.stride + pos;
        let word = &self.words[p];
        let w = word.get();
        if w & W::RESOLVED != 0 {
            return 0;
        }
        if succ_wins && w > 1 {
            word.set(w - 1);
            return 0;
        }
        word.set(W::RESOLVED | if succ_wins { 0 } else { W::WIN } | depth);
        let slot = &self.map[p / 64];
        slot.store(
            slot.load(Ordering::Relaxed) | 1 << (p % 64),
            Ordering::Relaxed,
        );
        self.live[row].store(true, Ordering::Relaxed);
        1
    }
}
