//! The policeman-and-thief grid and its text format: walls, free cells, the two starts and the
//! exit, built from rows ([`Grid::from_rows`]) or parsed from the CLI text ([`parse_grid_text`]).

use crate::error::SolveError;

/// A grid cell as `(row, column)`, 0-based.
pub type Cell = (usize, usize);

/// A parsed policeman-and-thief grid. Build it with [`parse_grid_text`] or [`Grid::from_rows`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub(super) rows: usize,
    pub(super) cols: usize,
    /// `true` for a wall, row-major.
    pub(super) wall: Vec<bool>,
    pub(super) cop: Cell,
    pub(super) thief: Cell,
    pub(super) exit: Option<Cell>,
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
    /// use orbit_worker::cop_thief::Grid;
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
    /// use orbit_worker::cop_thief::{Grid, parse_grid_text};
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
/// use orbit_worker::cop_thief::parse_grid_text;
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
