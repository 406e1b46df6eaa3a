//! `orbit game`: the text format of seed 000's game graphs.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_client::text_formats::game_job;

use super::input::read_input;
use super::unary::solve_one;

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
