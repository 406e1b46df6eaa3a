//! The explicit game-graph solver against an independent oracle (naive fixed-point iteration in
//! rounds) on hundreds of random small graphs, best-move consistency, validation and the parser.

use orbit_worker::game::{
    GameGraph, GameSolution, NO_DEPTH, NO_MOVE, Outcome, parse_game_text, solve_game,
    solve_game_threads, validate_game,
};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Naive oracle: rounds of simultaneous updates from the labels of earlier rounds only. In round
/// `r` a vertex becomes Win if some successor was already Lose, Lose if every successor was
/// already Win; the round number is the depth (terminals: round 0). Whatever is left is a draw.
pub(crate) fn naive(g: &GameGraph) -> (Vec<Outcome>, Vec<u32>) {
    let n = g.vertices as usize;
    let mut succ = vec![Vec::new(); n];
    for &(u, v) in &g.edges {
        succ[u as usize].push(v as usize);
    }
    let mut label: Vec<Option<(Outcome, u32)>> = vec![None; n];
    for (v, s) in succ.iter().enumerate() {
        if s.is_empty() {
            label[v] = Some((Outcome::Lose, 0));
        }
    }
    let mut round = 0u32;
    loop {
        round += 1;
        let prev = label.clone();
        let mut changed = false;
        for v in 0..n {
            if prev[v].is_some() {
                continue;
            }
            let lose_succ = succ[v]
                .iter()
                .any(|&w| matches!(prev[w], Some((Outcome::Lose, _))));
            let all_win = succ[v]
                .iter()
                .all(|&w| matches!(prev[w], Some((Outcome::Win, _))));
            if lose_succ {
                label[v] = Some((Outcome::Win, round));
                changed = true;
            } else if all_win {
                label[v] = Some((Outcome::Lose, round));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    label
        .into_iter()
        .map(|l| l.unwrap_or((Outcome::Draw, NO_DEPTH)))
        .unzip()
}

pub(crate) fn random_graph(rng: &mut ChaCha8Rng) -> GameGraph {
    let n = rng.random_range(0..=14u32);
    let m = if n == 0 {
        0
    } else {
        rng.random_range(0..=3 * n as usize)
    };
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(m);
    for _ in 0..m {
        let u = rng.random_range(0..n);
        let v = match rng.random_range(0..10) {
            0 => u,                                             // self-loop
            1 if !edges.is_empty() => edges[edges.len() - 1].1, // likely parallel edges later
            _ => rng.random_range(0..n),
        };
        edges.push((u, v));
        if rng.random_range(0..8) == 0 {
            edges.push((u, v)); // parallel edge
        }
    }
    GameGraph { vertices: n, edges }
}

/// Every best move is an edge and is consistent with the labels and depths.
fn check_moves(g: &GameGraph, s: &GameSolution) {
    let n = g.vertices as usize;
    let mut has_edge = std::collections::HashSet::new();
    let mut outdeg = vec![0usize; n];
    for &(u, v) in &g.edges {
        has_edge.insert((u, v));
        outdeg[u as usize] += 1;
    }
    for (v, &deg) in outdeg.iter().enumerate() {
        let b = s.best_move[v];
        if deg == 0 {
            assert_eq!(b, NO_MOVE, "vertex {v} has no moves");
            assert_eq!((s.outcome[v], s.depth[v]), (Outcome::Lose, 0));
            continue;
        }
        assert!(
            has_edge.contains(&(v as u32, b)),
            "best move {v}->{b} is not an edge"
        );
        let b = b as usize;
        match s.outcome[v] {
            Outcome::Win => {
                assert_eq!(s.outcome[b], Outcome::Lose, "win {v} must move to a loss");
                assert_eq!(s.depth[b] + 1, s.depth[v]);
            }
            Outcome::Lose => {
                assert_eq!(s.outcome[b], Outcome::Win);
                assert_eq!(s.depth[b] + 1, s.depth[v]);
            }
            Outcome::Draw => {
                assert_eq!(s.outcome[b], Outcome::Draw, "draw {v} must move to a draw");
                assert_eq!(s.depth[v], NO_DEPTH);
            }
        }
    }
}

#[test]
fn game_matches_naive_fixed_point_on_random_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x6a3e_0002);
    let ctx = SolveContext::detached();
    let mut seen = [0usize; 3];
    for case in 0..1500 {
        let g = random_graph(&mut rng);
        validate_game(&g, &Limits::default()).expect("generated graphs are valid");
        let s = solve_game(&g, &ctx).expect("solve");
        let (outcome, depth) = naive(&g);
        assert_eq!(s.outcome, outcome, "case {case}: {g:?}");
        assert_eq!(s.depth, depth, "case {case}: {g:?}");
        check_moves(&g, &s);
        let threads = 2 + case % 3;
        assert_eq!(
            solve_game_threads(&g, threads, &ctx).expect("solve"),
            s,
            "case {case}"
        );
        for o in &s.outcome {
            seen[*o as usize] += 1;
        }
    }
    // The generator exercises all three outcomes plenty.
    assert!(seen.iter().all(|&c| c > 1000), "{seen:?}");
}

#[test]
fn game_larger_random_graphs_match_naive() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let ctx = SolveContext::detached();
    for _ in 0..40 {
        let n = rng.random_range(50..300u32);
        let m = rng.random_range(0..(n as usize * 2));
        let edges = (0..m)
            .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
            .collect();
        let g = GameGraph { vertices: n, edges };
        let s = solve_game(&g, &ctx).expect("solve");
        let (outcome, depth) = naive(&g);
        assert_eq!(s.outcome, outcome);
        assert_eq!(s.depth, depth);
        check_moves(&g, &s);
        assert_eq!(solve_game_threads(&g, 2, &ctx).expect("solve"), s);
    }
}

#[test]
fn game_long_chain_depths() {
    // 0 -> 1 -> ... -> n-1: alternate win/lose, depth = distance to the end.
    let n = 1000u32;
    let g = GameGraph {
        vertices: n,
        edges: (0..n - 1).map(|i| (i, i + 1)).collect(),
    };
    let s = solve_game(&g, &SolveContext::detached()).expect("solve");
    for i in 0..n {
        let d = n - 1 - i;
        assert_eq!(s.depth[i as usize], d);
        let want = if d.is_multiple_of(2) {
            Outcome::Lose
        } else {
            Outcome::Win
        };
        assert_eq!(s.outcome[i as usize], want);
    }
}

#[test]
fn game_winner_hurries_and_loser_delays() {
    // 1 and 4 have no moves; 3 -> 4 wins in 1; 2 -> 3 loses in 2; 6 -> 2 wins in 3.
    // 0 may move to 1 (lost at once) or to 2 (lost in 2): it wins in 1 via 1.
    // 5 may move to 0 (won in 1) or to 6 (won in 3): it loses in 4 via 6.
    let g = GameGraph {
        vertices: 7,
        edges: vec![(0, 2), (0, 1), (2, 3), (3, 4), (5, 0), (5, 6), (6, 2)],
    };
    let s = solve_game(&g, &SolveContext::detached()).expect("solve");
    assert_eq!(
        (s.outcome[0], s.depth[0], s.best_move[0]),
        (Outcome::Win, 1, 1)
    );
    assert_eq!(
        (s.outcome[2], s.depth[2], s.best_move[2]),
        (Outcome::Lose, 2, 3)
    );
    assert_eq!(
        (s.outcome[6], s.depth[6], s.best_move[6]),
        (Outcome::Win, 3, 2)
    );
    assert_eq!(
        (s.outcome[5], s.depth[5], s.best_move[5]),
        (Outcome::Lose, 4, 6)
    );
}

#[test]
fn game_self_loop_and_isolated() {
    let g = GameGraph {
        vertices: 3,
        edges: vec![(0, 0), (1, 1), (1, 2)],
    };
    let s = solve_game(&g, &SolveContext::detached()).expect("solve");
    assert_eq!(s.outcome, [Outcome::Draw, Outcome::Win, Outcome::Lose]);
    assert_eq!(s.best_move, [0, 2, NO_MOVE]);
    assert_eq!(s.depth, [NO_DEPTH, 1, 0]);
    let empty = solve_game(&GameGraph::default(), &SolveContext::detached()).expect("empty");
    assert!(empty.is_empty());
}

#[test]
fn game_validation_errors() {
    let limits = Limits::default();
    let g = GameGraph {
        vertices: 40,
        edges: vec![(0, 1); 12].into_iter().chain([(3, 40)]).collect(),
    };
    assert_eq!(
        validate_game(&g, &limits).unwrap_err().to_string(),
        "game.edges[12]: vertex 40 out of range 0..39"
    );
    assert!(matches!(
        solve_game(&g, &SolveContext::detached()),
        Err(SolveError::InvalidArgument { .. })
    ));
    let g = GameGraph {
        vertices: 0,
        edges: vec![(0, 0)],
    };
    assert_eq!(
        validate_game(&g, &limits).unwrap_err().to_string(),
        "game.edges[0]: vertex 0 the graph has no vertices"
    );
    let small = Limits {
        max_vertices: 10,
        max_edges: 2,
        ..Limits::default()
    };
    let g = GameGraph {
        vertices: 11,
        edges: vec![],
    };
    let err = validate_game(&g, &small).unwrap_err();
    assert!(matches!(err, SolveError::LimitExceeded { .. }));
    assert_eq!(
        err.to_string(),
        "game.vertices (11) exceeds the limit of 10"
    );
    let g = GameGraph {
        vertices: 3,
        edges: vec![(0, 1); 3],
    };
    assert_eq!(
        validate_game(&g, &small).unwrap_err().to_string(),
        "game.edges (3 edges) exceeds the limit of 2"
    );
}

#[test]
fn game_cancelled_solve_stops() {
    let cancel = CancelFlag::new();
    cancel.cancel();
    let ctx = SolveContext::new(cancel, None);
    let n = 200_000u32;
    let g = GameGraph {
        vertices: n,
        edges: (0..n).map(|i| (i, (i + 1) % n)).collect(),
    };
    assert_eq!(solve_game(&g, &ctx), Err(SolveError::Cancelled));
}

#[test]
fn game_progress_reaches_one() {
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = Arc::clone(&seen);
        move |f: f64| seen.lock().expect("lock").push(f)
    };
    let ctx = SolveContext::new(CancelFlag::new(), Some(Arc::new(sink)));
    let n = 300_000u32;
    let g = GameGraph {
        vertices: n,
        edges: (0..n - 1).map(|i| (i, i + 1)).collect(),
    };
    solve_game(&g, &ctx).expect("solve");
    let seen = seen.lock().expect("lock");
    assert!(seen.len() > 2);
    assert_eq!(seen.last().copied(), Some(1.0));
}

fn parse_err(text: &str) -> String {
    parse_game_text(text).unwrap_err().to_string()
}

#[test]
fn game_parser_accepts_valid_text() {
    let g = parse_game_text("4 5\n1 2\n2 3\n3 3\n3 3\n\n4 1\n").expect("valid");
    assert_eq!(g.vertices, 4);
    assert_eq!(g.edges, [(0, 1), (1, 2), (2, 2), (2, 2), (3, 0)]);
    let g = parse_game_text("  3 0  \r\n").expect("no edges");
    assert_eq!((g.vertices, g.edges.len()), (3, 0));
    let g = parse_game_text("2 1\n1\t2").expect("tabs, no final newline");
    assert_eq!(g.edges, [(0, 1)]);
}

#[test]
fn game_parser_errors_name_the_line() {
    assert_eq!(
        parse_err(""),
        "line 1: empty input: expected a first line `n m`"
    );
    assert_eq!(parse_err("3\n"), "line 1: too few numbers (expected `n m`)");
    assert_eq!(
        parse_err("3 x\n"),
        "line 1: `x` is not a non-negative integer (expected `n m`)"
    );
    assert_eq!(
        parse_err("3 1 7\n1 2"),
        "line 1: unexpected `7` after two numbers (expected `n m`)"
    );
    assert_eq!(
        parse_err("8 3\n1 2\n2 3\n9 1\n"),
        "line 4: vertex 9 out of range 1..8"
    );
    assert_eq!(
        parse_err("8 3\n1 2\n2 3\n1 0\n"),
        "line 4: vertex 0 out of range 1..8"
    );
    assert_eq!(
        parse_err("8 2\n1 2\n-1 3\n"),
        "line 3: `-1` is not a non-negative integer (expected `u v`)"
    );
    assert_eq!(
        parse_err("8 2\n1 2\n1 3 4\n"),
        "line 3: unexpected `4` after two numbers (expected `u v`)"
    );
    assert_eq!(
        parse_err("8 2\n1 2\nfoo\n"),
        "line 3: `foo` is not a non-negative integer (expected `u v`)"
    );
    assert_eq!(
        parse_err("8 2\n1 2\n3\n"),
        "line 3: too few numbers (expected `u v`)"
    );
    assert_eq!(
        parse_err("8 1\n1 2\n2 3\n"),
        "line 3: more edge lines than the 1 announced on line 1"
    );
    assert_eq!(
        parse_err("8 3\n1 2\n2 3\n"),
        "line 4: end of input after 2 edge lines; line 1 announced 3"
    );
    assert_eq!(
        parse_err("0 1\n1 1\n"),
        "line 2: vertex 1 out of range: the graph has no vertices"
    );
    assert_eq!(
        parse_err("99999999999 0\n"),
        "line 1: 99999999999 vertices: at most 4294967294 supported"
    );
    // Every parse error is an InvalidArgument.
    assert!(matches!(
        parse_game_text("x"),
        Err(SolveError::InvalidArgument { .. })
    ));
}

#[test]
fn game_parsed_text_solves() {
    // A small CLI-format example: 1 -> 2 -> 3, and 4 <-> 5.
    let g = parse_game_text("5 4\n1 2\n2 3\n4 5\n5 4\n").expect("valid");
    let s = solve_game(&g, &SolveContext::detached()).expect("solve");
    assert_eq!(
        s.outcome,
        [
            Outcome::Lose,
            Outcome::Win,
            Outcome::Lose,
            Outcome::Draw,
            Outcome::Draw
        ]
    );
    assert_eq!(&s.depth[..3], &[2, 1, 0]);
}

#[test]
fn game_cancel_frees_the_worker_quickly() {
    // 4 * 10^6 vertices in one long chain plus random edges: long enough to cancel mid-solve.
    let n = 4_000_000u32;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    edges.extend((0..8_000_000).map(|_| (rng.random_range(0..n), rng.random_range(0..n))));
    let g = GameGraph { vertices: n, edges };
    let flag = CancelFlag::new();
    let ctx = SolveContext::new(flag.clone(), None);
    let (result, latency) = std::thread::scope(|s| {
        let solver = s.spawn(|| {
            let r = solve_game(&g, &ctx);
            (r, std::time::Instant::now())
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
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
        Ok(s) => assert_eq!(s.len(), n as usize),
        Err(e) => panic!("unexpected {e}"),
    }
}

#[test]
fn game_high_degree_vertices_match_naive() {
    // Degrees past 255 and 511 (the counting pass carries byte overflows separately), arranged so
    // that a wrong count changes the answer: vertex 0 has 600 successors won in 1 (each moves to
    // the terminal `t`, in-degree 600) and one won in 3 (`w`), so it is lost in 4 only if its
    // counter is exactly 601.
    let (t, w, x, y, z) = (601u32, 602, 603, 604, 605);
    let mut edges: Vec<(u32, u32)> = (1..=600).map(|v| (0, v)).collect();
    edges.extend((1..=600).map(|u| (u, t)));
    edges.extend([(0, w), (w, x), (x, y), (y, z)]);
    edges.extend((0..300).map(|_| (606, 606))); // 300 parallel self-loops: a draw
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let n = 700u32;
    edges.extend((0..400).map(|_| (rng.random_range(607..n), rng.random_range(0..n))));
    let g = GameGraph { vertices: n, edges };
    let ctx = SolveContext::detached();
    let s = solve_game(&g, &ctx).expect("solve");
    assert_eq!(
        (s.outcome[0], s.depth[0], s.best_move[0]),
        (Outcome::Lose, 4, w)
    );
    assert_eq!(s.outcome[606], Outcome::Draw);
    let (outcome, depth) = naive(&g);
    assert_eq!(s.outcome, outcome);
    assert_eq!(s.depth, depth);
    check_moves(&g, &s);
    for threads in [2, 3] {
        assert_eq!(solve_game_threads(&g, threads, &ctx).expect("solve"), s);
    }
}
