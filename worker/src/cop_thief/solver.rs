//! The level-synchronous, multi-threaded retrograde analysis over the implicit state graph (see
//! the [module documentation](super), "Method").

use bytemuck::allocation::zeroed_vec;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};

use super::board::Board;
use super::grid::Grid;
use super::solution::CopThiefSolution;
use super::word::{NARROW_MAX_DEPTH, Word, Words};
use crate::context::SolveContext;
use crate::error::SolveError;

/// Rows of a superblock between two cancellation checks.
const ROWS_PER_CHECK: usize = 64;

/// Levels with fewer states are processed by one thread (the others wait at the barrier).
const SOLO_LEVEL: u64 = 1 << 12;

/// Superblocks are handed out largest first only up to this many (each hand-out looks at all of
/// a phase's); beyond it (long thin grids) in index order.
const LARGEST_FIRST_MAX_SUPERBLOCKS: usize = 128;

/// Solves the policeman-and-thief game for every state of the grid.
///
/// # Arguments
/// * `grid` — the grid; check its size with [`validate_cop_thief`](super::validate_cop_thief) first.
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
/// use orbit_worker::cop_thief::{parse_grid_text, solve_cop_thief};
///
/// let grid = parse_grid_text("3 4\nC...\n.**.\n.ET.\n").unwrap();
/// let s = solve_cop_thief(&grid, 2, &SolveContext::detached()).unwrap();
/// // The policeman moves (1 half-move), then the thief steps onto the exit (2).
/// assert_eq!(s.start_value().to_string(), "thief 2");
/// ```
///
/// # Reference
/// Retrograde analysis of the game graph (see the [module documentation](super), "References"),
/// with implicit predecessors and breadth-first levels instead of an explicit graph searched
/// depth first.
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
        return Err(SolveError::limit_shown(
            format!("cop_thief states (2 x {}^2)", board.free),
            "cop_thief_slots",
            1 << 40,
            "2^40",
        )
        .requested(board.slots()));
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
            || {
                SolveError::limit(
                    "cop_thief game depth",
                    "cop_thief_depth",
                    u64::from(<AtomicU32 as Word>::MAX_DEPTH),
                )
            },
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
