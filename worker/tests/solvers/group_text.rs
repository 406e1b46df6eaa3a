//! The job-level API: text format, validation errors naming the line/field and position, and
//! end-to-end answers.

use orbit_worker::group::{
    GroupKind, GroupProblem, Perm, format_group_answer, parse_group_text,
    parse_group_text_with_limits, solve_group, validate_group_problem,
};
use orbit_worker::{Limits, SolveContext, SolveError};

#[test]
fn group_cli_example_end_to_end() {
    let text = "8 2 3\n(1,2,3,4,5,6,7)\n(1,8)(2,7)(3,4)(5,6)\n()\n(1,2)\n(1,2,3,4,5,6,7)\n";
    let problem = parse_group_text(text).expect("valid");
    let answer =
        solve_group(&problem, &SolveContext::detached(), &Limits::default()).expect("solves");
    assert_eq!(format_group_answer(&answer), "168\nYes\nNo\nYes\n");
    assert_eq!(answer.kind, GroupKind::General);
    assert_eq!(answer.orbits.len(), 1);
}

#[test]
fn group_parse_errors_name_line_and_position() {
    let cases = [
        (
            "8 2 0\n(1,2)\n(1,9)\n",
            "line 3 (generator 2): point 9 outside 1..8 (column 4)",
        ),
        (
            "8 1 1\n(1,2)\n(3,4,3)\n",
            "line 3 (candidate 1): point 3 repeated (column 6)",
        ),
        (
            "8 1 0\n(1,2)(3\n",
            "line 2 (generator 1): expected ',' or ')', found the end of the text (column 8)",
        ),
        (
            "8 1 0\n[1,2]\n",
            "line 2 (generator 1): expected '(', found '[' (column 1)",
        ),
        (
            "8 1\n",
            "line 1: expected `d k q` (three non-negative integers), found `8 1`",
        ),
    ];
    for (text, msg) in cases {
        assert_eq!(parse_group_text(text).unwrap_err().to_string(), msg);
    }
}

#[test]
fn group_image_array_errors_name_generator_and_position() {
    let e = Perm::from_images(vec![0, 1, 2, 3, 4, 9, 6, 7], "group.generators[2]").unwrap_err();
    assert_eq!(
        e.to_string(),
        "group.generators[2][5]: image 9 outside 0..7"
    );
    let e = Perm::from_images(vec![0, 1, 1], "group.candidates[0]").unwrap_err();
    assert_eq!(
        e.to_string(),
        "group.candidates[0][2]: image 1 repeats the image of position 1"
    );
    let p = GroupProblem {
        degree: 3,
        generators: vec![],
        candidates: vec![Perm::identity(2)],
        words: None,
    };
    let e = validate_group_problem(&p, &Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "group.candidates[0]: has degree 2, expected 3"
    );
}

#[test]
fn group_limits_are_checked_before_allocation() {
    let limits = Limits {
        max_permutation_entries: 1000,
        ..Limits::default()
    };
    let e = parse_group_text_with_limits("100 5 6\n", &limits).unwrap_err();
    assert!(matches!(e, SolveError::LimitExceeded { .. }));
    assert_eq!(
        e.to_string(),
        "permutation entries 1100 (degree 100 x 11 permutations) exceeds the limit of 1000"
    );
    let e = parse_group_text("4000000000 0 0\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "group degree 4000000000 exceeds the limit of 100000"
    );
}
