//! Token-swapping puzzle (WC2017 "board game", UOJ 287) benchmark. Not a timed test: prints a table for BENCHMARKS.md.
//!
//! `CARGO_TARGET_DIR=/work/target-puzzle cargo bench -p orbit-worker --bench puzzle [-- contest|scale|mid|moves]`
//! (default: `contest` and `scale`; `mid` takes about two minutes and `moves` a few seconds, and
//! they run only when named).
//!
//! * `contest`: the contest limits (n <= 50, m <= 100, q = 1000) per instance, for six graph
//!   families (tree, cycle, grid, cactus, general, block mix); the block/Wilson solver against the
//!   textbook method (a naive stabiliser chain with explicit transversals of the group generated
//!   by one permutation per non-tree edge of a spanning tree) and the group engine.
//! * `mid`: n = 200 (the naive chain's limit), m = 400, q = 1000.
//! * `moves`: move sequences ([`PuzzleMover`]): all 1,000 targets of contest instances (every
//!   target reachable), their time and length against the lower bound (the sum of the tokens'
//!   distances); the 15-puzzle (4 x 4 grid) over 1,000 random solvable instances; one target on
//!   a 100 x 100 grid.
//! * `lassos`: move sequences for blocks rearranged by words in their lassos (no small core: a
//!   long cycle with one chord, θ-graphs of three long paths): set-up (the first target, which
//!   builds the block's group and words), time per target after it, moves per target against
//!   the lower bound.
//! * `scale`: n = 100,000, m = 300,000, q = 100, end to end from the contest text (parse, prepare,
//!   decide) in a child process, with its peak RSS (VmHWM).
//!
//! Times are wall clock and the thread's CPU time (`/proc/thread-self/schedstat`): the machine is
//! shared.

use std::io::Write;
use std::time::{Duration, Instant};

use orbit_worker::memory::MemoryBudget;
use orbit_worker::puzzle::reference::{solve_puzzle_group_engine, solve_puzzle_reference};
use orbit_worker::puzzle::{
    PuzzleMover, PuzzleProblem, PuzzleSolver, format_answers, moves_lower_bound, parse_puzzle_text,
    solve_puzzle,
};
use orbit_worker::{Limits, SolveContext, SolveError};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Edges = Vec<(u32, u32)>;

/// n, m, yes, and four timings in ms.
type Row = (u32, usize, usize, f64, f64, f64, f64);

/// CPU time of this thread.
fn cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse::<u64>().ok())
        })
        .map(Duration::from_nanos)
        .unwrap_or_default()
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (w, c) = (Instant::now(), cpu());
    let out = f();
    (out, w.elapsed(), cpu().saturating_sub(c))
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse().ok()))
        })
        .unwrap_or(0)
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

// --- graph families --------------------------------------------------------------------------

fn tree(rng: &mut ChaCha8Rng, n: u32) -> Edges {
    (1..n).map(|v| (rng.random_range(0..v), v)).collect()
}

fn cycle(n: u32) -> Edges {
    (0..n).map(|v| (v, (v + 1) % n)).collect()
}

fn grid(k: u32) -> Edges {
    let mut e = Vec::new();
    for y in 0..k {
        for x in 0..k {
            let v = y * k + x;
            if x + 1 < k {
                e.push((v, v + 1));
            }
            if y + 1 < k {
                e.push((v, v + k));
            }
        }
    }
    e
}

fn cactus(rng: &mut ChaCha8Rng, n: u32, max_cycle: u32) -> Edges {
    let mut e = Vec::new();
    let mut next = 1u32;
    while next < n {
        let at = rng.random_range(0..next);
        let len = rng.random_range(1..=(n - next).min(max_cycle));
        let mut prev = at;
        for i in 0..len {
            e.push((prev, next + i));
            prev = next + i;
        }
        if len >= 2 {
            e.push((prev, at));
        }
        next += len;
    }
    e
}

fn general(rng: &mut ChaCha8Rng, n: u32, m: usize) -> Edges {
    let mut e = tree(rng, n);
    while e.len() < m {
        e.push((rng.random_range(0..n), rng.random_range(0..n)));
    }
    e
}

/// Blocks of every kind hung on one another: cycles, θ0, bipartite grids, dense blocks.
fn block_mix(rng: &mut ChaCha8Rng, n: u32, m_target: usize) -> Edges {
    let mut e = Vec::new();
    let mut next = 1u32;
    while next < n {
        let at = rng.random_range(0..next);
        let room = n - next;
        let block: (u32, Edges) = match rng.random_range(0..5) {
            0 => {
                let l = rng.random_range(3..=20u32);
                (l, cycle(l))
            }
            1 => {
                let mut t = cycle(6);
                t.extend([(0, 6), (6, 3)]);
                (7, t)
            }
            2 => {
                let k = rng.random_range(3..=12u32);
                (k * k, grid(k))
            }
            3 => (2, vec![(0, 1)]),
            _ => {
                let s = rng.random_range(8..=200u32);
                let mut t = cycle(s);
                for _ in 0..s {
                    t.push((rng.random_range(0..s), rng.random_range(0..s)));
                }
                (s, t)
            }
        };
        let (size, edges) = block;
        if size - 1 > room {
            e.push((at, next));
            next += 1;
            continue;
        }
        let map = |x: u32| if x == 0 { at } else { next + x - 1 };
        e.extend(edges.iter().map(|&(u, v)| (map(u), map(v))));
        next += size - 1;
    }
    while e.len() < m_target {
        // Extra edges inside the last blocks only would merge blocks; add parallel edges/loops.
        let &(a, b) = &e[rng.random_range(0..e.len())];
        e.push((b, a));
    }
    e
}

fn relabel(rng: &mut ChaCha8Rng, n: u32, e: &Edges) -> Edges {
    let mut perm: Vec<u32> = (0..n).collect();
    perm.shuffle(rng);
    e.iter()
        .map(|&(u, v)| (perm[u as usize], perm[v as usize]))
        .collect()
}

/// q targets: half random walks of the blank from the start (reachable), half the same with two
/// tokens swapped (mostly unreachable).
fn problem(rng: &mut ChaCha8Rng, n: u32, edges: Edges, q: usize, steps: usize) -> PuzzleProblem {
    let mut start: Vec<u32> = (0..n).collect();
    start.shuffle(rng);
    let mut adj = vec![Vec::new(); n as usize];
    for &(u, v) in &edges {
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    let mut targets = Vec::with_capacity(q);
    for i in 0..q {
        let mut t = start.clone();
        let mut b = t.iter().position(|&x| x == 0).unwrap_or(0);
        for _ in 0..steps {
            if adj[b].is_empty() {
                break;
            }
            let c = adj[b][rng.random_range(0..adj[b].len())] as usize;
            t.swap(b, c);
            b = c;
        }
        if i % 2 == 1 && n >= 3 {
            let (x, y) = (
                rng.random_range(0..n as usize),
                rng.random_range(0..n as usize),
            );
            if t[x] != 0 && t[y] != 0 {
                t.swap(x, y);
            }
        }
        targets.push(t);
    }
    PuzzleProblem {
        n,
        edges,
        start,
        targets,
    }
}

fn to_text(p: &PuzzleProblem) -> String {
    let mut s =
        String::with_capacity(p.n as usize * (p.targets.len() + 1) * 7 + p.edges.len() * 14);
    use std::fmt::Write as _;
    let _ = writeln!(s, "{} {} {}", p.n, p.edges.len(), p.targets.len());
    for &(u, v) in &p.edges {
        let _ = writeln!(s, "{} {}", u + 1, v + 1);
    }
    for arr in std::iter::once(&p.start).chain(&p.targets) {
        for (i, t) in arr.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let _ = write!(s, "{t}");
        }
        s.push('\n');
    }
    s
}

// --- sections --------------------------------------------------------------------------------

fn contest() {
    println!("## contest limits: n <= 50, m <= 100, q = 1000 (median of 5 instances per family)");
    println!(
        "| family | n | m | yes | fast solve | fast parse+solve | textbook method (naive chain) | group engine |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let ctx = SolveContext::detached();
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    type Family = (&'static str, fn(&mut ChaCha8Rng) -> (u32, Edges));
    let families: [Family; 6] = [
        ("tree", |r| (50, tree(r, 50))),
        ("cycle", |_| (50, cycle(50))),
        ("7x7 grid", |_| (49, grid(7))),
        ("cactus", |r| (50, cactus(r, 50, 8))),
        ("general", |r| (50, general(r, 50, 100))),
        ("block mix", |r| (50, block_mix(r, 50, 60))),
    ];
    // ORBIT_PUZZLE_BENCH_KEEP_DIR=DIR keeps each family's first instance
    // (DIR/puzzle-contest-FAMILY.txt) for the measurement through `orbit --server URL puzzle`.
    let keep = std::env::var_os("ORBIT_PUZZLE_BENCH_KEEP_DIR").map(std::path::PathBuf::from);
    for (name, make) in families {
        let mut rows: Vec<Row> = Vec::new();
        for instance in 0..5 {
            let (n, e) = make(&mut rng);
            let e = relabel(&mut rng, n, &e);
            let p = problem(&mut rng, n, e, 1000, 500);
            let text = to_text(&p);
            if let (Some(dir), 0) = (&keep, instance) {
                let family = name.split_whitespace().next().unwrap_or("x");
                std::fs::write(dir.join(format!("puzzle-contest-{family}.txt")), &text)
                    .expect("write input");
            }
            let (fast, w_fast, _) = timed(|| solve_puzzle(&p, &ctx).expect("fast"));
            let (_, w_text, _) = timed(|| {
                let q = parse_puzzle_text(&text).expect("parse");
                format_answers(&solve_puzzle(&q, &ctx).expect("fast"))
            });
            let (naive, w_naive, _) = timed(|| solve_puzzle_reference(&p, &ctx).expect("naive"));
            let (engine, w_engine, _) =
                timed(|| solve_puzzle_group_engine(&p, &ctx, &Limits::default()).expect("engine"));
            assert_eq!(fast, naive, "{name}: fast vs naive");
            assert_eq!(fast, engine, "{name}: fast vs engine");
            let yes = fast.iter().filter(|&&x| x).count();
            let f = |d: Duration| d.as_secs_f64() * 1e3;
            rows.push((
                n,
                p.edges.len(),
                yes,
                f(w_fast),
                f(w_text),
                f(w_naive),
                f(w_engine),
            ));
        }
        let med = |k: fn(&Row) -> f64| {
            let mut v: Vec<f64> = rows.iter().map(k).collect();
            v.sort_by(|a, b| a.total_cmp(b));
            v[v.len() / 2]
        };
        println!(
            "| {name} | {} | {} | {} | {:.3} ms | {:.3} ms | {:.3} ms | {:.3} ms |",
            rows[0].0,
            rows[0].1,
            rows[0].2,
            med(|r| r.3),
            med(|r| r.4),
            med(|r| r.5),
            med(|r| r.6)
        );
    }
}

fn mid() {
    println!("## mid: n = 200, q = 1000 (the naive chain's limit)");
    println!("| family | m | yes | fast | textbook method (naive chain) | group engine |");
    println!("|---|---|---|---|---|---|");
    let ctx = SolveContext::detached();
    let mut rng = ChaCha8Rng::seed_from_u64(45);
    for (name, e) in [
        ("general m=400", general(&mut rng, 200, 400)),
        ("block mix", block_mix(&mut rng, 200, 260)),
        ("cactus", cactus(&mut rng, 200, 12)),
    ] {
        let e = relabel(&mut rng, 200, &e);
        let p = problem(&mut rng, 200, e, 1000, 2000);
        let (fast, w_fast, _) = timed(|| solve_puzzle(&p, &ctx).expect("fast"));
        let (naive, w_naive, _) = timed(|| solve_puzzle_reference(&p, &ctx).expect("naive"));
        let (engine, w_engine, _) =
            timed(|| solve_puzzle_group_engine(&p, &ctx, &Limits::default()).expect("engine"));
        assert_eq!(fast, naive);
        assert_eq!(fast, engine);
        println!(
            "| {name} | {} | {} | {} | {} | {} |",
            p.edges.len(),
            fast.iter().filter(|&&x| x).count(),
            ms(w_fast),
            ms(w_naive),
            ms(w_engine)
        );
    }
}

/// Child process: parse the file, prepare, decide; print timings and VmHWM.
fn scale_child(path: &str) {
    let ctx = SolveContext::detached();
    let t0 = Instant::now();
    let c0 = cpu();
    let text = std::fs::read_to_string(path).expect("read input");
    let t_read = t0.elapsed();
    let (p, w_parse, c_parse) = timed(|| parse_puzzle_text(&text).expect("parse"));
    drop(text);
    let (solver, w_prep, c_prep) =
        timed(|| PuzzleSolver::new(p.n, &p.edges, &p.start, &ctx).expect("prepare"));
    let (answers, w_q, c_q) = timed(|| {
        p.targets
            .iter()
            .enumerate()
            .map(|(i, t)| solver.is_reachable_indexed(i, t).expect("target"))
            .collect::<Vec<_>>()
    });
    let out = format_answers(&answers);
    let total = t0.elapsed();
    let c_total = cpu().saturating_sub(c0);
    let s = solver.summary();
    println!(
        "child: read {} | parse {} (cpu {}) | prepare {} (cpu {}) | {} targets {} (cpu {}) | total {} (cpu {}) | yes {} | VmHWM {} MiB | blocks {} (bridges {}, cycles {}, enumerated {}, symmetric {}, alternating {}) | output {} bytes",
        ms(t_read),
        ms(w_parse),
        ms(c_parse),
        ms(w_prep),
        ms(c_prep),
        p.targets.len(),
        ms(w_q),
        ms(c_q),
        ms(total),
        ms(c_total),
        answers.iter().filter(|&&x| x).count(),
        vm_hwm_kib() / 1024,
        s.blocks,
        s.bridges,
        s.cycles,
        s.enumerated,
        s.symmetric,
        s.alternating,
        out.len()
    );
}

fn scale() {
    println!(
        "## scale: n = 100,000, m = 300,000, q = 100, end to end from text in a child process"
    );
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    let n = 100_000u32;
    for (name, e) in [
        (
            "general (tree + random edges)",
            general(&mut rng, n, 300_000),
        ),
        (
            "block mix (cycles, θ0, grids, dense blocks, bridges; parallel edges)",
            block_mix(&mut rng, n, 300_000),
        ),
        ("cactus (cycles <= 30)", cactus(&mut rng, n, 30)),
    ] {
        let e = relabel(&mut rng, n, &e);
        let p = problem(&mut rng, n, e, 100, 1_000_000);
        // In process, for comparison.
        let ctx = SolveContext::detached();
        let (answers, w, c) = timed(|| solve_puzzle(&p, &ctx).expect("solve"));
        let text = to_text(&p);
        // ORBIT_PUZZLE_BENCH_KEEP_DIR=DIR keeps the inputs (DIR/puzzle-scale-N.txt) for the
        // end-to-end measurement through `orbit puzzle` (see BENCHMARKS.md).
        let keep = std::env::var_os("ORBIT_PUZZLE_BENCH_KEEP_DIR").map(std::path::PathBuf::from);
        let path = match &keep {
            Some(dir) => dir.join(format!(
                "puzzle-scale-{}.txt",
                name.split_whitespace().next().unwrap_or("x")
            )),
            None => {
                std::env::temp_dir().join(format!("orbit-puzzle-bench-{}.txt", std::process::id()))
            }
        };
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .expect("write input");
        println!(
            "{name}: m = {}, input {:.1} MB; in process solve_puzzle {} (cpu {}), yes {}",
            p.edges.len(),
            text.len() as f64 / 1e6,
            ms(w),
            ms(c),
            answers.iter().filter(|&&x| x).count()
        );
        drop(text);
        let exe = std::env::current_exe().expect("current exe");
        let out = std::process::Command::new(exe)
            .env("ORBIT_PUZZLE_BENCH_CHILD", &path)
            .output()
            .expect("run child");
        print!("{}", String::from_utf8_lossy(&out.stdout));
        if keep.is_none() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Every target's sequence with one mover: (wall time, moves, lower bound, refused targets).
fn all_moves(p: &PuzzleProblem) -> (Duration, Duration, u64, u64, usize) {
    let ctx = SolveContext::detached();
    let mut budget = MemoryBudget::new(u64::MAX);
    let t0 = Instant::now();
    let c0 = cpu();
    let mut mover = PuzzleMover::new(p.n, &p.edges, &p.start, &ctx).expect("prepare");
    let mut walks = Vec::with_capacity(p.targets.len());
    let mut refused = 0;
    for t in &p.targets {
        match mover.moves(t, u64::MAX, &ctx, &mut budget) {
            Ok(w) => walks.push(w.expect("every target is reachable")),
            Err(SolveError::LimitExceeded { .. }) => {
                refused += 1;
                walks.push(Vec::new());
            }
            Err(e) => panic!("{e}"),
        }
    }
    let wall = t0.elapsed();
    let cpu_time = cpu().saturating_sub(c0);
    let mut total = 0;
    let mut bound = 0;
    for (t, w) in p.targets.iter().zip(&walks) {
        if !w.is_empty() || t == &p.start {
            total += w.len() as u64;
            bound += moves_lower_bound(p.n, &p.edges, &p.start, t).expect("reachable");
        }
    }
    (wall, cpu_time, total, bound, refused)
}

/// q reachable targets: random walks of `steps` steps of the blank from a random start.
fn reachable_problem(
    rng: &mut ChaCha8Rng,
    n: u32,
    edges: Edges,
    q: usize,
    steps: usize,
) -> PuzzleProblem {
    let mut p = problem(rng, n, edges, 0, 0);
    let mut adj = vec![Vec::new(); n as usize];
    for &(u, v) in &p.edges {
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    for _ in 0..q {
        let mut t = p.start.clone();
        let mut b = t.iter().position(|&x| x == 0).unwrap_or(0);
        for _ in 0..steps {
            if adj[b].is_empty() {
                break;
            }
            let c = adj[b][rng.random_range(0..adj[b].len())] as usize;
            t.swap(b, c);
            b = c;
        }
        p.targets.push(t);
    }
    p
}

fn moves() {
    println!(
        "## moves: contest limits, all q = 1000 targets reachable (median of 5 instances per family)"
    );
    println!(
        "| family | n | m | all sequences (median wall, median cpu) | moves per target (mean of the 5) | lower bound per target (mean) | refused targets |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    type Family = (&'static str, fn(&mut ChaCha8Rng) -> (u32, Edges));
    let families: [Family; 6] = [
        ("tree", |r| (50, tree(r, 50))),
        ("cycle", |_| (50, cycle(50))),
        ("7x7 grid", |_| (49, grid(7))),
        ("cactus", |r| (50, cactus(r, 50, 8))),
        ("general", |r| (50, general(r, 50, 100))),
        ("block mix", |r| (50, block_mix(r, 50, 60))),
    ];
    for (name, make) in families {
        let mut rows = Vec::new();
        for _ in 0..5 {
            let (n, e) = make(&mut rng);
            let e = relabel(&mut rng, n, &e);
            let m = e.len();
            let p = reachable_problem(&mut rng, n, e, 1000, 500);
            let (wall, cpu_time, total, bound, refused) = all_moves(&p);
            let done = (1000 - refused).max(1) as f64;
            rows.push((
                wall,
                cpu_time,
                total as f64 / done,
                bound as f64 / done,
                refused,
                n,
                m,
            ));
        }
        rows.sort_by_key(|r| r.0);
        let r = &rows[2];
        let mut cpus: Vec<Duration> = rows.iter().map(|r| r.1).collect();
        cpus.sort();
        let moves = rows.iter().map(|r| r.2).sum::<f64>() / rows.len() as f64;
        let bound = rows.iter().map(|r| r.3).sum::<f64>() / rows.len() as f64;
        println!(
            "| {name} | {} | {} | {} (cpu {}) | {:.0} | {:.0} | {} |",
            r.5,
            r.6,
            ms(r.0),
            ms(cpus[2]),
            moves,
            bound,
            rows.iter()
                .map(|r| r.4.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    // The 15-puzzle: random solvable instances (a random arrangement, fixed if the decider says
    // no by swapping two tiles), solved to the standard goal with the blank in a corner.
    let e = grid(4);
    let goal: Vec<u32> = (1..16).chain([0]).collect();
    let mut total = 0u64;
    let mut bound = 0u64;
    let mut longest = 0usize;
    let t0 = Instant::now();
    for _ in 0..1000 {
        let mut start = goal.clone();
        start.shuffle(&mut rng);
        let check = PuzzleProblem {
            n: 16,
            edges: e.clone(),
            start: start.clone(),
            targets: vec![goal.clone()],
        };
        if !solve_puzzle(&check, &SolveContext::detached()).expect("decide")[0] {
            let (a, b) = if start[0] != 0 && start[1] != 0 {
                (0, 1)
            } else {
                (2, 3)
            };
            start.swap(a, b);
        }
        let p = PuzzleProblem { start, ..check };
        let (_, _, moves, lb, refused) = all_moves(&p);
        assert_eq!(refused, 0);
        total += moves;
        bound += lb;
        longest = longest.max(moves as usize);
    }
    println!(
        "15-puzzle (4 x 4 grid), 1,000 random solvable instances: mean {:.1} moves (longest {longest}), mean lower bound {:.1}, {} in all",
        total as f64 / 1000.0,
        bound as f64 / 1000.0,
        ms(t0.elapsed())
    );

    let n = 100 * 100;
    let e = grid(100);
    let p = reachable_problem(&mut rng, n, e, 1, 1_000_000);
    let ctx = SolveContext::detached();
    let mut budget = MemoryBudget::new(u64::MAX);
    let (walk, wall, cpu_time) = timed(|| {
        let mut mover = PuzzleMover::new(p.n, &p.edges, &p.start, &ctx).expect("prepare");
        mover
            .moves(&p.targets[0], u64::MAX, &ctx, &mut budget)
            .expect("moves")
    });
    let moves = walk.map_or(0, |w| w.len());
    println!(
        "100 x 100 grid, one target (10^6 random steps of the blank): {} (cpu {}), {moves} moves, lower bound {}",
        ms(wall),
        ms(cpu_time),
        moves_lower_bound(p.n, &p.edges, &p.start, &p.targets[0]).expect("reachable")
    );
}

/// A θ-graph: poles 0 and 1 joined by three paths of `a`, `b`, `c` inner vertices.
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

fn lassos() {
    println!(
        "## lassos: blocks rearranged by words in their lassos, q = 100 reachable targets each (random walks of 10^4 steps)"
    );
    println!(
        "| block | n | first target (set-up) | per target after | moves per target (mean / max) | lower bound per target | ratio |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    let chord = |n: u32, a: u32| {
        let mut e = cycle(n);
        e.push((0, a));
        (n, e)
    };
    let cases: Vec<(String, (u32, Edges))> = vec![
        ("cycle 40 + chord (cycles 21, 21)".into(), chord(40, 20)),
        ("cycle 100 + chord (cycles 51, 51)".into(), chord(100, 50)),
        (
            "cycle 100 + chord (cycles 50, 52: bipartite)".into(),
            chord(100, 49),
        ),
        (
            "cycle 100 + chord (cycles 4, 98: bipartite)".into(),
            chord(100, 3),
        ),
        ("θ(10, 12, 15)".into(), theta(10, 12, 15)),
        ("θ(32, 33, 33)".into(), theta(32, 33, 33)),
    ];
    for (name, (n, e)) in cases {
        let e = relabel(&mut rng, n, &e);
        let p = reachable_problem(&mut rng, n, e, 100, 10_000);
        let ctx = SolveContext::detached();
        let mut budget = MemoryBudget::new(u64::MAX);
        let mut mover = PuzzleMover::new(p.n, &p.edges, &p.start, &ctx).expect("prepare");
        let (mut total, mut bound, mut longest) = (0u64, 0u64, 0usize);
        let mut first = Duration::ZERO;
        let t0 = Instant::now();
        for (i, t) in p.targets.iter().enumerate() {
            let w = mover
                .moves(t, u64::MAX, &ctx, &mut budget)
                .expect("moves")
                .expect("reachable");
            if i == 0 {
                first = t0.elapsed();
            }
            total += w.len() as u64;
            longest = longest.max(w.len());
            bound += moves_lower_bound(p.n, &p.edges, &p.start, t).expect("reachable");
        }
        let rest = t0.elapsed() - first;
        let q = p.targets.len() as f64;
        println!(
            "| {name} | {n} | {} | {} | {:.0} / {longest} | {:.0} | {:.0} |",
            ms(first),
            ms(rest / (p.targets.len() as u32 - 1)),
            total as f64 / q,
            bound as f64 / q,
            total as f64 / bound.max(1) as f64
        );
    }
}

/// Random reachable arrangements (a random one, two tiles swapped if the decider says no) of
/// long cycles with a chord: the lasso words' worst case, moves and time per target.
fn lassos_scrambled() {
    println!("## lassos: random reachable arrangements, q = 5 per block");
    println!(
        "| block | n | time per target | moves per target (mean / max) | lower bound per target | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    let mut rng = ChaCha8Rng::seed_from_u64(49);
    for n in [100u32, 200, 400] {
        let mut e = cycle(n);
        e.push((0, n / 2));
        let e = relabel(&mut rng, n, &e);
        let mut p = problem(&mut rng, n, e, 0, 0);
        for _ in 0..5 {
            let mut t = p.start.clone();
            t.shuffle(&mut rng);
            let check = PuzzleProblem {
                targets: vec![t.clone()],
                ..p.clone()
            };
            if !solve_puzzle(&check, &SolveContext::detached()).expect("decide")[0] {
                let (a, b) = if t[0] != 0 && t[1] != 0 {
                    (0, 1)
                } else {
                    (2, 3)
                };
                t.swap(a, b);
            }
            p.targets.push(t);
        }
        let (wall, _, total, bound, refused) = all_moves(&p);
        assert_eq!(refused, 0);
        let q = p.targets.len();
        let longest = {
            let ctx = SolveContext::detached();
            let mut budget = MemoryBudget::new(u64::MAX);
            let mut mover = PuzzleMover::new(p.n, &p.edges, &p.start, &ctx).expect("prepare");
            p.targets
                .iter()
                .map(|t| {
                    mover
                        .moves(t, u64::MAX, &ctx, &mut budget)
                        .expect("moves")
                        .map_or(0, |w| w.len())
                })
                .max()
                .unwrap_or(0)
        };
        println!(
            "| cycle {n} + chord (cycles {}, {}) | {n} | {} | {:.0} / {longest} | {:.0} | {:.0} |",
            n / 2 + 1,
            n - n / 2 + 1,
            ms(wall / q as u32),
            total as f64 / q as f64,
            bound as f64 / q as f64,
            total as f64 / bound.max(1) as f64
        );
    }
}

fn main() {
    if let Ok(path) = std::env::var("ORBIT_PUZZLE_BENCH_CHILD") {
        scale_child(&path);
        return;
    }
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    // `mid` (about 2 minutes, the references at n = 200), `moves` and `lassos` run only when named.
    let want = |s: &str| {
        (args.is_empty() && !matches!(s, "mid" | "moves" | "lassos")) || args.iter().any(|a| a == s)
    };
    if want("contest") {
        contest();
    }
    if want("mid") {
        mid();
    }
    if want("scale") {
        scale();
    }
    if want("moves") {
        moves();
    }
    if want("lassos") {
        lassos();
        lassos_scrambled();
    }
}
