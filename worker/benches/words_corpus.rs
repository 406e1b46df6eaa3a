//! Words on the GAP-library corpus: for how many of its groups Orbit writes members as words in
//! the generators, by which method, and how fast.
//!
//! `cargo bench -p orbit-worker --bench words_corpus [-- NAME...] [--max-degree D]
//! [--timeout S] [--elements N]`
//!
//! Every corpus group (see `worker/tests/gap_corpus/README.md`: the committed files, with all 300
//! large primitive groups instead of the committed sample when the `gap_corpus` bench has
//! generated them) of degree at most `D` (default 1,000: words are promised up to that degree) gets its words'
//! structure built (effort 1) under a deadline of `S` seconds (default 30; a cancel then, as a
//! client's would), then `N` members (default 5; random products of the generators, seeded)
//! written as words, each multiplied out and compared with its member, and the words' lengths
//! recorded. Printed: a line per group that ran out of time or was refused, the ten slowest,
//! and per method the number of groups, the total set-up time and the mean word length.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "../tests/common/gap_corpus.rs"]
#[allow(dead_code)] // the tests read the seeds, orders and memberships
mod gap_corpus;

use gap_corpus::{COMMITTED_FILES, corpus_dir, generated_dir, read_corpus_file};
#[path = "common/bench_args.rs"]
mod bench_args;
use bench_args::BenchArgs;
use orbit_worker::group::{GroupWords, Perm, PermGroup, WordEffort};
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let args = BenchArgs::from_env();
    let flag = |name: &str| args.flag(name);
    let max_degree = flag("--max-degree").unwrap_or(1_000) as usize;
    let timeout = Duration::from_secs(flag("--timeout").unwrap_or(30));
    let elements = flag("--elements").unwrap_or(5) as usize;
    let wanted = args.wanted();
    let mut groups = Vec::new();
    let generated = generated_dir().join("primitive_large.txt");
    for file in COMMITTED_FILES {
        if file == "primitive_large_sample.txt" && generated.exists() {
            groups.extend(read_corpus_file(&generated));
        } else {
            groups.extend(read_corpus_file(&corpus_dir().join(file)));
        }
    }
    groups.retain(|g| {
        g.degree <= max_degree && (wanted.is_empty() || wanted.iter().any(|w| g.name().contains(w)))
    });
    println!(
        "# Words on the GAP-library corpus: {} groups of degree <= {max_degree}, deadline {} s, {elements} members each",
        groups.len(),
        timeout.as_secs()
    );
    // Per method: groups, set-up seconds, letters, words.
    let mut methods: BTreeMap<String, (usize, f64, u64, u64)> = BTreeMap::new();
    let mut times: Vec<(f64, String)> = Vec::new();
    let mut failed = 0usize;
    for group in &groups {
        let name = group.name();
        let d = group.problem.degree;
        let gens = group.problem.generators.clone();
        let limits = Limits::default();
        let g = PermGroup::new(d, gens.clone(), &SolveContext::detached(), &limits)
            .expect("a corpus group builds");
        let flag = CancelFlag::new();
        let (done, wait) = mpsc::channel::<()>();
        let watchdog = {
            let flag = flag.clone();
            std::thread::spawn(move || {
                if wait.recv_timeout(timeout).is_err() {
                    flag.cancel();
                }
            })
        };
        let ctx = SolveContext::new(flag, None);
        let started = Instant::now();
        let built = GroupWords::new(
            &g,
            WordEffort(1),
            &ctx,
            limits.max_job_memory,
            "max_job_memory",
        );
        let setup = started.elapsed().as_secs_f64();
        done.send(()).ok();
        watchdog.join().expect("the watchdog ends");
        let words = match built {
            Ok(words) => words,
            Err(SolveError::Cancelled) => {
                failed += 1;
                println!(
                    "{name} (base {}): no words within {} s",
                    g.base().len(),
                    timeout.as_secs()
                );
                continue;
            }
            Err(e) => {
                failed += 1;
                println!("{name} (base {}): refused: {e}", g.base().len());
                continue;
            }
        };
        let mut rng = ChaCha8Rng::seed_from_u64(group.seed);
        let mut letters = 0u64;
        for _ in 0..elements {
            let mut x = Perm::identity(d);
            for _ in 0..64 {
                x = x.compose(&gens[rng.random_range(0..gens.len())]);
            }
            let w = words.word_of(&x).expect("a member has a word");
            assert_eq!(w.evaluate(&gens, d), x, "{name}: a word multiplied out");
            letters += w.len();
        }
        let entry = methods
            .entry(format!("{:?}", words.method()))
            .or_insert((0, 0.0, 0, 0));
        entry.0 += 1;
        entry.1 += setup;
        entry.2 += letters;
        entry.3 += elements as u64;
        times.push((setup, format!("{name} ({:?})", words.method())));
        std::io::stdout().flush().ok();
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("\nslowest set-ups:");
    for (t, name) in times.iter().take(10) {
        println!("  {t:.3} s  {name}");
    }
    println!("\n| method | groups | total set-up | mean letters |");
    println!("|---|---|---|---|");
    for (method, (n, setup, letters, words)) in &methods {
        println!(
            "| {method} | {n} | {setup:.2} s | {:.1} |",
            *letters as f64 / (*words).max(1) as f64
        );
    }
    println!(
        "\nwords for {} of {} groups; {failed} without (deadline or refusal)",
        groups.len() - failed,
        groups.len()
    );
}
