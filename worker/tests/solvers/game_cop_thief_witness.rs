//! Policeman-and-thief witnesses (every move with its value, the optimal chase) against the
//! rules-only oracle of `game_cop_thief`: each move is a legal move with the oracle's value of
//! where it leads, in the documented order, and each chase replayed by the rules loses one
//! half-move of depth per step and ends with the announced winner (a drawn chase stays drawn and
//! ends at its first repeated state).

use std::collections::HashSet;

use orbit_worker::cop_thief::{CopThiefJob, CopThiefQuery, CopThiefValue, Grid, solve_cop_thief};
use orbit_worker::game::GameWitness;
use orbit_worker::job::Solve;
use orbit_worker::{Limits, SolveContext, SolveError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::game_cop_thief::{Val, oracle, random_rows};

/// The cells the mover may go to by the rules, own cell included; none when the game is over.
fn legal(rows: &[String], s: CopThiefQuery) -> Vec<(usize, usize)> {
    let (h, w) = (rows.len() as i64, rows[0].len() as i64);
    let free = |r: i64, c: i64| {
        r >= 0 && r < h && c >= 0 && c < w && rows[r as usize].as_bytes()[c as usize] != b'*'
    };
    if s.cop == s.thief || rows[s.thief.0].as_bytes()[s.thief.1] == b'E' {
        return Vec::new();
    }
    let (from, reach): ((usize, usize), i64) = if s.cop_to_move {
        (s.cop, 1)
    } else {
        (s.thief, 0)
    };
    let mut cells = Vec::new();
    for dr in -1..=1i64 {
        for dc in -1..=1i64 {
            let diagonal = dr != 0 && dc != 0;
            if diagonal && reach == 0 {
                continue;
            }
            let (r, c) = (from.0 as i64 + dr, from.1 as i64 + dc);
            if free(r, c) {
                cells.push((r as usize, c as usize));
            }
        }
    }
    cells.sort_unstable();
    cells
}

fn step(s: CopThiefQuery, to: (usize, usize)) -> CopThiefQuery {
    if s.cop_to_move {
        CopThiefQuery {
            cop: to,
            cop_to_move: false,
            ..s
        }
    } else {
        CopThiefQuery {
            thief: to,
            cop_to_move: true,
            ..s
        }
    }
}

fn value(rows: &[String], table: &[Val], s: CopThiefQuery) -> CopThiefValue {
    let w = rows[0].len();
    let n = rows.len() * w;
    let i = |(r, c): (usize, usize)| r * w + c;
    match table[(i(s.cop) * n + i(s.thief)) * 2 + usize::from(s.cop_to_move)] {
        Some((true, d)) => CopThiefValue::Cop(d),
        Some((false, d)) => CopThiefValue::Thief(d),
        None => CopThiefValue::Draw,
    }
}

/// How good a value is for the mover: (class, depth order); smaller is better.
fn goodness(v: CopThiefValue, cop_to_move: bool) -> (u8, i64) {
    match v {
        CopThiefValue::Cop(d) if cop_to_move => (0, i64::from(d)),
        CopThiefValue::Thief(d) if !cop_to_move => (0, i64::from(d)),
        CopThiefValue::Draw => (1, 0),
        CopThiefValue::Cop(d) | CopThiefValue::Thief(d) => (2, -i64::from(d)),
    }
}

#[test]
fn moves_and_chases_match_the_rules_and_the_oracle_on_random_grids() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x00c0_9a1e);
    let ctx = SolveContext::detached();
    let mut chases = [0usize; 3];
    for case in 0..400 {
        let rows = random_rows(&mut rng);
        let grid = Grid::from_rows(&rows).expect("valid grid");
        let table = oracle(&rows);
        let solution = solve_cop_thief(&grid, 1, &ctx).expect("solve");
        let free: Vec<(usize, usize)> = (0..rows.len())
            .flat_map(|r| (0..rows[0].len()).map(move |c| (r, c)))
            .filter(|&cell| grid.is_free(cell))
            .collect();
        let mut states = vec![CopThiefQuery {
            cop: grid.cop(),
            thief: grid.thief(),
            cop_to_move: true,
        }];
        for _ in 0..10 {
            states.push(CopThiefQuery {
                cop: free[rng.random_range(0..free.len())],
                thief: free[rng.random_range(0..free.len())],
                cop_to_move: rng.random_bool(0.5),
            });
        }
        for s in states {
            let own = value(&rows, &table, s);
            let moves = solution.moves(s);
            let mut cells: Vec<_> = moves.iter().map(|m| m.to).collect();
            cells.sort_unstable();
            assert_eq!(cells, legal(&rows, s), "case {case} {s:?}");
            for m in &moves {
                assert_eq!(
                    m.value,
                    value(&rows, &table, step(s, m.to)),
                    "case {case} {s:?} {m:?}"
                );
            }
            for pair in moves.windows(2) {
                let a = (goodness(pair[0].value, s.cop_to_move), pair[0].to);
                let b = (goodness(pair[1].value, s.cop_to_move), pair[1].to);
                assert!(a < b, "case {case} {s:?}: {moves:?}");
            }
            // Replay the chase by the rules.
            let line = solution.line(s, 10_000);
            assert!(!line.truncated);
            let mut at = s;
            let mut seen = HashSet::from([s]);
            for (i, &next) in line.states.iter().enumerate() {
                let moved = if at.cop_to_move { next.cop } else { next.thief };
                assert_eq!(
                    step(at, moved),
                    next,
                    "case {case}: one side moves at a time"
                );
                assert!(
                    legal(&rows, at).contains(&moved),
                    "case {case}: illegal half-move"
                );
                if i == 0 {
                    assert_eq!(Some(moved), moves.first().map(|m| m.to));
                }
                match (own, value(&rows, &table, next)) {
                    (CopThiefValue::Cop(d), CopThiefValue::Cop(e))
                    | (CopThiefValue::Thief(d), CopThiefValue::Thief(e)) => {
                        assert_eq!(
                            e + i as u32 + 1,
                            d,
                            "case {case}: one half-move less per step"
                        )
                    }
                    (CopThiefValue::Draw, CopThiefValue::Draw) => {}
                    (a, b) => panic!("case {case}: the chase of a {a:?} reaches a {b:?}"),
                }
                let repeated = !seen.insert(next);
                assert!(
                    !repeated || i + 1 == line.states.len(),
                    "case {case}: repeats early"
                );
                at = next;
            }
            match own {
                CopThiefValue::Cop(d) => {
                    assert_eq!(line.states.len() as u32, d);
                    assert_eq!(
                        at.cop, at.thief,
                        "case {case}: the policeman catches the thief"
                    );
                    chases[0] += 1;
                }
                CopThiefValue::Thief(d) => {
                    assert_eq!(line.states.len() as u32, d);
                    assert_eq!(rows[at.thief.0].as_bytes()[at.thief.1], b'E', "case {case}");
                    assert_ne!(at.cop, at.thief);
                    chases[1] += 1;
                }
                CopThiefValue::Draw => {
                    assert!(!line.states.is_empty() && seen.len() == line.states.len());
                    chases[2] += 1;
                }
            }
        }
    }
    assert!(chases.iter().all(|&c| c > 100), "{chases:?}");
}

#[test]
fn the_job_reports_the_start_and_each_query_and_counts_against_the_limit() {
    let grid =
        Grid::from_rows(&["C.....".to_string(), "......".into(), ".....T".into()]).expect("grid");
    let query = CopThiefQuery {
        cop: (0, 0),
        thief: (1, 1),
        cop_to_move: false,
    };
    let job = |limits: &Limits| {
        CopThiefJob {
            grid: grid.clone(),
            queries: vec![query],
            witness: GameWitness {
                moves: true,
                line: true,
            },
        }
        .solve(&SolveContext::detached(), limits)
    };
    let answer = job(&Limits::default()).expect("solve");
    let CopThiefValue::Cop(d) = answer.value else {
        panic!("{:?}", answer.value)
    };
    assert_eq!(answer.line.states.len() as u32, d);
    assert_eq!(
        answer.moves.len(),
        4,
        "a corner: stay, right, down, diagonal"
    );
    assert_eq!(
        answer.queries[0].moves.len(),
        5,
        "the thief in the open: 4 steps and staying"
    );
    let limits = Limits {
        max_reported_moves: 5,
        ..Limits::default()
    };
    assert!(matches!(
        job(&limits),
        Err(SolveError::LimitExceeded {
            limit_name: "max_reported_moves",
            ..
        })
    ));
}
