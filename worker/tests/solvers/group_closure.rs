//! Property tests on random small groups (degree <= 9) against brute force: the whole group is
//! enumerated by breadth-first closure under the generators, which is the oracle for the order,
//! for membership of members and of random permutations, and for the orbits.

use std::collections::{HashMap, HashSet};

use num_bigint::BigUint;
use orbit_worker::group::{GroupKind, GroupTuning, LevelProof, LevelProofPolicy, Perm, PermGroup};
use orbit_worker::{Limits, SolveContext};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn from_images(v: Vec<u32>) -> Perm {
    Perm::from_images(v, "test").expect("constructed as a permutation")
}

/// A random generator of one of several shapes, so that the groups range from tiny to Sym(9).
pub(crate) fn random_generator(d: usize, rng: &mut ChaCha8Rng) -> Perm {
    let mut img: Vec<u32> = (0..d as u32).collect();
    match rng.random_range(0..10) {
        // Random permutation of a small random support.
        0..=3 => {
            let mut pts: Vec<u32> = (0..d as u32).collect();
            pts.shuffle(rng);
            let k = rng.random_range(1..=d.min(4));
            let support = &pts[..k];
            let mut moved = support.to_vec();
            moved.shuffle(rng);
            for (&a, &b) in support.iter().zip(&moved) {
                img[a as usize] = b;
            }
        }
        // Preserves the blocks {0,1}, {2,3}, ... (or of size 3): permute blocks, then within.
        4..=6 => {
            let size = if d.is_multiple_of(3) { 3 } else { 2 };
            let blocks = d / size;
            let mut order: Vec<usize> = (0..blocks).collect();
            order.shuffle(rng);
            for (b, &to) in order.iter().enumerate() {
                let mut inner: Vec<usize> = (0..size).collect();
                if rng.random_bool(0.5) {
                    inner.shuffle(rng);
                }
                for (i, &j) in inner.iter().enumerate() {
                    img[b * size + i] = (to * size + j) as u32;
                }
            }
        }
        // Product of disjoint transpositions.
        7 | 8 => {
            let mut pts: Vec<u32> = (0..d as u32).collect();
            pts.shuffle(rng);
            for pair in pts.chunks_exact(2).take(rng.random_range(1..=d / 2 + 1)) {
                img[pair[0] as usize] = pair[1];
                img[pair[1] as usize] = pair[0];
            }
        }
        // Uniformly random.
        _ => img.shuffle(rng),
    }
    from_images(img)
}

/// A permutation of at most 16 points packed 4 bits per image.
pub(crate) fn pack(images: impl Iterator<Item = u32>) -> u64 {
    images
        .enumerate()
        .fold(0, |acc, (i, x)| acc | (u64::from(x) << (4 * i)))
}

fn unpack(d: usize, e: u64) -> Vec<u32> {
    (0..d).map(|i| ((e >> (4 * i)) & 15) as u32).collect()
}

/// All elements of `<gens>` by breadth-first search.
pub(crate) fn closure(d: usize, gens: &[Perm]) -> HashSet<u64> {
    let id = pack(0..d as u32);
    let mut seen = HashSet::from([id]);
    let mut queue = vec![id];
    let mut head = 0;
    while head < queue.len() {
        let e = queue[head];
        head += 1;
        for g in gens {
            let next = pack(unpack(d, e).into_iter().map(|x| g.images()[x as usize]));
            if seen.insert(next) {
                queue.push(next);
            }
        }
    }
    seen
}

pub(crate) fn to_perm(d: usize, e: u64) -> Perm {
    from_images(unpack(d, e))
}

#[test]
fn group_random_small_groups_match_brute_force() {
    random_small_groups_match_brute_force(2026, 400, &GroupTuning::default());
}

/// The same oracle with every level kept as a shallow Schreier tree (no explicit transversals)
/// and the normal-series order certificate always tried, so both transversal representations
/// and both completeness proofs are checked against brute force.
#[test]
fn group_random_small_groups_match_brute_force_with_schreier_trees() {
    let tuning = GroupTuning {
        max_explicit_transversal_entries: 0,
        always_try_order_certificate: true,
        ..GroupTuning::default()
    };
    random_small_groups_match_brute_force(2027, 400, &tuning);
    // Mixed: explicit while orbit x degree <= 20 integers, trees beyond.
    let tuning = GroupTuning {
        max_explicit_transversal_entries: 20,
        always_try_order_certificate: false,
        ..GroupTuning::default()
    };
    random_small_groups_match_brute_force(2028, 200, &tuning);
}

/// The structural level proofs (Sims's one-generator lemma, a normal series of each level, a block
/// system) tried
/// on every level, after a random phase cut short (a streak of 0, 1 or 2 identity sifts), so that
/// the chains they are given are often incomplete and the proofs must find the missing strong
/// generators; explicit transversals, Schreier trees and a mix. Each proof alone (with the
/// Schreier-generator fallback where it does not apply), and all of them.
#[test]
fn group_random_small_groups_match_brute_force_with_level_proofs() {
    let configs = [
        (2029, 0, u64::MAX, LevelProofPolicy::LemmaOnly),
        (2030, 1, 0, LevelProofPolicy::LemmaOnly),
        (2031, 0, 20, LevelProofPolicy::NormalSeriesOnly),
        (2032, 2, 0, LevelProofPolicy::NormalSeriesOnly),
        (2033, 1, 20, LevelProofPolicy::Always),
        (2034, 0, 0, LevelProofPolicy::BlockSystemOnly),
        (2035, 1, u64::MAX, LevelProofPolicy::BlockSystemOnly),
    ];
    for (seed, streak, explicit, policy) in configs {
        let tuning = GroupTuning {
            max_explicit_transversal_entries: explicit,
            level_proofs: policy,
            random_phase_streak: streak,
            ..GroupTuning::default()
        };
        let proofs = random_small_groups_match_brute_force(seed, 400, &tuning);
        // The structural proofs must really have run (not only the Schreier-generator fallback).
        let count = |p| proofs.get(&p).copied().unwrap_or(0);
        let (lemma, series, blocks) = (
            count(LevelProof::OneGeneratorLemma),
            count(LevelProof::LevelNormalSeries),
            count(LevelProof::BlockSystem),
        );
        println!("seed {seed}, {policy:?}: {proofs:?}");
        match policy {
            LevelProofPolicy::LemmaOnly => assert!(lemma > 300 && series + blocks == 0),
            LevelProofPolicy::NormalSeriesOnly => assert!(series > 100 && lemma + blocks == 0),
            LevelProofPolicy::BlockSystemOnly => assert!(blocks > 20 && lemma + series == 0),
            _ => assert!(lemma > 300, "{proofs:?}"),
        }
    }
}

/// Checks `cases` random groups against brute force; returns how many chain levels each kind of
/// proof completed.
fn random_small_groups_match_brute_force(
    seed: u64,
    cases: usize,
    tuning: &GroupTuning,
) -> HashMap<LevelProof, usize> {
    let mut proofs = HashMap::new();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ctx = SolveContext::detached();
    let limits = Limits::default();
    let mut sizes = Vec::new();
    for case in 0..cases {
        let d = if rng.random_bool(0.9) {
            rng.random_range(4..=9)
        } else {
            rng.random_range(1..=3)
        };
        let k = rng.random_range(0..=4);
        let gens: Vec<Perm> = (0..k).map(|_| random_generator(d, &mut rng)).collect();
        let all = closure(d, &gens);
        let g = PermGroup::new_with_tuning(d, gens.clone(), &ctx, &limits, tuning).expect("builds");
        let label = format!("case {case}: d={d} gens={gens:?}");
        assert_eq!(g.order(), BigUint::from(all.len()), "{label}");
        for proof in g.level_proofs() {
            *proofs.entry(proof).or_insert(0) += 1;
        }
        sizes.push(all.len());
        // Every element (or a sample of 2000) is a member.
        let elements: Vec<u64> = all.iter().copied().collect();
        let sample: Vec<u64> = if elements.len() <= 2000 {
            elements
        } else {
            elements.choose_multiple(&mut rng, 2000).copied().collect()
        };
        for e in sample {
            assert!(g.contains(&to_perm(d, e)), "{label}: member {e:x}");
        }
        // Random permutations: member iff in the closure.
        for _ in 0..200 {
            let mut v: Vec<u32> = (0..d as u32).collect();
            v.shuffle(&mut rng);
            let member = all.contains(&pack(v.iter().copied()));
            assert_eq!(
                g.contains(&from_images(v.clone())),
                member,
                "{label}: candidate {v:?}"
            );
        }
        // Orbits: x and y share an orbit iff some element maps x to y.
        for orbit in g.orbits() {
            let x = orbit[0] as usize;
            let reach: HashSet<u32> = all.iter().map(|&e| unpack(d, e)[x]).collect();
            let mut expect: Vec<u32> = reach.into_iter().collect();
            expect.sort_unstable();
            let mut got: Vec<u32> = orbit.clone();
            got.sort_unstable();
            assert_eq!(got, expect, "{label}: orbit of {x}");
        }
        // Transversals multiply out to the order; products u_{k-1} * ... * u_0 cover the group.
        let t = g.transversals().expect("small");
        let product: usize = t.iter().map(Vec::len).product();
        assert_eq!(product, all.len(), "{label}");
        if all.len() <= 5000 {
            let mut built: HashSet<u64> = HashSet::new();
            let mut partial = vec![Perm::identity(d)];
            for level in t.iter().rev() {
                partial = partial
                    .iter()
                    .flat_map(|p| level.iter().map(move |u| p.compose(u)))
                    .collect();
            }
            for p in partial {
                built.insert(pack(p.images().iter().copied()));
            }
            assert_eq!(built, all, "{label}: transversal products");
        }
        // Kind agrees with the order.
        let fact: usize = (1..=d).product();
        let transitive = g.orbits().len() == 1;
        let expect_kind = if all.len() == 1 {
            GroupKind::Trivial
        } else if transitive && all.len() == fact {
            GroupKind::Symmetric
        } else if transitive && d >= 3 && 2 * all.len() == fact {
            GroupKind::Alternating
        } else {
            GroupKind::General
        };
        assert_eq!(g.kind(), expect_kind, "{label}");
    }
    // The generator shapes must give a spread of sizes, including large groups.
    sizes.sort_unstable();
    assert!(
        sizes[0] == 1 && *sizes.last().expect("cases") >= 40320,
        "sizes {sizes:?}"
    );
    let big = sizes.iter().filter(|&&s| s > 100).count();
    assert!(
        big > cases / 6,
        "only {big} groups larger than 100: {sizes:?}"
    );
    proofs
}
