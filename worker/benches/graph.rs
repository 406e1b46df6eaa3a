//! The graph kind against nauty's `dreadnaut` (Debian `nauty`) in the same run: automorphism
//! group and canonical labelling of dense graphs (Paley, rook's graphs — strongly regular —,
//! random G(n, 1/2)) and of sparse ones (grids, random recursive trees, random cubic graphs, up
//! to 10^5 vertices by default; Cai–Fürer–Immerman graphs over random cubic graphs, the sparse
//! search's hard case; `cubic_N`, `grid_K`, `tree_N`, `rook_K`, `paley_P`, `random_N`, `cfi_N`
//! (N vertices, a multiple of 20) name any size, e.g. `tree_1000000`).
//!
//! `cargo bench -p orbit-worker --bench graph` (add case names to run some only). For each case:
//! the search the job uses (`dense`: nauty's algorithm on the bit matrix through `canonaut`;
//! `sparse`: Orbit's sparse search — see `uses_sparse_search`) alone, with its generators'
//! number and moved points in all (`gens`, `moved`), and the whole job
//! (`solve_graph`: the search, the exact order and orbits, the canonical form), both as the
//! minimum CPU time of 3 runs; the job's peak memory (`VmHWM` of a child process running it once,
//! minus that process's `VmHWM` before the job) and its memory estimate; dreadnaut's own `cpu
//! time` for `c x` (canonical labelling on; minimum of 3 runs in one session, read from its
//! output, 10 ms resolution) with dense nauty (`An`) for dense cases or sparse nauty (`As`) for
//! sparse ones, and with Traces (`At`), each given 60 s wall (`>60` beyond); the ratio is job /
//! nauty. Without `dreadnaut` on `PATH` its columns say `-`. `ORBIT_GRAPH_BENCH_RUNS=1` runs each
//! side once (for the largest graphs).

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};

use orbit_worker::graph::{
    GraphJob, UndirectedGraph, dense_search, graph_memory_estimate, solve_graph, sparse_search,
    uses_sparse_search,
};
use orbit_worker::{Limits, SolveContext};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DEFAULT_CASES: &[&str] = &[
    "paley_1009",
    "paley_2017",
    "paley_4001",
    "random_1000",
    "random_2000",
    "random_4000",
    "rook_50",
    "grid_30",
    "tree_1000",
    "cubic_500",
    "tree_100000",
    "grid_316",
    "cubic_100000",
    "cfi_500",
    "cfi_2000",
    "cfi_10000",
];

/// Nanoseconds this thread has spent on a CPU (`/proc/thread-self/schedstat`).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn min_cpu_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let start = cpu_ns();
            f();
            (cpu_ns() - start) as f64 / 1e9
        })
        .fold(f64::INFINITY, f64::min)
}

fn graph(n: u32, edges: impl IntoIterator<Item = (u32, u32)>) -> UndirectedGraph {
    UndirectedGraph {
        vertices: n,
        edges: edges.into_iter().collect(),
        colours: None,
    }
}

/// The Paley graph on GF(p), `p ≡ 1 mod 4` prime.
fn paley(p: u32) -> UndirectedGraph {
    let mut square = vec![false; p as usize];
    for x in 1..p as u64 {
        square[(x * x % p as u64) as usize] = true;
    }
    graph(
        p,
        (0..p)
            .flat_map(|x| (x + 1..p).map(move |y| (x, y)))
            .filter(|&(x, y)| square[(y - x) as usize]),
    )
}

/// The rook's graph K_k x K_k (strongly regular, |Aut| = 2 (k!)^2).
fn rook(k: u32) -> UndirectedGraph {
    let n = k * k;
    graph(
        n,
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| a / k == b / k || a % k == b % k),
    )
}

fn random(n: u32, rng: &mut ChaCha8Rng) -> UndirectedGraph {
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.random_bool(0.5) {
                edges.push((u, v));
            }
        }
    }
    graph(n, edges)
}

/// A random cubic graph: the union of a random perfect matching and a Hamiltonian cycle on a
/// random order (rejecting repeated edges).
fn cubic(n: u32, rng: &mut ChaCha8Rng) -> UndirectedGraph {
    loop {
        let mut order: Vec<u32> = (0..n).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let mut edges = BTreeSet::new();
        for i in 0..n as usize {
            let (a, b) = (order[i], order[(i + 1) % n as usize]);
            edges.insert((a.min(b), a.max(b)));
        }
        let mut matching: Vec<u32> = (0..n).collect();
        for i in (1..matching.len()).rev() {
            matching.swap(i, rng.random_range(0..=i));
        }
        let before = edges.len();
        for pair in matching.chunks(2) {
            edges.insert((pair[0].min(pair[1]), pair[0].max(pair[1])));
        }
        if edges.len() == before + n as usize / 2 {
            return graph(n, edges);
        }
    }
}

fn grid(k: u32) -> UndirectedGraph {
    let n = k * k;
    let mut edges = Vec::new();
    for r in 0..k {
        for c in 0..k {
            let v = r * k + c;
            if c + 1 < k {
                edges.push((v, v + 1));
            }
            if r + 1 < k {
                edges.push((v, v + k));
            }
        }
    }
    graph(n, edges)
}

/// The Cai–Fürer–Immerman graph over a random cubic graph of `n / 10` vertices: per base vertex
/// 4 middle vertices (one per even subset of its 3 edges) and 6 end vertices (two per edge, 0
/// and 1), a middle vertex joined to end 1 of the edges in its subset and end 0 of the others,
/// and the ends of each base edge joined 0–0 and 1–1. Colour refinement cannot tell it from its
/// twisted version, so individualisation goes about `n / 20` levels deep (Cai, Fürer and
/// Immerman, Combinatorica 12 (1992)); its group has order `2^(n/20 + 1)` times the base
/// graph's (the base graph's cycle space).
fn cfi(n: u32, rng: &mut ChaCha8Rng) -> UndirectedGraph {
    assert!(n.is_multiple_of(20), "cfi_N needs N a multiple of 20");
    let base = cubic(n / 10, rng);
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); base.vertices as usize];
    for (i, &(u, v)) in base.edges.iter().enumerate() {
        incident[u as usize].push(i);
        incident[v as usize].push(i);
    }
    // Base vertex b: middle vertices 10b..10b+4, then end (edge j of b, bit) at 10b + 4 + 2j + bit.
    let end = |b: u32, e: usize, bit: u32| {
        let j = incident[b as usize]
            .iter()
            .position(|&f| f == e)
            .unwrap_or(0) as u32;
        10 * b + 4 + 2 * j + bit
    };
    let mut edges = Vec::new();
    for b in 0..base.vertices {
        let masks = (0u32..8).filter(|m| m.count_ones() % 2 == 0);
        for (i, mask) in masks.enumerate() {
            for (j, &e) in incident[b as usize].iter().enumerate() {
                edges.push((10 * b + i as u32, end(b, e, (mask >> j) & 1)));
            }
        }
    }
    for (i, &(u, v)) in base.edges.iter().enumerate() {
        for bit in 0..2 {
            edges.push((end(u, i, bit), end(v, i, bit)));
        }
    }
    graph(n, edges)
}

/// A random recursive tree: vertex i joins a uniformly random earlier vertex.
fn tree(n: u32, rng: &mut ChaCha8Rng) -> UndirectedGraph {
    graph(n, (1..n).map(|i| (rng.random_range(0..i), i)))
}

/// Wall-clock seconds dreadnaut gets per case and algorithm (shown as `>LIMIT` beyond).
const DREADNAUT_LIMIT_SECS: u64 = 60;

/// dreadnaut's minimum `cpu time` over `runs` runs of `c x`, in seconds, with the algorithm
/// `mode` (`An` dense nauty, `As` sparse nauty, `At` Traces).
fn dreadnaut_secs(g: &UndirectedGraph, runs: usize, mode: &str) -> Option<f64> {
    let n = g.vertices as usize;
    let mut adjacency = vec![Vec::new(); n];
    for &(u, v) in &g.edges {
        adjacency[u.min(v) as usize].push(u.max(v));
    }
    let mut input = format!("{mode} n={n} g\n");
    // `v: w w ...;` per vertex; the last ends with `.` instead of `;`.
    for (v, list) in adjacency.iter().enumerate() {
        input.push_str(&format!("{v}:"));
        for w in list {
            input.push_str(&format!(" {w}"));
        }
        input.push_str(if v + 1 == n { ".\n" } else { ";\n" });
    }
    input.push_str(&format!("-a -m c{} q\n", " x".repeat(runs)));
    let mut child = Command::new("dreadnaut")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).map(|_| text)
    });
    // dreadnaut's sparse nauty takes minutes on large trees: give up after the time limit.
    let limit = std::time::Duration::from_secs(DREADNAUT_LIMIT_SECS);
    let started = std::time::Instant::now();
    while child.try_wait().ok()?.is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Some(f64::INFINITY);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = writer.join();
    let output = reader.join().ok()?.ok()?;
    output
        .lines()
        .filter_map(|l| {
            let rest = l.split("cpu time = ").nth(1)?;
            rest.split_whitespace().next()?.parse::<f64>().ok()
        })
        .reduce(f64::min)
}

/// The graph a case names.
fn case_graph(case: &str, rng: &mut ChaCha8Rng) -> UndirectedGraph {
    let (name, size) = case.rsplit_once('_').expect("case_size");
    let size: u32 = size.parse().expect("size");
    match name {
        "paley" => paley(size),
        "rook" => rook(size),
        "random" => random(size, rng),
        "cubic" => cubic(size, rng),
        "grid" => grid(size),
        "tree" => tree(size, rng),
        "cfi" => cfi(size, rng),
        other => panic!("unknown case {other}"),
    }
}

/// The peak resident memory of this process so far (`VmHWM`), in bytes.
fn peak_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            let line = t.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kib| kib * 1024)
}

/// The child run for the peak memory of one case: builds the graph (with the same seed as the
/// parent), measures `VmHWM` before and after one `solve_graph`, prints both.
fn child_peak(case: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let g = case_graph(case, &mut rng);
    let before = peak_bytes();
    let job = GraphJob { graph: g };
    solve_graph(&job, &SolveContext::detached(), &Limits::default()).expect("job");
    println!("{before} {}", peak_bytes());
}

/// The job's peak memory in a child process: `VmHWM` after the job minus before (the graph
/// built), in MiB.
fn peak_mib(case: &str) -> Option<f64> {
    let exe = std::env::current_exe().ok()?;
    let output = Command::new(exe)
        .env("ORBIT_GRAPH_BENCH_PEAK_OF", case)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let mut parts = text.split_whitespace().map(|x| x.parse::<u64>().ok());
    let (before, after) = (parts.next()??, parts.next()??);
    Some(after.saturating_sub(before) as f64 / (1u64 << 20) as f64)
}

fn main() {
    if let Ok(case) = std::env::var("ORBIT_GRAPH_BENCH_PEAK_OF") {
        child_peak(&case);
        return;
    }
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let cases: Vec<&str> = if args.is_empty() {
        DEFAULT_CASES.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    let runs: usize = std::env::var("ORBIT_GRAPH_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3)
        .max(1);
    let (ctx, limits) = (SolveContext::detached(), Limits::default());
    println!(
        "{:<13} {:>7} {:>8} {:>9} {:>6} {:>5} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>6} {:>6}",
        "case",
        "n",
        "m",
        "order",
        "search",
        "gens",
        "moved",
        "search s",
        "job s",
        "peak MiB",
        "est MiB",
        "dread s",
        "Traces",
        "ratio"
    );
    for case in cases {
        // Each case from the same seed, so the child run for the peak builds the same graph.
        let mut rng = ChaCha8Rng::seed_from_u64(2026);
        let g = case_graph(case, &mut rng);
        let sparse = uses_sparse_search(u64::from(g.vertices), g.edges.len() as u64);
        // The search's generators: how many, and their moved points in all (the sparse
        // search's; the dense search's are image arrays of n entries each).
        let (mut generators, mut moved) = (0usize, 0usize);
        let search = min_cpu_secs(runs, || {
            if sparse {
                let found = sparse_search(&g, &ctx, 1 << 30).expect("search");
                generators = found.generators.len();
                moved = found.generators.iter().map(|p| p.moved().len()).sum();
            } else {
                let found = dense_search(&g, &ctx, 1 << 30).expect("search");
                generators = found.generators.len();
                moved = generators * g.vertices as usize;
            }
        });
        let job = GraphJob { graph: g.clone() };
        let mut order = String::new();
        // A job refused within the default limits (its generators over their budget) shows
        // `refused` and its error after the line.
        let mut refusal = None;
        let total = min_cpu_secs(runs, || match solve_graph(&job, &ctx, &limits) {
            Ok(answer) => order = answer.order.to_string(),
            Err(error) => {
                order = "refused".into();
                refusal = Some(error);
            }
        });
        if order.len() > 9 {
            order = format!("~1e{}", order.len() - 1);
        }
        let estimate = graph_memory_estimate(&job, &limits) as f64 / (1u64 << 20) as f64;
        let peak = peak_mib(case).map_or("-".into(), |p| format!("{p:.0}"));
        let anchor = dreadnaut_secs(&g, runs, if sparse { "As" } else { "An" });
        let traces = dreadnaut_secs(&g, runs, "At");
        let show = |t: Option<f64>| match t {
            Some(t) if t.is_infinite() => format!(">{DREADNAUT_LIMIT_SECS}"),
            Some(t) => format!("{t:.2}"),
            None => "-".into(),
        };
        let (anchor_text, ratio) = match anchor {
            Some(a) if a.is_finite() => (show(anchor), format!("{:.2}", total / a.max(0.01))),
            _ => (show(anchor), "-".into()),
        };
        let traces_text = show(traces);
        println!(
            "{case:<13} {:>7} {:>8} {order:>9} {:>6} {generators:>5} {moved:>8} {search:>8.3} {total:>8.3} {peak:>8} {estimate:>7.0} {anchor_text:>7} {traces_text:>6} {ratio:>6}",
            g.vertices,
            g.edges.len(),
            if sparse { "sparse" } else { "dense" },
        );
        if let Some(error) = refusal {
            println!("  {case}: the job was refused: {error}");
        }
    }
}
