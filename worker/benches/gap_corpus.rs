//! The GAP-library corpus benchmark: Orbit's `group` job against GAP's `Size` on the same groups
//! in the same run.
//!
//! `cargo bench -p orbit-worker --bench gap_corpus` (add `-- NAME...` to keep the groups whose
//! name contains one of the words, e.g. `-- named` or `-- Sym(66)`; `-- --list` prints every
//! group's times; `-- --no-gap` times Orbit alone on the committed files).
//!
//! The corpus (see `worker/tests/gap_corpus/README.md`): every primitive group of degree 5..120,
//! 407 transitive groups of degree 8..30, 300 sampled primitive groups of degree 121..2,500 and
//! named large-base groups, each relabelled, given by its library generators plus two random
//! elements. The committed files hold every group except most of the 300 large ones (every 10th
//! of degree <= 1,500 is committed); when `gap` is on the `PATH`, the bench first generates all 300
//! with `worker/benches/gap/corpus.g` into `$ORBIT_GAP_DIR` (default
//! `$CARGO_TARGET_DIR/gap-corpus`, else `target/gap-corpus`; kept for later runs) and checks that
//! its orders are the committed `large.list` fixture.
//!
//! Each group is solved `$ORBIT_BENCH_RUNS` times (default 5; order only, no candidates) and its
//! minimum wall-clock time kept; every order is checked against GAP's. GAP then runs
//! `worker/benches/gap/gap_corpus_bench.g` on the same generators (the minimum of as many runs of
//! `Size(Group(gens))`). Printed: totals per band (all; degree <= 120; transitive; degree >
//! 1,000; named), the ratios GAP/Orbit, and every group slower than in GAP (its minimum above
//! GAP's; both under 1 ms is a tie).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../tests/common/gap_corpus.rs"]
#[allow(dead_code)] // the test reads the seeds and memberships
mod gap_corpus;

use gap_corpus::{COMMITTED_FILES, CorpusGroup, corpus_dir, generated_dir, read_corpus_file};
use orbit_worker::group::{GroupProblem, solve_group};
use orbit_worker::{Limits, SolveContext};

/// Under this on both sides a group counts as a tie.
const TIE: Duration = Duration::from_millis(1);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list_all = args.iter().any(|a| a == "--list");
    let wanted: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let runs: usize = std::env::var("ORBIT_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let gap = !args.iter().any(|a| a == "--no-gap") && gap_available();
    let dir = generated_dir();
    std::fs::create_dir_all(&dir).expect("create the GAP directory");
    let mut groups = Vec::new();
    for file in COMMITTED_FILES {
        // All 300 large groups when GAP can generate them or they were generated before.
        let generated = dir.join("primitive_large.txt").exists();
        if file == "primitive_large_sample.txt" && (gap || generated) {
            groups.extend(full_large_part(&dir));
        } else {
            groups.extend(read_corpus_file(&corpus_dir().join(file)));
        }
    }
    groups.retain(|g| {
        wanted.is_empty()
            || wanted
                .iter()
                .any(|w| g.name().contains(w) || g.library == *w)
    });
    println!(
        "# GAP-library corpus: {} groups, min of {runs} runs each; GAP: {}",
        groups.len(),
        if gap {
            gap_version()
        } else {
            "not on the PATH".into()
        }
    );

    let mut orbit_times = Vec::with_capacity(groups.len());
    // Once, as a server does: `Limits::default()` asks the system for its parallelism (reading
    // cgroup files), which took 6% of the small groups' times when it was inside the loop.
    let limits = Limits::default();
    for g in &groups {
        let problem = GroupProblem {
            candidates: Vec::new(),
            ..g.problem.clone()
        };
        let mut best = Duration::MAX;
        for _ in 0..runs {
            let t = Instant::now();
            let answer = solve_group(&problem, &SolveContext::detached(), &limits)
                .unwrap_or_else(|e| panic!("{}: {e}", g.name()));
            best = best.min(t.elapsed());
            assert_eq!(
                answer.order,
                g.order,
                "{}: order differs from GAP's",
                g.name()
            );
        }
        orbit_times.push(best);
    }
    let gap_times = if gap {
        run_gap(&groups, runs, &dir)
    } else {
        vec![None; groups.len()]
    };

    if list_all {
        println!("| group | degree | Orbit | GAP | GAP/Orbit |");
        println!("|---|---|---|---|---|");
        for ((g, o), t) in groups.iter().zip(&orbit_times).zip(&gap_times) {
            println!(
                "| {} | {} | {} | {} | {} |",
                g.name(),
                g.degree,
                fmt(*o),
                t.map_or("n/a".into(), fmt),
                t.map_or("-".into(), |t| ratio(t, *o))
            );
        }
    }
    type Band = (&'static str, fn(&CorpusGroup) -> bool);
    let bands: [Band; 6] = [
        ("all", |_| true),
        ("degree <= 120", |g| g.degree <= 120),
        ("primitive, degree <= 120", |g| {
            g.library == "primitive" && g.degree <= 120
        }),
        ("transitive (degree 8..30)", |g| g.library == "transitive"),
        ("degree > 1,000", |g| g.degree > 1_000),
        ("named", |g| g.library == "named"),
    ];
    println!("| band | groups | Orbit | GAP | GAP/Orbit | slower than GAP |");
    println!("|---|---|---|---|---|---|");
    for (name, keep) in bands {
        let mut n = 0;
        let (mut o, mut t) = (Duration::ZERO, Duration::ZERO);
        let mut slower = 0;
        for ((g, oi), ti) in groups.iter().zip(&orbit_times).zip(&gap_times) {
            if keep(g) {
                n += 1;
                o += *oi;
                if let Some(ti) = ti {
                    t += *ti;
                    slower += usize::from(is_slower(*oi, *ti));
                }
            }
        }
        if n == 0 {
            continue;
        }
        let (gap_cell, ratio_cell, slower_cell) = if gap {
            (fmt(t), ratio(t, o), slower.to_string())
        } else {
            ("n/a".into(), "-".into(), "-".into())
        };
        println!(
            "| {name} | {n} | {} | {gap_cell} | {ratio_cell} | {slower_cell} |",
            fmt(o)
        );
    }
    println!();
    println!("Named groups:");
    println!("| group | degree | Orbit | GAP | GAP/Orbit |");
    println!("|---|---|---|---|---|");
    for ((g, o), t) in groups.iter().zip(&orbit_times).zip(&gap_times) {
        if g.library == "named" {
            println!(
                "| {} | {} | {} | {} | {} |",
                g.name(),
                g.degree,
                fmt(*o),
                t.map_or("n/a".into(), fmt),
                t.map_or("-".into(), |t| ratio(t, *o))
            );
        }
    }
    if gap {
        println!();
        println!("Slower than GAP:");
        for ((g, o), t) in groups.iter().zip(&orbit_times).zip(&gap_times) {
            if let Some(t) = t
                && is_slower(*o, *t)
            {
                println!(
                    "- {} (degree {}): Orbit {}, GAP {}",
                    g.name(),
                    g.degree,
                    fmt(*o),
                    fmt(*t)
                );
            }
        }
    }
}

fn is_slower(orbit: Duration, gap: Duration) -> bool {
    orbit > gap && !(orbit < TIE && gap < TIE)
}

fn fmt(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 10_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1e3)
    }
}

fn ratio(gap: Duration, orbit: Duration) -> String {
    format!("{:.1}x", gap.as_secs_f64() / orbit.as_secs_f64().max(1e-9))
}

fn gap_available() -> bool {
    Command::new("gap")
        .args(["-q", "-A"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().map(|mut s| s.write_all(b"QUIT;\n"));
            c.wait()
        })
        .is_ok_and(|s| s.success())
}

fn gap_version() -> String {
    let out = Command::new("gap")
        .args(["-q", "-A"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .map(|mut s| s.write_all(b"Print(GAPInfo.Version, \"\\n\");\nQUIT;\n"));
            c.wait_with_output()
        });
    match out {
        Ok(o) => format!("GAP {}", String::from_utf8_lossy(&o.stdout).trim()),
        Err(e) => format!("error {e}"),
    }
}

/// All 300 sampled large primitive groups, generated by GAP into `dir` on the first run, their
/// orders checked against the committed `large.list`.
fn full_large_part(dir: &Path) -> Vec<CorpusGroup> {
    let file = dir.join("primitive_large.txt");
    if !file.exists() {
        eprintln!(
            "generating the 300 large primitive groups with GAP into {} (minutes, once)",
            dir.display()
        );
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gap/corpus.g");
        let input = format!(
            "corpus_dir := \"{0}\";; full_dir := \"{0}\";; parts := [\"large\"];;\nRead(\"{1}\");\n",
            dir.display(),
            script.display()
        );
        run_gap_input(&input);
    }
    let groups = read_corpus_file(&file);
    let committed = std::fs::read_to_string(corpus_dir().join("large.list")).expect("large.list");
    let fixture: Vec<&str> = committed.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        groups.len(),
        fixture.len(),
        "the generated large part differs from large.list"
    );
    for (g, line) in groups.iter().zip(&fixture) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            (f[1], f[2], f[6]),
            (
                g.degree.to_string().as_str(),
                g.index.to_string().as_str(),
                g.order.to_string().as_str()
            ),
            "the generated large part differs from large.list"
        );
    }
    groups
}

fn run_gap_input(input: &str) -> String {
    let mut child = Command::new("gap")
        .args(["-q", "-A", "-o", "8g", "-x", "100000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run gap");
    let mut stdin = child.stdin.take().expect("gap stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        stdin.write_all(input.as_bytes()).ok();
        stdin.write_all(b"\nQUIT;\n").ok();
    });
    let out = child.wait_with_output().expect("gap output");
    writer.join().ok();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// GAP's minimum over `runs` of `Size(Group(gens))` for each group (same order).
fn run_gap(groups: &[CorpusGroup], runs: usize, dir: &Path) -> Vec<Option<Duration>> {
    let data = dir.join("bench_input.g");
    let mut text = String::from("corpus := [\n");
    for g in groups {
        text.push('[');
        for (i, p) in g.problem.generators.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&p.to_string());
            text.push('\n');
        }
        text.push_str("],\n");
    }
    text.push_str(&format!("];;\nruns := {runs};;\n"));
    std::fs::write(&data, text).expect("write the GAP input");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gap/gap_corpus_bench.g");
    let out = run_gap_input(&format!(
        "Read(\"{}\");\nRead(\"{}\");\n",
        data.display(),
        script.display()
    ));
    let mut times = vec![None; groups.len()];
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if let ["GAPTIME", k, ns] = f.as_slice()
            && let (Ok(k), Ok(ns)) = (k.parse::<usize>(), ns.parse::<u64>())
            && (1..=groups.len()).contains(&k)
        {
            times[k - 1] = Some(Duration::from_nanos(ns));
        }
    }
    times
}
