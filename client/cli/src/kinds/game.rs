//! `orbit game`: win, lose or draw for every vertex of a game graph (retrograde analysis of game
//! graphs), from its text format `n m`, then m moves `u v` (1-based).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_client::witness::check_game_witness;
use orbit_worker::SolveError;
use orbit_worker::game::{GameGraph, parse_game_text};

use crate::input::read_input;
use crate::unary::solve_one;

/// `orbit game`: `n m`, then m lines `u v` (1-based) → a game job.
///
/// # Errors
/// The parser's error naming the line, e.g. `line 3: vertex 9 out of range 1..4`.
///
/// ```
/// let job = orbit_cli::text_formats::game_job("2 1\n1 2\n").unwrap();
/// assert_eq!((job.vertices, job.edges.len()), (2, 1));
/// ```
pub fn game_job(text: &str) -> Result<pb::GameGraphJob, SolveError> {
    let graph = parse_game_text(text)?;
    Ok(game_to_proto(&graph))
}

/// domain → proto for a game graph (the CLI's `orbit game`).
pub fn game_to_proto(graph: &GameGraph) -> pb::GameGraphJob {
    pb::GameGraphJob {
        vertices: graph.vertices,
        edges: graph
            .edges
            .iter()
            .map(|&(from, to)| pb::Edge { from, to })
            .collect(),
        query: Vec::new(),
        ..Default::default()
    }
}

/// The witnesses `orbit game` asks for (`--moves`, `--line`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Witness {
    /// `--moves`.
    pub moves: bool,
    /// `--line`.
    pub line: bool,
}

/// Parses the graph, solves it over gRPC, checks the witnesses asked for and prints one line per
/// vertex.
pub async fn run(
    endpoints: &[BatchEndpoint],
    file: Option<&Path>,
    witness: Witness,
) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let mut job = game_job(&text)?;
    job.moves = witness.moves;
    job.line = witness.line;
    let pb::job_result::Result::Game(game) =
        solve_one(endpoints, "game", pb::job::Kind::Game(job.clone())).await?
    else {
        anyhow::bail!("the server answered a game job with another kind of result");
    };
    if let Err(wrong) = check_game_witness(&job, &game) {
        anyhow::bail!("the server's answer does not check out: {wrong}");
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for v in &game.vertices {
        let mut line = value_text(v.outcome, v.depth)
            .ok_or_else(|| anyhow::anyhow!("vertex {}: malformed answer", v.vertex + 1))?;
        if witness.moves {
            line.push_str(" moves");
            for (i, m) in v.moves.iter().enumerate() {
                let value = value_text(m.outcome, m.depth).ok_or_else(|| {
                    anyhow::anyhow!("vertex {}: malformed move to {}", v.vertex + 1, m.to + 1)
                })?;
                let separator = if i == 0 { " " } else { "," };
                line.push_str(&format!("{separator}{}:{value}", m.to + 1));
            }
        }
        if witness.line {
            line.push_str(" line");
            for step in &v.line {
                line.push_str(&format!(" {}", step + 1));
            }
            if v.line_truncated {
                line.push_str(" ...");
            }
        }
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `win D`, `lose D` or `draw`; `None` for a malformed value.
fn value_text(outcome: i32, depth: Option<u32>) -> Option<String> {
    match (pb::Outcome::try_from(outcome), depth) {
        (Ok(pb::Outcome::Win), Some(d)) => Some(format!("win {d}")),
        (Ok(pb::Outcome::Lose), Some(d)) => Some(format!("lose {d}")),
        (Ok(pb::Outcome::Draw), _) => Some("draw".to_string()),
        _ => None,
    }
}
