//! The contest text format of the puzzle (WC2017 "board game", UOJ 287), for `orbit puzzle`.

use super::PuzzleProblem;
use crate::SolveError;

/// Parses the contest format into a [`PuzzleProblem`] (0-based vertices).
///
/// The format: a line `n m q`; `m` lines `u v` (an edge, 1-based vertices); a line of `n` tokens,
/// the token on vertex `1..n` of the start; `q` lines in the same form, the targets. Blank lines are
/// skipped; anything else out of place is an error.
///
/// # Arguments
/// * `text` — the whole input.
///
/// # Returns
/// The problem, with every arrangement checked to be a permutation of `0..n-1`; or
/// [`SolveError::InvalidArgument`] whose field is `line L` (1-based, as in the file) and whose
/// reason names the edge, the target, the vertex (1-based) and the token at fault, e.g.
/// `line 9: target 2, vertex 4: token 1 appears twice (also on vertex 2)`.
///
/// # Complexity
/// `O(size of text)` time; `O(n·(q + 1) + m)` memory for the result.
///
/// # Example
/// ```
/// use orbit_worker::puzzle::parse_puzzle_text;
///
/// let p = parse_puzzle_text("3 2 1\n1 2\n2 3\n0 1 2\n1 0 2\n")?;
/// assert_eq!(p.edges, vec![(0, 1), (1, 2)]);
/// assert_eq!(p.targets, vec![vec![1, 0, 2]]);
/// let err = parse_puzzle_text("3 2 1\n1 2\n2 4\n0 1 2\n1 0 2\n").unwrap_err();
/// assert_eq!(err.to_string(), "line 3: edge 2: vertex 4 out of range 1..3");
/// # Ok::<(), orbit_worker::SolveError>(())
/// ```
pub fn parse_puzzle_text(text: &str) -> Result<PuzzleProblem, SolveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty());
    let mut next_line = |what: &dyn Fn() -> String| {
        lines.next().ok_or_else(|| {
            SolveError::invalid(
                format!("line {}", text.lines().count() + 1),
                format!("expected {}, found the end of the input", what()),
            )
        })
    };

    let (ln, header) = next_line(&|| "the header `n m q`".to_string())?;
    let head = numbers(ln, header, 3, "the header `n m q`")?;
    let (n, m, q) = (head[0], head[1], head[2]);
    if n == 0 {
        return Err(SolveError::invalid(
            format!("line {ln}"),
            "n must be at least 1",
        ));
    }

    // `m` and `q` are the caller's claims: reserve no more than the text can hold (an edge line
    // takes at least 4 bytes, a line of `n` tokens at least `2n`).
    let mut edges = Vec::with_capacity((m as usize).min(text.len() / 4 + 1));
    for e in 1..=m {
        let (ln, line) = next_line(&|| format!("edge {e} of {m} (`u v`)"))?;
        let mut words = line.split_ascii_whitespace();
        let fast = match (words.next(), words.next(), words.next()) {
            (Some(a), Some(b), None) => a.parse::<u32>().ok().zip(b.parse::<u32>().ok()),
            _ => None,
        };
        let uv = match fast {
            Some((a, b)) => [a, b],
            None => {
                // `numbers` checks the count, so both indices exist.
                let v = numbers(ln, line, 2, &format!("edge {e} (`u v`)"))?;
                [v[0], v[1]]
            }
        };
        for x in [uv[0], uv[1]] {
            if x == 0 || x > n {
                return Err(SolveError::invalid(
                    format!("line {ln}"),
                    format!("edge {e}: vertex {x} out of range 1..{n}"),
                ));
            }
        }
        edges.push((uv[0] - 1, uv[1] - 1));
    }

    // Sized for `n` only once a line long enough to hold `n` tokens comes (see `arrangement`).
    let mut seen = Vec::new();
    let (ln, line) = next_line(&|| format!("the start arrangement ({n} tokens)"))?;
    let start = arrangement(ln, line, n, &|| "start".to_string(), &mut seen)?;
    // The targets are nearly all of a big input: well-formed ones are parsed on two threads.
    let rest = &text[line.as_ptr() as usize - text.as_ptr() as usize + line.len()..];
    if let Some(targets) = targets_in_parallel(rest, n, q) {
        return Ok(PuzzleProblem {
            n,
            edges,
            start,
            targets,
        });
    }
    // Otherwise (a small input, or a fault to name exactly), one line after the other.
    let mut targets = Vec::with_capacity((q as usize).min(text.len() / (2 * n as usize) + 1));
    for t in 1..=q {
        let (ln, line) = next_line(&|| format!("target {t} of {q} ({n} tokens)"))?;
        targets.push(arrangement(
            ln,
            line,
            n,
            &|| format!("target {t}"),
            &mut seen,
        )?);
    }
    if let Some((ln, _)) = lines.next() {
        return Err(SolveError::invalid(
            format!("line {ln}"),
            format!("unexpected input after the {q} targets announced in the header"),
        ));
    }
    Ok(PuzzleProblem {
        n,
        edges,
        start,
        targets,
    })
}

/// Below this many bytes of targets, a second thread costs more than it saves.
const PARALLEL_MIN_BYTES: usize = 32 << 10;

/// The `q` target lines in `rest` (the input after the start line), parsed in two halves on two
/// threads (each half's lines are independent), if every line is a well-formed arrangement and
/// there are exactly `q` of them; `None` otherwise (a small input, or an error), in which case
/// the caller parses serially and names the fault exactly.
///
/// Complexity: `O(|rest|)` work, about half of it on each thread.
fn targets_in_parallel(rest: &str, n: u32, q: u32) -> Option<Vec<Vec<u32>>> {
    // A target line holds at least `2n - 1` bytes, so `n` is bounded by the input here and the
    // threads' scratch (`4n` bytes each) by twice its size.
    if rest.len() < PARALLEL_MIN_BYTES || n as usize > rest.len() / 2 {
        return None;
    }
    let middle = rest.len() / 2
        + rest.as_bytes()[rest.len() / 2..]
            .iter()
            .position(|&b| b == b'\n')?;
    let (first, second) = rest.split_at(middle);
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| well_formed_targets(second, n));
        (
            well_formed_targets(first, n),
            second
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        )
    });
    let mut targets = first?;
    targets.extend(second?);
    (targets.len() == q as usize).then_some(targets)
}

/// Every non-blank line of `text` as an arrangement of `n` tokens through the fast path, or
/// `None` if any line is not one.
fn well_formed_targets(text: &str, n: u32) -> Option<Vec<Vec<u32>>> {
    let mut seen = vec![0; n as usize];
    let mut out = Vec::with_capacity(text.len() / (2 * n as usize) + 1);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        out.push(arrangement_fast(line.as_bytes(), n, &mut seen)?);
        seen.fill(0);
    }
    Some(out)
}

/// Formats answers as the contest does: one line `Yes` or `No` per target.
///
/// # Example
/// ```
/// assert_eq!(orbit_worker::puzzle::format_answers(&[true, false]), "Yes\nNo\n");
/// ```
pub fn format_answers(answers: &[bool]) -> String {
    let mut s = String::with_capacity(answers.len() * 4);
    for &a in answers {
        s.push_str(if a { "Yes\n" } else { "No\n" });
    }
    s
}

/// Exactly `count` non-negative integers that fit in `u32`.
fn numbers(ln: usize, line: &str, count: usize, what: &str) -> Result<Vec<u32>, SolveError> {
    let mut out = Vec::with_capacity(count);
    for word in line.split_ascii_whitespace() {
        if out.len() == count {
            return Err(SolveError::invalid(
                format!("line {ln}"),
                format!("{what}: more than {count} numbers"),
            ));
        }
        out.push(number(ln, word, what)?);
    }
    if out.len() != count {
        return Err(SolveError::invalid(
            format!("line {ln}"),
            format!("{what}: expected {count} numbers, found {}", out.len()),
        ));
    }
    Ok(out)
}

fn number(ln: usize, word: &str, what: &str) -> Result<u32, SolveError> {
    word.parse::<u32>()
        .map_err(|_| not_a_number(ln, word, what))
}

fn not_a_number(ln: usize, word: &str, what: &str) -> SolveError {
    SolveError::invalid(
        format!("line {ln}"),
        format!("{what}: `{word}` is not a non-negative 32-bit integer"),
    )
}

/// A line of `n` tokens forming a permutation of `0..n-1`. `seen` is scratch, resized to `n` here.
///
/// A byte-level fast path handles well-formed lines (the bulk of a large input); any line it
/// rejects goes through [`arrangement_checked`], which names the fault. A line too short to hold
/// `n` tokens (`2n - 1` bytes) is wrong whatever it says; it is checked with a map of the tokens it
/// has, so that a header claiming `n = 4,000,000,000` costs no 16 GB table.
fn arrangement(
    ln: usize,
    line: &str,
    n: u32,
    what: &dyn Fn() -> String,
    seen: &mut Vec<u32>,
) -> Result<Vec<u32>, SolveError> {
    if (line.len() as u64) + 1 < 2 * u64::from(n) {
        let mut vertex_of = std::collections::HashMap::new();
        return arrangement_checked(ln, line, n, &what(), &mut |tok, vertex| {
            *vertex_of.entry(tok).or_insert(vertex)
        });
    }
    if seen.len() != n as usize {
        *seen = vec![0; n as usize];
    }
    seen.fill(0);
    match arrangement_fast(line.as_bytes(), n, seen) {
        Some(out) => Ok(out),
        None => {
            seen.fill(0);
            arrangement_checked(ln, line, n, &what(), &mut |tok, vertex| {
                let slot = &mut seen[tok as usize];
                if *slot == 0 {
                    *slot = vertex;
                }
                *slot
            })
        }
    }
}

/// `None` on anything unusual (a non-digit, overflow, a token out of range or repeated, a wrong
/// count); `seen` must be zero on entry.
///
/// One pass over the bytes with one classification per byte: this loop is most of the time of
/// `orbit puzzle` on contest inputs (10^5 tokens). (A branch-free variant, which avoids the
/// mispredictions at token boundaries, measured 10% slower.)
fn arrangement_fast(bytes: &[u8], n: u32, seen: &mut [u32]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(n as usize);
    // The number being read and its digit count (0: between numbers). At most 10 digits fit a
    // u64 without overflow; anything longer is out of range anyway.
    let mut value: u64 = 0;
    let mut digits = 0u32;
    let mut push = |value: u64, out: &mut Vec<u32>| -> Option<()> {
        if value >= u64::from(n) || out.len() == n as usize {
            return None;
        }
        let slot = &mut seen[value as usize];
        if *slot != 0 {
            return None;
        }
        out.push(value as u32);
        *slot = out.len() as u32;
        Some(())
    };
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            if digits == 10 {
                return None;
            }
            value = value * 10 + u64::from(d);
            digits += 1;
        } else if b.is_ascii_whitespace() {
            if digits > 0 {
                push(value, &mut out)?;
                value = 0;
                digits = 0;
            }
        } else {
            return None;
        }
    }
    if digits > 0 {
        push(value, &mut out)?;
    }
    (out.len() == n as usize).then_some(out)
}

/// The careful parse of an arrangement line, with errors naming the vertex and token.
/// `first_vertex(token, vertex)` records that `token` (`< n`) is on 1-based `vertex` unless it was
/// seen before, and returns the vertex it was first seen on.
fn arrangement_checked(
    ln: usize,
    line: &str,
    n: u32,
    what: &str,
    first_vertex: &mut dyn FnMut(u32, u32) -> u32,
) -> Result<Vec<u32>, SolveError> {
    let mut out = Vec::with_capacity((n as usize).min(line.len() / 2 + 1));
    for word in line.split_ascii_whitespace() {
        if out.len() == n as usize {
            return Err(SolveError::invalid(
                format!("line {ln}"),
                format!("{what}: more than n = {n} tokens"),
            ));
        }
        let vertex = out.len() + 1;
        let Ok(tok) = word.parse::<u32>() else {
            return Err(not_a_number(ln, word, &format!("{what}, vertex {vertex}")));
        };
        if tok >= n {
            return Err(SolveError::invalid(
                format!("line {ln}"),
                format!(
                    "{what}, vertex {vertex}: token {tok} out of range 0..{}",
                    n - 1
                ),
            ));
        }
        let first = first_vertex(tok, vertex as u32);
        if first != vertex as u32 {
            return Err(SolveError::invalid(
                format!("line {ln}"),
                format!(
                    "{what}, vertex {vertex}: token {tok} appears twice (also on vertex {first})"
                ),
            ));
        }
        out.push(tok);
    }
    if out.len() != n as usize {
        return Err(SolveError::invalid(
            format!("line {ln}"),
            format!("{what}: expected n = {n} tokens, found {}", out.len()),
        ));
    }
    Ok(out)
}
