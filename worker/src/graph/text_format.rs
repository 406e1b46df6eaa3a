//! The graph kind's text format: the `orbit game` format read as undirected, with an optional
//! colour line.
//!
//! ```text
//! n m
//! u v        (m lines, 1-based vertices, each edge once)
//! colours c1 ... cn   (optional: a colour number per vertex)
//! ```

use super::undirected_graph::{MAX_GRAPH_EDGES, MAX_GRAPH_VERTICES, UndirectedGraph};
use crate::error::SolveError;

/// Parses the graph kind's text format (blank lines are skipped).
///
/// # Errors
/// [`SolveError::InvalidArgument`] whose field is the line (`line 4`) and whose reason names what
/// is wrong on it: a malformed header or edge (`u`, `v`), a vertex out of range, a self-loop, an
/// edge already given (naming the earlier line), too few or too many edge lines, a `colours`
/// line without one colour per vertex. Sizes above the graph kind's limits are refused here too
/// (before anything is allocated from them).
///
/// Complexity: O(size of the text + m log m).
///
/// ```
/// use orbit_worker::graph::parse_graph_text;
/// let g = parse_graph_text("3 2\n1 2\n2 3\ncolours 1 2 1\n").unwrap();
/// assert_eq!((g.vertices, g.edges.clone(), g.colours.clone()), (3, vec![(0, 1), (1, 2)], Some(vec![1, 2, 1])));
/// let e = parse_graph_text("3 2\n1 2\n2 1\n").unwrap_err();
/// assert_eq!(e.to_string(), "line 3: v: the edge 2 1 repeats the edge on line 2");
/// ```
///
/// Reference: none (Orbit's CLI format, the `orbit game` format read as undirected).
pub fn parse_graph_text(text: &str) -> Result<UndirectedGraph, SolveError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((hline, header)) = lines.next() else {
        return Err(SolveError::invalid(
            "line 1",
            "empty input: expected a first line `n m`",
        ));
    };
    let [n, m] = numbers::<2>(header, &["n", "m"]).map_err(|reason| {
        SolveError::invalid(
            format!("line {hline}"),
            format!("{reason} (expected `n m`)"),
        )
    })?;
    if n > MAX_GRAPH_VERTICES {
        return Err(SolveError::limit(
            format!("n ({n}) on line {hline}"),
            "graph_vertices",
            MAX_GRAPH_VERTICES,
        )
        .requested(n));
    }
    if m > MAX_GRAPH_EDGES {
        return Err(SolveError::limit(
            format!("m ({m}) on line {hline}"),
            "graph_edges",
            MAX_GRAPH_EDGES,
        )
        .requested(m));
    }
    let vertices = n as u32;
    let m = m as usize;
    // Do not trust `m` for the allocation beyond what the text can hold (4 bytes per edge line).
    let mut edges = Vec::with_capacity(m.min(text.len() / 4 + 1));
    let mut edge_lines = Vec::with_capacity(edges.capacity());
    let mut colours = None;
    let mut last_line = hline;
    for (lineno, line) in lines {
        last_line = lineno;
        if colours.is_some() {
            return Err(SolveError::invalid(
                format!("line {lineno}"),
                "nothing may follow the `colours` line",
            ));
        }
        if let Some(rest) = line.strip_prefix("colours") {
            if edges.len() < m {
                return Err(SolveError::invalid(
                    format!("line {lineno}"),
                    format!(
                        "colours: after {} edge lines; line {hline} announced {m}",
                        edges.len()
                    ),
                ));
            }
            colours = Some(colour_line(rest, n).map_err(|reason| {
                SolveError::invalid(format!("line {lineno}"), format!("colours: {reason}"))
            })?);
            continue;
        }
        if edges.len() == m {
            return Err(SolveError::invalid(
                format!("line {lineno}"),
                format!("more edge lines than the {m} announced on line {hline}"),
            ));
        }
        let [u, v] = numbers::<2>(line, &["u", "v"]).map_err(|reason| {
            SolveError::invalid(
                format!("line {lineno}"),
                format!("{reason} (expected `u v`)"),
            )
        })?;
        let mut endpoint = [0u32; 2];
        for (slot, (x, name)) in endpoint.iter_mut().zip([(u, "u"), (v, "v")]) {
            if x == 0 || x > n {
                let range = if n == 0 {
                    "out of range: the graph has no vertices".to_string()
                } else {
                    format!("out of range 1..{n}")
                };
                return Err(SolveError::invalid(
                    format!("line {lineno}"),
                    format!("{name}: vertex {x} {range}"),
                ));
            }
            *slot = (x - 1) as u32;
        }
        if u == v {
            return Err(SolveError::invalid(
                format!("line {lineno}"),
                format!("v: a self-loop at vertex {u}"),
            ));
        }
        edges.push((endpoint[0], endpoint[1]));
        edge_lines.push(lineno);
    }
    if edges.len() < m {
        return Err(SolveError::invalid(
            format!("line {}", last_line + 1),
            format!(
                "end of input after {} edge lines; line {hline} announced {m}",
                edges.len()
            ),
        ));
    }
    let mut keyed: Vec<(u32, u32, usize)> = edges
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| (a.min(b), a.max(b), i))
        .collect();
    keyed.sort_unstable();
    if let Some((earlier, later)) = keyed
        .windows(2)
        .filter(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        .map(|w| (w[0].2, w[1].2))
        .min_by_key(|&(_, later)| later)
    {
        let (a, b) = edges[later];
        return Err(SolveError::invalid(
            format!("line {}", edge_lines[later]),
            format!(
                "v: the edge {} {} repeats the edge on line {}",
                a + 1,
                b + 1,
                edge_lines[earlier]
            ),
        ));
    }
    Ok(UndirectedGraph {
        vertices,
        edges,
        colours,
    })
}

/// Exactly `N` non-negative decimal integers separated by whitespace, named `names` in errors.
fn numbers<const N: usize>(line: &str, names: &[&str; N]) -> Result<[u64; N], String> {
    let mut tokens = line.split_ascii_whitespace();
    let mut out = [0u64; N];
    for (slot, name) in out.iter_mut().zip(names) {
        let Some(tok) = tokens.next() else {
            return Err(format!("{name}: missing"));
        };
        *slot = tok
            .parse::<u64>()
            .map_err(|_| format!("{name}: `{tok}` is not a non-negative integer"))?;
    }
    if let Some(tok) = tokens.next() {
        return Err(format!("unexpected `{tok}` after {N} numbers"));
    }
    Ok(out)
}

/// The numbers after `colours`: exactly `n` of them.
fn colour_line(rest: &str, n: u64) -> Result<Vec<u64>, String> {
    if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
        return Err(format!("expected `colours c1 ... c{n}`"));
    }
    let mut colours = Vec::new();
    for (i, tok) in rest.split_ascii_whitespace().enumerate() {
        if i as u64 == n {
            return Err(format!("more than the {n} colours of the {n} vertices"));
        }
        colours.push(
            tok.parse::<u64>()
                .map_err(|_| format!("c{}: `{tok}` is not a non-negative integer", i + 1))?,
        );
    }
    if colours.len() as u64 != n {
        return Err(format!(
            "{} colours for {n} vertices: give one per vertex",
            colours.len()
        ));
    }
    Ok(colours)
}
