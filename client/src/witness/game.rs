//! Checks a game answer's moves and lines against the job's graph, without solving the game.
//!
//! What can be checked locally, and is: every listed move is a move of the graph and every move
//! of the graph is listed once; the moves are in the documented order; a vertex's value agrees
//! with its moves (a win has a move to a loss one shorter, a loss only moves to wins, the
//! longest one shorter, a draw no move to a loss and one to a draw); a move's value agrees with
//! the target's own reported value; a line walks along edges, is as long as the depth, ends
//! where the player to move has no move (the loser) or, for a draw, at the first repeated vertex,
//! and starts with the first listed move. Together these catch any wrong value or line a server
//! could send for the reported vertices, except a draw claimed for a position that is really won
//! or lost deeper than any reported vertex shows.

use std::collections::{HashMap, HashSet};

use crate::pb;

/// Why a game answer's witness is wrong: the vertex (0-based) and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("vertex {vertex}: {reason}")]
pub struct GameWitnessError {
    /// The reported vertex whose moves or line is wrong.
    pub vertex: u32,
    /// What is wrong, in words.
    pub reason: String,
}

/// A value as the checks compare it: outcome and depth (`None` for draws).
type Value = (pb::Outcome, Option<u32>);

fn value_of(outcome: i32, depth: Option<u32>) -> Value {
    (
        pb::Outcome::try_from(outcome).unwrap_or(pb::Outcome::Unspecified),
        depth,
    )
}

/// Whether a value is well formed: a win or a loss has a depth, a draw none.
fn well_formed(value: Value) -> bool {
    matches!(
        value,
        (pb::Outcome::Win | pb::Outcome::Lose, Some(_)) | (pb::Outcome::Draw, None)
    )
}

/// The sort key of a move for the mover (smaller is better); see `VertexOutcome.moves`.
fn rank(value: Value, to: u32) -> (u8, i64, u32) {
    let depth = i64::from(value.1.unwrap_or(0));
    match value.0 {
        pb::Outcome::Lose => (0, depth, to),
        pb::Outcome::Draw => (1, 0, to),
        _ => (2, -depth, to),
    }
}

/// Checks the moves and lines of every reported vertex of `result` against `job`'s graph.
///
/// # Errors
/// The first wrong witness found, naming its vertex.
///
/// # Example
/// ```
/// use orbit_client::pb;
/// use orbit_client::witness::check_game_witness;
///
/// // 0 -> 1 (1 has no moves): 0 wins in 1 by moving to 1.
/// let job = pb::GameGraphJob {
///     vertices: 2,
///     edges: vec![pb::Edge { from: 0, to: 1 }],
///     line: true,
///     ..Default::default()
/// };
/// let win = pb::VertexOutcome {
///     vertex: 0,
///     outcome: pb::Outcome::Win as i32,
///     depth: Some(1),
///     line: vec![1],
///     ..Default::default()
/// };
/// let mut result = pb::GameGraphResult { vertices: vec![win], ..Default::default() };
/// assert!(check_game_witness(&job, &result).is_ok());
/// result.vertices[0].line = vec![0];
/// assert!(check_game_witness(&job, &result).is_err());
/// ```
pub fn check_game_witness(
    job: &pb::GameGraphJob,
    result: &pb::GameGraphResult,
) -> Result<(), GameWitnessError> {
    let mut successors: HashMap<u32, Vec<u32>> = HashMap::new();
    for edge in &job.edges {
        successors.entry(edge.from).or_default().push(edge.to);
    }
    for list in successors.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    let none: Vec<u32> = Vec::new();
    let moves_from = |v: u32| successors.get(&v).unwrap_or(&none);
    let reported: HashMap<u32, Value> = result
        .vertices
        .iter()
        .map(|v| (v.vertex, value_of(v.outcome, v.depth)))
        .collect();
    // The first listed move of each vertex whose moves are reported: the line must play it.
    let first_moves: HashMap<u32, u32> = result
        .vertices
        .iter()
        .filter_map(|v| v.moves.first().map(|m| (v.vertex, m.to)))
        .collect();
    for vertex in &result.vertices {
        let fail = |reason: String| GameWitnessError {
            vertex: vertex.vertex,
            reason,
        };
        let own = value_of(vertex.outcome, vertex.depth);
        match own {
            (pb::Outcome::Win, Some(d)) if d % 2 == 1 => {}
            (pb::Outcome::Lose, Some(d)) if d % 2 == 0 => {}
            (pb::Outcome::Draw, None) => {}
            other => return Err(fail(format!("impossible value {other:?}"))),
        }
        if job.moves {
            check_moves(vertex, own, moves_from(vertex.vertex), &reported).map_err(fail)?;
        }
        if job.line {
            check_line(vertex, own, &moves_from, &reported, &first_moves).map_err(fail)?;
        }
    }
    Ok(())
}

fn check_moves(
    vertex: &pb::VertexOutcome,
    own: Value,
    graph_moves: &[u32],
    reported: &HashMap<u32, Value>,
) -> Result<(), String> {
    let mut listed: Vec<u32> = vertex.moves.iter().map(|m| m.to).collect();
    listed.sort_unstable();
    if listed != graph_moves {
        return Err(format!(
            "moves to {listed:?}, but the graph's moves go to {graph_moves:?}"
        ));
    }
    let values: Vec<Value> = vertex
        .moves
        .iter()
        .map(|m| value_of(m.outcome, m.depth))
        .collect();
    for (m, value) in vertex.moves.iter().zip(&values) {
        if !well_formed(*value) {
            return Err(format!(
                "the move to {} has a malformed value {value:?}",
                m.to
            ));
        }
        if let Some(known) = reported.get(&m.to)
            && known != value
        {
            return Err(format!(
                "the move to {} is given {value:?}, but that vertex is reported {known:?}",
                m.to
            ));
        }
    }
    let keys: Vec<_> = vertex
        .moves
        .iter()
        .zip(&values)
        .map(|(m, &v)| rank(v, m.to))
        .collect();
    if keys.windows(2).any(|w| w[0] > w[1]) {
        return Err("moves not in order, best first".to_string());
    }
    let first = values.first().copied();
    let consistent = match own {
        (pb::Outcome::Win, Some(d)) => first == Some((pb::Outcome::Lose, Some(d - 1))),
        (pb::Outcome::Lose, Some(0)) => values.is_empty(),
        (pb::Outcome::Lose, Some(d)) => {
            values.iter().all(|v| v.0 == pb::Outcome::Win) && first.and_then(|v| v.1) == Some(d - 1)
        }
        _ => first.map(|v| v.0) == Some(pb::Outcome::Draw),
    };
    if !consistent {
        return Err(format!("its value {own:?} does not follow from its moves"));
    }
    Ok(())
}

fn check_line<'a>(
    vertex: &pb::VertexOutcome,
    own: Value,
    moves_from: &impl Fn(u32) -> &'a Vec<u32>,
    reported: &HashMap<u32, Value>,
    first_moves: &HashMap<u32, u32>,
) -> Result<(), String> {
    let line = &vertex.line;
    let mut at = vertex.vertex;
    for (i, &next) in line.iter().enumerate() {
        if moves_from(at).binary_search(&next).is_err() {
            return Err(format!("line step {i}: {at} -> {next} is not a move"));
        }
        // The line plays the first listed move of every vertex whose moves are reported.
        if let Some(&best) = first_moves.get(&at)
            && next != best
        {
            return Err(format!(
                "line step {i} goes from {at} to {next}, not to its first move {best}"
            ));
        }
        // Along a won or lost line the value alternates and the depth falls by one.
        if let (Some(d), Some(known)) = (own.1, reported.get(&next)) {
            let steps = i as u32 + 1;
            let expected_outcome = match (own.0, steps % 2) {
                (pb::Outcome::Win, 1) | (pb::Outcome::Lose, 0) => pb::Outcome::Lose,
                _ => pb::Outcome::Win,
            };
            if *known != (expected_outcome, d.checked_sub(steps)) {
                return Err(format!(
                    "line step {i} reaches {next}, reported {known:?}, not {:?}",
                    (expected_outcome, d.checked_sub(steps))
                ));
            }
        }
        if own.0 == pb::Outcome::Draw
            && let Some(known) = reported.get(&next)
            && known.0 != pb::Outcome::Draw
        {
            return Err(format!("the drawn line reaches {next}, reported {known:?}"));
        }
        at = next;
    }
    match own {
        (_, Some(d)) => {
            let len = line.len() as u64;
            if vertex.line_truncated {
                if len >= u64::from(d) {
                    return Err(format!("a line of {len} moves cut short of depth {d}"));
                }
            } else if len != u64::from(d) || !moves_from(at).is_empty() {
                return Err(format!(
                    "a line of {len} moves ending at {at} ({} moves left), not {d} moves to a \
                     vertex without moves",
                    moves_from(at).len()
                ));
            }
        }
        (_, None) => {
            let mut seen = HashSet::from([vertex.vertex]);
            let (last, before) = match line.split_last() {
                Some(split) => split,
                None => return Err("a drawn vertex with an empty line".to_string()),
            };
            for &v in before {
                if !seen.insert(v) {
                    return Err(format!("the line repeats {v} before its end"));
                }
            }
            if !vertex.line_truncated && !seen.contains(last) {
                return Err(format!(
                    "the drawn line ends at {last}, which it had not seen"
                ));
            }
        }
    }
    Ok(())
}
