//! The GAP-library corpus (`worker/tests/gap_corpus/`): primitive groups of every degree 5..120, a
//! sample of degree 121..2,500, transitive groups of degree 8..30 and named large-base groups,
//! each relabelled and given by its library generators plus random elements. Independent oracle:
//! GAP 4.12.1's `Size` and `in`, computed when the corpus was generated
//! (`worker/benches/gap/corpus.g`), and the definition of a group (a product of generators is a
//! member).

use crate::common::gap_corpus::{COMMITTED_FILES, CorpusGroup, corpus_dir, read_corpus_file};
use orbit_worker::group::{Perm, solve_group};
use orbit_worker::{Limits, SolveContext};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Named groups above this degree are left to the bench (`cargo bench -p orbit-worker --bench
/// gap_corpus`), which checks their orders too: a test must stay quick.
const TEST_MAX_NAMED_DEGREE: usize = 1_000;

/// A product of 1..=20 random generators (a member by definition).
fn random_product(group: &CorpusGroup, rng: &mut ChaCha8Rng) -> Perm {
    let gens = &group.problem.generators;
    let mut p = gens[rng.random_range(0..gens.len())].clone();
    for _ in 0..rng.random_range(0..20) {
        p = p.compose(&gens[rng.random_range(0..gens.len())]);
    }
    p
}

fn check_file(file: &str) -> usize {
    let groups = read_corpus_file(&corpus_dir().join(file));
    assert!(!groups.is_empty(), "{file} is empty");
    let mut rng = ChaCha8Rng::seed_from_u64(0x6a9_c095);
    let mut checked = 0;
    for group in &groups {
        if group.library == "named" && group.degree > TEST_MAX_NAMED_DEGREE {
            continue;
        }
        let mut problem = group.problem.clone();
        problem.candidates.push(random_product(group, &mut rng));
        let answer = solve_group(&problem, &SolveContext::detached(), &Limits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", group.name()));
        assert_eq!(answer.order, group.order, "{}: order", group.name());
        let mut expected = group.members.clone();
        expected.push(true);
        assert_eq!(answer.members, expected, "{}: membership", group.name());
        checked += 1;
    }
    checked
}

#[test]
fn group_gap_corpus_primitive_degree_5_to_120() {
    // Every primitive group of degree 5..120 in GAP's library (GAP 4.12.1: 1,078 groups).
    assert_eq!(check_file(COMMITTED_FILES[0]), 1_078);
}

#[test]
fn group_gap_corpus_transitive_degree_8_to_30() {
    assert_eq!(check_file(COMMITTED_FILES[1]), 407);
}

#[test]
fn group_gap_corpus_primitive_large_sample() {
    // Every 10th sampled group of degree <= 1,500 (the bench runs all 300).
    assert_eq!(check_file(COMMITTED_FILES[2]), 16);
}

#[test]
fn group_gap_corpus_named() {
    // Those of degree <= 1,000 (Alt(m) on 2-sets for m = 20..40, PSL(10,2) is 1,023: the bench).
    assert_eq!(check_file(COMMITTED_FILES[3]), 4);
}
