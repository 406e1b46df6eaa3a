//! `orbit puzzle`: the token-swapping puzzle of seed 002 in its contest format.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::{Client, pb};
use orbit_worker::puzzle::parse_puzzle_text;

use super::input::{read_input, status_text};

/// Parses the `n m q` file, solves it over gRPC and prints one `Yes`/`No` per target.
pub async fn run(client: &mut Client, file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let problem = parse_puzzle_text(&text)?;
    drop(text);
    let job = pb::Job {
        id: "puzzle".to_string(),
        options: None,
        kind: Some(pb::job::Kind::Puzzle(
            orbit_server::convert::puzzle_to_proto(&problem),
        )),
    };
    drop(problem);
    let result = client
        .solve(job)
        .await
        .map_err(|s| anyhow::anyhow!(status_text(&s)))?;
    let Some(pb::job_result::Result::Puzzle(puzzle)) = result.result else {
        anyhow::bail!("the server answered a puzzle job with another kind of result");
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for reachable in &puzzle.reachable {
        writeln!(out, "{}", if *reachable { "Yes" } else { "No" })?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
