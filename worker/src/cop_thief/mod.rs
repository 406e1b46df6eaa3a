//! The policeman-and-thief game on a grid, solved exactly by retrograde analysis over the implicit
//! state graph.
//!
//! # Rules
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
//! threads working on disjoint *superblocks* of rows in two phases, largest first (see `Shared`
//! in `solver`),
//! so that no two threads ever write the same word and plain loads and stores suffice, and no
//! thread is left alone with a big superblock at the end of a phase. Memory: 2 bytes per state
//! plus 2 bits of bitmap, `2 F²` states for `F` free cells (rows padded to a multiple of 64).
//!
//! # Layout
//! `job` (the job kind: queries, validation, estimate, run), `grid` (the grid and its text format), `validation` (limits and the memory estimate), `board`
//! (state indexing and moves), `word` (the state word), `solver` (the propagation), `solution`
//! (values, best moves and the queried states), `witness` (every move with its value, and the
//! optimal chase).
//!
//! # References
//! The policeman-and-thief grid game is a pursuit game of the cops-and-robbers family
//! (R. Nowakowski, P. Winkler, "Vertex-to-vertex pursuit in a graph", *Discrete Mathematics* 43,
//! 1983; A. Bonato, R. J. Nowakowski, *The Game of Cops and Robbers on Graphs*, AMS, 2011), here
//! with an exit for the thief and exact depths. It is solved by retrograde analysis of the game
//! graph, as endgame tables are (K. Thompson, "Retrograde analysis of certain endgames", *ICCA
//! Journal* 9, 1986), with implicit predecessors and breadth-first levels; [`crate::game`]'s
//! `retrograde` does the same over an explicit graph.

mod board;
mod grid;
mod job;
mod solution;
mod solver;
mod validation;
mod witness;
mod word;

pub use grid::{Cell, Grid, parse_grid_text};
pub use job::{
    ANSWER_BYTES_PER_STATE, CopThiefAnswer, CopThiefJob, CopThiefStateValue,
    WITNESS_BYTES_PER_STATE,
};
pub use solution::{CopThiefQuery, CopThiefSolution, CopThiefValue};
pub use solver::{Tuning, solve_cop_thief, solve_cop_thief_tuned};
pub use validation::{memory_estimate, validate_cop_thief};
pub use witness::{CopThiefLine, CopThiefMove};
