//! Words for group members (Minkwitz's tables): set-up time, word lengths and words per second.
//!
//! `cargo bench -p orbit-worker --bench words [-- NAME... ] [--effort E] [--elements N]
//! [--gap-timeout S] [--max-letters L]`
//!
//! For each case: the group is built, then the word tables (timed: the set-up), then `N`
//! (default 1,000) uniformly random members (products of random coset representatives, seeded;
//! where the transversals would not fit, random permutations of the moved points that are
//! members, or for a group that is not a giant products of `4·d` random generators)
//! are written as words (timed: words per second); every word is multiplied out and compared
//! with its element. Where a word takes 2 ms or more, up to five are cancelled halfway and the
//! longest wait for the method to give up is printed (on stderr). With `gap` on the `PATH`, GAP 4's `EpimorphismFromFreeGroup` and
//! `PreImagesRepresentative` run on the same generators and elements in the same run
//! (`worker/benches/gap/words_bench.g`), and their set-up time and lengths are printed beside;
//! GAP is stopped after `S` seconds (default 300) and reported as `> S s`. With `--max-letters
//! L` a case with a word longer than `L` letters is reported as refused at that word, which is
//! not written in full (as a job's `max_word_letters` does, which caps its words' letters in
//! all).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[path = "common/bench_args.rs"]
mod bench_args;
#[path = "common/wreath_elements.rs"]
mod wreath_elements;
use bench_args::BenchArgs;
use orbit_worker::group::{GroupWords, LetterBudget, Perm, PermGroup, Word, WordEffort};
use orbit_worker::{CancelFlag, Limits, SolveContext};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wreath_elements::{
    AFFINE_7, DIHEDRAL_5, PSL_2_7, beside, random_wreath_in, random_wreath_with, shuffled,
};

const RUBIK: [&str; 6] = [
    "(1,3,8,6)(2,5,7,4)(9,33,25,17)(10,34,26,18)(11,35,27,19)",
    "(9,11,16,14)(10,13,15,12)(1,17,41,40)(4,20,44,37)(6,22,46,35)",
    "(17,19,24,22)(18,21,23,20)(6,25,43,16)(7,28,42,13)(8,30,41,11)",
    "(25,27,32,30)(26,29,31,28)(3,38,43,19)(5,36,45,21)(8,33,48,24)",
    "(33,35,40,38)(34,37,39,36)(3,9,46,32)(2,12,47,29)(1,14,48,27)",
    "(41,43,48,46)(42,45,47,44)(14,22,30,38)(15,23,31,39)(16,24,32,40)",
];

const M24: [&str; 3] = [
    "(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23)",
    "(3,17,10,7,9)(4,13,14,19,5)(8,18,11,12,23)(15,20,22,21,16)",
    "(1,24)(2,23)(3,12)(4,16)(5,18)(6,10)(7,20)(8,14)(9,21)(11,17)(13,22)(15,19)",
];

/// `Alt(5)` on five points (two 3-cycles, as images).
const ALT_5: [&[u32]; 2] = [&[1, 2, 0, 3, 4], &[0, 1, 3, 4, 2]];

const CASES: &[&str] = &[
    "rubik",
    "m24",
    "sym3_60_copies",
    "sym16_random",
    "sym30_random",
    "sym100_random",
    "sym1000_random",
    "alt1000_random",
    "sym50xsym40_mixed",
    "sym100xsym80_mixed",
    "sym200xsym150_mixed",
    "sym500xsym500_mixed",
    "sym2wrsym50_random",
    "sym2wrsym200_random",
    "sym3wrsym50_random",
    "sym4wrsym40_random",
    "sym5wrsym20_random",
    "sym5wrsym40_random",
    "sym9wrsym6_random",
    "sym10wrsym10_random",
    "sym30wrsym4_random",
    "sym100wrsym2_random",
    "sym50wrsym20_random",
    "sym100wrsym10_random",
    "sym250wrsym4_random",
    "sym10wrsym100_random",
    "sym3wrsym333_random",
    "sym2wrsym500_random",
    "sym30wrsym9_beside_sym30_random",
    "sym50wrsym9_beside_sym50_random",
    "sym100wrsym9_beside_sym100_random",
    "sym4wrsym40_beside_sym3wrsym40_random",
    "sym4wrsym100_beside_sym3wrsym100_random",
    "sym2wrsym250_beside_sym500_random",
    "sym30wrsym4_beside_sym20wrsym5_random",
    "sym4wrsym40_beside_sym100_random",
    "sym4wrsym100_beside_sym300_random",
    "sym20wrsym20_beside_sym200_beside_sym300_random",
    "sym50wrsym10_beside_sym25wrsym20_random",
    "d5wrsym40_random",
    "d5wrsym100_random",
    "agl17wrsym50_random",
    "d5wralt100_even_reflections",
    "d5wrsym200_random",
    "agl17wrsym140_random",
    "psl27wrsym40_random",
    "psl27wrsym100_random",
    "m24wrsym40_random",
    "psl27wrsym40_beside_psl27wrsym30_random",
    "alt5wrsym60_beside_alt5wrsym50_random",
    "sym5wrsym100_beside_sym5wrsym80_random",
    "agl17wrsym16_beside_sym9wrsym54_random",
    "diagonal_sym50_random",
    "sym45_on_2sets_random",
    "sym20_on_2sets_random",
    "sym28_on_2sets_random",
    "agl92_random",
    "agl63_random",
    "agl45_random",
    "agl63xsym200_mixed",
];

fn main() {
    let args = BenchArgs::from_env();
    let flag = |name: &str| args.flag(name);
    let effort = WordEffort(flag("--effort").map_or(WordEffort::default().0, |e| e as u32));
    let elements = flag("--elements").unwrap_or(1_000) as usize;
    let gap_timeout = std::time::Duration::from_secs(flag("--gap-timeout").unwrap_or(300));
    let max_letters = flag("--max-letters").unwrap_or(u64::MAX);
    let wanted = args.wanted();
    let gap = which_gap();
    println!(
        "# Words for group members (effort {}, {elements} random elements)",
        effort.0
    );
    println!(
        "| case | Orbit set-up | Orbit mean / max length | Orbit words/s | GAP set-up | GAP mean / max length | GAP words/s |"
    );
    println!("|---|---|---|---|---|---|---|");
    // The listed cases that a name asks for, then the names that are no part of any listed
    // case (the seeded variants of `case`).
    let listed = CASES
        .iter()
        .copied()
        .filter(|name| wanted.is_empty() || wanted.iter().any(|w| name.contains(w)));
    let unlisted = wanted
        .iter()
        .copied()
        .filter(|w| !CASES.iter().any(|name| name.contains(w)));
    for name in listed.chain(unlisted) {
        let (d, gens) = case(name);
        let ctx = SolveContext::detached();
        let limits = Limits::default();
        let t = Instant::now();
        let g = PermGroup::new(d, gens.clone(), &ctx, &limits).expect("group");
        eprintln!(
            "{name}: the group's order {:.3} s",
            t.elapsed().as_secs_f64()
        );
        let elems = random_elements(&g, elements, 0x5eed);
        let t = Instant::now();
        let words = match GroupWords::new(&g, effort, &ctx, limits.max_job_memory, "max_job_memory")
        {
            Ok(w) => w,
            Err(e) => {
                println!("| {name} | refused: {e} | | | | | |");
                continue;
            }
        };
        let setup = t.elapsed().as_secs_f64();
        let (entry_mean, entry_max) = words.entry_lengths();
        eprintln!(
            "{name}: {:?}, base {}, set-up {setup:.3} s, table words mean {entry_mean:.1} max {entry_max}, {} bytes",
            words.method(),
            g.base().len(),
            words.bytes()
        );
        let t = Instant::now();
        let lengths: Result<Vec<u64>, u64> = elems
            .iter()
            .map(|x| {
                words
                    .word_of_at_most(x, max_letters)
                    .map(|w| w.expect("a member has a word").len())
            })
            .collect();
        let lengths = match lengths {
            Ok(lengths) => lengths,
            Err(letters) => {
                println!(
                    "| {name} | {setup:.3} s, then a word refused: {letters} letters or more, over --max-letters {max_letters} | | | | | |"
                );
                continue;
            }
        };
        let per_sec = elems.len() as f64 / t.elapsed().as_secs_f64();
        for x in &elems {
            let w = words.word_of(x).expect("member");
            assert_eq!(
                multiply_out(&w, &gens, d),
                x.images(),
                "{name}: a word multiplied out"
            );
        }
        if let Some(latency) = cancel_latency(&words, &elems, 1.0 / per_sec) {
            eprintln!(
                "{name}: cancelled halfway through a word, the longest wait for it to stop: {:.1} ms",
                latency * 1e3
            );
        }
        let mean = lengths.iter().sum::<u64>() as f64 / lengths.len() as f64;
        let max = lengths.iter().max().copied().unwrap_or(0);
        let gap_cells = gap
            .as_deref()
            .and_then(|gap| run_gap(gap, name, &gens, &elems, gap_timeout))
            .map(|outcome| match outcome {
                GapOutcome::Done(s, mean, max, rate) => (
                    format!("{s:.3} s"),
                    format!("{mean:.2} / {max}"),
                    format!("{rate:.0}"),
                ),
                GapOutcome::TimedOut => (
                    format!("> {} s", gap_timeout.as_secs()),
                    "n/a".into(),
                    "n/a".into(),
                ),
                GapOutcome::OutOfMemory => ("out of its 8 GB".into(), "n/a".into(), "n/a".into()),
            })
            .unwrap_or_else(|| ("n/a".into(), "n/a".into(), "n/a".into()));
        println!(
            "| {name} | {setup:.3} s | {mean:.2} / {max} | {per_sec:.0} | {} | {} | {} |",
            gap_cells.0, gap_cells.1, gap_cells.2
        );
        std::io::stdout().flush().ok();
    }
}

/// The longest time, over up to five members, from a cancel halfway through a word (by the
/// mean time `seconds_per_word`) to the word's method giving up (a cancelled job is to free
/// its worker within 100 ms); `None` for words under 2 ms, too quick to cancel halfway.
fn cancel_latency(words: &GroupWords, elems: &[Perm], seconds_per_word: f64) -> Option<f64> {
    if seconds_per_word < 2e-3 {
        return None;
    }
    let halfway = std::time::Duration::from_secs_f64(seconds_per_word / 2.0);
    let mut longest = 0f64;
    for x in elems.iter().take(5) {
        let flag = CancelFlag::new();
        let ctx = SolveContext::new(flag.clone(), None);
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(halfway);
            flag.cancel();
            Instant::now()
        });
        let stopped = words.word_within(x, LetterBudget::new(u64::MAX, &ctx));
        let ended = Instant::now();
        let cancelled_at = canceller.join().expect("canceller thread");
        if stopped.is_err() {
            longest = longest.max(ended.saturating_duration_since(cancelled_at).as_secs_f64());
        }
    }
    Some(longest)
}

fn case(name: &str) -> (usize, Vec<Perm>) {
    let parse = |list: &[&str], d| {
        list.iter()
            .map(|s| Perm::parse_cycles(s, d).expect("cycles"))
            .collect()
    };
    match name {
        "rubik" => (48, parse(&RUBIK, 48)),
        "m24" => (24, parse(&M24, 24)),
        "sym3_60_copies" => (180, sym3_copies(60)),
        "sym16_random" => (16, random_pair(16, 16)),
        "sym30_random" => (30, random_pair(30, 30)),
        "sym100_random" => (100, random_pair(100, 100)),
        "sym1000_random" => (1000, random_pair(1000, 1000)),
        "alt1000_random" => (1000, random_even_pair(1000, 1000)),
        "sym50xsym40_mixed" => (90, random_product_pair(50, 40, 90)),
        "sym100xsym80_mixed" => (180, random_product_pair(100, 80, 180)),
        "sym200xsym150_mixed" => (350, random_product_pair(200, 150, 350)),
        "sym500xsym500_mixed" => (1000, random_product_pair(500, 500, 1000)),
        "sym2wrsym50_random" => (100, random_wreath(50, 3, 100)),
        "sym2wrsym200_random" => (400, random_wreath(200, 3, 400)),
        "sym3wrsym50_random" => (150, random_wreath_of(3, 50, 3, 150)),
        "sym4wrsym40_random" => (160, random_wreath_of(4, 40, 3, 160)),
        "sym5wrsym20_random" => (100, random_wreath_of(5, 20, 3, 100)),
        "sym5wrsym40_random" => (200, random_wreath_of(5, 40, 3, 200)),
        "sym9wrsym6_random" => (54, random_wreath_of(9, 6, 3, 54)),
        "sym10wrsym10_random" => (100, random_wreath_of(10, 10, 3, 100)),
        "sym30wrsym4_random" => (120, random_wreath_of(30, 4, 3, 120)),
        "sym100wrsym2_random" => (200, random_wreath_of(100, 2, 3, 200)),
        "sym50wrsym20_random" => (1000, random_wreath_of(50, 20, 3, 1000)),
        "sym100wrsym10_random" => (1000, random_wreath_of(100, 10, 3, 1001)),
        "sym250wrsym4_random" => (1000, random_wreath_of(250, 4, 3, 1000)),
        "sym10wrsym100_random" => (1000, random_wreath_of(10, 100, 3, 1000)),
        "sym3wrsym333_random" => (999, random_wreath_of(3, 333, 3, 999)),
        "sym2wrsym500_random" => (1000, random_wreath_of(2, 500, 3, 1000)),
        "sym30wrsym9_beside_sym30_random" => (300, random_wreath_beside(30, 9, 30, 3, 300)),
        "sym50wrsym9_beside_sym50_random" => (500, random_wreath_beside(50, 9, 50, 3, 500)),
        "sym100wrsym9_beside_sym100_random" => (1000, random_wreath_beside(100, 9, 100, 3, 1000)),
        "sym4wrsym40_beside_sym3wrsym40_random" => (280, random_two_wreaths(4, 40, 3, 40, 280)),
        "sym4wrsym100_beside_sym3wrsym100_random" => (700, random_two_wreaths(4, 100, 3, 100, 700)),
        "sym2wrsym250_beside_sym500_random" => (1000, random_two_wreaths(2, 250, 500, 1, 1000)),
        "sym30wrsym4_beside_sym20wrsym5_random" => (220, random_two_wreaths(30, 4, 20, 5, 220)),
        "sym4wrsym40_beside_sym100_random" => (260, random_wreath_beside(4, 40, 100, 3, 260)),
        "sym4wrsym100_beside_sym300_random" => (700, random_wreath_beside(4, 100, 300, 3, 700)),
        "sym20wrsym20_beside_sym200_beside_sym300_random" => {
            let two = random_two_wreaths(20, 20, 200, 1, 900);
            (900, beside(&two, 300, 901, |_, rng| shuffled(300, rng)))
        }
        // Not in the default list: its words have tens of millions of letters or more (run it
        // with `--max-letters`); the set-up is the figure.
        "sym2wrsym100_beside_sym2wrsym100_beside_sym300_random" => {
            let two = random_two_wreaths(2, 100, 2, 100, 700);
            (700, beside(&two, 300, 701, |_, rng| shuffled(300, rng)))
        }
        "sym50wrsym10_beside_sym25wrsym20_random" => {
            (1000, random_two_wreaths(50, 10, 25, 20, 1001))
        }
        "d5wrsym40_random" => (200, random_wreath_in(&DIHEDRAL_5, 40, 4, 200)),
        "d5wrsym100_random" => (500, random_wreath_in(&DIHEDRAL_5, 100, 4, 500)),
        "agl17wrsym50_random" => (350, random_wreath_in(&AFFINE_7, 50, 4, 350)),
        "d5wralt100_even_reflections" => (500, d5_even_reflections(100, 500)),
        "d5wrsym200_random" => (1000, random_wreath_in(&DIHEDRAL_5, 200, 4, 1000)),
        "agl17wrsym140_random" => (980, random_wreath_in(&AFFINE_7, 140, 4, 980)),
        "psl27wrsym40_random" => (280, random_wreath_in(&PSL_2_7, 40, 3, 280)),
        "psl27wrsym100_random" => (700, random_wreath_in(&PSL_2_7, 100, 3, 700)),
        "m24wrsym40_random" => {
            let m24: Vec<Vec<u32>> = parse(&M24, 24)
                .iter()
                .map(|g: &Perm| g.images().to_vec())
                .collect();
            let inside: Vec<&[u32]> = m24.iter().map(Vec::as_slice).collect();
            (960, random_wreath_in(&inside, 40, 3, 960))
        }
        // The same from other seeds (not in the default list): how much the words depend on
        // the generators drawn.
        seeded if seeded.starts_with("psl27wrsym100_random_") => {
            let seed: u64 = seeded["psl27wrsym100_random_".len()..]
                .parse()
                .expect("a seed after the case's name");
            (700, random_wreath_in(&PSL_2_7, 100, 3, seed))
        }
        // A stress sweep's groups, drawn from a seed (not in the default list).
        seeded if seeded.starts_with("sweep_") => sweep_group(seeded),
        // The generators of a group file as `orbit group` reads it (its candidates unused;
        // the path from `worker/`, e.g. `file:../examples/group-wreath-992.txt`): a group met
        // through the CLI, measured here method by method.
        file if file.starts_with("file:") => {
            let text = std::fs::read_to_string(&file["file:".len()..]).expect("a group file");
            let problem = orbit_worker::group::parse_group_text(&text).expect("a group file");
            (problem.degree, problem.generators)
        }
        "psl27wrsym40_beside_psl27wrsym30_random" => (
            490,
            random_wreaths_in_beside(&PSL_2_7, 40, &PSL_2_7, 30, 490),
        ),
        "alt5wrsym60_beside_alt5wrsym50_random" => {
            (550, random_wreaths_in_beside(&ALT_5, 60, &ALT_5, 50, 550))
        }
        "sym5wrsym100_beside_sym5wrsym80_random" => (900, random_two_wreaths(5, 100, 5, 80, 900)),
        "agl17wrsym16_beside_sym9wrsym54_random" => (
            598,
            random_wreath_in_beside_wreath_of(&AFFINE_7, 16, 9, 54, 598),
        ),
        "diagonal_sym50_random" => (100, random_diagonal(50, 2, 50)),
        "sym45_on_2sets_random" => (990, on_two_sets(&random_pair(45, 45), 45)),
        "sym20_on_2sets_random" => (190, on_two_sets(&random_pair(20, 20), 20)),
        "sym28_on_2sets_random" => (378, on_two_sets(&random_pair(28, 28), 28)),
        "agl92_random" => (512, random_affine(9, 2, 3, 512)),
        "agl63_random" => (729, random_affine(6, 3, 3, 729)),
        "agl45_random" => (625, random_affine(4, 5, 3, 625)),
        "agl63xsym200_mixed" => (929, random_affine_beside_sym(6, 3, 200, 929)),
        other => panic!("unknown case {other}"),
    }
}

/// Two random permutations, one odd (so that they generate Sym(d) with high probability).
fn random_pair(d: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < 2 {
        let mut images: Vec<u32> = (0..d as u32).collect();
        for i in (1..d).rev() {
            images.swap(i, rng.random_range(0..=i));
        }
        let p = Perm::from_images(images, "random").expect("a permutation");
        if out.is_empty() || !p.is_even() {
            out.push(p);
        }
    }
    out
}

/// Two random elements of `Sym(a) x Sym(b)` on the points `0..a` and `a..a+b`, each moving
/// both orbits (so the group is not given factor by factor).
fn random_product_pair(a: usize, b: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..2)
        .map(|_| {
            let mut images: Vec<u32> = (0..(a + b) as u32).collect();
            for (start, len) in [(0, a), (a, b)] {
                for i in (1..len).rev() {
                    images.swap(start + i, start + rng.random_range(0..=i));
                }
            }
            Perm::from_images(images, "random").expect("a permutation")
        })
        .collect()
}

/// `count` random elements of `Sym(2) wr Sym(m)` (blocks of two points, each element permuting
/// the blocks and swapping inside some), relabelled by a random permutation of the `2m` points.
fn random_wreath(m: usize, count: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let relabel = shuffled(2 * m, &mut rng);
    (0..count)
        .map(|_| {
            let blocks = shuffled(m, &mut rng);
            let mut images = vec![0u32; 2 * m];
            for (i, &b) in blocks.iter().enumerate() {
                let flip = rng.random_range(0..2u32);
                for half in 0..2u32 {
                    let x = relabel[2 * i + half as usize];
                    images[x as usize] = relabel[(2 * b + (half ^ flip)) as usize];
                }
            }
            Perm::from_images(images, "random").expect("a permutation")
        })
        .collect()
}

/// `count` random elements of `Sym(b) wr Sym(m)` (blocks of `b` points, each element permuting
/// the blocks and each block's points at random), relabelled by a random permutation of the
/// `b·m` points (`random_wreath` draws a flip per block instead, for `b = 2`).
fn random_wreath_of(b: usize, m: usize, count: usize, seed: u64) -> Vec<Perm> {
    random_wreath_with(b, m, count, seed, |rng| shuffled(b, rng))
}

/// `count` random elements of `Sym(b) wr Sym(m)` on `b·m` points beside `Sym(c)` on `c` more,
/// each moving both orbits, relabelled: an intransitive group with a wreath orbit.
fn random_wreath_beside(b: usize, m: usize, c: usize, count: usize, seed: u64) -> Vec<Perm> {
    beside(&random_wreath_of(b, m, count, seed), c, seed, |_, rng| {
        shuffled(c, rng)
    })
}

/// `count` random elements of `Sym(b1) wr Sym(m1)` beside `Sym(b2) wr Sym(m2)` (`Sym(b2)` for
/// `m2 = 1`), each moving both orbits, relabelled: their block actions are independent, so the
/// kernel of the action on either orbit holds the other's `Alt(m)` on its blocks.
fn random_two_wreaths(b1: usize, m1: usize, b2: usize, m2: usize, seed: u64) -> Vec<Perm> {
    let second = random_wreath_of(b2, m2, 3, seed + 2);
    beside(&random_wreath_of(b1, m1, 3, seed), b2 * m2, seed, |i, _| {
        second[i].images().to_vec()
    })
}

/// Three random elements of `T wr Sym(m1)` (`T` given by its generators' images, as for
/// [`random_wreath_in`]) beside `Sym(b) wr Sym(m2)`, each moving both orbits: the kernel on
/// both orbits' blocks has `T`'s series on the first orbit's blocks beside `Sym(b)`, beyond a
/// table for `b` of eight or more, on the second's.
fn random_wreath_in_beside_wreath_of(
    inside: &[&[u32]],
    m1: usize,
    b: usize,
    m2: usize,
    seed: u64,
) -> Vec<Perm> {
    let second = random_wreath_of(b, m2, 3, seed + 2);
    beside(
        &random_wreath_in(inside, m1, 3, seed),
        b * m2,
        seed,
        |i, _| second[i].images().to_vec(),
    )
}

/// Three random elements of `T1 wr Sym(m1)` beside `T2 wr Sym(m2)` (`T1`, `T2` given by
/// their generators' images, as for [`random_wreath_in`]), each moving both orbits.
fn random_wreaths_in_beside(
    inside1: &[&[u32]],
    m1: usize,
    inside2: &[&[u32]],
    m2: usize,
    seed: u64,
) -> Vec<Perm> {
    let second = random_wreath_in(inside2, m2, 3, seed + 2);
    let c = second[0].degree();
    beside(&random_wreath_in(inside1, m1, 3, seed), c, seed, |i, _| {
        second[i].images().to_vec()
    })
}

/// The group `sweep_S_I`: the `I`-th drawn from seed `S`, a held-out case for the words of
/// intransitive groups. Two to four orbits, of at most 1,000 points in all, each a wreath
/// product `T wr Sym(m)` (`T` one of `Sym(b)` for `b` from 2 to 10, `Alt(5)`, `D_5`, `C_3`,
/// `PSL(2,7)`, `AGL(1,7)`; `m` from 5 to 80, fewer where the points run out) or, one time in
/// four, a giant `Sym(n)` (`n` from 5 to 150); three random generators, each moving every
/// orbit (so the kernels of the orbits' actions are not given). Its orbits are printed on
/// stderr. (Until 2026-12-07 a `C_3` block drew twelve letters of the one rotation, the
/// identity, so those orbits were `Sym(m)` on three copies of its points; the figures for sweep
/// groups with `C_3` orbits in BENCHMARKS.md before its "The sweep's `C_3` orbits" are of
/// that draw.)
fn sweep_group(name: &str) -> (usize, Vec<Perm>) {
    let parse = |s: Option<&str>| -> u64 {
        s.and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{name}: expected sweep_SEED_INDEX"))
    };
    let mut fields = name["sweep_".len()..].split('_');
    let (seed, index) = (parse(fields.next()), parse(fields.next()));
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(1_000_003).wrapping_add(index));
    // The rotation and its inverse: twelve letters of the rotation alone are the identity.
    const CYCLIC_3: [&[u32]; 2] = [&[1, 2, 0], &[2, 0, 1]];
    let insides: [(&str, &[&[u32]]); 5] = [
        ("Alt(5)", &ALT_5),
        ("D_5", &DIHEDRAL_5),
        ("C_3", &CYCLIC_3),
        ("PSL(2,7)", &PSL_2_7),
        ("AGL(1,7)", &AFFINE_7),
    ];
    let orbits = rng.random_range(2..=4);
    let mut left = 1_000usize;
    let mut group: Vec<Perm> = Vec::new();
    let mut shape = Vec::new();
    for orbit in 0..orbits {
        // Room for the orbits still to come (at least 20 points each, so `room / b` is 2 or
        // more).
        let room = left - 20 * (orbits - 1 - orbit);
        let orbit_seed = rng.random();
        let (description, elements) = if rng.random_range(0..4) == 0 {
            let n = rng.random_range(5..=150usize.min(room));
            let mut giant = ChaCha8Rng::seed_from_u64(orbit_seed);
            let elements: Vec<Perm> = (0..3)
                .map(|_| Perm::from_images(shuffled(n, &mut giant), "random").expect("a perm"))
                .collect();
            (format!("Sym({n})"), elements)
        } else {
            let kind = rng.random_range(0..insides.len() + 1);
            let b = if kind < insides.len() {
                insides[kind].1[0].len()
            } else {
                rng.random_range(2..=10)
            };
            let most = 80usize.min(room / b);
            let m = rng.random_range(5.min(most)..=most);
            if kind < insides.len() {
                let (inside_name, inside) = insides[kind];
                let elements = random_wreath_in(inside, m, 3, orbit_seed);
                (format!("{inside_name} wr Sym({m})"), elements)
            } else {
                let elements = random_wreath_of(b, m, 3, orbit_seed);
                (format!("Sym({b}) wr Sym({m})"), elements)
            }
        };
        left -= elements[0].degree();
        shape.push(description);
        group = if group.is_empty() {
            elements
        } else {
            beside(&group, elements[0].degree(), orbit_seed, |i, _| {
                elements[i].images().to_vec()
            })
        };
    }
    eprintln!(
        "{name}: {} (degree {})",
        shape.join(" beside "),
        group[0].degree()
    );
    (group[0].degree(), group)
}

/// `count` random elements of `Sym(m)` acting on two copies of its points at once (the second
/// copy relabelled at random): a diagonal product, faithful on each copy.
fn random_diagonal(m: usize, count: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let relabel = shuffled(m, &mut rng);
    (0..count)
        .map(|_| {
            let p = shuffled(m, &mut rng);
            let mut images = vec![0u32; 2 * m];
            for x in 0..m {
                images[x] = p[x];
                images[m + relabel[x] as usize] = m as u32 + relabel[p[x] as usize];
            }
            Perm::from_images(images, "random").expect("a permutation")
        })
        .collect()
}

/// The action of permutations of `0..m` on the 2-sets of `0..m` (numbered in lexicographic
/// order): a primitive group of degree `m(m-1)/2` with a long base.
fn on_two_sets(gens: &[Perm], m: usize) -> Vec<Perm> {
    let pairs: Vec<(u32, u32)> = (0..m as u32)
        .flat_map(|a| (a + 1..m as u32).map(move |b| (a, b)))
        .collect();
    let number: std::collections::HashMap<(u32, u32), u32> = pairs
        .iter()
        .enumerate()
        .map(|(i, &pair)| (pair, i as u32))
        .collect();
    gens.iter()
        .map(|g| {
            let images = pairs
                .iter()
                .map(|&(a, b)| {
                    let (x, y) = (g.image(a), g.image(b));
                    number[&(x.min(y), x.max(y))]
                })
                .collect();
            Perm::from_images(images, "on 2-sets").expect("a permutation")
        })
        .collect()
}

/// `count` random affine maps `x ↦ A·x + b` of `GF(p)^dim` (`A` invertible), on its `p^dim`
/// vectors (numbered by their coordinates in base `p`): with high probability they generate
/// `AGL(dim, p)`, a primitive group whose base of `dim + 1` points has orbits of nearly all the
/// points at every level.
fn random_affine(dim: usize, p: u32, count: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = (p as usize).pow(dim as u32);
    let digits = |mut x: usize| -> Vec<u32> {
        (0..dim)
            .map(|_| {
                let d = (x % p as usize) as u32;
                x /= p as usize;
                d
            })
            .collect()
    };
    let number = |v: &[u32]| {
        v.iter()
            .rev()
            .fold(0usize, |x, &d| x * p as usize + d as usize)
    };
    (0..count)
        .map(|_| {
            let a = loop {
                let a: Vec<Vec<u32>> = (0..dim)
                    .map(|_| (0..dim).map(|_| rng.random_range(0..p)).collect())
                    .collect();
                if rank_mod(&a, p) == dim {
                    break a;
                }
            };
            let b: Vec<u32> = (0..dim).map(|_| rng.random_range(0..p)).collect();
            let images = (0..n)
                .map(|x| {
                    let v = digits(x);
                    let image: Vec<u32> = (0..dim)
                        .map(|i| (0..dim).fold(b[i], |s, j| (s + a[i][j] * v[j]) % p))
                        .collect();
                    number(&image) as u32
                })
                .collect();
            Perm::from_images(images, "an affine map").expect("a permutation")
        })
        .collect()
}

/// Three random elements of `AGL(dim, p) × Sym(m)` on `p^dim + m` points, each moving both
/// orbits (see [`random_affine`]).
fn random_affine_beside_sym(dim: usize, p: u32, m: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xaff1);
    let n = (p as usize).pow(dim as u32);
    random_affine(dim, p, 3, seed)
        .into_iter()
        .map(|a| {
            let mut images = a.images().to_vec();
            let mut giant: Vec<u32> = (n as u32..(n + m) as u32).collect();
            giant.shuffle(&mut rng);
            images.extend(giant);
            Perm::from_images(images, "affine and giant").expect("a permutation")
        })
        .collect()
}

/// The rank of a square matrix over `GF(p)`, `p` prime (Gaussian elimination).
fn rank_mod(a: &[Vec<u32>], p: u32) -> usize {
    let mut rows: Vec<Vec<u32>> = a.to_vec();
    let dim = rows.len();
    let mut rank = 0;
    for col in 0..dim {
        let Some(pivot) = (rank..dim).find(|&r| rows[r][col] != 0) else {
            continue;
        };
        rows.swap(rank, pivot);
        // The pivot's inverse by Fermat: x^(p-2).
        let inv = (0..p - 2).fold(1u32, |x, _| x * rows[rank][col] % p);
        let pivot_row = rows[rank].clone();
        for (r, row) in rows.iter_mut().enumerate() {
            if r != rank && row[col] != 0 {
                let f = row[col] * inv % p;
                for (x, &y) in row.iter_mut().zip(&pivot_row) {
                    *x = (*x + p - f * y % p) % p;
                }
            }
        }
        rank += 1;
    }
    rank
}

/// `copies` disjoint copies of Sym(3), each by a 3-cycle and a transposition: a base of length
/// `2 · copies` with short basic orbits.
fn sym3_copies(copies: usize) -> Vec<Perm> {
    let d = 3 * copies;
    (0..copies)
        .flat_map(|b| {
            let p = 3 * b + 1;
            [
                Perm::parse_cycles(&format!("({},{},{})", p, p + 1, p + 2), d).expect("cycles"),
                Perm::parse_cycles(&format!("({},{})", p, p + 1), d).expect("cycles"),
            ]
        })
        .collect()
}

/// Two random even permutations (they generate Alt(d) with high probability).
fn random_even_pair(d: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < 2 {
        let mut images: Vec<u32> = (0..d as u32).collect();
        for i in (1..d).rev() {
            images.swap(i, rng.random_range(0..=i));
        }
        let p = Perm::from_images(images, "random").expect("a permutation");
        if p.is_even() {
            out.push(p);
        }
    }
    out
}

/// The even reflections of `D_5 wr Alt(m)` (its elements reflecting an even number of blocks):
/// two random even permutations of the blocks, a reflection of two blocks, a rotation of one,
/// relabelled. The seeds of its kernel on the blocks move a few blocks each.
fn d5_even_reflections(m: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let relabel = shuffled(5 * m, &mut rng);
    let on_blocks = |blocks: &[u32], inside: &dyn Fn(usize, usize) -> usize| {
        let mut images = vec![0u32; 5 * m];
        for (i, &to) in blocks.iter().enumerate() {
            for j in 0..5 {
                images[relabel[5 * i + j] as usize] = relabel[5 * to as usize + inside(i, j)];
            }
        }
        Perm::from_images(images, "random").expect("a permutation")
    };
    let fixed: Vec<u32> = (0..m as u32).collect();
    let mut gens: Vec<Perm> = random_even_pair(m, seed + 1)
        .iter()
        .map(|p| on_blocks(p.images(), &|_, j| j))
        .collect();
    gens.push(on_blocks(&fixed, &|i, j| {
        if i < 2 { (5 - j) % 5 } else { j }
    }));
    gens.push(on_blocks(&fixed, &|i, j| {
        if i == 0 { (j + 1) % 5 } else { j }
    }));
    gens
}

/// Uniform random members: a product of one random coset representative per level; for groups
/// whose transversals do not fit in memory (giants of large degree), uniformly random
/// permutations of the moved points kept when they are members (half of them for `Alt`).
fn random_elements(g: &PermGroup, n: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let Ok(t) = g.transversals() else {
        let d = g.degree();
        let moved: Vec<u32> = (0..d as u32)
            .filter(|&x| g.generators().iter().any(|p| p.image(x) != x))
            .collect();
        let mut out = Vec::with_capacity(n);
        let mut tries = 0;
        while out.len() < n {
            let mut shuffled = moved.clone();
            shuffled.shuffle(&mut rng);
            let mut images: Vec<u32> = (0..d as u32).collect();
            for (&x, &y) in moved.iter().zip(&shuffled) {
                images[x as usize] = y;
            }
            let p = Perm::from_images(images, "random").expect("a permutation");
            if g.contains(&p) {
                out.push(p);
            }
            tries += 1;
            if out.is_empty() && tries == 64 {
                // Not a giant (a wreath product of degree 1,000): products of 4·d random
                // generators instead.
                return (0..n)
                    .map(|_| {
                        (0..4 * d).fold(Perm::identity(d), |x, _| {
                            x.compose(g.generators().choose(&mut rng).expect("generators"))
                        })
                    })
                    .collect();
            }
        }
        return out;
    };
    (0..n)
        .map(|_| {
            let mut x = Perm::identity(g.degree());
            for level in t.iter().rev() {
                x = level[rng.random_range(0..level.len())].compose(&x);
            }
            x
        })
        .collect()
}

/// The image of every point under `word`, one generator step at a time (in place: a word of
/// millions of letters on a thousand points is multiplied out in seconds).
fn multiply_out(word: &Word, gens: &[Perm], d: usize) -> Vec<u32> {
    let inverses: Vec<Perm> = gens.iter().map(Perm::inverse).collect();
    let mut images: Vec<u32> = (0..d as u32).collect();
    for l in word.letters() {
        let step = if l.exponent > 0 {
            gens[l.generator as usize].images()
        } else {
            inverses[l.generator as usize].images()
        };
        for _ in 0..l.exponent.unsigned_abs() {
            images.iter_mut().for_each(|x| *x = step[*x as usize]);
        }
    }
    images
}

fn which_gap() -> Option<String> {
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
        .is_ok()
        .then(|| "gap".to_string())
}

/// What GAP's factorisation did.
enum GapOutcome {
    /// Set-up seconds, mean and max length, words per second.
    Done(f64, f64, u64, f64),
    /// Still running at the timeout.
    TimedOut,
    /// Stopped by its 8 GB memory limit.
    OutOfMemory,
}

/// Runs GAP's factorisation on the same generators and elements, for at most `timeout`.
fn run_gap(
    gap: &str,
    name: &str,
    gens: &[Perm],
    elems: &[Perm],
    timeout: std::time::Duration,
) -> Option<GapOutcome> {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("words-bench-gap");
    std::fs::create_dir_all(&dir).ok()?;
    let file = dir.join(format!("{name}.g"));
    let list = |ps: &[Perm]| {
        ps.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(",\n")
    };
    let text = format!("gens := [{}];\nelems := [{}];\n", list(gens), list(elems));
    std::fs::write(&file, text).ok()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gap/words_bench.g");
    let mut child = Command::new(gap)
        .args(["-q", "-A", "-o", "8g"])
        .arg(&file)
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    // GAP's factorisation of a giant of large degree runs for hours: give up after the timeout.
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(50))
            }
            _ => {
                child.kill().ok();
                child.wait().ok();
                return Some(GapOutcome::TimedOut);
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // GAP writes its errors to stderr; a few lines, read once it has stopped.
    if String::from_utf8_lossy(&out.stderr).contains("reached the pre-set memory limit") {
        return Some(GapOutcome::OutOfMemory);
    }
    let line = text.lines().find(|l| l.starts_with("GAPWORDS "))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    (v.len() == 4).then(|| GapOutcome::Done(v[0] / 1e3, v[1], v[2] as u64, v[3]))
}
