//! The policeman-and-thief solver against an independent oracle: the explicit state graph of
//! every random grid (up to 8 x 8) solved by naive fixed-point iteration in rounds. Every state's
//! winner and depth must agree, every best move must be legal and consistent, and the start line
//! must match the CLI format. Also: thread counts, word widths, the parser's errors, limits.

use orbit_worker::cop_thief::{
    CopThiefSolution, CopThiefValue, Grid, Tuning, parse_grid_text, solve_cop_thief,
    solve_cop_thief_tuned, validate_cop_thief,
};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Winner of a state for the oracle: `Some((cop_wins, depth))`, `None` = draw.
pub(crate) type Val = Option<(bool, u32)>;

/// The oracle, written from the rules only. States are (cop cell, thief cell, cop to move) over
/// all cells of the grid (walls included but never used). Round 0: finished games. Round r: a
/// state whose mover has a move to a state already won by the mover (in an earlier round) is
/// won now; a state all of whose moves lead to states already won by the opponent is lost now.
/// The round is the depth; what is never decided is a draw.
pub(crate) fn oracle(rows: &[String]) -> Vec<Val> {
    let h = rows.len() as i32;
    let w = rows[0].len() as i32;
    let at = |r: i32, c: i32| -> u8 { rows[r as usize].as_bytes()[c as usize] };
    let free = |r: i32, c: i32| r >= 0 && r < h && c >= 0 && c < w && at(r, c) != b'*';
    let n = (h * w) as usize;
    let idx =
        |cop: usize, thief: usize, cop_turn: bool| (cop * n + thief) * 2 + usize::from(cop_turn);
    let mut val: Vec<Val> = vec![None; 2 * n * n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); 2 * n * n];
    let mut live = Vec::new();
    for cop in 0..n {
        for thief in 0..n {
            let (cr, cc) = ((cop as i32) / w, (cop as i32) % w);
            let (tr, tc) = ((thief as i32) / w, (thief as i32) % w);
            if !free(cr, cc) || !free(tr, tc) {
                continue;
            }
            for cop_turn in [true, false] {
                let s = idx(cop, thief, cop_turn);
                if cop == thief {
                    val[s] = Some((true, 0));
                    continue;
                }
                if at(tr, tc) == b'E' {
                    val[s] = Some((false, 0));
                    continue;
                }
                live.push(s);
                if cop_turn {
                    for dr in -1..=1 {
                        for dc in -1..=1 {
                            if free(cr + dr, cc + dc) {
                                let to = ((cr + dr) * w + cc + dc) as usize;
                                succ[s].push(idx(to, thief, false));
                            }
                        }
                    }
                } else {
                    for (dr, dc) in [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)] {
                        if free(tr + dr, tc + dc) {
                            let to = ((tr + dr) * w + tc + dc) as usize;
                            succ[s].push(idx(cop, to, true));
                        }
                    }
                }
            }
        }
    }
    let mut round = 0;
    loop {
        round += 1;
        let prev = val.clone();
        let mut changed = false;
        for &s in &live {
            if prev[s].is_some() {
                continue;
            }
            let cop_turn = s % 2 == 1;
            let mover_wins = |v: Val| matches!(v, Some((cw, _)) if cw == cop_turn);
            let opp_wins = |v: Val| matches!(v, Some((cw, _)) if cw != cop_turn);
            if succ[s].iter().any(|&x| mover_wins(prev[x])) {
                val[s] = Some((cop_turn, round));
                changed = true;
            } else if succ[s].iter().all(|&x| opp_wins(prev[x])) {
                val[s] = Some((!cop_turn, round));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    val
}

fn to_value(v: Val) -> CopThiefValue {
    match v {
        Some((true, d)) => CopThiefValue::Cop(d),
        Some((false, d)) => CopThiefValue::Thief(d),
        None => CopThiefValue::Draw,
    }
}

/// Compares every state and checks every best move; returns the start value.
fn check_against_oracle(rows: &[String], sol: &CopThiefSolution, grid: &Grid) {
    let oracle = oracle(rows);
    let (h, w) = (rows.len(), rows[0].len());
    let n = h * w;
    for cop in 0..n {
        for thief in 0..n {
            let (cc, tc) = ((cop / w, cop % w), (thief / w, thief % w));
            for cop_turn in [true, false] {
                let got = sol.outcome(cc, tc, cop_turn);
                if !grid.is_free(cc) || !grid.is_free(tc) {
                    assert_eq!(got, None);
                    continue;
                }
                let want = to_value(oracle[(cop * n + thief) * 2 + usize::from(cop_turn)]);
                assert_eq!(
                    got,
                    Some(want),
                    "{rows:?} cop {cc:?} thief {tc:?} cop_turn {cop_turn}"
                );
                check_best_move(sol, grid, cc, tc, cop_turn, want);
            }
        }
    }
    let start = to_value(oracle[(idx_of(grid.cop(), w) * n + idx_of(grid.thief(), w)) * 2 + 1]);
    assert_eq!(sol.start_value(), start);
    assert_eq!(sol.start_value().to_string(), cli_line(start));
}

fn idx_of((r, c): (usize, usize), w: usize) -> usize {
    r * w + c
}

fn cli_line(v: CopThiefValue) -> String {
    match v {
        CopThiefValue::Cop(n) => format!("cop {n}"),
        CopThiefValue::Thief(n) => format!("thief {n}"),
        CopThiefValue::Draw => "draw".to_string(),
    }
}

fn check_best_move(
    sol: &CopThiefSolution,
    grid: &Grid,
    cop: (usize, usize),
    thief: (usize, usize),
    cop_turn: bool,
    here: CopThiefValue,
) {
    let mv = sol.best_move(cop, thief, cop_turn);
    let finished = cop == thief || grid.exit() == Some(thief);
    if finished {
        assert_eq!(mv, None);
        return;
    }
    let to = mv.expect("a live state has a best move");
    assert!(grid.is_free(to));
    let from = if cop_turn { cop } else { thief };
    let (dr, dc) = (to.0.abs_diff(from.0), to.1.abs_diff(from.1));
    if cop_turn {
        assert!(dr <= 1 && dc <= 1, "cop move {from:?} -> {to:?}");
    } else {
        assert!(dr + dc <= 1, "thief move {from:?} -> {to:?}");
    }
    let next = if cop_turn {
        sol.outcome(to, thief, false)
    } else {
        sol.outcome(cop, to, true)
    }
    .expect("free cells");
    match here {
        CopThiefValue::Draw => assert_eq!(next, CopThiefValue::Draw),
        CopThiefValue::Cop(d) => assert_eq!(next, CopThiefValue::Cop(d - 1)),
        CopThiefValue::Thief(d) => assert_eq!(next, CopThiefValue::Thief(d - 1)),
    }
}

/// A random grid of up to 8 x 8 with walls, maybe an exit, and one of several start layouts.
pub(crate) fn random_rows(rng: &mut ChaCha8Rng) -> Vec<String> {
    loop {
        let h = rng.random_range(1..=8usize);
        let w = rng.random_range(1..=8usize);
        let wall_p = [0.0, 0.1, 0.25, 0.4][rng.random_range(0..4)];
        let mut g: Vec<Vec<u8>> = (0..h)
            .map(|_| {
                (0..w)
                    .map(|_| if rng.random_bool(wall_p) { b'*' } else { b'.' })
                    .collect()
            })
            .collect();
        let free: Vec<(usize, usize)> = (0..h)
            .flat_map(|r| (0..w).map(move |c| (r, c)))
            .filter(|&(r, c)| g[r][c] == b'.')
            .collect();
        if free.len() < 2 {
            continue;
        }
        let pick = |rng: &mut ChaCha8Rng| free[rng.random_range(0..free.len())];
        let near =
            |a: (usize, usize), b: (usize, usize)| a.0.abs_diff(b.0) + a.1.abs_diff(b.1) == 1;
        let layout = rng.random_range(0..4);
        let cop = pick(rng);
        let thief = match layout {
            // Policeman next to the thief (8-neighbourhood) when possible.
            0 => free
                .iter()
                .copied()
                .find(|&t| t != cop && t.0.abs_diff(cop.0) <= 1 && t.1.abs_diff(cop.1) <= 1),
            _ => None,
        }
        .unwrap_or_else(|| {
            loop {
                let t = pick(rng);
                if t != cop {
                    break t;
                }
            }
        });
        g[cop.0][cop.1] = b'C';
        g[thief.0][thief.1] = b'T';
        let rest: Vec<(usize, usize)> = free
            .iter()
            .copied()
            .filter(|&p| p != cop && p != thief)
            .collect();
        if layout != 3 && !rest.is_empty() {
            // Exit: next to the thief for layout 1 when possible, else anywhere.
            let e = if layout == 1 {
                rest.iter().copied().find(|&p| near(p, thief))
            } else {
                None
            }
            .unwrap_or_else(|| rest[rng.random_range(0..rest.len())]);
            g[e.0][e.1] = b'E';
        }
        return g
            .into_iter()
            .map(|r| String::from_utf8(r).expect("ascii"))
            .collect();
    }
}

#[test]
fn game_cop_thief_matches_oracle_on_random_grids() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC0_7417);
    let ctx = SolveContext::detached();
    let mut tally = [0usize; 3];
    for case in 0..1000 {
        let rows = random_rows(&mut rng);
        let grid = Grid::from_rows(&rows).expect("valid grid");
        // Alternate thread counts and word widths so every code path (one or several threads,
        // u16 words, u32 words, the u16 -> u32 restart) meets the oracle.
        let tuning = Tuning {
            narrow_max_depth: if case % 5 == 4 { 3 } else { u32::MAX },
            wide: case % 7 == 6,
            // Mostly split every level between the threads, sometimes the default threshold.
            solo_level: if case % 4 == 3 {
                Tuning::default().solo_level
            } else {
                0
            },
        };
        let threads = 1 + case % 3;
        let sol = solve_cop_thief_tuned(&grid, threads, &ctx, tuning).expect("solve");
        check_against_oracle(&rows, &sol, &grid);
        tally[match sol.start_value() {
            CopThiefValue::Cop(_) => 0,
            CopThiefValue::Thief(_) => 1,
            CopThiefValue::Draw => 2,
        }] += 1;
    }
    assert!(
        tally.iter().all(|&k| k >= 10),
        "start outcomes too one-sided: {tally:?}"
    );
}

#[test]
fn game_cop_thief_parallel_equals_serial_on_larger_grid() {
    // 20 x 20 with some walls and an exit: 2 threads and a low threshold vs 1 thread, all states.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut rows: Vec<Vec<u8>> = (0..20)
        .map(|_| {
            (0..20)
                .map(|_| if rng.random_bool(0.15) { b'*' } else { b'.' })
                .collect()
        })
        .collect();
    rows[0][0] = b'C';
    rows[19][19] = b'T';
    rows[10][3] = b'E';
    let rows: Vec<String> = rows
        .into_iter()
        .map(|r| String::from_utf8(r).expect("ascii"))
        .collect();
    let grid = Grid::from_rows(&rows).expect("valid");
    let ctx = SolveContext::detached();
    let one = solve_cop_thief(&grid, 1, &ctx).expect("serial");
    let split = Tuning {
        solo_level: 0,
        ..Tuning::default()
    };
    let two = solve_cop_thief_tuned(&grid, 2, &ctx, split).expect("parallel");
    assert_eq!(one.levels(), two.levels());
    assert_eq!(one.resolved(), two.resolved());
    for a in 0..400 {
        for b in 0..400 {
            let (ca, cb) = ((a / 20, a % 20), (b / 20, b % 20));
            for turn in [true, false] {
                assert_eq!(one.outcome(ca, cb, turn), two.outcome(ca, cb, turn));
            }
        }
    }
}

#[test]
fn game_cop_thief_known_positions() {
    let ctx = SolveContext::detached();
    let solve = |text: &str| {
        let g = parse_grid_text(text).expect("valid");
        solve_cop_thief(&g, 1, &ctx)
            .expect("solve")
            .start_value()
            .to_string()
    };
    // Cop next to the thief: takes him at once.
    assert_eq!(solve("1 2\nCT\n"), "cop 1");
    // Thief next to the exit, cop far away: one cop move, then the thief steps out.
    assert_eq!(solve("1 5\nC..TE\n"), "thief 2");
    // Open 2 x 2 without exit: the cop is always adjacent (8-neighbourhood).
    assert_eq!(solve("2 2\nC.\n.T\n"), "cop 1");
    // A ring around a wall block: the cop cuts the corners diagonally and catches the thief.
    assert_eq!(solve("4 4\nC...\n.**.\n.**.\n...T\n"), "cop 19");
    // Separated by a wall: nobody ever meets and there is no exit.
    assert_eq!(solve("1 3\nC*T\n"), "draw");
}

#[test]
fn game_cop_thief_open_grid_is_won_by_the_cop() {
    let text = format!(
        "12 12\n{}",
        (0..12)
            .map(|r| match r {
                0 => "C...........\n".to_string(),
                11 => "...........T\n".to_string(),
                _ => "............\n".to_string(),
            })
            .collect::<String>()
    );
    let g = parse_grid_text(&text).expect("valid");
    let s = solve_cop_thief(&g, 2, &SolveContext::detached()).expect("solve");
    assert!(matches!(s.start_value(), CopThiefValue::Cop(_)));
    assert_eq!(
        s.resolved(),
        s.states(),
        "every state of an open grid is decided"
    );
}

#[test]
fn game_cop_thief_cancel() {
    let g = parse_grid_text(&format!(
        "30 30\nC{}\n{}",
        ".".repeat(29),
        "T".to_string() + &".".repeat(29) + "\n" + &(".".repeat(30) + "\n").repeat(28)
    ))
    .expect("valid");
    let flag = CancelFlag::new();
    flag.cancel();
    let ctx = SolveContext::new(flag, None);
    assert_eq!(
        solve_cop_thief(&g, 2, &ctx).unwrap_err(),
        SolveError::Cancelled
    );
}

#[test]
fn game_cop_thief_limits() {
    let g = Grid::from_rows(&["C...", "...T"]).expect("valid");
    assert_eq!(g.states(), 128);
    validate_cop_thief(&g, &Limits::default()).expect("fits");
    let err = validate_cop_thief(
        &g,
        &Limits {
            max_states: 127,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, SolveError::LimitExceeded { .. }));
}

fn perr(text: &str) -> String {
    parse_grid_text(text).unwrap_err().to_string()
}

#[test]
fn game_cop_thief_parser_errors_name_the_line() {
    assert_eq!(perr(""), "line 1: empty input: expected a first line `n m`");
    assert_eq!(perr("2\n"), "line 1: too few numbers (expected `n m`)");
    assert_eq!(
        perr("2 x\n"),
        "line 1: `x` is not a non-negative integer (expected `n m`)"
    );
    assert_eq!(perr("0 3\n"), "line 1: a 0 x 3 grid has no cells");
    assert_eq!(
        perr("2 3\nC..\n.T\n"),
        "line 3: row has 2 characters, expected 3"
    );
    assert_eq!(
        perr("2 3\nC..\n.T..\n"),
        "line 3: row has 4 characters, expected 3"
    );
    assert_eq!(
        perr("2 3\nC.x\n.T.\n"),
        "line 2: unknown character 'x' in column 3 (expected one of . * C T E)"
    );
    assert_eq!(
        perr("2 3\nE..\n.TE\n"),
        "line 3: a second exit `E` in column 3 (the first is in line 2)"
    );
    assert_eq!(
        perr("2 3\nC..\n.TC\n"),
        "line 3: a second policeman `C` in column 3 (the first is in line 2)"
    );
    assert_eq!(
        perr("2 3\nC..\n...\n"),
        "lines 1-3: no thief `T` on the grid"
    );
    assert_eq!(
        perr("2 3\n...\n..T\n"),
        "lines 1-3: no policeman `C` on the grid"
    );
    assert_eq!(
        perr("3 3\nC..\n..T\n"),
        "line 4: end of input after 2 rows; line 1 announced 3"
    );
    assert_eq!(
        perr("1 3\nC.T\n...\n"),
        "line 3: more rows than the 1 announced on line 1"
    );
    // Trailing whitespace and blank lines are tolerated.
    let g = parse_grid_text("\n2 3  \r\nC.*\r\n\n.ET\n\n").expect("valid");
    assert_eq!(
        (g.cop(), g.thief(), g.exit()),
        ((0, 0), (1, 2), Some((1, 1)))
    );
    assert!(!g.is_free((0, 2)));
    assert_eq!(
        Grid::from_rows(&["C.", "T"]).unwrap_err().to_string(),
        "grid.rows[1]: row has 1 characters, expected 2"
    );
    assert_eq!(
        Grid::from_rows::<&str>(&[]).unwrap_err().to_string(),
        "grid.rows: the grid is empty"
    );
}

#[test]
fn game_cop_thief_cancel_frees_the_worker_quickly() {
    // A 64 x 64 open grid takes well over 100 ms in the test profile; cancel it mid-solve.
    let text = format!(
        "64 64\nC{}\n{}{}T\n",
        ".".repeat(63),
        (".".repeat(64) + "\n").repeat(62),
        ".".repeat(63)
    );
    let grid = parse_grid_text(&text).expect("valid");
    let flag = CancelFlag::new();
    let ctx = SolveContext::new(flag.clone(), None);
    let (result, latency) = std::thread::scope(|s| {
        let solver = s.spawn(|| {
            let r = solve_cop_thief(&grid, 2, &ctx);
            (r, std::time::Instant::now())
        });
        std::thread::sleep(std::time::Duration::from_millis(150));
        let cancelled_at = std::time::Instant::now();
        flag.cancel();
        let (r, done) = solver.join().expect("solver thread");
        (r, done.saturating_duration_since(cancelled_at))
    });
    match result {
        Err(SolveError::Cancelled) => {
            assert!(
                latency.as_millis() < 100,
                "returned {latency:?} after the cancel"
            )
        }
        // A machine fast enough to finish first is fine too.
        Ok(sol) => assert_eq!(sol.start_value(), CopThiefValue::Cop(125)),
        Err(e) => panic!("unexpected {e}"),
    }
}
