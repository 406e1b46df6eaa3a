//! Game-solver benchmark (retrograde analysis of game graphs; the policeman-and-thief grid game):
//! Orbit's solvers beside the textbook baseline (explicit predecessor lists as a vector of
//! vectors, the same breadth-first propagation).
//!
//! Every case runs in a child process of this binary so that its peak RSS (`VmHWM`) is its own.
//!
//! ```text
//! cargo bench -p orbit-worker --bench game                 # all default cases
//! cargo bench -p orbit-worker --bench game -- cop64 cop64-t2 # chosen cases
//! cargo bench -p orbit-worker --bench game -- --list
//! ```
//!
//! Case names: `cop64`, `cop64-t2`, `cop64-textbook`, `cop64-play` (and the optimal chase), `cop100`, `cop100-t2`, `cop100-textbook`
//! (not in the default set: needs about 20 GB), `graph1e7`, `graph1e7-textbook`. A number after a
//! `cop` case's size is the thread count.

use std::collections::VecDeque;
use std::process::Command;
use std::time::Instant;

use orbit_worker::SolveContext;
use orbit_worker::cop_thief::{CopThiefQuery, parse_grid_text, solve_cop_thief};
use orbit_worker::game::{GameGraph, solve_game_threads};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DEFAULT_CASES: &[&str] = &[
    "cop64",
    "cop64-t2",
    "cop64-textbook",
    "cop64-play",
    "cop100",
    "cop100-t2",
    "graph1e7",
    "graph1e7-t2",
    "graph1e7-textbook",
];

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let Some(pos) = args.iter().position(|a| a == "--case") {
        let name = args.get(pos + 1).expect("--case NAME");
        run_case(name);
        return;
    }
    if args.iter().any(|a| a == "--list") {
        for c in DEFAULT_CASES {
            println!("{c}");
        }
        println!("cop100-textbook");
        return;
    }
    let cases: Vec<String> = if args.is_empty() {
        DEFAULT_CASES.iter().map(|s| s.to_string()).collect()
    } else {
        args
    };
    let exe = std::env::current_exe().expect("own path");
    println!(
        "{:<20} {:>8} {:>8} {:>8} {:>12}  answer",
        "case", "wall s", "cpu s", "child s", "peak RSS MB"
    );
    for case in &cases {
        let t = Instant::now();
        let out = Command::new(&exe)
            .args(["--case", case])
            .output()
            .expect("spawn child");
        let total = t.elapsed().as_secs_f64();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let Some(line) = stdout.lines().find(|l| l.starts_with("RESULT ")) else {
            println!(
                "{case:<20} failed: {} {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            continue;
        };
        let f: Vec<&str> = line.splitn(5, ' ').collect();
        let secs: f64 = f[1].parse().expect("secs");
        let cpu: f64 = f[2].parse().expect("cpu");
        let rss_kb: f64 = f[3].parse().expect("rss");
        println!(
            "{case:<20} {secs:>8.3} {cpu:>8.2} {total:>8.2} {:>12.1}  {}",
            rss_kb / 1024.0,
            f[4]
        );
    }
}

/// Runs `f`, returning its answer with the wall-clock and CPU seconds it took.
fn timed(f: impl FnOnce() -> String) -> (f64, f64, String) {
    let (t, c) = (Instant::now(), cpu_seconds());
    let answer = f();
    (t.elapsed().as_secs_f64(), cpu_seconds() - c, answer)
}

/// Runs one case in this (child) process and prints `RESULT wall_secs cpu_secs peak_rss_kb
/// answer`.
fn run_case(name: &str) {
    let (secs, cpu, answer) = match name {
        "graph1e7" => graph(false, 1),
        "graph1e7-t2" => graph(false, 2),
        "graph1e7-textbook" => graph(true, 1),
        _ => {
            // `-play`: also the optimal chase from the start (`orbit cop-thief --play`).
            let (name, play) = match name.strip_suffix("-play") {
                Some(r) => (r, true),
                None => (name, false),
            };
            let (rest, textbook) = match name.strip_suffix("-textbook") {
                Some(r) => (r, true),
                None => (name, false),
            };
            let (size, threads) = match rest.split_once("-t") {
                Some((s, t)) => (s, t.parse().expect("thread count")),
                None => (rest, 1),
            };
            let n: usize = size
                .strip_prefix("cop")
                .expect("cop case")
                .parse()
                .expect("size");
            cop(n, threads, textbook, play)
        }
    };
    println!("RESULT {secs:.4} {cpu:.2} {} {answer}", peak_rss_kb());
}

/// CPU seconds (user + system) used by this process so far, from `/proc/self/stat`; with
/// several threads this is their sum.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (the state), so field k is f[k - 3]; ticks are 1/100 s on Linux.
    let field = |k: usize| {
        f.get(k - 3)
            .and_then(|x| x.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (field(14) + field(15)) as f64 / 100.0
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Open n x n grid, policeman top-left, thief bottom-right, no exit: parse + solve, as the CLI.
fn open_grid_text(n: usize) -> String {
    let mut text = format!("{n} {n}\n");
    for r in 0..n {
        let mut row = vec![b'.'; n];
        if r == 0 {
            row[0] = b'C';
        }
        if r == n - 1 {
            row[n - 1] = b'T';
        }
        text.push_str(std::str::from_utf8(&row).expect("ascii"));
        text.push('\n');
    }
    text
}

fn cop(n: usize, threads: usize, textbook: bool, play: bool) -> (f64, f64, String) {
    let text = open_grid_text(n);
    timed(|| {
        if textbook {
            textbook_cop(&text)
        } else {
            let grid = parse_grid_text(&text).expect("valid grid");
            let sol = solve_cop_thief(&grid, threads, &SolveContext::detached()).expect("solve");
            if play {
                let start = CopThiefQuery {
                    cop: grid.cop(),
                    thief: grid.thief(),
                    cop_to_move: true,
                };
                let line = sol.line(start, u64::MAX);
                format!("{} chase {}", sol.start_value(), line.states.len())
            } else {
                sol.start_value().to_string()
            }
        }
    })
}

/// The textbook version of retrograde analysis: build every state's predecessor list explicitly as a vector of
/// vectors, count out-degrees, then propagate from the finished states (breadth-first instead of
/// the textbook's recursive DFS, which would overflow the stack, and with depths).
fn textbook_cop(text: &str) -> String {
    let mut lines = text.lines();
    let header: Vec<usize> = lines
        .next()
        .expect("header")
        .split_whitespace()
        .map(|x| x.parse().expect("num"))
        .collect();
    let (h, w) = (header[0], header[1]);
    let a: Vec<&[u8]> = lines.take(h).map(str::as_bytes).collect();
    let cells = h * w;
    let id = |p: usize, t: usize, cop_step: usize| (p * cells + t) * 2 + cop_step;
    let total = 2 * cells * cells;
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); total];
    let mut degree = vec![0u32; total];
    let mut win = vec![false; total];
    let mut lose = vec![false; total];
    let dx = [-1i64, 0, 1, 0, -1, -1, 1, 1];
    let dy = [0i64, 1, 0, -1, -1, 1, -1, 1];
    for p in 0..cells {
        for t in 0..cells {
            let (px, py, tx, ty) = (p / w, p % w, t / w, t % w);
            if a[px][py] == b'*' || a[tx][ty] == b'*' {
                continue;
            }
            for cop_step in 0..2 {
                let s = id(p, t, cop_step);
                if cop_step == 1 {
                    win[s] = p == t;
                    lose[s] = !win[s] && a[tx][ty] == b'E';
                } else {
                    win[s] = a[tx][ty] == b'E' && p != t;
                    lose[s] = p == t;
                }
                if win[s] || lose[s] {
                    continue;
                }
                // Staying.
                preds[id(p, t, 1 - cop_step)].push(s as u32);
                degree[s] = 1;
                for d in 0..if cop_step == 1 { 8 } else { 4 } {
                    let (mut ppx, mut ppy, mut ttx, mut tty) =
                        (px as i64, py as i64, tx as i64, ty as i64);
                    if cop_step == 1 {
                        ppx += dx[d];
                        ppy += dy[d];
                    } else {
                        ttx += dx[d];
                        tty += dy[d];
                    }
                    let inside = |x: i64, y: i64| x >= 0 && x < h as i64 && y >= 0 && y < w as i64;
                    if inside(ppx, ppy)
                        && inside(ttx, tty)
                        && a[ppx as usize][ppy as usize] != b'*'
                        && a[ttx as usize][tty as usize] != b'*'
                    {
                        let to = id(
                            ppx as usize * w + ppy as usize,
                            ttx as usize * w + tty as usize,
                            1 - cop_step,
                        );
                        preds[to].push(s as u32);
                        degree[s] += 1;
                    }
                }
            }
        }
    }
    let mut depth = vec![u32::MAX; total];
    let mut queue = VecDeque::new();
    for s in 0..total {
        if win[s] || lose[s] {
            depth[s] = 0;
            queue.push_back(s as u32);
        }
    }
    while let Some(v) = queue.pop_front() {
        let v = v as usize;
        for &u in &preds[v] {
            let u = u as usize;
            if win[u] || lose[u] {
                continue;
            }
            if lose[v] {
                win[u] = true;
            } else {
                degree[u] -= 1;
                if degree[u] != 0 {
                    continue;
                }
                lose[u] = true;
            }
            depth[u] = depth[v] + 1;
            queue.push_back(u as u32);
        }
    }
    let find = |ch: u8| {
        (0..cells)
            .find(|&c| a[c / w][c % w] == ch)
            .expect("piece on the grid")
    };
    let s = id(find(b'C'), find(b'T'), 1);
    if win[s] {
        format!("cop {}", depth[s])
    } else if lose[s] {
        format!("thief {}", depth[s])
    } else {
        "draw".to_string()
    }
}

/// Uniform random graph: 10^7 vertices, 5 x 10^7 edges (generation not timed).
fn graph(textbook: bool, threads: usize) -> (f64, f64, String) {
    let n = 10_000_000u32;
    let m = 50_000_000usize;
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let edges: Vec<(u32, u32)> = (0..m)
        .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
        .collect();
    let g = GameGraph { vertices: n, edges };
    timed(|| {
        let (c, max_depth) = if textbook {
            textbook_graph(&g)
        } else {
            let s = solve_game_threads(&g, threads, &SolveContext::detached()).expect("solve");
            let mut c = [0usize; 3];
            for o in &s.outcome {
                c[*o as usize] += 1;
            }
            let max_depth = s
                .depth
                .iter()
                .filter(|&&d| d != u32::MAX)
                .max()
                .copied()
                .unwrap_or(0);
            (c, max_depth)
        };
        format!(
            "win {} lose {} draw {} max depth {}",
            c[0], c[1], c[2], max_depth
        )
    })
}

/// Textbook explicit solver: predecessor lists as `Vec<Vec<u32>>`, out-degree counters, a
/// `VecDeque` queue; same outcomes and depths.
fn textbook_graph(g: &GameGraph) -> ([usize; 3], u32) {
    let n = g.vertices as usize;
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut degree = vec![0u32; n];
    for &(u, v) in &g.edges {
        preds[v as usize].push(u);
        degree[u as usize] += 1;
    }
    // 0 unknown, 1 win, 2 lose
    let mut state = vec![0u8; n];
    let mut depth = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for v in 0..n {
        if degree[v] == 0 {
            state[v] = 2;
            depth[v] = 0;
            queue.push_back(v as u32);
        }
    }
    while let Some(v) = queue.pop_front() {
        let v = v as usize;
        for &u in &preds[v] {
            let u = u as usize;
            if state[u] != 0 {
                continue;
            }
            if state[v] == 2 {
                state[u] = 1;
            } else {
                degree[u] -= 1;
                if degree[u] != 0 {
                    continue;
                }
                state[u] = 2;
            }
            depth[u] = depth[v] + 1;
            queue.push_back(u as u32);
        }
    }
    let mut c = [0usize; 3];
    for &s in &state {
        c[match s {
            1 => 0,
            2 => 1,
            _ => 2,
        }] += 1;
    }
    (
        c,
        depth
            .iter()
            .filter(|&&d| d != u32::MAX)
            .max()
            .copied()
            .unwrap_or(0),
    )
}
