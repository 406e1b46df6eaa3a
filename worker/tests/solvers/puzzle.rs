//! The token-swapping puzzle (WC2017 "board game", UOJ 287): the block/Wilson solver against
//! independent oracles.
//!
//! * exhaustive BFS over all arrangements (n <= 8), random connected and disconnected graphs of
//!   many families, with self-loops and parallel edges;
//! * the textbook method (naive stabiliser chain) and the group engine at the contest size
//!   n <= 50 (six graph families: trees, cycles, grids, cacti, connected graphs, block trees)
//!   and beyond (block trees with large Wilson blocks);
//! * the published sample, parser and validation errors, edge cases, a scale smoke test and
//!   cancellation.
//!
//! Every test name starts with `puzzle_` so `cargo test -p orbit-worker puzzle` selects them.
//!
//! One concept (the puzzle solver against its oracles), hence one file past 800 lines: the BFS
//! and stabiliser-chain oracles and the graph families they are run on belong together.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use orbit_worker::puzzle::reference::{solve_puzzle_group_engine, solve_puzzle_reference};
use orbit_worker::puzzle::{
    PuzzleProblem, PuzzleSolver, format_answers, parse_puzzle_text, solve_puzzle, validate_puzzle,
};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(super) type Edges = Vec<(u32, u32)>;

// ---------------------------------------------------------------------------------------------
// Graph families
// ---------------------------------------------------------------------------------------------

pub(super) fn tree(rng: &mut ChaCha8Rng, n: u32) -> Edges {
    (1..n).map(|v| (rng.random_range(0..v), v)).collect()
}

pub(super) fn cycle(n: u32) -> Edges {
    if n < 3 {
        return (1..n).map(|v| (v - 1, v)).collect();
    }
    (0..n).map(|v| (v, (v + 1) % n)).collect()
}

/// θ0: hexagon 0..5 plus centre 6 joined to the opposite corners 0 and 3.
pub(super) fn theta0() -> Edges {
    let mut e = cycle(6);
    e.push((0, 6));
    e.push((6, 3));
    e
}

pub(super) fn complete(n: u32) -> Edges {
    let mut e = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            e.push((a, b));
        }
    }
    e
}

pub(super) fn complete_bipartite(a: u32, b: u32) -> Edges {
    let mut e = Vec::new();
    for x in 0..a {
        for y in a..a + b {
            e.push((x, y));
        }
    }
    e
}

pub(super) fn grid(w: u32, h: u32) -> Edges {
    let mut e = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = y * w + x;
            if x + 1 < w {
                e.push((v, v + 1));
            }
            if y + 1 < h {
                e.push((v, v + w));
            }
        }
    }
    e
}

/// A cactus: cycles (and pendant edges) hung on random existing vertices.
pub(super) fn cactus(rng: &mut ChaCha8Rng, n: u32) -> Edges {
    let mut e = Vec::new();
    let mut next = 1u32;
    while next < n {
        let at = rng.random_range(0..next);
        let len = rng.random_range(1..=(n - next).min(7));
        // A path of `len` new vertices from `at`, closed back to `at` when len >= 2 (a cycle).
        let mut prev = at;
        for i in 0..len {
            e.push((prev, next + i));
            prev = next + i;
        }
        if len >= 2 && rng.random_bool(0.8) {
            e.push((prev, at));
        }
        next += len;
    }
    e
}

/// Two cycles of lengths a and b sharing vertex 0.
pub(super) fn two_cycles(a: u32, b: u32) -> Edges {
    let mut e: Edges = (0..a).map(|v| (v, (v + 1) % a)).collect();
    let mut prev = 0;
    for i in 0..b - 1 {
        e.push((prev, a + i));
        prev = a + i;
    }
    e.push((prev, 0));
    e
}

/// A random connected graph: a random tree plus `extra` random edges.
pub(super) fn connected(rng: &mut ChaCha8Rng, n: u32, extra: usize) -> Edges {
    let mut e = tree(rng, n);
    for _ in 0..extra {
        e.push((rng.random_range(0..n), rng.random_range(0..n)));
    }
    e
}

/// A random 2-connected graph: a cycle plus random ears (paths between existing vertices).
pub(super) fn two_connected(rng: &mut ChaCha8Rng, n: u32) -> Edges {
    if n < 3 {
        return (1..n).map(|v| (v - 1, v)).collect();
    }
    let first = rng.random_range(3..=n.max(3));
    let mut e = cycle(first);
    let mut next = first;
    while next < n {
        let len = rng.random_range(1..=(n - next).min(4));
        let a = rng.random_range(0..next);
        let mut b = rng.random_range(0..next);
        if b == a {
            b = (a + 1) % next;
        }
        let mut prev = a;
        for i in 0..len {
            e.push((prev, next + i));
            prev = next + i;
        }
        e.push((prev, b));
        next += len;
    }
    // Sometimes a chord.
    if rng.random_bool(0.5) && n >= 4 {
        let a = rng.random_range(0..n);
        let b = rng.random_range(0..n);
        if a != b {
            e.push((a, b));
        }
    }
    e
}

/// Disjoint union: the second graph's vertices shifted by `shift`.
pub(super) fn union(mut a: Edges, b: &Edges, shift: u32) -> Edges {
    a.extend(b.iter().map(|&(u, v)| (u + shift, v + shift)));
    a
}

/// A tree of blocks: each new block (a random family) is glued to a random existing vertex.
pub(super) fn block_tree(rng: &mut ChaCha8Rng, n: u32, max_block: u32) -> Edges {
    let mut e = Vec::new();
    let mut next = 1u32;
    while next < n {
        let room = n - next; // new vertices available
        let size = rng.random_range(1..=room.min(max_block - 1)) + 1; // block vertices incl. glue
        let at = rng.random_range(0..next);
        let block: Edges = match rng.random_range(0..6) {
            0 => cycle(size),
            1 if size == 7 => theta0(),
            2 if size >= 4 => {
                let a = rng.random_range(2..=size - 2);
                complete_bipartite(a, size - a)
            }
            3 if size <= 6 => complete(size),
            _ => two_connected(rng, size),
        };
        // Block vertex 0 is the glue vertex `at`; the others are new.
        let map = |x: u32| if x == 0 { at } else { next + x - 1 };
        e.extend(block.iter().map(|&(u, v)| (map(u), map(v))));
        next += size - 1;
    }
    e
}

/// Random self-loops and parallel copies of edges.
pub(super) fn add_noise(rng: &mut ChaCha8Rng, n: u32, e: &mut Edges) {
    for _ in 0..rng.random_range(0..3) {
        let v = rng.random_range(0..n);
        e.push((v, v));
    }
    for _ in 0..rng.random_range(0..3) {
        if !e.is_empty() {
            let (a, b) = e[rng.random_range(0..e.len())];
            e.push((b, a));
        }
    }
}

/// Random relabelling of vertices and shuffled edge order.
pub(super) fn relabel(rng: &mut ChaCha8Rng, n: u32, e: &Edges) -> Edges {
    let mut perm: Vec<u32> = (0..n).collect();
    perm.shuffle(rng);
    let mut out: Edges = e
        .iter()
        .map(|&(u, v)| (perm[u as usize], perm[v as usize]))
        .collect();
    out.shuffle(rng);
    out
}

pub(super) fn random_perm(rng: &mut ChaCha8Rng, n: u32) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n).collect();
    p.shuffle(rng);
    p
}

pub(super) fn adjacency(n: u32, e: &Edges) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); n as usize];
    for &(u, v) in e {
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    adj
}

/// A random walk of the blank: a reachable arrangement.
pub(super) fn walk(
    rng: &mut ChaCha8Rng,
    adj: &[Vec<u32>],
    start: &[u32],
    steps: usize,
) -> Vec<u32> {
    let mut arr = start.to_vec();
    let mut b = arr.iter().position(|&t| t == 0).unwrap_or(0);
    for _ in 0..steps {
        let nb = &adj[b];
        if nb.is_empty() {
            break;
        }
        let c = nb[rng.random_range(0..nb.len())] as usize;
        arr.swap(b, c);
        b = c;
    }
    arr
}

// ---------------------------------------------------------------------------------------------
// Exhaustive BFS oracle
// ---------------------------------------------------------------------------------------------

pub(super) fn pack(arr: &[u32]) -> u64 {
    arr.iter()
        .enumerate()
        .fold(0, |acc, (i, &t)| acc | (u64::from(t) << (4 * i)))
}

/// Every arrangement reachable from `start` (n <= 16).
pub(super) fn bfs_reachable(n: u32, e: &Edges, start: &[u32]) -> HashSet<u64> {
    let adj = adjacency(n, e);
    let mut seen = HashSet::from([pack(start)]);
    let mut queue = VecDeque::from([start.to_vec()]);
    while let Some(arr) = queue.pop_front() {
        let b = arr.iter().position(|&t| t == 0).unwrap_or(0);
        for &c in &adj[b] {
            let mut next = arr.clone();
            next.swap(b, c as usize);
            if seen.insert(pack(&next)) {
                queue.push_back(next);
            }
        }
    }
    seen
}

pub(super) fn all_perms(n: u32) -> Vec<Vec<u32>> {
    let mut out = vec![vec![]];
    for k in 0..n {
        let mut next = Vec::new();
        for p in &out {
            for pos in 0..=k as usize {
                let mut q: Vec<u32> = p.clone();
                q.insert(pos, k);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// Checks the solver on one graph against BFS: every arrangement for n <= 6, otherwise `per`
/// reachable and `per` unreachable targets (when unreachable ones exist). Returns the number of
/// targets checked.
fn check_against_bfs(rng: &mut ChaCha8Rng, n: u32, e: &Edges, per: usize, what: &str) -> usize {
    let start = random_perm(rng, n);
    let reach = bfs_reachable(n, e, &start);
    let mut targets = Vec::new();
    if n <= 6 {
        targets = all_perms(n);
    } else {
        let adj = adjacency(n, e);
        for _ in 0..per {
            let steps = rng.random_range(0..200);
            targets.push(walk(rng, &adj, &start, steps));
        }
        let mut misses = 0;
        for _ in 0..per * 50 {
            if misses == per {
                break;
            }
            let t = random_perm(rng, n);
            if !reach.contains(&pack(&t)) {
                targets.push(t);
                misses += 1;
            }
        }
    }
    let p = PuzzleProblem {
        n,
        edges: e.clone(),
        start: start.clone(),
        targets,
    };
    let got = solve_puzzle(&p, &SolveContext::detached()).expect("valid puzzle");
    for (t, &g) in p.targets.iter().zip(&got) {
        let want = reach.contains(&pack(t));
        assert_eq!(
            g, want,
            "{what}: n={n} edges={e:?} start={start:?} target={t:?}: got {g}, BFS says {want}"
        );
    }
    got.len()
}

#[test]
fn puzzle_bfs_named_small_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(4001);
    let mut graphs: Vec<(String, u32, Edges)> = vec![
        ("theta0".into(), 7, theta0()),
        ("K_{3,3}".into(), 6, complete_bipartite(3, 3)),
        ("K_{2,3}".into(), 5, complete_bipartite(2, 3)),
        ("K_{2,4}".into(), 6, complete_bipartite(2, 4)),
        ("K_{3,4}".into(), 7, complete_bipartite(3, 4)),
        ("K_{4,4}".into(), 8, complete_bipartite(4, 4)),
        ("K_{2,6}".into(), 8, complete_bipartite(2, 6)),
        ("2x2 grid".into(), 4, grid(2, 2)),
        ("2x3 grid".into(), 6, grid(2, 3)),
        ("2x4 grid".into(), 8, grid(2, 4)),
        (
            "3x3 grid minus 1".into(),
            8,
            grid(3, 3)
                .into_iter()
                .filter(|&(a, b)| a != 8 && b != 8)
                .collect(),
        ),
        ("two triangles".into(), 5, two_cycles(3, 3)),
        ("triangle+square".into(), 6, two_cycles(3, 4)),
        ("two squares".into(), 7, two_cycles(4, 4)),
        ("square+pentagon".into(), 8, two_cycles(4, 5)),
        ("n=1".into(), 1, vec![]),
        ("n=1 loop".into(), 1, vec![(0, 0)]),
        ("n=2 edge".into(), 2, vec![(0, 1)]),
        ("n=2 none".into(), 2, vec![]),
        ("n=2 double".into(), 2, vec![(0, 1), (1, 0)]),
        (
            "theta0 + pendant".into(),
            8,
            union(theta0(), &vec![], 0)
                .into_iter()
                .chain([(3, 7)])
                .collect(),
        ),
        (
            "theta0 + loop + double".into(),
            7,
            theta0().into_iter().chain([(2, 2), (1, 2)]).collect(),
        ),
    ];
    for n in 1..=8 {
        graphs.push((format!("cycle {n}"), n, cycle(n)));
        graphs.push((format!("complete {n}"), n, complete(n)));
        graphs.push((format!("path {n}"), n, (1..n).map(|v| (v - 1, v)).collect()));
        graphs.push((format!("star {n}"), n, (1..n).map(|v| (0, v)).collect()));
    }
    // θ0 with every rooting: with a random start the blank lands on every vertex type.
    let mut checked = 0;
    let mut instances = 0;
    for (name, n, e) in &graphs {
        for _ in 0..if *n == 7 || *n == 8 { 6 } else { 2 } {
            let e2 = relabel(&mut rng, *n, e);
            checked += check_against_bfs(&mut rng, *n, &e2, 60, name);
            instances += 1;
        }
    }
    eprintln!(
        "named small graphs: {} graphs, {instances} instances, {checked} targets",
        graphs.len()
    );
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn puzzle_bfs_random_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(4002);
    let mut checked = 0;
    let mut graphs = 0;
    for round in 0..3000 {
        let n = rng.random_range(1..=8u32);
        let family = round % 9;
        let mut e = match family {
            0 => tree(&mut rng, n),
            1 => cycle(n),
            2 => cactus(&mut rng, n),
            3 => {
                let extra = rng.random_range(0..8);
                connected(&mut rng, n, extra)
            }
            4 => two_connected(&mut rng, n),
            5 => block_tree(&mut rng, n, 8),
            6 => {
                // Disconnected: two random pieces.
                let a = rng.random_range(1..=n);
                let extra = rng.random_range(0..5);
                let left = connected(&mut rng, a, extra);
                let extra = rng.random_range(0..4);
                let right = if n > a {
                    connected(&mut rng, n - a, extra)
                } else {
                    vec![]
                };
                union(left, &right, a)
            }
            7 => {
                // Random sparse graph, often disconnected.
                let m = rng.random_range(0..=2 * n);
                (0..m)
                    .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
                    .collect()
            }
            _ => {
                // Bipartite by parity: each vertex joined to a lower vertex of the other parity,
                // plus random edges between the parities.
                let mut e: Edges = Vec::new();
                for v in 1..n {
                    let u = loop {
                        let u = rng.random_range(0..v);
                        if u % 2 != v % 2 {
                            break u;
                        }
                    };
                    e.push((u, v));
                }
                for _ in 0..rng.random_range(0..8) {
                    let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
                    if a % 2 != b % 2 {
                        e.push((a, b));
                    }
                }
                e
            }
        };
        add_noise(&mut rng, n, &mut e);
        let e = relabel(&mut rng, n, &e);
        checked += check_against_bfs(&mut rng, n, &e, 20, &format!("family {family}"));
        graphs += 1;
    }
    eprintln!("random small graphs: {graphs} graphs, {checked} targets");
    assert!(
        graphs == 3000 && checked > 100_000,
        "{graphs} graphs, {checked} targets"
    );
}

// ---------------------------------------------------------------------------------------------
// Stabiliser-chain references (textbook method; group engine)
// ---------------------------------------------------------------------------------------------

/// Targets near the reachable set: random walks (reachable), the same with two tokens swapped
/// or three rotated (often unreachable), and random arrangements.
fn near_targets(
    rng: &mut ChaCha8Rng,
    n: u32,
    e: &Edges,
    start: &[u32],
    count: usize,
) -> Vec<Vec<u32>> {
    let adj = adjacency(n, e);
    let mut out = Vec::new();
    for i in 0..count {
        let steps = rng.random_range(0..(20 * n as usize + 20));
        let mut t = walk(rng, &adj, start, steps);
        if n >= 3 {
            match i % 4 {
                1 => {
                    let a = rng.random_range(0..n as usize);
                    let b = rng.random_range(0..n as usize);
                    if t[a] != 0 && t[b] != 0 {
                        t.swap(a, b);
                    }
                }
                2 => {
                    let (a, b, c) = (
                        rng.random_range(0..n as usize),
                        rng.random_range(0..n as usize),
                        rng.random_range(0..n as usize),
                    );
                    if a != b && b != c && a != c && t[a] != 0 && t[b] != 0 && t[c] != 0 {
                        let x = t[a];
                        t[a] = t[b];
                        t[b] = t[c];
                        t[c] = x;
                    }
                }
                3 if i % 8 == 3 => t = random_perm(rng, n),
                _ => {}
            }
        }
        out.push(t);
    }
    out
}

fn check_against_references(
    rng: &mut ChaCha8Rng,
    n: u32,
    e: Edges,
    count: usize,
    naive: bool,
    what: &str,
) -> (usize, usize) {
    let start = random_perm(rng, n);
    let targets = near_targets(rng, n, &e, &start, count);
    let p = PuzzleProblem {
        n,
        edges: e,
        start,
        targets,
    };
    let ctx = SolveContext::detached();
    let fast = solve_puzzle(&p, &ctx).expect("fast");
    let engine = solve_puzzle_group_engine(&p, &ctx, &Limits::default()).expect("group engine");
    assert_eq!(
        fast, engine,
        "{what}: fast vs group engine, n={n} edges={:?} start={:?}",
        p.edges, p.start
    );
    if naive {
        let reference = solve_puzzle_reference(&p, &ctx).expect("reference");
        assert_eq!(
            fast, reference,
            "{what}: fast vs naive chain, n={n} edges={:?} start={:?}",
            p.edges, p.start
        );
    }
    (
        fast.iter().filter(|&&x| x).count(),
        fast.iter().filter(|&&x| !x).count(),
    )
}

#[test]
fn puzzle_contest_size_families_against_stabiliser_chains() {
    let mut rng = ChaCha8Rng::seed_from_u64(4003);
    let (mut yes, mut no, mut graphs) = (0, 0, 0);
    for round in 0..600 {
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
                let k = rng.random_range(2..=7);
                (k * k, grid(k, k))
            }
            3 => {
                let n = rng.random_range(3..=50);
                (n, cactus(&mut rng, n))
            }
            4 => {
                let n = rng.random_range(2..=50);
                let extra = rng.random_range(0..=(101 - n as usize).min(60));
                (n, connected(&mut rng, n, extra))
            }
            _ => {
                let n = rng.random_range(2..=50);
                (n, block_tree(&mut rng, n, 12))
            }
        };
        let mut e = e;
        add_noise(&mut rng, n, &mut e);
        let e = relabel(&mut rng, n, &e);
        let (y, no_) = check_against_references(
            &mut rng,
            n,
            e,
            40,
            true,
            &format!("contest-size family {family}"),
        );
        yes += y;
        no += no_;
        graphs += 1;
    }
    eprintln!("contest-size families: {graphs} graphs, {yes} yes, {no} no");
    assert!(
        yes > 2000 && no > 2000,
        "{graphs} graphs: {yes} yes, {no} no"
    );
}

#[test]
fn puzzle_wilson_blocks_against_stabiliser_chains() {
    // 2-connected graphs from 8 to 40 vertices (Wilson's theorem is used from 8 vertices on),
    // bipartite and not, and block trees of them, some disconnected.
    let mut rng = ChaCha8Rng::seed_from_u64(4004);
    let (mut yes, mut no) = (0, 0);
    for round in 0..800 {
        let n = rng.random_range(8..=if round % 3 == 0 { 40 } else { 16 });
        let e = match round % 5 {
            0 => two_connected(&mut rng, n),
            1 => {
                // Bipartite 2-connected: even cycle plus ears of odd length between opposite colours.
                let mut e = cycle(n - n % 2);
                let m = n - n % 2;
                for _ in 0..rng.random_range(1..4) {
                    let a = rng.random_range(0..m);
                    let b = (a + 2 * rng.random_range(0..m / 2) + 1) % m;
                    e.push((a, b));
                }
                if n % 2 == 1 {
                    e.push((0, m));
                    e.push((m, 2));
                }
                e
            }
            2 => {
                let w = rng.random_range(2..=4);
                let h = (n / w).max(2);
                let g = grid(w, h);
                let k = w * h;
                union(g, &vec![], 0)
                    .into_iter()
                    .chain((k..n).map(|v| (v - 1, v)))
                    .collect()
            }
            3 => block_tree(&mut rng, n, 14),
            _ => {
                let a = rng.random_range(4..n);
                let left = two_connected(&mut rng, a);
                let right = block_tree(&mut rng, n - a, 10);
                let mut e = union(left, &right, a);
                if rng.random_bool(0.7) {
                    e.push((rng.random_range(0..a), a + rng.random_range(0..n - a)));
                }
                e
            }
        };
        let e = relabel(&mut rng, n, &e);
        let (y, no_) = check_against_references(&mut rng, n, e, 40, true, "wilson");
        yes += y;
        no += no_;
    }
    eprintln!("wilson: 800 graphs, {yes} yes, {no} no");
    assert!(yes > 2000 && no > 2000, "{yes} yes, {no} no");
}

#[test]
fn puzzle_larger_graphs_against_stabiliser_chains() {
    let mut rng = ChaCha8Rng::seed_from_u64(4005);
    for round in 0..10 {
        let n = rng.random_range(60..=110);
        let e = if round % 2 == 0 {
            block_tree(&mut rng, n, 60)
        } else {
            let extra = rng.random_range(0..n as usize);
            connected(&mut rng, n, extra)
        };
        let e = relabel(&mut rng, n, &e);
        check_against_references(&mut rng, n, e, 30, true, "large");
    }
}

// ---------------------------------------------------------------------------------------------
// Sample, edge cases, parser, validation
// ---------------------------------------------------------------------------------------------

const SAMPLE: &str =
    "5 6 3\n2 1\n4 5\n3 5\n3 4\n2 3\n1 3\n1 2 3 4 0\n0 1 2 3 4\n2 1 0 4 3\n4 3 0 1 2\n";

#[test]
fn puzzle_sample_prints_yes_yes_no() {
    let p = parse_puzzle_text(SAMPLE).expect("sample parses");
    assert_eq!(p.n, 5);
    assert_eq!(p.edges[0], (1, 0));
    let ctx = SolveContext::detached();
    let answers = solve_puzzle(&p, &ctx).expect("solves");
    assert_eq!(format_answers(&answers), "Yes\nYes\nNo\n");
    assert_eq!(
        solve_puzzle_reference(&p, &ctx).expect("reference"),
        answers
    );
    assert_eq!(
        solve_puzzle_group_engine(&p, &ctx, &Limits::default()).expect("engine"),
        answers
    );
}

#[test]
fn puzzle_edge_cases() {
    let ctx = SolveContext::detached();
    // n = 1.
    let p = PuzzleProblem {
        n: 1,
        edges: vec![],
        start: vec![0],
        targets: vec![vec![0]],
    };
    assert_eq!(solve_puzzle(&p, &ctx).expect("n=1"), vec![true]);
    // Disconnected: tokens away from the blank never move; the blank cannot jump components.
    let p = PuzzleProblem {
        n: 6,
        edges: vec![(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)],
        start: vec![0, 1, 2, 3, 4, 5],
        targets: vec![
            vec![0, 2, 1, 3, 4, 5], // swap on the blank's triangle: yes
            vec![0, 1, 2, 3, 5, 4], // swap on the other triangle: no
            vec![3, 1, 2, 0, 4, 5], // blank on the other component: no
            vec![2, 0, 1, 3, 4, 5], // rotation with the blank moved: yes
        ],
    };
    assert_eq!(
        solve_puzzle(&p, &ctx).expect("disconnected"),
        vec![true, false, false, true]
    );
    // Self-loops and parallel edges change nothing: a doubled path is still a path.
    let p = PuzzleProblem {
        n: 3,
        edges: vec![(0, 1), (1, 0), (1, 2), (2, 1), (2, 2), (0, 0)],
        start: vec![0, 1, 2],
        targets: vec![vec![1, 2, 0], vec![2, 1, 0], vec![0, 2, 1]],
    };
    assert_eq!(
        solve_puzzle(&p, &ctx).expect("multigraph"),
        vec![true, false, false]
    );
    // No targets.
    let p = PuzzleProblem {
        n: 2,
        edges: vec![],
        start: vec![1, 0],
        targets: vec![],
    };
    assert_eq!(
        solve_puzzle(&p, &ctx).expect("no targets"),
        Vec::<bool>::new()
    );
}

#[test]
fn puzzle_split_form_matches_and_names_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(4006);
    let n = 300;
    let e = block_tree(&mut rng, n, 20);
    let start = random_perm(&mut rng, n);
    let targets = near_targets(&mut rng, n, &e, &start, 50);
    let ctx = SolveContext::detached();
    let p = PuzzleProblem {
        n,
        edges: e.clone(),
        start: start.clone(),
        targets: targets.clone(),
    };
    let all = solve_puzzle(&p, &ctx).expect("solve");
    let solver = PuzzleSolver::new(n, &e, &start, &ctx).expect("prepare");
    for (t, want) in targets.iter().zip(all) {
        assert_eq!(solver.is_reachable(t).expect("target"), want);
    }
    let s = solver.summary();
    assert!(s.blocks > 0 && s.component_vertices == u64::from(n));
    let mut bad = targets[0].clone();
    bad[7] = bad[3];
    let err = solver.is_reachable(&bad).unwrap_err();
    assert!(err.to_string().starts_with("target[7]: token"), "{err}");
    let err = solver.is_reachable_indexed(5, &bad[..10]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "puzzle.targets[5]: has 10 tokens, expected n = 300 (one per vertex)"
    );
    let err = PuzzleSolver::new(3, &[(0, 3)], &[0, 1, 2], &ctx).unwrap_err();
    assert_eq!(
        err.to_string(),
        "puzzle.edges[0]: vertex 3 out of range 0..2"
    );
}

#[test]
fn puzzle_validation_errors() {
    let limits = Limits::default();
    let ok = PuzzleProblem {
        n: 3,
        edges: vec![(0, 1), (1, 2)],
        start: vec![0, 1, 2],
        targets: vec![vec![1, 0, 2]],
    };
    assert_eq!(validate_puzzle(&ok, &limits), Ok(()));
    let msg = |p: &PuzzleProblem, l: &Limits| validate_puzzle(p, l).unwrap_err().to_string();

    let p = PuzzleProblem { n: 0, ..ok.clone() };
    assert_eq!(msg(&p, &limits), "puzzle.n: must be at least 1");
    let p = PuzzleProblem {
        edges: vec![(0, 1), (2, 5)],
        ..ok.clone()
    };
    assert_eq!(
        msg(&p, &limits),
        "puzzle.edges[1]: vertex 5 out of range 0..2"
    );
    let p = PuzzleProblem {
        start: vec![0, 1],
        ..ok.clone()
    };
    assert_eq!(
        msg(&p, &limits),
        "puzzle.start: has 2 tokens, expected n = 3 (one per vertex)"
    );
    let p = PuzzleProblem {
        start: vec![0, 1, 3],
        ..ok.clone()
    };
    assert_eq!(
        msg(&p, &limits),
        "puzzle.start[2]: token 3 out of range 0..2"
    );
    let p = PuzzleProblem {
        targets: vec![vec![1, 0, 2], vec![2, 1, 2]],
        ..ok.clone()
    };
    assert_eq!(
        msg(&p, &limits),
        "puzzle.targets[1][2]: token 2 appears twice (also at puzzle.targets[1][0])"
    );
    let p = PuzzleProblem {
        targets: vec![vec![1, 0, 2, 3]],
        ..ok.clone()
    };
    assert_eq!(
        msg(&p, &limits),
        "puzzle.targets[0]: has 4 tokens, expected n = 3 (one per vertex)"
    );

    let small = Limits {
        max_vertices: 2,
        ..Limits::default()
    };
    assert!(matches!(
        validate_puzzle(&ok, &small),
        Err(SolveError::LimitExceeded { .. })
    ));
    let small = Limits {
        max_edges: 1,
        ..Limits::default()
    };
    assert!(matches!(
        validate_puzzle(&ok, &small),
        Err(SolveError::LimitExceeded { .. })
    ));
    let small = Limits {
        max_permutation_entries: 5,
        ..Limits::default()
    };
    assert!(matches!(
        validate_puzzle(&ok, &small),
        Err(SolveError::LimitExceeded { .. })
    ));
    // solve_puzzle validates too.
    let p = PuzzleProblem {
        start: vec![0, 0, 2],
        ..ok
    };
    assert!(matches!(
        solve_puzzle(&p, &SolveContext::detached()),
        Err(SolveError::InvalidArgument { .. })
    ));
}

#[test]
fn puzzle_parser_errors_name_line_index_and_token() {
    let err = |text: &str| parse_puzzle_text(text).unwrap_err().to_string();
    assert_eq!(
        err(""),
        "line 1: expected the header `n m q`, found the end of the input"
    );
    assert_eq!(
        err("3 2\n"),
        "line 1: the header `n m q`: expected 3 numbers, found 2"
    );
    assert_eq!(err("0 0 0\n\n"), "line 1: n must be at least 1");
    assert_eq!(
        err("3 1 1\n1 x\n"),
        "line 2: edge 1 (`u v`): `x` is not a non-negative 32-bit integer"
    );
    assert_eq!(
        err("3 1 1\n1 2 3\n"),
        "line 2: edge 1 (`u v`): more than 2 numbers"
    );
    assert_eq!(
        err("3 1 1\n0 2\n"),
        "line 2: edge 1: vertex 0 out of range 1..3"
    );
    assert_eq!(
        err("3 1 1\n1 2\n"),
        "line 3: expected the start arrangement (3 tokens), found the end of the input"
    );
    assert_eq!(
        err("3 1 1\n1 2\n0 1\n"),
        "line 3: start: expected n = 3 tokens, found 2"
    );
    assert_eq!(
        err("3 1 1\n1 2\n0 1 2 0\n"),
        "line 3: start: more than n = 3 tokens"
    );
    assert_eq!(
        err("3 1 1\n1 2\n0 1 3\n"),
        "line 3: start, vertex 3: token 3 out of range 0..2"
    );
    assert_eq!(
        err("3 1 2\n1 2\n0 1 2\n1 0 2\n\n2 1 2\n"),
        "line 6: target 2, vertex 3: token 2 appears twice (also on vertex 1)"
    );
    assert_eq!(
        err("3 1 2\n1 2\n0 1 2\n1 0 2\n"),
        "line 5: expected target 2 of 2 (3 tokens), found the end of the input"
    );
    assert_eq!(
        err("3 1 1\n1 2\n0 1 2\n1 0 2\n7\n"),
        "line 5: unexpected input after the 1 targets announced in the header"
    );
    assert_eq!(
        err("3 1 1\n1 2\n0 1 2\n1 0 -2\n"),
        "line 4: target 1, vertex 3: `-2` is not a non-negative 32-bit integer"
    );
    // Blank lines and CRLF are fine.
    let p = parse_puzzle_text("\r\n2 1 1\r\n1 2\r\n\r\n0 1\r\n1 0\r\n").expect("crlf");
    assert_eq!(p.targets, vec![vec![1, 0]]);
}

// ---------------------------------------------------------------------------------------------
// Scale smoke test (correctness only; timing is in benches/puzzle.rs)
// ---------------------------------------------------------------------------------------------

#[test]
fn puzzle_scale_smoke() {
    let mut rng = ChaCha8Rng::seed_from_u64(4007);
    let ctx = SolveContext::detached();
    let n = 100_000u32;
    // A long path (DFS depth 10^5) with a few cycles at the far end, and a random sparse graph.
    let mut path: Edges = (1..n).map(|v| (v - 1, v)).collect();
    path.extend([(n - 1, n - 3), (n - 10, n - 20)]);
    let sparse = connected(&mut rng, n, 200_000);
    for e in [path, sparse] {
        let start = random_perm(&mut rng, n);
        let adj = adjacency(n, &e);
        let solver = PuzzleSolver::new(n, &e, &start, &ctx).expect("prepare");
        for i in 0..6 {
            let mut t = walk(&mut rng, &adj, &start, 300_000);
            let reachable = i % 2 == 0;
            if !reachable {
                // Swapping two tokens away from the blank changes the parity of the arrangement
                // without moving the blank.
                let (a, b) = (1..n as usize)
                    .map(|a| (a - 1, a))
                    .find(|&(a, b)| t[a] != 0 && t[b] != 0)
                    .expect("two non-blank tokens");
                t.swap(a, b);
            }
            // In the sparse graph (non-bipartite blocks) a swap may still be reachable; the path's
            // swap of two tree vertices never is. Only check the certain answers.
            let got = solver.is_reachable(&t).expect("target");
            if reachable {
                assert!(got);
            } else if e.len() < n as usize + 2 {
                assert!(!got);
            }
        }
    }
}

/// A puzzle of `n` vertices big enough that the preparation runs its long loops: a path with a
/// few cycles at the far end, a random start, and `q` targets (the start itself: reachable).
fn cancellation_instance(n: u32, q: usize) -> PuzzleProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(4011);
    let mut edges: Edges = (1..n).map(|v| (v - 1, v)).collect();
    edges.extend([(n - 1, n - 3), (n - 10, n - 20)]);
    let start = random_perm(&mut rng, n);
    PuzzleProblem {
        n,
        edges,
        targets: vec![start.clone(); q],
        start,
    }
}

#[test]
fn puzzle_cancel() {
    let p = cancellation_instance(100_000, 10);
    assert_eq!(
        solve_puzzle(&p, &SolveContext::detached()).expect("solves"),
        vec![true; 10]
    );

    // Cancelled before it starts: the preparation's first check (after sorting the edges) stops
    // it.
    let flag = CancelFlag::new();
    flag.cancel();
    let ctx = SolveContext::new(flag, None);
    assert_eq!(solve_puzzle(&p, &ctx).unwrap_err(), SolveError::Cancelled);

    // Cancelled while the targets are decided: progress past the preparation (0.2) cancels, and
    // the check before the next target stops the run.
    let flag = CancelFlag::new();
    let reports = Arc::new(AtomicUsize::new(0));
    let sink = {
        let (flag, reports) = (flag.clone(), Arc::clone(&reports));
        move |fraction: f64| {
            if fraction > 0.2 {
                reports.fetch_add(1, Ordering::Relaxed);
                flag.cancel();
            }
        }
    };
    let ctx = SolveContext::new(flag, Some(Arc::new(sink)));
    assert_eq!(solve_puzzle(&p, &ctx).unwrap_err(), SolveError::Cancelled);
    assert_eq!(
        reports.load(Ordering::Relaxed),
        1,
        "stopped after the first target"
    );
}

#[test]
fn puzzle_text_round_trip() {
    let mut rng = ChaCha8Rng::seed_from_u64(4008);
    for n in [1u32, 2, 9, 10, 11, 100, 1000] {
        let e = tree(&mut rng, n);
        let start = random_perm(&mut rng, n);
        let targets: Vec<Vec<u32>> = (0..5).map(|_| random_perm(&mut rng, n)).collect();
        let mut text = format!("{n} {} {}\n", e.len(), targets.len());
        for &(u, v) in &e {
            text.push_str(&format!("{} {}\n", u + 1, v + 1));
        }
        for arr in std::iter::once(&start).chain(&targets) {
            let words: Vec<String> = arr.iter().map(|t| format!("{t:0>2}")).collect();
            text.push_str(&format!("\t{} \r\n", words.join("  ")));
        }
        let p = parse_puzzle_text(&text).expect("round trip");
        assert_eq!(
            p,
            PuzzleProblem {
                n,
                edges: e,
                start,
                targets
            }
        );
    }
}

#[test]
fn puzzle_big_wilson_blocks_against_group_engine() {
    // One large 2-connected block (bipartite or not) with a few pendant trees: the group engine's
    // giant recognition makes this cheap, checking Wilson's theorem on blocks of hundreds.
    let mut rng = ChaCha8Rng::seed_from_u64(4009);
    let ctx = SolveContext::detached();
    for round in 0..30 {
        let n = rng.random_range(150..=1000u32);
        let core = n - 10;
        let mut e = if round % 2 == 0 {
            two_connected(&mut rng, core)
        } else {
            let w = 2 * rng.random_range(2..=5u32);
            let h = core / w;
            let mut g = grid(w, h);
            g.extend((w * h..core).map(|v| (v - w, v)));
            g
        };
        e.extend((core..n).map(|v| (rng.random_range(0..v), v)));
        fast_against_group_engine(&mut rng, n, &e, &ctx);
    }
}

/// Relabels `edges`, draws a start and 40 targets near it, and asserts that the fast solver and
/// the group engine agree; returns the answers.
fn fast_against_group_engine(
    rng: &mut ChaCha8Rng,
    n: u32,
    edges: &Edges,
    ctx: &SolveContext,
) -> Vec<bool> {
    let e = relabel(rng, n, edges);
    let start = random_perm(rng, n);
    let targets = near_targets(rng, n, &e, &start, 40);
    let p = PuzzleProblem {
        n,
        edges: e,
        start,
        targets,
    };
    let fast = solve_puzzle(&p, ctx).expect("fast");
    let engine = solve_puzzle_group_engine(&p, ctx, &Limits::default()).expect("engine");
    assert_eq!(fast, engine, "n={n} edges={:?}", p.edges);
    fast
}

/// Inputs big enough for the parser's two-thread path (targets >= 32 KiB): the targets come back
/// exactly as written, and a fault anywhere (first half, second half, last line, a missing or an
/// extra line, a blank line) gets the same message as in a small input, naming line and target.
#[test]
fn puzzle_parser_big_inputs_parse_and_name_faults_like_small_ones() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7a11e1);
    let (n, q) = (40usize, 1200usize);
    let perm = |rng: &mut ChaCha8Rng| {
        let mut p: Vec<u32> = (0..n as u32).collect();
        p.shuffle(rng);
        p
    };
    let line = |p: &[u32]| p.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
    let start = perm(&mut rng);
    let targets: Vec<Vec<u32>> = (0..q).map(|_| perm(&mut rng)).collect();
    // Header, one edge, start: the first target is on line 4.
    let text_of = |targets: &[Vec<u32>], q: usize| {
        let mut t = format!("{n} 1 {q}\n1 2\n{}\n", line(&start));
        for target in targets {
            t.push_str(&line(target));
            t.push('\n');
        }
        t
    };
    let text = text_of(&targets, q);
    assert!(text.len() > 64 << 10, "big enough for two threads");
    let p = parse_puzzle_text(&text).expect("well-formed");
    assert_eq!(p.start, start);
    assert_eq!(p.targets, targets);

    // A repeated token in target `t` (1-based), on line `t + 3`.
    for t in [1, 2, q / 2, q / 2 + 1, q - 1, q] {
        let mut bad = targets.clone();
        bad[t - 1][7] = bad[t - 1][3];
        let err = parse_puzzle_text(&text_of(&bad, q))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!(
                "line {}: target {t}, vertex 8: token {} appears twice (also on vertex 4)",
                t + 3,
                bad[t - 1][3]
            )
        );
    }
    // One target short, one too many, and a stray word.
    let err = parse_puzzle_text(&text_of(&targets[..q - 1], q)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "line {}: expected target {q} of {q} ({n} tokens), found the end of the input",
            q + 3
        )
    );
    let err = parse_puzzle_text(&text_of(&targets, q - 1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "line {}: unexpected input after the {} targets announced in the header",
            q + 3,
            q - 1
        )
    );
    let mut stray = text.clone();
    stray.insert_str(stray.len() - 2, " x");
    let err = parse_puzzle_text(&stray).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("line {}: target {q}", q + 3)),
        "{err}"
    );
    // Blank lines anywhere are skipped, as in small inputs.
    let spaced = text.replacen('\n', "\n\n", 500);
    assert_eq!(
        parse_puzzle_text(&spaced).expect("blank lines").targets,
        targets
    );
}

#[test]
fn puzzle_block_mixes_against_group_engine() {
    // Many blocks of every kind hung on one another (n = 150..400): the group engine sees an
    // intransitive product of Sym/Alt factors (Wilson blocks of 9 vertices or more), cyclic
    // factors and small enumerated ones, which its giant-product recognition handles without a
    // stabiliser chain for the large factors; the fast solver is the independent side.
    let mut rng = ChaCha8Rng::seed_from_u64(4010);
    let ctx = SolveContext::detached();
    let (mut yes, mut no) = (0, 0);
    for _ in 0..12 {
        let n = rng.random_range(150..=400u32);
        let mut e = block_tree(&mut rng, n, 40);
        add_noise(&mut rng, n, &mut e);
        let fast = fast_against_group_engine(&mut rng, n, &e, &ctx);
        yes += fast.iter().filter(|&&x| x).count();
        no += fast.iter().filter(|&&x| !x).count();
    }
    eprintln!("block mixes: {yes} yes, {no} no");
    assert!(yes > 100 && no > 100, "{yes} yes, {no} no");
}
