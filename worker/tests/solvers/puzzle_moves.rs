//! Move sequences for the token puzzle, checked by replaying every sequence on the graph (each
//! step must follow an edge from the blank's vertex, and the last arrangement must be the
//! target), and "no sequence" checked against exhaustive BFS (small graphs) or the decider.
//!
//! Every test name starts with `puzzle_moves_`.

use std::collections::HashSet;

use orbit_worker::memory::MemoryBudget;
use orbit_worker::puzzle::reference::solve_puzzle_reference;
use orbit_worker::puzzle::{PuzzleProblem, moves_lower_bound, solve_puzzle, solve_puzzle_moves};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::puzzle::{
    Edges, adjacency, all_perms, bfs_reachable, block_tree, cactus, complete, complete_bipartite,
    connected, cycle, grid, pack, random_perm, relabel, theta0, tree, two_connected, two_cycles,
    walk,
};

/// Replays `moves` from `start` on the graph: the arrangement reached, or what is wrong.
fn replay(edges: &Edges, start: &[u32], moves: &[u32]) -> Result<Vec<u32>, String> {
    let set: HashSet<(u32, u32)> = edges.iter().flat_map(|&(u, v)| [(u, v), (v, u)]).collect();
    let mut arr = start.to_vec();
    let mut b = arr.iter().position(|&t| t == 0).ok_or("no blank")? as u32;
    for (i, &v) in moves.iter().enumerate() {
        if v == b || !set.contains(&(b, v)) {
            return Err(format!("step {i}: {b} -> {v} is not an edge"));
        }
        arr.swap(b as usize, v as usize);
        b = v;
    }
    Ok(arr)
}

/// The instance in a failure message (only the size for large ones).
fn show(p: &PuzzleProblem) -> String {
    if p.n > 60 {
        format!("n={} m={}", p.n, p.edges.len())
    } else {
        format!("n={} edges={:?} start={:?}", p.n, p.edges, p.start)
    }
}

fn budget() -> MemoryBudget {
    MemoryBudget::new(1 << 32)
}

/// Solves and checks every answer: a sequence replays to its target, `None` only for targets the
/// `reachable` oracle refuses. Returns (sequences, total moves, total lower bound).
fn check(p: &PuzzleProblem, reachable: &[bool], what: &str) -> (usize, u64, u64) {
    let got = solve_puzzle_moves(
        p,
        &SolveContext::detached(),
        &Limits::default(),
        &mut budget(),
    )
    .unwrap_or_else(|e| panic!("{what}: {}: {e}", show(p)));
    assert_eq!(got.len(), p.targets.len());
    let (mut some, mut total, mut bound) = (0, 0, 0);
    for ((t, m), &want) in p.targets.iter().zip(&got).zip(reachable) {
        assert_eq!(m.is_some(), want, "{what}: {} target={t:?}", show(p));
        if let Some(m) = m {
            let end = replay(&p.edges, &p.start, m)
                .unwrap_or_else(|e| panic!("{what}: {} target={t:?}: {e}", show(p)));
            assert!(&end == t, "{what}: {} target={t:?} moves={m:?}", show(p));
            if t == &p.start {
                assert!(m.is_empty(), "{what}: the start needs no moves");
            }
            let lb = moves_lower_bound(p.n, &p.edges, &p.start, t).expect("reachable");
            assert!(m.len() as u64 >= lb, "{what}: shorter than the lower bound");
            some += 1;
            total += m.len() as u64;
            bound += lb;
        }
    }
    (some, total, bound)
}

/// Small graphs against BFS: every arrangement for n <= 5, otherwise `per` walks and `per`
/// random arrangements.
fn check_small(rng: &mut ChaCha8Rng, n: u32, e: &Edges, per: usize, what: &str) -> usize {
    let start = random_perm(rng, n);
    let reach = bfs_reachable(n, e, &start);
    let targets = if n <= 5 {
        all_perms(n)
    } else {
        let adj = adjacency(n, e);
        let mut t = Vec::new();
        for _ in 0..per {
            let steps = rng.random_range(0..200);
            t.push(walk(rng, &adj, &start, steps));
            t.push(random_perm(rng, n));
        }
        t
    };
    let reachable: Vec<bool> = targets.iter().map(|t| reach.contains(&pack(t))).collect();
    let p = PuzzleProblem {
        n,
        edges: e.clone(),
        start,
        targets,
    };
    check(&p, &reachable, what).0
}

#[test]
fn puzzle_moves_small_graphs_against_bfs() {
    let mut rng = ChaCha8Rng::seed_from_u64(5001);
    let mut named: Vec<(String, u32, Edges)> = vec![
        ("theta0".into(), 7, theta0()),
        ("K_{3,3}".into(), 6, complete_bipartite(3, 3)),
        ("K_{2,3}".into(), 5, complete_bipartite(2, 3)),
        ("K_{3,4}".into(), 7, complete_bipartite(3, 4)),
        ("K_{4,4}".into(), 8, complete_bipartite(4, 4)),
        ("2x3 grid".into(), 6, grid(2, 3)),
        ("2x4 grid".into(), 8, grid(2, 4)),
        ("two triangles".into(), 5, two_cycles(3, 3)),
        ("square+pentagon".into(), 8, two_cycles(4, 5)),
        ("n=1".into(), 1, vec![]),
        ("n=1 loop".into(), 1, vec![(0, 0)]),
        ("n=2 double".into(), 2, vec![(0, 1), (1, 0)]),
        ("n=3 none".into(), 3, vec![]),
    ];
    for n in 2..=8 {
        named.push((format!("cycle {n}"), n, cycle(n)));
        named.push((format!("complete {n}"), n, complete(n)));
        named.push((format!("path {n}"), n, (1..n).map(|v| (v - 1, v)).collect()));
    }
    let mut sequences = 0;
    for (name, n, e) in &named {
        for _ in 0..3 {
            let e = relabel(&mut rng, *n, e);
            sequences += check_small(&mut rng, *n, &e, 30, name);
        }
    }
    // Random graphs of every family, n <= 8, some disconnected, with loops and parallel edges.
    for round in 0..1500 {
        let n = rng.random_range(1..=8u32);
        let mut e = match round % 6 {
            0 => tree(&mut rng, n),
            1 => cactus(&mut rng, n),
            2 => {
                let extra = rng.random_range(0..8);
                connected(&mut rng, n, extra)
            }
            3 => two_connected(&mut rng, n),
            4 => block_tree(&mut rng, n, 8),
            _ => (0..rng.random_range(0..=2 * n))
                .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
                .collect(),
        };
        if n >= 2 && rng.random_bool(0.3) {
            let v = rng.random_range(0..n);
            e.push((v, v));
            let (a, b) = e[0];
            e.push((b, a));
        }
        let e = relabel(&mut rng, n, &e);
        sequences += check_small(&mut rng, n, &e, 10, &format!("random family {}", round % 6));
    }
    eprintln!("small graphs: {sequences} sequences replayed");
    assert!(sequences > 15_000, "{sequences}");
}

/// Contest-size families (n <= 50) and larger 2-connected graphs: reachable targets (random walks)
/// and mostly unreachable ones (a swap), against the decider.
#[test]
fn puzzle_moves_contest_families_against_the_decider() {
    let mut rng = ChaCha8Rng::seed_from_u64(5002);
    let mut sequences = 0;
    for round in 0..300 {
        let family = round % 6;
        let (n, e) = match family {
            0 => {
                let n = rng.random_range(2..=50);
                (n, tree(&mut rng, n))
            }
            1 => {
                let n = rng.random_range(3..=50);
                (n, cycle(n))
            }
            2 => {
                let w = rng.random_range(2..=7);
                let h = rng.random_range(2..=7);
                (w * h, grid(w, h))
            }
            3 => {
                let n = rng.random_range(3..=50);
                (n, cactus(&mut rng, n))
            }
            4 => {
                let n = rng.random_range(9..=50);
                let extra = rng.random_range(n as usize / 2..=2 * n as usize);
                (n, connected(&mut rng, n, extra))
            }
            _ => {
                let n = rng.random_range(2..=50);
                (n, block_tree(&mut rng, n, 8))
            }
        };
        let e = relabel(&mut rng, n, &e);
        let start = random_perm(&mut rng, n);
        let adj = adjacency(n, &e);
        let mut targets = Vec::new();
        for i in 0..20 {
            let steps = rng.random_range(0..2000);
            let mut t = walk(&mut rng, &adj, &start, steps);
            if i % 2 == 1 && n >= 3 {
                let (a, b) = (
                    rng.random_range(0..n as usize),
                    rng.random_range(0..n as usize),
                );
                if t[a] != 0 && t[b] != 0 {
                    t.swap(a, b);
                }
            }
            targets.push(t);
        }
        targets.push(start.clone());
        let p = PuzzleProblem {
            n,
            edges: e,
            start,
            targets,
        };
        let reachable = solve_puzzle(&p, &SolveContext::detached()).expect("decide");
        // Every block is handled: no target is refused.
        sequences += check(&p, &reachable, &format!("family {family}")).0;
    }
    eprintln!("contest families: {sequences} sequences");
    assert!(sequences > 2000, "{sequences} sequences");
}

#[test]
fn puzzle_moves_wilson_blocks() {
    // 2-connected graphs of 9 to 40 vertices, bipartite or not: the ear construction with a core.
    let mut rng = ChaCha8Rng::seed_from_u64(5003);
    let mut sequences = 0;
    for round in 0..200 {
        let n = rng.random_range(9..=40);
        let e = match round % 3 {
            0 => {
                // A wheel-like dense core: complete graph on 5 plus ears.
                let mut e = complete(5);
                let mut next = 5;
                while next < n {
                    let a = rng.random_range(0..next);
                    let b = (a + 1 + rng.random_range(0..next - 1)) % next;
                    e.push((a, next));
                    e.push((next, b));
                    next += 1;
                }
                e
            }
            1 => {
                let w = rng.random_range(3..=6);
                let h = n.div_ceil(w).max(3);
                let k = w * h;
                let mut e = grid(w, h);
                if round % 2 == 0 {
                    e.push((0, w + 1)); // a diagonal: not bipartite
                }
                return_edges(e, k, n, &mut rng)
            }
            _ => two_connected(&mut rng, n),
        };
        let n = e
            .iter()
            .map(|&(u, v)| u.max(v) + 1)
            .max()
            .unwrap_or(1)
            .max(n);
        let e = relabel(&mut rng, n, &e);
        let start = random_perm(&mut rng, n);
        let adj = adjacency(n, &e);
        let targets: Vec<Vec<u32>> = (0..10)
            .map(|_| {
                let steps = rng.random_range(0..3000);
                walk(&mut rng, &adj, &start, steps)
            })
            .collect();
        let p = PuzzleProblem {
            n,
            edges: e,
            start,
            targets,
        };
        let reachable = solve_puzzle(&p, &SolveContext::detached()).expect("decide");
        sequences += check(&p, &reachable, "wilson").0;
    }
    eprintln!("wilson blocks: {sequences} sequences");
    assert!(sequences > 1000, "{sequences}");
}

/// Ears of two vertices (ladders: each new square is one), in a block small enough for the
/// routing's distance fields (2 x 30) and in one too large for them (2 x 150: searched step by
/// step), with targets
/// near the start (a few steps of the blank, so many ears are already partly filled and get only
/// their missing insertions) and far from it. Checked by replaying every sequence and against the
/// decider.
#[test]
fn puzzle_moves_long_ears_with_and_without_distance_fields() {
    let mut rng = ChaCha8Rng::seed_from_u64(5009);
    for len in [30u32, 150] {
        let n = 2 * len;
        let e = relabel(&mut rng, n, &grid(2, len));
        let start = random_perm(&mut rng, n);
        let adj = adjacency(n, &e);
        let mut targets: Vec<Vec<u32>> = (0..40)
            .map(|i| {
                let steps = if i % 4 == 3 {
                    2000
                } else {
                    rng.random_range(1..60)
                };
                walk(&mut rng, &adj, &start, steps)
            })
            .collect();
        let mut swapped = targets[0].clone();
        let (a, b) = if swapped[0] != 0 && swapped[1] != 0 {
            (0, 1)
        } else {
            (2, 3)
        };
        swapped.swap(a, b);
        targets.push(swapped);
        let p = PuzzleProblem {
            n,
            edges: e,
            start,
            targets,
        };
        let reachable = solve_puzzle(&p, &SolveContext::detached()).expect("decide");
        let (some, total, bound) = check(&p, &reachable, &format!("ladder 2 x {len}"));
        assert!(some >= 40, "{some} sequences");
        eprintln!("ladder 2 x {len}: {some} sequences, {total} moves, lower bound {bound}");
    }
}

/// A grid of `k` vertices and, when `n > k`, a path of the rest hung on it (bridges).
fn return_edges(mut e: Edges, k: u32, n: u32, _rng: &mut ChaCha8Rng) -> Edges {
    for v in k..n {
        e.push((v - 1, v));
    }
    e
}

#[test]
fn puzzle_moves_large_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(5004);
    let cases: Vec<(&str, u32, Edges)> = vec![
        ("grid 100x100", 10_000, grid(100, 100)),
        ("tree 10^4", 10_000, tree(&mut rng, 10_000)),
        ("cycle 10^4", 10_000, cycle(10_000)),
        ("cactus 10^4", 10_000, cactus(&mut rng, 10_000)),
        ("block tree 10^4", 10_000, block_tree(&mut rng, 10_000, 8)),
        // One block without a small core, rearranged by lasso words of Sym(1999).
        ("cycle 2000 + chord", 2_000, {
            let mut e = cycle(2_000);
            e.push((0, 777));
            e
        }),
    ];
    for (name, n, e) in cases {
        let start = random_perm(&mut rng, n);
        let adj = adjacency(n, &e);
        let mut targets = vec![walk(&mut rng, &adj, &start, 200_000)];
        if name.starts_with("cycle 2000") {
            // Two far swaps (even: reachable in this bipartite block), and a third (odd: not).
            let mut t = start.clone();
            let far = |i: usize| if start[i] == 0 { i + 1 } else { i };
            let (a, b, c, d) = (far(100), far(1100), far(500), far(1500));
            t.swap(a, b);
            t.swap(c, d);
            targets.push(t.clone());
            t.swap(far(300), far(1300));
            targets.push(t);
        }
        if name.starts_with("grid") {
            // A random arrangement with the blank's colour fixed: solvable iff the parities agree.
            let mut t = random_perm(&mut rng, n);
            let reach = solve_puzzle(
                &PuzzleProblem {
                    n,
                    edges: e.clone(),
                    start: start.clone(),
                    targets: vec![t.clone()],
                },
                &SolveContext::detached(),
            )
            .expect("decide");
            if !reach[0] {
                let (a, b) = if t[0] != 0 && t[1] != 0 {
                    (0, 1)
                } else {
                    (2, 3)
                };
                t.swap(a, b);
            }
            targets.push(t);
        }
        let p = PuzzleProblem {
            n,
            edges: e,
            start,
            targets,
        };
        let reachable = solve_puzzle(&p, &SolveContext::detached()).expect("decide");
        let t0 = std::time::Instant::now();
        let (some, total, bound) = check(&p, &reachable, name);
        eprintln!(
            "{name}: {some} sequences, {total} moves (lower bound {bound}), {:?}",
            t0.elapsed()
        );
        assert!(some >= 1);
    }
}

#[test]
fn puzzle_moves_cap_and_cancellation() {
    let p = PuzzleProblem {
        n: 9,
        edges: grid(3, 3),
        start: (0..9).collect(),
        targets: vec![
            vec![0, 2, 1, 3, 4, 5, 6, 8, 7],
            vec![1, 0, 2, 3, 4, 5, 6, 7, 8],
        ],
    };
    let limits = Limits {
        max_puzzle_moves: 3,
        ..Limits::default()
    };
    let err =
        solve_puzzle_moves(&p, &SolveContext::detached(), &limits, &mut budget()).unwrap_err();
    assert!(
        matches!(
            &err,
            SolveError::LimitExceeded {
                limit_name: "max_puzzle_moves",
                limit_value: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("puzzle.targets[0]"), "{err}");
    // Within the cap: one move for the second target alone.
    let one = PuzzleProblem {
        targets: vec![p.targets[1].clone()],
        ..p.clone()
    };
    let moves =
        solve_puzzle_moves(&one, &SolveContext::detached(), &limits, &mut budget()).unwrap();
    assert_eq!(moves, vec![Some(vec![1])]);

    // A tiny memory budget refuses instead of allocating.
    let err = solve_puzzle_moves(
        &p,
        &SolveContext::detached(),
        &Limits::default(),
        &mut MemoryBudget::new(16),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            SolveError::LimitExceeded {
                limit_name: "max_job_memory",
                ..
            }
        ),
        "{err:?}"
    );

    let flag = CancelFlag::new();
    flag.cancel();
    let ctx = SolveContext::new(flag, None);
    assert_eq!(
        solve_puzzle_moves(&p, &ctx, &Limits::default(), &mut budget()),
        Err(SolveError::Cancelled)
    );
}

#[test]
fn puzzle_moves_cancelled_mid_target() {
    // A large grid target takes many steps; cancelling from another thread stops it quickly.
    let mut rng = ChaCha8Rng::seed_from_u64(5005);
    let n = 150 * 150;
    let e = grid(150, 150);
    let start = random_perm(&mut rng, n);
    let adj = adjacency(n, &e);
    let targets = (0..50)
        .map(|_| walk(&mut rng, &adj, &start, 100_000))
        .collect();
    let p = PuzzleProblem {
        n,
        edges: e,
        start,
        targets,
    };
    assert_cancels_within_100_ms(&p, "a grid target");
}

/// Cancels `p`'s move sequences from another thread after 300 ms: the job ends `Cancelled`
/// within the 100 ms the server promises from the cancel to a free worker.
fn assert_cancels_within_100_ms(p: &PuzzleProblem, what: &str) {
    let flag = CancelFlag::new();
    let ctx = SolveContext::new(flag.clone(), None);
    let handle = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        flag.cancel();
        std::time::Instant::now()
    });
    let r = solve_puzzle_moves(p, &ctx, &Limits::default(), &mut budget());
    let ended = std::time::Instant::now();
    let cancelled_at = handle.join().unwrap();
    assert_eq!(r, Err(SolveError::Cancelled));
    let latency = ended.saturating_duration_since(cancelled_at);
    eprintln!("{what} cancelled after {latency:?}");
    assert!(
        latency < std::time::Duration::from_millis(100),
        "took {latency:?} to stop"
    );
}

/// A cycle `0..n` with extra edges `chords`.
fn cycle_plus(n: u32, chords: &[(u32, u32)]) -> Edges {
    let mut e = cycle(n);
    e.extend_from_slice(chords);
    e
}

/// A θ-graph: two poles `0` and `1` joined by three internally disjoint paths with `a`, `b`, `c`
/// inner vertices (at most one of them 0). Vertices `0..a + b + c + 2`.
fn theta(a: u32, b: u32, c: u32) -> (u32, Edges) {
    let mut e = Vec::new();
    let mut next = 2;
    for len in [a, b, c] {
        let mut prev = 0;
        for _ in 0..len {
            e.push((prev, next));
            prev = next;
            next += 1;
        }
        e.push((prev, 1));
    }
    (next, e)
}

/// Reachable targets (random walks of the blank, some ending far from the start) and random
/// arrangements (mostly unreachable), each judged by the reference decider (one generator per
/// non-tree edge, a stabiliser chain) or by BFS for `n <= 8`; every answer checked by replay.
fn check_shape(
    rng: &mut ChaCha8Rng,
    n: u32,
    e: &Edges,
    targets: usize,
    what: &str,
) -> (usize, u64, u64) {
    let e = relabel(rng, n, e);
    let start = random_perm(rng, n);
    let adj = adjacency(n, &e);
    let mut t = vec![start.clone()];
    for i in 0..targets {
        if i % 4 == 3 {
            t.push(random_perm(rng, n));
        } else {
            let steps = rng.random_range(0..20 * n as usize);
            t.push(walk(rng, &adj, &start, steps));
        }
    }
    let p = PuzzleProblem {
        n,
        edges: e,
        start,
        targets: t,
    };
    let reachable = if n <= 8 {
        let reach = bfs_reachable(n, &p.edges, &p.start);
        p.targets.iter().map(|t| reach.contains(&pack(t))).collect()
    } else {
        solve_puzzle_reference(&p, &SolveContext::detached()).expect("reference")
    };
    let out = check(&p, &reachable, what);
    assert!(out.0 >= targets / 2, "{what}: {} sequences", out.0);
    out
}

#[test]
fn puzzle_moves_long_cycles_with_one_chord() {
    // Blocks the ear construction has no small core for: every target gets its lasso word.
    let mut rng = ChaCha8Rng::seed_from_u64(5006);
    for n in [20u32, 40, 100] {
        for round in 0..6 {
            // Odd and even chord spans: both cycles even makes the block bipartite (Alt).
            let span = if round < 3 {
                2 * (round + 2)
            } else {
                n / 2 - 1 + round % 2
            };
            let e = cycle_plus(n, &[(0, span)]);
            let (some, total, bound) =
                check_shape(&mut rng, n, &e, 12, &format!("cycle {n} chord 0-{span}"));
            eprintln!(
                "cycle {n} + chord 0-{span}: {some} sequences, {total} moves (bound {bound})"
            );
        }
    }
}

#[test]
fn puzzle_moves_theta_graphs_and_cycles_with_two_chords() {
    let mut rng = ChaCha8Rng::seed_from_u64(5007);
    for (a, b, c) in [
        (5, 6, 7),
        (6, 6, 6),
        (3, 5, 7),
        (10, 12, 15),
        (0, 9, 11),
        (20, 20, 21),
    ] {
        let (n, e) = theta(a, b, c);
        check_shape(&mut rng, n, &e, 12, &format!("theta({a},{b},{c})"));
    }
    for n in [16u32, 30, 60] {
        for _ in 0..3 {
            let a = rng.random_range(2..n - 2);
            let b = rng.random_range(2..n - 2);
            let e = cycle_plus(n, &[(0, a), (n / 2 - 1, (n / 2 - 1 + b) % n)]);
            check_shape(&mut rng, n, &e, 12, &format!("cycle {n} two chords"));
        }
    }
}

#[test]
fn puzzle_moves_lollipops_and_few_chord_blocks() {
    let mut rng = ChaCha8Rng::seed_from_u64(5008);
    for round in 0..24 {
        let k = rng.random_range(10..=40u32);
        // A long cycle with 1 to 3 random chords...
        let chords: Vec<(u32, u32)> = (0..rng.random_range(1..=3))
            .map(|_| {
                let a = rng.random_range(0..k);
                (a, (a + 2 + rng.random_range(0..k - 3)) % k)
            })
            .collect();
        let mut e = cycle_plus(k, &chords);
        let mut n = k;
        match round % 3 {
            // ...with a stick (a lollipop),
            0 => {
                for _ in 0..rng.random_range(1..6) {
                    e.push((if n == k { 0 } else { n - 1 }, n));
                    n += 1;
                }
            }
            // ...with a long ear of its own,
            1 => {
                let len = rng.random_range(3..12);
                let mut prev = rng.random_range(0..k);
                for _ in 0..len {
                    e.push((prev, n));
                    prev = n;
                    n += 1;
                }
                e.push((prev, rng.random_range(0..k)));
            }
            // ...or as one block among others (a triangle and a long cycle with a chord hung on).
            _ => {
                let a = rng.random_range(0..k);
                e.extend([(a, n), (n, n + 1), (n + 1, a)]);
                n += 2;
                let hang = n - 1;
                let m = rng.random_range(8..20);
                for i in 0..m {
                    e.push((n + i, n + (i + 1) % m));
                }
                e.push((hang, n));
                e.push((n, n + m / 2));
                n += m;
            }
        }
        check_shape(&mut rng, n, &e, 8, &format!("few chords round {round}"));
    }
}

#[test]
fn puzzle_moves_bipartite_cores_in_odd_blocks() {
    // A bipartite core (a 2 x 4 grid, K_{3,3}) and one long odd ear: the ear construction's
    // parity depends on the walk so far; the lasso words settle every case.
    let mut rng = ChaCha8Rng::seed_from_u64(5009);
    for round in 0..20 {
        let (k, mut e) = if round % 2 == 0 {
            (8, grid(2, 4))
        } else {
            (6, complete_bipartite(3, 3))
        };
        let len = 2 * rng.random_range(1..8) + (round / 2) % 2;
        let mut n = k;
        let mut prev = rng.random_range(0..k);
        for _ in 0..len {
            e.push((prev, n));
            prev = n;
            n += 1;
        }
        e.push((prev, rng.random_range(0..k)));
        check_shape(
            &mut rng,
            n,
            &e,
            10,
            &format!("bipartite core round {round}"),
        );
    }
    // All small graphs of this kind against BFS.
    for len in 1..=2 {
        let mut e = grid(2, 3);
        let mut n = 6;
        let mut prev = 0;
        for _ in 0..len {
            e.push((prev, n));
            prev = n;
            n += 1;
        }
        e.push((prev, 1));
        check_shape(&mut rng, n, &e, 40, &format!("2x3 grid + ear {len}"));
    }
}

#[test]
fn puzzle_moves_lasso_words_cap_and_cancellation() {
    let mut rng = ChaCha8Rng::seed_from_u64(5010);
    let n = 40;
    let e = cycle_plus(n, &[(0, 6)]); // cycles of 7 and 35: not bipartite, every swap
    let start: Vec<u32> = (0..n).collect();
    let mut t = start.clone();
    t.swap(5, 30);
    let p = PuzzleProblem {
        n,
        edges: e.clone(),
        start: start.clone(),
        targets: vec![t],
    };
    assert_eq!(
        solve_puzzle_reference(&p, &SolveContext::detached()),
        Ok(vec![true])
    );
    let limits = Limits {
        max_puzzle_moves: 50,
        ..Limits::default()
    };
    let err =
        solve_puzzle_moves(&p, &SolveContext::detached(), &limits, &mut budget()).unwrap_err();
    assert!(
        matches!(
            &err,
            SolveError::LimitExceeded {
                limit_name: "max_puzzle_moves",
                limit_value: 50,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("puzzle.targets[0]"), "{err}");

    // A small memory budget refuses the lasso words' group or words instead of allocating.
    for bytes in [1 << 10, 1 << 12, 1 << 14, 1 << 16] {
        match solve_puzzle_moves(
            &p,
            &SolveContext::detached(),
            &Limits::default(),
            &mut MemoryBudget::new(bytes),
        ) {
            Err(SolveError::LimitExceeded {
                limit_name: "max_job_memory",
                ..
            }) => {}
            Ok(moves) => {
                let m = moves[0].as_ref().expect("reachable");
                assert_eq!(replay(&e, &start, m).unwrap(), p.targets[0]);
            }
            Err(other) => panic!("budget {bytes}: {other:?}"),
        }
    }

    // Cancelling while lasso words are built and walked stops within 100 ms: scrambled
    // arrangements of a 600-vertex cycle with a chord (about 10^7 moves each, the words of
    // Sym(599) in pieces).
    let n = 600;
    let e = cycle_plus(n, &[(0, 3)]); // cycles of 4 and 598: bipartite, even arrangements
    let start = random_perm(&mut rng, n);
    let targets = (0..20)
        .map(|_| {
            let mut t = start.clone();
            t[1..].shuffle(&mut rng);
            t
        })
        .collect();
    let p = PuzzleProblem {
        n,
        edges: e,
        start,
        targets,
    };
    assert_cancels_within_100_ms(&p, "lasso words");
}
