//! Every solver's memory estimate against what it really allocates.
//!
//! The oracle is the global allocator: `peakmem-alloc` counts the bytes requested and freed by the
//! whole process, and a job's peak is the highest net total while it runs (single-threaded), its
//! answer's decimal form included (what the server builds from it). The estimate must bound it
//! (`peak <= estimate`) and, for the kinds whose estimate is a formula of the job's sizes, not be
//! absurdly loose (`estimate <= 4 peak + 1 MiB`). Group jobs are estimated as what they hold
//! outside the stabiliser chain plus the chain's budget, so their check runs under a small
//! `max_job_memory`: whatever the solver does — succeed, or stop because the chain or the
//! enumeration would outgrow the budget — its peak stays under the estimate. The counter is
//! process-wide, so each test holds a lock for its whole body (building inputs allocates too) and
//! each case prints `estimate / peak`.
//!
//! One concept (estimates against measured peaks, every kind), hence one file past 800 lines.

mod common;

use common::classical_groups;
use std::alloc::System;
use std::sync::Mutex;

use num_bigint::BigUint;
use orbit_worker::cop_thief::{CopThiefJob, CopThiefQuery, Grid};
use orbit_worker::counting::{CountKind, CountProblem, CubePart, parse_content};
use orbit_worker::game::{GameGraph, GameJob};
use orbit_worker::graph::{GraphJob, UndirectedGraph};
use orbit_worker::group::{GroupProblem, Perm, PermGroup, WordEffort, perm_group_memory_estimate};
use orbit_worker::job::{JobAnswer, JobSpec};
use orbit_worker::puzzle::PuzzleProblem;
use orbit_worker::{Limits, SolveContext, SolveError};
use peakmem_alloc::{INSTRUMENTED_SYSTEM, PeakMemAlloc, PeakMemAllocTrait};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[global_allocator]
static ALLOCATOR: &PeakMemAlloc<System> = &INSTRUMENTED_SYSTEM;

/// One test at a time: the allocator's counters are process-wide.
static MEASURING: Mutex<()> = Mutex::new(());

/// Held for a whole test so that no other test allocates while it measures.
fn one_test_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}

const MIB: u64 = 1 << 20;

/// Runs `f` and returns its result with the peak of bytes allocated and not yet freed while it
/// ran.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, u64) {
    ALLOCATOR.reset_peak_memory();
    let out = f();
    let peak = ALLOCATOR.get_peak_memory() as u64;
    (out, peak)
}

/// What the server builds from an answer besides the answer itself: the decimal numbers.
fn render(answer: &JobAnswer) -> Vec<String> {
    match answer {
        JobAnswer::Count(c) => {
            let mut out = vec![c.count.to_string()];
            if let Some(m) = &c.modulus {
                out.push(m.to_string());
            }
            if let Some(z) = &c.cycle_index {
                out.extend(z.terms.iter().map(|t| t.coefficient.to_string()));
            }
            out
        }
        JobAnswer::Group(g) => vec![g.order.to_string()],
        _ => Vec::new(),
    }
}

/// Limits for measuring: one thread per job, so that every allocation is the job's.
fn serial_limits() -> Limits {
    Limits {
        threads_per_job: 1,
        ..Limits::default()
    }
}

/// Runs `spec`, which must validate under `limits`, and returns `(peak, estimate, outcome)`,
/// checking `peak <= estimate`.
fn measure(
    name: &str,
    spec: JobSpec,
    limits: &Limits,
) -> (u64, u64, Result<JobAnswer, SolveError>) {
    spec.validate(limits)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let estimate = spec.memory_estimate(limits);
    let ctx = SolveContext::detached();
    let (outcome, peak) = peak_of(|| {
        let outcome = spec.run(&ctx, limits);
        let rendered = outcome.as_ref().map(render);
        drop(rendered);
        outcome
    });
    println!(
        "{name}: peak {peak} bytes, estimate {estimate} bytes, estimate / peak {:.2}",
        estimate as f64 / peak.max(1) as f64
    );
    assert!(
        peak <= estimate,
        "{name}: peak {peak} above the estimate {estimate}"
    );
    (peak, estimate, outcome)
}

/// [`measure`] for a kind whose estimate is a formula of its sizes: it must succeed and the
/// estimate must be within `4 peak + 1 MiB`.
fn check_tight(name: &str, spec: JobSpec) -> f64 {
    let (peak, estimate, outcome) = measure(name, spec, &serial_limits());
    outcome.unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        estimate <= 4 * peak + MIB,
        "{name}: estimate {estimate} too loose for the peak {peak}"
    );
    estimate as f64 / peak.max(1) as f64
}

// ---------------------------------------------------------------------------------------------
// Games

fn random_game(n: u32, m: usize, seed: u64) -> GameGraph {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let edges = (0..m)
        .map(|_| (rng.random_range(0..n), rng.random_range(0..n)))
        .collect();
    GameGraph { vertices: n, edges }
}

fn game(graph: GameGraph) -> JobSpec {
    JobSpec::Game(GameJob {
        graph,
        query: Vec::new(),
        witness: Default::default(),
    })
}

#[test]
fn game_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    check_tight("game small", game(random_game(10, 20, 1)));
    check_tight(
        "game random 10^5 / 5·10^5",
        game(random_game(100_000, 500_000, 2)),
    );
    // Every vertex on one cycle: all draws, the bitmap pass runs.
    let n = 200_000u32;
    let cycle = GameGraph {
        vertices: n,
        edges: (0..n).map(|v| (v, (v + 1) % n)).collect(),
    };
    check_tight("game draw cycle 2·10^5", game(cycle));
    // One vertex with 60,000 moves in and out: the degree counters overflow their byte.
    let hub = GameGraph {
        vertices: 60_001,
        edges: (1..=60_000u32).flat_map(|v| [(0, v), (v, 0)]).collect(),
    };
    check_tight("game hub 6·10^4", game(hub));
}

// ---------------------------------------------------------------------------------------------
// Policeman and thief

fn open_grid(rows: usize, cols: usize) -> Grid {
    let mut text = vec![".".repeat(cols); rows];
    text[0].replace_range(0..1, "C");
    text[rows - 1].replace_range(cols - 1..cols, "T");
    Grid::from_rows(&text).expect("open grid")
}

fn maze(size: usize, seed: u64) -> Grid {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut rows: Vec<Vec<u8>> = (0..size)
        .map(|_| {
            (0..size)
                .map(|_| if rng.random_bool(0.3) { b'*' } else { b'.' })
                .collect()
        })
        .collect();
    rows[0][0] = b'C';
    rows[size - 1][size - 1] = b'T';
    rows[size / 2][size / 2] = b'E';
    let rows: Vec<String> = rows
        .into_iter()
        .map(|r| String::from_utf8(r).expect("ascii"))
        .collect();
    Grid::from_rows(&rows).expect("maze")
}

#[test]
fn cop_thief_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    let spec = |grid: Grid, queries: Vec<CopThiefQuery>| {
        JobSpec::CopThief(CopThiefJob {
            grid,
            queries,
            witness: Default::default(),
        })
    };
    check_tight("cop_thief 3 x 4", spec(open_grid(3, 4), Vec::new()));
    // 90 free cells: 2 · 90² = 16,200 states, too few for a game deeper than the 2-byte words
    // hold, so the estimate counts 2 bytes per state.
    check_tight("cop_thief 9 x 10", spec(open_grid(9, 10), Vec::new()));
    let queries = (0..30)
        .map(|i| CopThiefQuery {
            cop: (i % 30, 0),
            thief: (29, i % 30),
            cop_to_move: i % 2 == 0,
        })
        .collect();
    check_tight(
        "cop_thief 30 x 30 + 30 queries",
        spec(open_grid(30, 30), queries),
    );
    check_tight("cop_thief maze 48 x 48", spec(maze(48, 3), Vec::new()));
}

// ---------------------------------------------------------------------------------------------
// Token puzzle

fn puzzle(n: u32, edges: Vec<(u32, u32)>, targets: usize, seed: u64) -> JobSpec {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start: Vec<u32> = (0..n).collect();
    let targets = (0..targets)
        .map(|_| {
            let mut t = start.clone();
            t.shuffle(&mut rng);
            t
        })
        .collect();
    JobSpec::Puzzle(
        PuzzleProblem {
            n,
            edges,
            start,
            targets,
        }
        .into(),
    )
}

#[test]
fn puzzle_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let n = 30_000u32;
    let tree: Vec<(u32, u32)> = (1..n).map(|v| (rng.random_range(0..v), v)).collect();
    check_tight("puzzle random tree 3·10^4", puzzle(n, tree.clone(), 10, 6));
    // A tree plus random edges, loops and repeats: one big block.
    let mut dense = tree;
    for _ in 0..60_000 {
        dense.push((rng.random_range(0..n), rng.random_range(0..n)));
    }
    dense.extend([(7, 7), (1, 2), (1, 2)]);
    check_tight("puzzle tree + 6·10^4 edges", puzzle(n, dense, 10, 7));
    // A 150 x 150 grid: one bipartite block.
    let side = 150u32;
    let grid: Vec<(u32, u32)> = (0..side * side)
        .flat_map(|v| {
            let mut e = Vec::new();
            if v % side + 1 < side {
                e.push((v, v + 1));
            }
            if v + side < side * side {
                e.push((v, v + side));
            }
            e
        })
        .collect();
    check_tight("puzzle grid 150 x 150", puzzle(side * side, grid, 5, 8));
    // A chain of 5,000 blocks of 7 vertices (a 7-cycle and a chord): every block's group is
    // enumerated and stored as a table.
    let blocks = 5_000u32;
    let chain: Vec<(u32, u32)> = (0..blocks)
        .flat_map(|b| {
            let v = |i: u32| 6 * b + i; // vertex 6b is shared with the previous block
            let mut e: Vec<(u32, u32)> = (0..7).map(|i| (v(i), v((i + 1) % 7))).collect();
            e.push((v(0), v(3)));
            e
        })
        .collect();
    check_tight(
        "puzzle 5,000 seven-vertex blocks",
        puzzle(6 * blocks + 1, chain, 5, 9),
    );
    // Cycles of length 3 hanging off a path: many rotation rules.
    let tri = 10_000u32;
    let cactus: Vec<(u32, u32)> = (0..tri)
        .flat_map(|b| {
            [
                (2 * b, 2 * b + 1),
                (2 * b + 1, 2 * b + 2),
                (2 * b + 2, 2 * b),
            ]
        })
        .collect();
    check_tight(
        "puzzle 10,000 triangles",
        puzzle(2 * tri + 1, cactus, 5, 10),
    );
}

// ---------------------------------------------------------------------------------------------
// Counting families

fn count(kind: CountKind, modulus: Option<u64>) -> JobSpec {
    JobSpec::Count(CountProblem {
        kind,
        modulus: modulus.map(BigUint::from),
    })
}

#[test]
fn counting_family_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    use CountKind::*;
    let cases = [
        (
            "necklace n = 2·10^5, k = 2",
            Necklace { n: 200_000, k: 2 },
            None,
        ),
        (
            "necklace n = 5·10^4, k = 3",
            Necklace { n: 50_000, k: 3 },
            None,
        ),
        (
            "necklace n = 10^6, k = 5 mod p",
            Necklace { n: 1_000_000, k: 5 },
            Some(1_000_000_007),
        ),
        (
            "bracelet n = 10^5, k = 2",
            Bracelet { n: 100_000, k: 2 },
            None,
        ),
        (
            "bracelet n = 720720, k = 7 mod 2^40",
            Bracelet { n: 720_720, k: 7 },
            Some(1 << 40),
        ),
        (
            "torus 500 x 400, k = 2",
            Torus {
                rows: 500,
                cols: 400,
                k: 2,
                rotation: true,
            },
            None,
        ),
        (
            "torus 1000 x 999, k = 3 mod p",
            Torus {
                rows: 1000,
                cols: 999,
                k: 3,
                rotation: false,
            },
            Some(998_244_353),
        ),
        (
            "cube edges, k = 1000",
            Cube {
                part: CubePart::Edges,
                k: 1000,
            },
            None,
        ),
        ("graphs n = 20", Graphs { n: 20 }, None),
        ("graphs n = 50", Graphs { n: 50 }, None),
        (
            "binary tree depth 12, k = 2",
            BinaryTree { depth: 12, k: 2 },
            None,
        ),
        (
            "binary tree depth 16, k = 3",
            BinaryTree { depth: 16, k: 3 },
            None,
        ),
        (
            "binary tree depth 5000, k = 7 mod p",
            BinaryTree { depth: 5000, k: 7 },
            Some(1_000_000_007),
        ),
    ];
    for (name, kind, modulus) in cases {
        check_tight(name, count(kind, modulus));
    }
}

/// A modulus of a few thousand bits: the modular powers work on numbers of its size.
#[test]
fn counting_with_a_large_modulus_stays_under_the_estimate() {
    let _serial = one_test_at_a_time();
    let modulus = (BigUint::from(1u32) << 20_000u32) - 1u32;
    let spec = JobSpec::Count(CountProblem {
        kind: CountKind::Necklace { n: 360_360, k: 3 },
        modulus: Some(modulus),
    });
    check_tight("necklace n = 360360, k = 3 mod 2^20000 - 1", spec);
}

// ---------------------------------------------------------------------------------------------
// Groups

fn perm(text: &str, d: usize) -> Perm {
    Perm::parse_cycles(text, d).expect("cycle notation")
}

fn cycle_text(points: impl Iterator<Item = usize>) -> String {
    let inner: Vec<String> = points.map(|p| p.to_string()).collect();
    format!("({})", inner.join(","))
}

/// The dihedral group on `n` points (1-based cycle notation).
fn dihedral(n: usize) -> Vec<Perm> {
    let rotation = perm(&cycle_text(1..=n), n);
    let reflection: String = (2..=n / 2 + (n % 2))
        .filter(|&i| i != n + 2 - i)
        .map(|i| format!("({},{})", i, n + 2 - i))
        .collect();
    vec![rotation, perm(&reflection, n)]
}

/// A giant product: `Sym(s)`, `Alt(3s/2)` and a linked pair of `Sym(s)` (random tuples of
/// permutations), a dihedral rest orbit of `m` points whose reflection comes with the second
/// generator (coupled to the parities), and 5 fixed points; degree `9s/2 + m + 5`.
fn giant_product(s: usize, m: usize, rng: &mut ChaCha8Rng) -> (usize, Vec<Perm>) {
    let a = 3 * s / 2;
    let d = 3 * s + a + m + 5;
    let dih = dihedral(m);
    let mut phi: Vec<u32> = (0..s as u32).collect();
    phi.shuffle(rng);
    let gens = (0..2)
        .map(|j| {
            let x = random_perm(s, rng);
            let y = random_perm(a, rng);
            let y = if y.is_even() {
                y
            } else {
                y.compose(&perm("(1,2)", a))
            };
            let z = random_perm(s, rng);
            let mut img: Vec<u32> = (0..d as u32).collect();
            let (o2, o3, o4, o5) = (s, s + a, 2 * s + a, 3 * s + a);
            for i in 0..s {
                img[i] = x.image(i as u32);
                img[o3 + i] = (o3 as u32) + z.image(i as u32);
                img[o4 + phi[i] as usize] = o4 as u32 + phi[z.image(i as u32) as usize];
            }
            for i in 0..a {
                img[o2 + i] = o2 as u32 + y.image(i as u32);
            }
            for i in 0..m {
                img[o5 + i] = o5 as u32 + dih[j].image(i as u32);
            }
            Perm::from_images(img, "giant product").expect("a permutation")
        })
        .collect();
    (d, gens)
}

fn mathieu_11() -> Vec<Perm> {
    vec![
        perm("(1,2,3,4,5,6,7,8,9,10,11)", 11),
        perm("(3,7,11,8)(4,10,5,6)", 11),
    ]
}

/// `copies` disjoint copies of Sym(3): a base of `2 · copies` points.
fn sym3_copies(copies: usize) -> Vec<Perm> {
    let d = 3 * copies;
    (0..copies)
        .flat_map(|b| {
            let p = 3 * b + 1;
            [
                perm(&format!("({},{},{})", p, p + 1, p + 2), d),
                perm(&format!("({},{})", p, p + 1), d),
            ]
        })
        .collect()
}

fn random_perm(d: usize, rng: &mut ChaCha8Rng) -> Perm {
    let mut images: Vec<u32> = (0..d as u32).collect();
    images.shuffle(rng);
    Perm::from_images(images, "random").expect("a permutation")
}

/// The stabiliser chain's accounting is honest: building a group never allocates more than what
/// [`perm_group_memory_estimate`] bounds plus what the chain has been charged.
#[test]
fn group_construction_stays_within_its_fixed_bound_and_chain_charge() {
    let _serial = one_test_at_a_time();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let cases: Vec<(&str, usize, Vec<Perm>)> = vec![
        ("M11", 11, mathieu_11()),
        ("D_20000 (a Schreier-tree level)", 20_000, dihedral(20_000)),
        ("D_2000 (explicit levels)", 2_000, dihedral(2_000)),
        ("60 copies of Sym(3)", 180, sym3_copies(60)),
        ("Sym(3000), two random generators", 3_000, {
            let mut g = vec![random_perm(3_000, &mut rng), random_perm(3_000, &mut rng)];
            g[0] = g[0].compose(&perm("(1,2)", 3_000));
            g
        }),
        (
            "a cyclic group of degree 50,000",
            50_000,
            vec![perm(&cycle_text(1..=50_000), 50_000)],
        ),
    ];
    let mut cases = cases;
    // Chains proven by the structural proofs (Sims's one-generator lemma, level normal series,
    // block systems), which hold permutations and subgroup chains beside the chain.
    cases.push(("PSL(2,10007)", 10_008, classical_groups::psl2(10_007)));
    cases.push(("PSL(3,31)", 993, classical_groups::psl3(31)));
    cases.push((
        "AGL(2,101) (a block-system level)",
        10_201,
        classical_groups::agl2(101),
    ));
    cases.push(("PSL(2,1009) x PSL(2,1013)", 2024, {
        let (a, b) = (classical_groups::psl2(1009), classical_groups::psl2(1013));
        vec![
            classical_groups::juxtapose(&[&a[0], &b[0]]),
            classical_groups::juxtapose(&[&a[1], &b[1]]),
        ]
    }));
    for (name, s, m) in [
        ("giant product, degree 465", 100, 10),
        ("giant product, degree 4,517", 1_000, 12),
        // The dihedral orbit is larger than the giant ones: its group is built for the check.
        (
            "giant product with a dihedral orbit of 3,000 points",
            100,
            3_000,
        ),
    ] {
        let (d, gens) = giant_product(s, m, &mut rng);
        cases.push((name, d, gens));
    }
    // Sym(12) naturally and on its 66 pairs: the attempt builds the pair orbit's group, declines,
    // and Schreier–Sims runs.
    cases.push((
        "Sym(12) on points and pairs (giant product declined)",
        78,
        {
            let pairs: Vec<(u32, u32)> = (0..12u32)
                .flat_map(|a| (a + 1..12).map(move |b| (a, b)))
                .collect();
            let on_both = |s: Vec<u32>| {
                let mut img = s.clone();
                for &(a, b) in &pairs {
                    let (x, y) = (s[a as usize], s[b as usize]);
                    let key = (x.min(y), x.max(y));
                    img.push(12 + pairs.iter().position(|&p| p == key).expect("a pair") as u32);
                }
                Perm::from_images(img, "pairs").expect("a permutation")
            };
            let mut swap: Vec<u32> = (0..12).collect();
            swap.swap(0, 1);
            vec![
                on_both((0..12).map(|i| (i + 1) % 12).collect()),
                on_both(swap),
            ]
        },
    ));
    // Alt(45) on its 990 pairs: the order comes through the faithful action on the 45 stars
    // (the search for invariant lines, then the group of that action).
    cases.push(("Alt(45) on 2-sets (invariant lines)", 990, {
        let m = 45u32;
        let pairs: Vec<(u32, u32)> = (0..m)
            .flat_map(|a| (a + 1..m).map(move |b| (a, b)))
            .collect();
        let index = |x: u32, y: u32| {
            let key = (x.min(y), x.max(y));
            pairs.binary_search(&key).expect("a pair") as u32
        };
        let on_pairs = |s: Vec<u32>| {
            let images = pairs
                .iter()
                .map(|&(a, b)| index(s[a as usize], s[b as usize]))
                .collect();
            Perm::from_images(images, "pairs").expect("a permutation")
        };
        let mut three: Vec<u32> = (0..m).collect();
        three[..3].rotate_left(1);
        vec![
            on_pairs((0..m).map(|i| (i + 1) % m).collect()),
            on_pairs(three),
        ]
    }));
    let limits = serial_limits();
    for (name, d, gens) in cases {
        let k = gens.len() as u64;
        let fixed = perm_group_memory_estimate(d as u64, k);
        let ctx = SolveContext::detached();
        let (group, peak) = peak_of(|| PermGroup::new(d, gens, &ctx, &limits).expect("builds"));
        let bound = fixed + group.chain_bytes();
        println!(
            "PermGroup {name}: peak {peak}, fixed bound {fixed} + chain charge {} = {bound}, bound / peak {:.2}",
            group.chain_bytes(),
            bound as f64 / peak.max(1) as f64
        );
        assert!(peak <= bound, "{name}: peak {peak} above {bound}");
    }
}

#[test]
fn group_job_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let limits = Limits {
        max_job_memory: 48 * MIB,
        ..serial_limits()
    };
    let mut jobs: Vec<(&str, usize, Vec<Perm>)> = vec![
        ("M11", 11, mathieu_11()),
        ("D_5000", 5_000, dihedral(5_000)),
        ("60 copies of Sym(3)", 180, sym3_copies(60)),
        (
            "cyclic, degree 20,000",
            20_000,
            vec![perm(&cycle_text(1..=20_000), 20_000)],
        ),
    ];
    let (d, gens) = giant_product(200, 9, &mut rng);
    jobs.push(("giant product, degree 914", d, gens));
    jobs.push(("Sym(2000)", 2_000, {
        let mut g = vec![random_perm(2_000, &mut rng), random_perm(2_000, &mut rng)];
        g[0] = g[0].compose(&perm("(1,2)", 2_000));
        g
    }));
    for (name, d, generators) in jobs {
        let candidates = (0..20).map(|_| random_perm(d, &mut rng)).collect();
        let spec = JobSpec::Group(GroupProblem {
            degree: d,
            generators,
            candidates,
            words: None,
        });
        let (_, estimate, outcome) = measure(&format!("group {name}"), spec, &limits);
        outcome.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(estimate, limits.max_job_memory);
    }
}

#[test]
fn a_group_whose_chain_outgrows_its_budget_stops_within_it() {
    let _serial = one_test_at_a_time();
    // 100 copies of Sym(3) (degree 300, a base of 200 points) under a limit that leaves the chain
    // about 200 KiB: refused while running, stating the budget, and the peak stays under the
    // estimate.
    let generators = sym3_copies(100);
    let probe = JobSpec::Group(GroupProblem {
        degree: 300,
        generators: generators.clone(),
        candidates: Vec::new(),
        words: None,
    });
    let fixed = probe.memory_estimate(&Limits {
        max_job_memory: 0,
        ..serial_limits()
    });
    let limits = Limits {
        max_job_memory: fixed + (200 << 10),
        ..serial_limits()
    };
    let (_, _, outcome) = measure("group 100 x Sym(3), chain budget 200 KiB", probe, &limits);
    let e = outcome.expect_err("the chain does not fit 200 KiB");
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    assert!(e.to_string().contains("stabiliser chain"), "{e}");
}

fn count_group(
    d: usize,
    generators: Vec<Perm>,
    k: u64,
    content: Option<&str>,
    cycle_index: bool,
) -> JobSpec {
    JobSpec::Count(CountProblem {
        kind: CountKind::Group {
            degree: d,
            generators,
            k,
            content: content.map(|c| parse_content(c).expect("content")),
            cycle_index,
        },
        modulus: None,
    })
}

#[test]
fn count_group_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    let limits = Limits {
        max_job_memory: 48 * MIB,
        ..serial_limits()
    };
    let cases = vec![
        (
            "M11 enumerated, k = 3",
            count_group(11, mathieu_11(), 3, None, false),
        ),
        (
            "M11 cycle index",
            count_group(11, mathieu_11(), 2, None, true),
        ),
        (
            "M11 content 4,4,3",
            count_group(11, mathieu_11(), 0, Some("4,4,3"), false),
        ),
        (
            "S4 x S4 on 8 points, content 3,3,2, cycle index",
            count_group(
                8,
                vec![
                    perm("(1,2,3,4)", 8),
                    perm("(1,2)", 8),
                    perm("(5,6,7,8)", 8),
                    perm("(5,6)", 8),
                ],
                0,
                Some("3,3,2"),
                true,
            ),
        ),
        (
            "cyclic (2,3,5,7,11,13 cycles) cycle index",
            count_group(
                41,
                vec![perm(
                    "(1,2)(3,4,5)(6,7,8,9,10)(11,12,13,14,15,16,17)(18,19,20,21,22,23,24,25,26,27,28)(29,30,31,32,33,34,35,36,37,38,39,40,41)",
                    41,
                )],
                2,
                None,
                true,
            ),
        ),
        (
            "D_1000, content 500,500",
            count_group(1000, dihedral(1000), 0, Some("500,500"), false),
        ),
        (
            "Sym(12) cycle index",
            count_group(
                12,
                vec![perm(&cycle_text(1..=12), 12), perm("(1,2)", 12)],
                3,
                None,
                true,
            ),
        ),
        (
            "60 copies of Sym(3) is too big to enumerate",
            count_group(180, sym3_copies(60), 2, None, false),
        ),
    ];
    for (name, spec) in cases {
        let (_, estimate, outcome) = measure(&format!("count group {name}"), spec, &limits);
        assert_eq!(estimate, limits.max_job_memory);
        if let Err(e) = outcome {
            assert!(matches!(e, SolveError::LimitExceeded { .. }), "{name}: {e}");
            println!("  ({name}: {e})");
        }
    }
}

#[test]
fn an_enumeration_that_outgrows_its_budget_stops_within_it() {
    let _serial = one_test_at_a_time();
    // The dihedral group on 20,000 points times a transposition on two more (not the natural
    // dihedral action, so it is enumerated): its chain keeps a Schreier tree (about 1 MiB), but
    // the transversals to enumerate would take 20,000 permutations of 20,002 points, 1.6 GB and
    // as much again for their copies. The job stops before making them.
    let n = 20_000;
    let d = n + 2;
    let mut generators: Vec<Perm> = dihedral(n)
        .into_iter()
        .map(|g| {
            let mut images = g.images().to_vec();
            images.extend([n as u32, n as u32 + 1]);
            Perm::from_images(images, "extended").expect("a permutation")
        })
        .collect();
    generators.push(perm(&format!("({},{})", n + 1, n + 2), d));
    let spec = count_group(d, generators, 2, None, false);
    let limits = Limits {
        max_job_memory: 48 * MIB,
        ..serial_limits()
    };
    let (_, _, outcome) = measure("count group D_20000 x C_2, budget 48 MiB", spec, &limits);
    let e = outcome.expect_err("the transversals do not fit");
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    assert!(e.to_string().contains("transversals"), "{e}");
}

/// The estimate is what `validate` compares with the limit, and the refusal states both.
#[test]
fn a_job_over_the_memory_limit_is_refused_before_it_runs() {
    let _serial = one_test_at_a_time();
    let spec = game(random_game(1_000, 10_000, 13));
    let estimate = spec.memory_estimate(&serial_limits());
    let limits = Limits {
        max_job_memory: estimate - 1,
        ..serial_limits()
    };
    let e = spec.validate(&limits).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "game job memory estimate of {estimate} bytes exceeds the limit of {} bytes (max_job_memory)",
            estimate - 1
        )
    );
    let limits = Limits {
        max_job_memory: estimate,
        ..serial_limits()
    };
    spec.validate(&limits).expect("fits exactly");
}

/// The big-integer factor the counting estimates rest on, measured per operation: every
/// operation on numbers of at most `b` bits peaks below `BIGINT_OP_FACTOR · b / 8` bytes.
#[test]
fn big_integer_operations_stay_under_the_factor() {
    use num_traits::{One, Pow};
    use orbit_worker::memory::{BIGINT_OP_FACTOR, bigint_bytes};
    let _serial = one_test_at_a_time();
    for bits in [10_000u64, 100_000, 1_000_000] {
        let a = (BigUint::one() << bits) - 1u32;
        let b = (BigUint::one() << bits) - 3u32; // odd: Montgomery
        let even = &b - 1u32;
        let half = (BigUint::one() << (bits / 2)) - 1u32;
        let bound = |b: u64| BIGINT_OP_FACTOR * bigint_bytes(b) + 1024;
        let (_, product) = peak_of(|| &a * &b);
        let (_, power) = peak_of(|| BigUint::from(3u32).pow(bits * 5 / 8)); // about `bits` bits
        let (_, quotient) = peak_of(|| (&a * &half) / &half);
        let (_, decimal) = peak_of(|| a.to_string());
        let small = bits.min(100_000); // modular powers are slow beyond
        let m_odd = (BigUint::one() << small) - 3u32;
        let m_even = &m_odd - 1u32;
        let (_, monty) =
            peak_of(|| BigUint::from(3u32).modpow(&BigUint::from(1_234_567u32), &m_odd));
        let (_, plain) =
            peak_of(|| BigUint::from(3u32).modpow(&BigUint::from(1_234_567u32), &m_even));
        drop(even);
        println!(
            "{bits} bits: product {:.1}x, power {:.1}x, quotient {:.1}x, decimal {:.1}x, modpow {:.1}x / {:.1}x (of {small} bits)",
            product as f64 / bigint_bytes(bits) as f64,
            power as f64 / bigint_bytes(bits) as f64,
            quotient as f64 / bigint_bytes(bits + bits / 2) as f64,
            decimal as f64 / bigint_bytes(bits) as f64,
            monty as f64 / bigint_bytes(small) as f64,
            plain as f64 / bigint_bytes(small) as f64,
        );
        assert!(product <= bound(bits), "product of {bits} bits: {product}");
        assert!(power <= bound(bits), "power of {bits} bits: {power}");
        assert!(quotient <= bound(bits + bits / 2), "quotient: {quotient}");
        assert!(decimal <= bound(bits), "decimal of {bits} bits: {decimal}");
        assert!(
            monty <= bound(small) && plain <= bound(small),
            "modpow: {monty} / {plain}"
        );
    }
}

/// The default limit admits the scale benchmarks' jobs (their estimates, computed from their
/// sizes without building them).
#[test]
fn the_default_limit_admits_the_scale_benchmarks() {
    use orbit_worker::cop_thief;
    use orbit_worker::counting::{
        graphs_memory_estimate, necklace_memory_estimate, torus_memory_estimate,
    };
    use orbit_worker::game::retrograde;
    let _serial = one_test_at_a_time();
    let limit = Limits::default().max_job_memory;
    let cases = [
        (
            "game 10^7 vertices, 5·10^7 edges",
            retrograde::memory_estimate(10_000_000, 50_000_000),
        ),
        (
            "cop_thief 100 x 100",
            cop_thief::memory_estimate(&open_grid(100, 100)),
        ),
        (
            "puzzle n = 10^5, m = 3·10^5, q = 100",
            orbit_worker::puzzle::memory_estimate(100_000, 300_000, 100),
        ),
        (
            "necklace n = 10^6, k = 2",
            necklace_memory_estimate(1_000_000, 2, None),
        ),
        (
            "torus 2000 x 2000, k = 2",
            torus_memory_estimate(2000, 2000, 2, None),
        ),
        ("graphs n = 70", graphs_memory_estimate(70, None)),
        (
            "group Sym(10,000), 2 generators, 1,000 candidates",
            orbit_worker::group::group_memory_estimate(
                &GroupProblem {
                    degree: 10_000,
                    generators: vec![Perm::identity(10_000); 2],
                    candidates: vec![Perm::identity(10_000); 1000],
                    words: None,
                },
                &Limits::default(),
            ),
        ),
    ];
    for (name, estimate) in cases {
        println!("{name}: {} MiB", estimate >> 20);
        assert!(estimate <= limit, "{name}: {estimate}");
    }
}

/// Words for members: the tables and the words are charged against what `max_job_memory` leaves
/// them, so the peak stays under the estimate; a budget too small for the tables is refused
/// while running, naming `max_job_memory`, still under the estimate.
#[test]
fn group_words_stay_within_the_estimate() {
    let _serial = one_test_at_a_time();
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let limits = Limits {
        max_job_memory: 48 * MIB,
        ..serial_limits()
    };
    let jobs: Vec<(&str, usize, Vec<Perm>)> = vec![
        ("M11", 11, mathieu_11()),
        ("D_500", 500, dihedral(500)),
        ("PSL(3,3) on 13 points", 13, classical_groups::psl3(3)),
    ];
    for (name, d, generators) in jobs {
        // Members: products of the generators.
        let candidates = (0..20)
            .map(|_| {
                let mut x = Perm::identity(d);
                for _ in 0..30 {
                    x = x.compose(&generators[rng.random_range(0..generators.len())]);
                }
                x
            })
            .collect();
        let spec = JobSpec::Group(GroupProblem {
            degree: d,
            generators,
            candidates,
            words: Some(WordEffort(1)),
        });
        let (_, estimate, outcome) = measure(&format!("group words {name}"), spec, &limits);
        outcome.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(estimate, limits.max_job_memory);
    }
    // D_5000's tables hold 5,002 permutations of 5,000 points and their inverses (about 200 MB):
    // over what 24 MiB leaves them (the group alone is estimated at about 18 MiB, most of it for
    // a search for invariant lines it may try).
    let small = Limits {
        max_job_memory: 24 * MIB,
        ..serial_limits()
    };
    let spec = JobSpec::Group(GroupProblem {
        degree: 5_000,
        candidates: vec![dihedral(5_000)[0].clone()],
        generators: dihedral(5_000),
        words: Some(WordEffort(1)),
    });
    let (_, _, outcome) = measure("group words D_5000, 24 MiB", spec, &small);
    match outcome {
        Err(SolveError::LimitExceeded { limit_name, .. }) => {
            assert_eq!(limit_name, "max_job_memory")
        }
        other => panic!("expected max_job_memory to be exceeded, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Graphs

fn graph_spec(vertices: u32, edges: Vec<(u32, u32)>) -> JobSpec {
    JobSpec::Graph(GraphJob {
        graph: UndirectedGraph {
            vertices,
            edges,
            colours: None,
        },
    })
}

#[test]
fn graph_peaks_stay_under_the_estimate() {
    let _serial = one_test_at_a_time();
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let paley = |p: u32| {
        let squares: std::collections::BTreeSet<u32> = (1..p).map(|x| x * x % p).collect();
        (0..p)
            .flat_map(|x| (x + 1..p).map(move |y| (x, y)))
            .filter(|&(x, y)| squares.contains(&(y - x)))
            .collect::<Vec<_>>()
    };
    let random: Vec<(u32, u32)> = (0..400u32)
        .flat_map(|u| (u + 1..400).map(move |v| (u, v)))
        .filter(|_| rng.random_bool(0.3))
        .collect();
    let grid: Vec<(u32, u32)> = (0..900u32)
        .flat_map(|v| [(v, v + 1), (v, v + 30)])
        .filter(|&(v, w)| w < 900 && (w != v + 1 || v % 30 != 29))
        .collect();
    let cases = [
        ("Paley 401", graph_spec(401, paley(401))),
        ("random G(400, 0.3)", graph_spec(400, random)),
        ("grid 30 x 30", graph_spec(900, grid)),
        // Many generators: the star K(1, 800) has 799 of them.
        (
            "star K(1, 800)",
            graph_spec(801, (1..801).map(|v| (0, v)).collect()),
        ),
    ];
    for (name, spec) in cases {
        let (_, _, outcome) = measure(name, spec, &serial_limits());
        outcome.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn graph_generators_that_outgrow_the_memory_limit_stop_the_job() {
    let _serial = one_test_at_a_time();
    // The complete graph K(1000) (dense, so the dense search and its image-array generators):
    // 999 generators of 8 * 1000 bytes (about 7.6 MiB); 6 MiB of max_job_memory leaves the
    // generators less than that. (A sparse graph's generators are kept by their moved points and
    // stay below the sparse search's own O(n) footprint, which the estimate charges first.)
    let edges = (0..1000u32)
        .flat_map(|u| (u + 1..1000).map(move |v| (u, v)))
        .collect();
    let spec = graph_spec(1000, edges);
    let limits = Limits {
        max_job_memory: 6 << 20,
        ..serial_limits()
    };
    let ctx = SolveContext::detached();
    let (outcome, peak) = peak_of(|| spec.run(&ctx, &limits));
    assert!(peak <= limits.max_job_memory, "peak {peak}");
    match outcome {
        Err(SolveError::LimitExceeded { limit_name, .. }) => {
            assert_eq!(limit_name, "max_job_memory")
        }
        other => panic!("expected max_job_memory to be exceeded, got {other:?}"),
    }
}
