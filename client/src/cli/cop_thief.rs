//! `orbit cop-thief`: the policeman-and-thief grid of seed 000.

use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_client::text_formats::cop_thief_job;

use super::input::read_input;
use super::unary::solve_one;

/// Parses the grid (for line-numbered errors before anything is sent), solves it over gRPC and
/// prints `cop N`, `thief N` or `draw`.
pub async fn run(endpoints: &[BatchEndpoint], file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let job = cop_thief_job(&text)?;
    let pb::job_result::Result::CopThief(answer) =
        solve_one(endpoints, "cop-thief", pb::job::Kind::CopThief(job)).await?
    else {
        anyhow::bail!("the server answered a cop-thief job with another kind of result");
    };
    let value = orbit_server::convert::cop_thief_from_proto(&answer)
        .ok_or_else(|| anyhow::anyhow!("malformed cop-thief answer {answer:?}"))?;
    println!("{value}");
    Ok(ExitCode::SUCCESS)
}
