//! Inputs the fuzz targets (`fuzz/`, `fuzz/run.sh`) found crashing, hanging or over-allocating,
//! each with the clear error it must get now. Expected messages are written out by hand from the
//! input, not copied from the code's output.

use orbit_worker::counting::{
    CountKind, CountProblem, parse_count_group_text, partition_count, solve_count, validate_count,
};
use orbit_worker::group::parse_group_text;
use orbit_worker::puzzle::parse_puzzle_text;
use orbit_worker::{Limits, SolveContext, SolveError};

/// `job_count`: `count.graphs.n = 2^32 - 1` made validation build the partition table up to `n`
/// (64 GiB of `u128`s, then `n^2` additions). p(n) only fits a `u128` up to n = 1458, so larger
/// `n` is answered at once.
#[test]
fn graphs_with_a_huge_n_are_refused_without_a_table() {
    let problem = CountProblem::new(CountKind::Graphs { n: 4_294_967_295 });
    let e = validate_count(&problem, &Limits::default()).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "count.n: the cycle types of S_4294967295 (partitions of 4294967295) to visit exceeds \
         the limit of 100000000 (max_group_elements)"
    );
    let e = solve_count(&problem, &SolveContext::detached(), &Limits::default()).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e:?}");
    assert_eq!(partition_count(u64::MAX), None);
}

/// The cut-off of `partition_count`: p(1458) < 2^128 <= p(1459) (values from the recurrence,
/// computed independently with Python's big integers).
#[test]
fn partition_count_stops_exactly_where_u128_ends() {
    assert_eq!(
        partition_count(1458),
        Some(336_988_065_393_447_621_514_574_974_879_775_699_372)
    );
    assert_eq!(partition_count(1459), None);
    assert_eq!(partition_count(100), Some(190_569_292));
}

/// `job_count`: a binary tree of depth `u64::MAX` without a modulus overflowed `depth + 1` while
/// wording its error (a panic in debug builds, "2^0 vertices" in release builds).
#[test]
fn binary_tree_of_maximal_depth_states_the_true_size() {
    let problem = CountProblem::new(CountKind::BinaryTree {
        depth: u64::MAX,
        k: 2_955_488_360_077_016_969,
    });
    let e = validate_count(&problem, &Limits::default()).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "the exact answer (2^18446744073709551616 vertices; give a modulus) exceeds the limit of \
         16777216 bits"
    );
}

/// `text_count_group`: `d = 0` lets any number of permutations past the entry limit (0 entries
/// each), and the parser reserved room for all `k = 5,555,555,555,551` generators the header
/// claims (a 130 TB allocation) before reading one.
#[test]
fn group_text_does_not_trust_the_claimed_generator_count() {
    let text = "0 5555555555551 02\n(12,4";
    let expected = "line 2 (generator 1): point 12 outside 1..0 (column 2)";
    assert_eq!(parse_group_text(text).unwrap_err().to_string(), expected);
    assert_eq!(
        parse_count_group_text(text, &Limits::default())
            .unwrap_err()
            .to_string(),
        expected
    );
    // Well-formed, the same claim ends at the first missing line.
    assert_eq!(
        parse_group_text("0 5555555555551 0\n()\n")
            .unwrap_err()
            .to_string(),
        "line 3 (generator 2): missing: the input ends after 1 generators of 5555555555551"
    );
}

/// `text_puzzle`: the header's `n = 3,999,999,995` made the parser allocate a 16 GB table before
/// reading the start line, which has 5 tokens.
#[test]
fn puzzle_text_with_a_huge_n_fails_on_the_short_line() {
    let text = "3999999995 6 3\n4 1\n4 5\n3 5\n3 4\n2 3\n1 3\n1 2 3 4 0\n0 1 2 3 4\n\
                2 1 09 4 3\n4 3 0 1 5\n3 5\n3 24\n0000\n02";
    assert_eq!(
        parse_puzzle_text(text).unwrap_err().to_string(),
        "line 8: start: expected n = 3999999995 tokens, found 5"
    );
}

/// A line too short for `n` tokens is checked without the `n`-sized table, and still names the
/// first fault the way a full-length line does.
#[test]
fn short_arrangement_lines_name_the_first_fault() {
    let err = |text: &str| parse_puzzle_text(text).unwrap_err().to_string();
    assert_eq!(
        err("4000000000 0 0\n7 7\n"),
        "line 2: start, vertex 2: token 7 appears twice (also on vertex 1)"
    );
    assert_eq!(
        err("5 0 0\n1 x\n"),
        "line 2: start, vertex 2: `x` is not a non-negative 32-bit integer"
    );
    assert_eq!(
        err("5 0 0\n9\n"),
        "line 2: start, vertex 1: token 9 out of range 0..4"
    );
    assert_eq!(
        err("3 0 1\n0 1 2\n2 2\n"),
        "line 3: target 1, vertex 2: token 2 appears twice (also on vertex 1)"
    );
    // The same faults on full-length lines (the table path) read the same.
    assert_eq!(
        err("3 0 1\n0 1 2\n2 2 0\n"),
        "line 3: target 1, vertex 2: token 2 appears twice (also on vertex 1)"
    );
    assert_eq!(
        err("5 0 0\n0 1 2 3 9\n"),
        "line 2: start, vertex 5: token 9 out of range 0..4"
    );
}

/// Huge edge and target counts in the header reserve nothing before the lines are there.
#[test]
fn puzzle_text_does_not_trust_the_claimed_counts() {
    assert_eq!(
        parse_puzzle_text("2 4294967295 4294967295\n1 2\n")
            .unwrap_err()
            .to_string(),
        "line 3: expected edge 2 of 4294967295 (`u v`), found the end of the input"
    );
    assert_eq!(
        parse_puzzle_text("2 0 4294967295\n0 1\n1 0\n")
            .unwrap_err()
            .to_string(),
        "line 4: expected target 2 of 4294967295 (2 tokens), found the end of the input"
    );
}
