//! `orbit game`: win, lose or draw for every vertex of a game graph (retrograde analysis of game
//! graphs), from its text format `n m`, then m moves `u v` (1-based).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
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
    }
}

/// Parses the graph, solves it over gRPC and prints one line per vertex.
pub async fn run(endpoints: &[BatchEndpoint], file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let job = game_job(&text)?;
    let pb::job_result::Result::Game(game) =
        solve_one(endpoints, "game", pb::job::Kind::Game(job)).await?
    else {
        anyhow::bail!("the server answered a game job with another kind of result");
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for v in &game.vertices {
        match (pb::Outcome::try_from(v.outcome), v.depth) {
            (Ok(pb::Outcome::Win), Some(d)) => writeln!(out, "win {d}")?,
            (Ok(pb::Outcome::Lose), Some(d)) => writeln!(out, "lose {d}")?,
            (Ok(pb::Outcome::Draw), _) => writeln!(out, "draw")?,
            (outcome, depth) => anyhow::bail!(
                "vertex {}: malformed answer {outcome:?} depth {depth:?}",
                v.vertex + 1
            ),
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
