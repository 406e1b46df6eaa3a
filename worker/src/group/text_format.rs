//! The text format of `orbit group [FILE|-]`:
//!
//! ```text
//! d k q
//! <k generator lines in GAP cycle notation, 1-based>
//! <q candidate lines in the same notation>
//! ```
//!
//! Blank lines are ignored; line numbers in errors count every line of the text (1-based).

use super::job::GroupProblem;
use super::perm::Perm;
use super::perm_group::check_group_sizes;
use crate::error::SolveError;
use crate::limits::Limits;

/// Parses the `orbit group` text format with the default [`Limits`].
///
/// See [`parse_group_text_with_limits`].
///
/// ```
/// use orbit_worker::group::parse_group_text;
/// let p = parse_group_text("8 1 0\n(1,2,3)(4,5)\n").unwrap();
/// assert_eq!(p.generators[0].to_string(), "(1,2,3)(4,5)");
/// let e = parse_group_text("8 2 0\n(1,2)\n(1,9)\n").unwrap_err();
/// assert_eq!(e.to_string(), "line 3 (generator 2): point 9 outside 1..8 (column 4)");
/// ```
///
/// Reference: GAP reference manual, "Permutations" (the cycle notation).
pub fn parse_group_text(text: &str) -> Result<GroupProblem, SolveError> {
    parse_group_text_with_limits(text, &Limits::default())
}

/// Parses the `orbit group` text format: first line `d k q`, then `k` generator lines and `q`
/// candidate lines in 1-based GAP cycle notation (`()` is the identity).
///
/// Arguments: the whole text; `limits` are checked on `d`, `k`, `q` before any permutation is
/// allocated.
///
/// Returns the [`GroupProblem`] (0-based), or [`SolveError::InvalidArgument`] whose field is
/// `line N`, `line N (generator i)` or `line N (candidate i)` and whose reason says what is wrong
/// and at which column, e.g. `line 3 (generator 2): point 9 outside 1..8 (column 4)`; or
/// [`SolveError::LimitExceeded`].
///
/// Complexity: O(text length + (k + q) · d).
///
/// ```
/// use orbit_worker::{Limits, group::parse_group_text_with_limits};
/// let limits = Limits { max_degree: 10, ..Limits::default() };
/// let e = parse_group_text_with_limits("11 0 0\n", &limits).unwrap_err();
/// assert_eq!(e.to_string(), "group degree 11 exceeds the limit of 10");
/// ```
///
/// Reference: GAP reference manual, "Permutations".
pub fn parse_group_text_with_limits(
    text: &str,
    limits: &Limits,
) -> Result<GroupProblem, SolveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let total_lines = text.lines().count();
    let Some((hline, header)) = lines.next() else {
        return Err(SolveError::invalid(
            "line 1",
            "expected `d k q`, found an empty input",
        ));
    };
    let nums: Vec<&str> = header.split_whitespace().collect();
    let parsed: Vec<Option<u64>> = nums.iter().map(|t| t.parse::<u64>().ok()).collect();
    let (d, k, q) = match parsed.as_slice() {
        [Some(d), Some(k), Some(q)] => (*d, *k, *q),
        _ => {
            return Err(SolveError::invalid(
                format!("line {hline}"),
                format!(
                    "expected `d k q` (three non-negative integers), found `{}`",
                    header.trim()
                ),
            ));
        }
    };
    check_group_sizes(d, k.saturating_add(q), limits)?;
    let degree = d as usize;
    let mut read = |what: &str, count: u64| -> Result<Vec<Perm>, SolveError> {
        // `k` and `q` are the caller's claims: reserve no more than the text has lines for
        // (with degree 0, the limits above allow any count).
        let mut out = Vec::with_capacity(count.min(total_lines as u64) as usize);
        for i in 1..=count {
            let Some((ln, line)) = lines.next() else {
                return Err(SolveError::invalid(
                    format!("line {} ({what} {i})", total_lines + 1),
                    format!("missing: the input ends after {} {what}s of {count}", i - 1),
                ));
            };
            let p = Perm::parse_cycles(line, degree)
                .map_err(|e| e.into_solve_error(&format!("line {ln} ({what} {i})")))?;
            out.push(p);
        }
        Ok(out)
    };
    let generators = read("generator", k)?;
    let candidates = read("candidate", q)?;
    if let Some((ln, _)) = lines.next() {
        return Err(SolveError::invalid(
            format!("line {ln}"),
            format!("unexpected text after the {k} generators and {q} candidates"),
        ));
    }
    Ok(GroupProblem {
        degree,
        generators,
        candidates,
        words: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_input() {
        let p =
            parse_group_text("\n5 2 2\n(1,2,3,4,5)\n\n(1,2)\n()\n(1,5) (2,3)\n").expect("valid");
        assert_eq!(p.degree, 5);
        assert_eq!(p.generators.len(), 2);
        assert!(p.candidates[0].is_identity());
        assert_eq!(p.candidates[1].to_string(), "(1,5)(2,3)");
    }

    #[test]
    fn errors_name_line() {
        let cases = [
            ("", "line 1: expected `d k q`, found an empty input"),
            (
                "5 x 1\n",
                "line 1: expected `d k q` (three non-negative integers), found `5 x 1`",
            ),
            (
                "5 1 0\n(1,2,2)\n",
                "line 2 (generator 1): point 2 repeated (column 6)",
            ),
            (
                "5 1 1\n(1,2)\n(1,2\n",
                "line 3 (candidate 1): expected ',' or ')', found the end of the text (column 5)",
            ),
            (
                "5 2 0\n(1,2)\n",
                "line 3 (generator 2): missing: the input ends after 1 generators of 2",
            ),
            (
                "5 1 0\n(1,2)\n(3,4)\n",
                "line 3: unexpected text after the 1 generators and 0 candidates",
            ),
            (
                "8 2 0\n(1,2)\n(1,9)\n",
                "line 3 (generator 2): point 9 outside 1..8 (column 4)",
            ),
        ];
        for (text, msg) in cases {
            let e = parse_group_text(text).unwrap_err();
            assert_eq!(e.to_string(), msg, "text {text:?}");
        }
    }

    #[test]
    fn limits_before_allocation() {
        let e = parse_group_text("100000 100000 100000\n").unwrap_err();
        assert!(matches!(e, SolveError::LimitExceeded { .. }), "{e}");
    }
}
