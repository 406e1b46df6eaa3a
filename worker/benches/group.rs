//! Permutation-group benchmark (Schreier–Sims and giant recognition), side by side with GAP.
//!
//! `cargo bench -p orbit-worker --bench group` (add `-- NAME...` to run some cases only).
//!
//! Each case runs in a child process (this binary re-invoked with `--case NAME`) so its peak RSS
//! (`VmHWM` from `/proc/self/status`) is its own. The child writes the generators it used (and, for
//! the membership case, the candidates) to `$ORBIT_GAP_DIR` (default
//! `$CARGO_TARGET_DIR/group-bench-gap`, else `target/group-bench-gap`) as a GAP file; if `gap` is on
//! the `PATH`, the parent then runs `worker/benches/gap/group_bench.g` on that same file and prints
//! GAP's `Runtime()` figure next to ours (timeout `$ORBIT_GAP_TIMEOUT` seconds, default 300).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use orbit_worker::group::{LevelProof, Perm, PermGroup};

#[path = "../tests/common/classical_groups.rs"]
mod classical_groups;
#[path = "common/wreath_elements.rs"]
mod wreath_elements;

use classical_groups::{from_fn, psl2};
use orbit_worker::{Limits, SolveContext};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use wreath_elements::{AFFINE_7, DIHEDRAL_5, PSL_2_7, beside, random_wreath_in, shuffled};

const CASES: &[&str] = &[
    "sym100_random",
    "alt100_random",
    "sym1000_random",
    "alt1000_random",
    "sym10000_random",
    "alt10000_random",
    "sym100_cycle_transposition",
    "sym200_cycle_transposition",
    "rubik",
    "m24",
    "rubik_membership",
    "s3_power_200",
    "cyclic_100000",
    "dihedral_20000",
    "dihedral_100000",
    "agl1_99991",
    "dihedral50000_x_cyclic49999",
    "psl2_1009",
    "psl2_10007",
    "psl2_99991",
    "pgl2_10007",
    "pgl2_99991",
    "psl3_31",
    "psl3_103",
    "psl3_313",
    "psl4_7",
    "psl4_13",
    "psl4_43",
    "agl2_31",
    "agl2_101",
    "agl2_313",
    "psl2_1009_x_psl2_1013",
    "psl2_49999_x_psl2_49993",
    "psl2_49999_x_cyclic_50000",
    "giant_product_450",
    "giant_product_4500",
    "sym30wrsym9_beside_sym30",
    "sym50wrsym9_beside_sym50",
    "sym100wrsym9_beside_sym100",
    "sym30wrsym10_on_two_copies",
    "d5wrsym200_random",
    "agl17wrsym140_random",
    "psl27wrsym100_random",
    "m11wrsym90_random",
    "d5wrsym60_beside_sym57_beside_d5wrsym77_random",
];

/// `M11` on eleven points (GAP's `MathieuGroup(11)`, as images).
const M11: [&[u32]; 2] = [
    &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0],
    &[0, 1, 6, 9, 5, 3, 10, 2, 8, 4, 7],
];

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

/// Membership candidates of each kind in the membership case.
const MEMBERSHIP_CANDIDATES: usize = 200_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--case") {
        let name = args.get(i + 1).expect("--case NAME");
        let dir = PathBuf::from(args.get(i + 2).expect("--case NAME DIR"));
        run_case(name, &dir);
        return;
    }
    let wanted: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .map(String::as_str)
        .collect();
    let dir = gap_dir();
    std::fs::create_dir_all(&dir).expect("create the GAP directory");
    let gap = which_gap();
    let gap_timeout: u64 = std::env::var("ORBIT_GAP_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gap/group_bench.g");
    println!(
        "# Permutation groups (Schreier–Sims) — GAP: {}",
        gap_version(gap.as_deref())
    );
    println!("| case | Orbit time | Orbit peak RSS | GAP time | ratio GAP/Orbit | result |");
    println!("|---|---|---|---|---|---|");
    for &name in CASES {
        if !wanted.is_empty() && !wanted.iter().any(|w| name.contains(w)) {
            continue;
        }
        let exe = std::env::current_exe().expect("own path");
        let out = Command::new(exe)
            .args(["--case", name, dir.to_str().expect("utf-8 path")])
            .stderr(Stdio::inherit())
            .output()
            .expect("run the case");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let Some(line) = text.lines().find(|l| l.starts_with("RESULT ")) else {
            println!("| {name} | failed: {} | | | | |", text.trim());
            continue;
        };
        // RESULT <ms> <rss_kb> <summary...>
        let mut parts = line.splitn(4, ' ');
        parts.next();
        let ms: f64 = parts
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(f64::NAN);
        let rss_kb: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let summary = parts.next().unwrap_or("").to_string();
        let gap_ms = gap
            .as_deref()
            .and_then(|g| run_gap(g, &script, &dir, name, gap_timeout));
        let (gap_cell, ratio) = match gap_ms {
            Some(GapResult::Ms(g, what)) => (
                format!("{} {what}", fmt_ms(g)),
                format!("{:.1}", g / ms.max(0.001)),
            ),
            Some(GapResult::Timeout) => (format!("> {gap_timeout} s (timeout)"), "-".into()),
            None => ("n/a".into(), "-".into()),
        };
        println!(
            "| {name} | {} | {:.1} MiB | {gap_cell} | {ratio} | {summary} |",
            fmt_ms(ms),
            rss_kb as f64 / 1024.0
        );
        std::io::stdout().flush().ok();
    }
}

fn fmt_ms(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

fn gap_dir() -> PathBuf {
    if let Ok(d) = std::env::var("ORBIT_GAP_DIR") {
        return PathBuf::from(d);
    }
    let target = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("group-bench-gap")
}

fn which_gap() -> Option<String> {
    let ok = Command::new("gap")
        .args(["-q", "-A"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().map(|mut s| s.write_all(b"QUIT;\n"));
            c.wait()
        })
        .is_ok();
    ok.then(|| "gap".to_string())
}

fn gap_version(gap: Option<&str>) -> String {
    let Some(gap) = gap else {
        return "not installed".into();
    };
    let out = Command::new(gap)
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
        Ok(o) => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Err(e) => format!("error {e}"),
    }
}

enum GapResult {
    Ms(f64, String),
    Timeout,
}

/// Runs the GAP script on the case file; it prints `GAPRESULT <ms> <what>`.
fn run_gap(gap: &str, script: &Path, dir: &Path, name: &str, timeout_s: u64) -> Option<GapResult> {
    let case_file = dir.join(format!("{name}.g"));
    let mut child = Command::new(gap)
        .args(["-q", "-A", "-o", "8g", "-x", "4000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let input = format!(
        "Read(\"{}\");\nRead(\"{}\");\nQUIT;\n",
        case_file.display(),
        script.display()
    );
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > Duration::from_secs(timeout_s) => {
                let _ = child.kill();
                let _ = child.wait();
                return Some(GapResult::Timeout);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => return None,
        }
    }
    let out = child.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("GAPRESULT "))?;
    let mut parts = line.splitn(3, ' ');
    parts.next();
    let ms: f64 = parts.next()?.parse().ok()?;
    Some(GapResult::Ms(ms, parts.next().unwrap_or("").to_string()))
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn parse_all(texts: &[&str], d: usize) -> Vec<Perm> {
    texts
        .iter()
        .map(|t| Perm::parse_cycles(t, d).expect("valid generator"))
        .collect()
}

fn random_perm(d: usize, rng: &mut ChaCha8Rng) -> Perm {
    let mut v: Vec<u32> = (0..d as u32).collect();
    v.shuffle(rng);
    Perm::from_images(v, "random").expect("shuffle")
}

/// Two random permutations of the requested parity (both even for Alt; the first odd for Sym).
fn random_pair(d: usize, alternating: bool, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let swap = Perm::parse_cycles("(1,2)", d).expect("valid");
    let mut a = random_perm(d, &mut rng);
    let mut b = random_perm(d, &mut rng);
    if alternating {
        if !a.is_even() {
            a = a.compose(&swap);
        }
        if !b.is_even() {
            b = b.compose(&swap);
        }
    } else if a.is_even() {
        a = a.compose(&swap);
    }
    vec![a, b]
}

fn cycle_and_transposition(d: usize) -> Vec<Perm> {
    let images: Vec<u32> = (0..d as u32).map(|i| (i + 1) % d as u32).collect();
    vec![
        Perm::from_images(images, "cycle").expect("cycle"),
        Perm::parse_cycles("(1,2)", d).expect("transposition"),
    ]
}

/// `k` disjoint copies of Sym(3) on `3k` points: a long base (`2k` points).
fn s3_power(k: usize) -> Vec<Perm> {
    let d = 3 * k;
    (0..k)
        .flat_map(|b| {
            let p = 3 * b + 1;
            [
                Perm::parse_cycles(&format!("({},{},{})", p, p + 1, p + 2), d).expect("3-cycle"),
                Perm::parse_cycles(&format!("({},{})", p, p + 1), d).expect("transposition"),
            ]
        })
        .collect()
}

/// D_n: the rotation x -> x+1 and the reflection x -> -x of Z/n.
fn dihedral(n: usize) -> Vec<Perm> {
    let m = n as u64;
    vec![from_fn(n, |x| (x + 1) % m), from_fn(n, |x| (m - x) % m)]
}

/// AGL(1, p) = <x -> x+1, x -> gx> for a primitive root g mod the prime p (order p(p-1)).
fn agl1(p: u64) -> Vec<Perm> {
    let g = classical_groups::primitive_root(p);
    let n = p as usize;
    vec![from_fn(n, |x| (x + 1) % p), from_fn(n, |x| g * x % p)]
}

/// D_n on 0..n and C_m on n..n+m.
fn dihedral_times_cyclic(n: usize, m: usize) -> Vec<Perm> {
    let (n64, m64) = (n as u64, m as u64);
    let d = n + m;
    vec![
        from_fn(d, |x| if x < n64 { (x + 1) % n64 } else { x }),
        from_fn(d, |x| if x < n64 { (n64 - x) % n64 } else { x }),
        from_fn(d, |x| {
            if x < n64 {
                x
            } else {
                n64 + (x - n64 + 1) % m64
            }
        }),
    ]
}

/// PSL(2, p) x PSL(2, q) on p + 1 + q + 1 points from two diagonal generators (the whole
/// product: the factors are simple and not isomorphic).
fn psl2_product(p: u64, q: u64) -> Vec<Perm> {
    let (a, b) = (classical_groups::psl2(p), classical_groups::psl2(q));
    vec![
        classical_groups::juxtapose(&[&a[0], &b[0]]),
        classical_groups::juxtapose(&[&a[1], &b[1]]),
    ]
}

/// PSL(2, p) x C_m on p + 1 + m points: `(x+1, m-cycle)` and `(-1/x, 1)` (PSL(2, p) is perfect,
/// so they generate the whole product).
fn psl2_times_cyclic(p: u64, m: usize) -> Vec<Perm> {
    let a = classical_groups::psl2(p);
    let cycle = from_fn(m, |x| (x + 1) % m as u64);
    let id = Perm::identity(m);
    vec![
        classical_groups::juxtapose(&[&a[0], &cycle]),
        classical_groups::juxtapose(&[&a[1], &id]),
    ]
}

/// `Sym(s) x Alt(3s/2) x Sym(s)` on `9s/2` points: the last factor acts on two orbits of `s`
/// points at once, the second a copy of the first through a random bijection (a "linked" pair).
/// Two generators, each a tuple of random permutations of the four orbits; the parities are set
/// so that the order is `s! (3s/2)!/2 s!` (the first generator is odd on the first and third
/// factors, the second only on the third). Orbits are relabelled by one random permutation of all
/// points so that they are not intervals.
/// Three random elements of `Sym(m) wr Sym(b)` (as [`wreath_beside_giant`] makes them, with no
/// points beside), each acting on two copies of its `m·b` points at once, the second copy
/// relabelled: two linked orbits.
fn wreath_on_two_copies(m: usize, b: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 2);
    let d = m * b;
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    wreath_beside_giant(m, b, 0, seed)
        .iter()
        .map(|x| {
            let mut images = vec![0u32; 2 * d];
            for p in 0..d {
                images[p] = x.image(p as u32);
                images[d + relabel[p] as usize] = (d as u32) + relabel[x.image(p as u32) as usize];
            }
            Perm::from_images(images, "on two copies").expect("a permutation")
        })
        .collect()
}

/// Three random elements of `Sym(m) wr Sym(b)` on `m·b` points, each with a random permutation
/// of `c` more points beside it, all points relabelled: an intransitive group with a wreath
/// orbit and a base of nearly every point.
/// Three random elements of `D_5 wr Sym(60)` beside `Sym(57)` beside `D_5 wr Sym(77)`, each
/// moving every orbit (the shape of the words bench's `sweep_2003_6`): the two wreath orbits are
/// tied through `D_5`'s reflections summed over the blocks, which no sign sees.
fn d5_wreaths_beside_sym57() -> Vec<Perm> {
    let first = random_wreath_in(&DIHEDRAL_5, 60, 3, 742);
    let giant = beside(&first, 57, 743, |_, rng| shuffled(57, rng));
    let last = random_wreath_in(&DIHEDRAL_5, 77, 3, 744);
    beside(&giant, 385, 745, |i, _| last[i].images().to_vec())
}

fn wreath_beside_giant(m: usize, b: usize, c: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let d = m * b + c;
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    (0..3)
        .map(|_| {
            let mut blocks: Vec<usize> = (0..b).collect();
            blocks.shuffle(&mut rng);
            let mut images = vec![0u32; d];
            for (i, &to) in blocks.iter().enumerate() {
                let mut inside: Vec<usize> = (0..m).collect();
                inside.shuffle(&mut rng);
                for (j, &k) in inside.iter().enumerate() {
                    images[relabel[m * i + j] as usize] = relabel[m * to + k];
                }
            }
            let mut beside: Vec<usize> = (0..c).collect();
            beside.shuffle(&mut rng);
            for (j, &k) in beside.iter().enumerate() {
                images[relabel[m * b + j] as usize] = relabel[m * b + k];
            }
            Perm::from_images(images, "random").expect("a permutation")
        })
        .collect()
}

fn giant_product(s: usize, seed: u64) -> Vec<Perm> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let a = 3 * s / 2;
    let d = 3 * s + a;
    let mut random_of_parity = |n: usize, odd: bool| {
        let mut v: Vec<u32> = (0..n as u32).collect();
        v.shuffle(&mut rng);
        let p = Perm::from_images(v.clone(), "random").expect("shuffle");
        if p.is_even() == odd {
            v.swap(0, 1);
        }
        v
    };
    let factors: [[Vec<u32>; 3]; 2] = [
        [
            random_of_parity(s, true),
            random_of_parity(a, false),
            random_of_parity(s, true),
        ],
        [
            random_of_parity(s, false),
            random_of_parity(a, false),
            random_of_parity(s, true),
        ],
    ];
    let mut phi: Vec<u32> = (0..s as u32).collect();
    phi.shuffle(&mut rng);
    let mut relabel: Vec<u32> = (0..d as u32).collect();
    relabel.shuffle(&mut rng);
    factors
        .iter()
        .map(|[x, y, z]| {
            let mut img = vec![0u32; d];
            let (o1, o2, o3, o4) = (0, s, s + a, 2 * s + a);
            for i in 0..s {
                img[o1 + i] = (o1 as u32) + x[i];
                img[o3 + i] = (o3 as u32) + z[i];
                // The copy: phi(i) -> phi(z(i)).
                img[o4 + phi[i] as usize] = o4 as u32 + phi[z[i] as usize];
            }
            for i in 0..a {
                img[o2 + i] = o2 as u32 + y[i];
            }
            let mut out = vec![0u32; d];
            for (x, &y) in img.iter().enumerate() {
                out[relabel[x] as usize] = relabel[y as usize];
            }
            Perm::from_images(out, "giant product").expect("a permutation")
        })
        .collect()
}

fn gap_list(perms: &[Perm]) -> String {
    let items: Vec<String> = perms.iter().map(|p| p.to_string()).collect();
    format!("[\n{}\n]", items.join(",\n"))
}

fn write_gap_case(dir: &Path, name: &str, gens: &[Perm], extra: &str) {
    let text = format!(
        "# generated by worker/benches/group.rs\ncasename := \"{name}\";\ngens := {};\n{extra}",
        gap_list(gens)
    );
    std::fs::write(dir.join(format!("{name}.g")), text).expect("write GAP case");
}

/// Builds the group `reps` times and returns the mean wall time in ms (GAP's figure is a mean too).
fn time_build(d: usize, gens: &[Perm], reps: usize) -> (f64, PermGroup) {
    let ctx = SolveContext::detached();
    let limits = Limits::default();
    let mut last = None;
    let t = Instant::now();
    for _ in 0..reps {
        last = Some(PermGroup::new(d, gens.to_vec(), &ctx, &limits).expect("builds"));
    }
    let mean = t.elapsed().as_secs_f64() * 1e3 / reps as f64;
    (mean, last.expect("reps >= 1"))
}

fn run_case(name: &str, dir: &Path) {
    let (d, gens, reps): (usize, Vec<Perm>, usize) = match name {
        "sym100_random" => (100, random_pair(100, false, 100), 200),
        "alt100_random" => (100, random_pair(100, true, 101), 200),
        "sym1000_random" => (1000, random_pair(1000, false, 1000), 5),
        "alt1000_random" => (1000, random_pair(1000, true, 1001), 5),
        "sym10000_random" => (10000, random_pair(10000, false, 10000), 1),
        "alt10000_random" => (10000, random_pair(10000, true, 10001), 1),
        "sym100_cycle_transposition" => (100, cycle_and_transposition(100), 20),
        "sym200_cycle_transposition" => (200, cycle_and_transposition(200), 10),
        "rubik" | "rubik_membership" => (48, parse_all(&RUBIK, 48), 100),
        "m24" => (24, parse_all(&M24, 24), 500),
        "s3_power_200" => (600, s3_power(200), 1),
        "cyclic_100000" => (
            100_000,
            vec![cycle_and_transposition(100_000).remove(0)],
            10,
        ),
        "dihedral_20000" => (20_000, dihedral(20_000), 3),
        "dihedral_100000" => (100_000, dihedral(100_000), 1),
        "agl1_99991" => (99_991, agl1(99_991), 1),
        "dihedral50000_x_cyclic49999" => (99_999, dihedral_times_cyclic(50_000, 49_999), 1),
        "psl2_1009" => (1010, psl2(1009), 1),
        "psl2_10007" => (10_008, psl2(10_007), 1),
        "psl2_99991" => (99_992, psl2(99_991), 1),
        "pgl2_10007" => (10_008, classical_groups::pgl2(10_007), 1),
        "pgl2_99991" => (99_992, classical_groups::pgl2(99_991), 1),
        "psl3_31" => (993, classical_groups::psl3(31), 3),
        "psl3_103" => (10_713, classical_groups::psl3(103), 1),
        "psl3_313" => (98_283, classical_groups::psl3(313), 1),
        "psl4_7" => (400, classical_groups::psl(4, 7), 3),
        "psl4_13" => (2380, classical_groups::psl(4, 13), 1),
        "psl4_43" => (81_400, classical_groups::psl(4, 43), 1),
        "agl2_31" => (961, classical_groups::agl2(31), 3),
        "agl2_101" => (10_201, classical_groups::agl2(101), 1),
        "agl2_313" => (97_969, classical_groups::agl2(313), 1),
        "psl2_1009_x_psl2_1013" => (2024, psl2_product(1009, 1013), 1),
        "psl2_49999_x_psl2_49993" => (99_994, psl2_product(49_999, 49_993), 1),
        "psl2_49999_x_cyclic_50000" => (100_000, psl2_times_cyclic(49_999, 50_000), 1),
        "giant_product_450" => (450, giant_product(100, 0x450), 1),
        "giant_product_4500" => (4500, giant_product(1000, 0x4500), 1),
        "sym30wrsym9_beside_sym30" => (300, wreath_beside_giant(30, 9, 30, 300), 1),
        "sym50wrsym9_beside_sym50" => (500, wreath_beside_giant(50, 9, 50, 500), 1),
        "sym100wrsym9_beside_sym100" => (1000, wreath_beside_giant(100, 9, 100, 1000), 1),
        "sym30wrsym10_on_two_copies" => (600, wreath_on_two_copies(30, 10, 600), 1),
        "d5wrsym200_random" => (1000, random_wreath_in(&DIHEDRAL_5, 200, 4, 1000), 1),
        "agl17wrsym140_random" => (980, random_wreath_in(&AFFINE_7, 140, 4, 980), 1),
        "psl27wrsym100_random" => (700, random_wreath_in(&PSL_2_7, 100, 4, 700), 1),
        "m11wrsym90_random" => (990, random_wreath_in(&M11, 90, 4, 990), 1),
        "d5wrsym60_beside_sym57_beside_d5wrsym77_random" => (742, d5_wreaths_beside_sym57(), 1),
        other => panic!("unknown case {other}"),
    };
    if name == "rubik_membership" {
        return membership_case(dir, name, d, &gens);
    }
    write_gap_case(dir, name, &gens, "mode := \"size\";\n");
    let (ms, g) = time_build(d, &gens, reps);
    if let Some(n) = name
        .strip_prefix("giant_product_")
        .and_then(|s| s.parse::<usize>().ok())
    {
        // By construction (see `giant_product`): Sym(n/4.5) x Alt(1.5 n/4.5) x Sym(n/4.5).
        let s = n * 2 / 9;
        let fact = |m: usize| {
            (1..=m as u64)
                .map(num_bigint::BigUint::from)
                .product::<num_bigint::BigUint>()
        };
        let expected = fact(s) * fact(s) * (fact(3 * s / 2) / 2u32);
        assert_eq!(
            g.order(),
            expected,
            "{name}: order against the construction"
        );
    }
    let order = g.order().to_string();
    let shown = if order.len() > 24 {
        format!("{} digits", order.len())
    } else {
        order
    };
    println!(
        "RESULT {ms:.3} {} order {shown}, {:?}, levels proven by {}",
        peak_rss_kb(),
        g.kind(),
        proof_summary(&g)
    );
}

/// How the chain's levels were proven, top level first, runs of one proof counted, e.g.
/// `lemma, series ×2, Schreier`.
fn proof_summary(g: &PermGroup) -> String {
    let names: Vec<&str> = g
        .level_proofs()
        .iter()
        .map(|p| match p {
            LevelProof::SchreierGenerators => "Schreier",
            LevelProof::OneGeneratorLemma => "lemma",
            LevelProof::LevelNormalSeries => "series",
            LevelProof::BlockSystem => "blocks",
            LevelProof::WholeGroupNormalSeries => "whole-group series",
            LevelProof::KnownOrder => "known order",
            LevelProof::AlternatingBlocks => "alternating blocks",
            LevelProof::BlocksOfTwo => "blocks of two",
            LevelProof::BlockWreath => "block wreath",
            LevelProof::OrbitConstituents => "orbit constituents",
            LevelProof::RegularNormalSubgroup => "regular normal subgroup",
        })
        .collect();
    if names.is_empty() {
        return "no chain".to_string();
    }
    let mut runs: Vec<(&str, usize)> = Vec::new();
    for name in names {
        match runs.last_mut() {
            Some((last, count)) if *last == name => *count += 1,
            _ => runs.push((name, 1)),
        }
    }
    runs.iter()
        .map(|&(name, count)| match count {
            1 => name.to_string(),
            _ => format!("{name} ×{count}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn membership_case(dir: &Path, name: &str, d: usize, gens: &[Perm]) {
    let (_, g) = time_build(d, gens, 1);
    let t = g.transversals().expect("small");
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    // Members: uniform random elements u_{k-1} * ... * u_0.
    let members: Vec<Perm> = (0..MEMBERSHIP_CANDIDATES)
        .map(|_| {
            let mut e = Perm::identity(d);
            for level in t.iter().rev() {
                e = e.compose(&level[rng.random_range(0..level.len())]);
            }
            e
        })
        .collect();
    let others: Vec<Perm> = (0..MEMBERSHIP_CANDIDATES)
        .map(|_| random_perm(d, &mut rng))
        .collect();
    // GAP gets the first 20,000 of each (reading 400,000 permutations would dominate its run).
    let k = 20_000;
    write_gap_case(
        dir,
        name,
        gens,
        &format!(
            "mode := \"membership\";\nmembers := {};\nothers := {};\n",
            gap_list(&members[..k]),
            gap_list(&others[..k])
        ),
    );
    let mut scratch = Vec::new();
    let t0 = Instant::now();
    let yes = members
        .iter()
        .filter(|p| g.contains_with(p, &mut scratch))
        .count();
    let member_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let yes_other = others
        .iter()
        .filter(|p| g.contains_with(p, &mut scratch))
        .count();
    let other_s = t1.elapsed().as_secs_f64();
    assert_eq!(yes, members.len());
    let n = MEMBERSHIP_CANDIDATES as f64;
    println!(
        "RESULT {:.3} {} members {:.0}/s, random non-members {:.0}/s ({} of {} random were members)",
        member_s * 1e3 * (k as f64 / n),
        peak_rss_kb(),
        n / member_s,
        n / other_s,
        yes_other,
        MEMBERSHIP_CANDIDATES
    );
}
