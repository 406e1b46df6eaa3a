//! Move sequences for the token puzzle, checked by replaying every sequence on the graph (each
//! step must follow an edge from the blank's vertex, and the last arrangement must be the
//! target), and "no sequence" checked against exhaustive BFS (small graphs) or the decider.
//!
//! Every test name starts with `puzzle_moves_`.

use std::collections::HashSet;

use orbit_worker::memory::MemoryBudget;
use orbit_worker::puzzle::{
    CONSTRUCTION_LIMIT, PuzzleProblem, moves_lower_bound, solve_puzzle, solve_puzzle_moves,
};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
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
    let mut refused = 0;
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
        match solve_puzzle_moves(
            &p,
            &SolveContext::detached(),
            &Limits::default(),
            &mut budget(),
        ) {
            Err(SolveError::LimitExceeded { limit_name, .. })
                if limit_name == CONSTRUCTION_LIMIT =>
            {
                // Only dense random graphs may hold a block the construction refuses.
                assert_eq!(family, 4, "family {family} refused: edges {:?}", p.edges);
                refused += 1;
            }
            _ => sequences += check(&p, &reachable, &format!("family {family}")).0,
        }
    }
    eprintln!("contest families: {sequences} sequences, {refused} graphs refused");
    assert!(
        sequences > 2000 && refused <= 15,
        "{sequences} sequences, {refused} refused"
    );
}

#[test]
fn puzzle_moves_wilson_blocks() {
    // 2-connected graphs of 9 to 40 vertices, bipartite or not: the ear construction with a core.
    let mut rng = ChaCha8Rng::seed_from_u64(5003);
    let (mut sequences, mut refused) = (0, 0);
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
        match solve_puzzle_moves(
            &p,
            &SolveContext::detached(),
            &Limits::default(),
            &mut budget(),
        ) {
            Err(e @ SolveError::LimitExceeded { limit_name, .. })
                if limit_name == CONSTRUCTION_LIMIT =>
            {
                assert_eq!(
                    round % 3,
                    2,
                    "refused a graph with a dense core: {e} {:?}",
                    p.edges
                );
                refused += 1;
            }
            _ => sequences += check(&p, &reachable, "wilson").0,
        }
    }
    eprintln!("wilson blocks: {sequences} sequences, {refused} refused");
    assert!(sequences > 1000, "{sequences}");
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
    ];
    for (name, n, e) in cases {
        let start = random_perm(&mut rng, n);
        let adj = adjacency(n, &e);
        let mut targets = vec![walk(&mut rng, &adj, &start, 200_000)];
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
    let flag = CancelFlag::new();
    let ctx = SolveContext::new(flag.clone(), None);
    let handle = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        flag.cancel();
        std::time::Instant::now()
    });
    let r = solve_puzzle_moves(&p, &ctx, &Limits::default(), &mut budget());
    let ended = std::time::Instant::now();
    let cancelled_at = handle.join().unwrap();
    assert_eq!(r, Err(SolveError::Cancelled));
    // Within the 100 ms the server promises from the cancel to a free worker.
    let latency = ended.saturating_duration_since(cancelled_at);
    assert!(
        latency < std::time::Duration::from_millis(100),
        "took {latency:?} to stop"
    );
}
