//! `orbit cop-thief`: the policeman-and-thief grid game, from its text format `n m`, then n rows
//! of `. * C T E`.

use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_worker::SolveError;
use orbit_worker::cop_thief::{CopThiefValue, parse_grid_text};

use crate::input::read_input;
use crate::unary::solve_one;

/// `orbit cop-thief`: `n m`, then n rows of `. * C T E` → a policeman-and-thief job (no queries).
///
/// # Errors
/// The parser's error naming the line, e.g. `line 3: a second exit ...`.
///
/// ```
/// let job = orbit_cli::text_formats::cop_thief_job("1 3\nC.T\n").unwrap();
/// assert_eq!(job.rows, vec!["C.T"]);
/// ```
pub fn cop_thief_job(text: &str) -> Result<pb::CopThiefJob, SolveError> {
    let grid = parse_grid_text(text)?;
    Ok(pb::CopThiefJob {
        rows: grid.row_strings(),
        queries: Vec::new(),
    })
}

/// proto → domain for a policeman-and-thief answer (the CLI prints the domain's `Display`).
pub fn cop_thief_from_proto(result: &pb::CopThiefResult) -> Option<CopThiefValue> {
    match (pb::Winner::try_from(result.winner).ok()?, result.half_moves) {
        (pb::Winner::Cop, Some(n)) => Some(CopThiefValue::Cop(n)),
        (pb::Winner::Thief, Some(n)) => Some(CopThiefValue::Thief(n)),
        (pb::Winner::Draw, _) => Some(CopThiefValue::Draw),
        _ => None,
    }
}

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
    let value = cop_thief_from_proto(&answer)
        .ok_or_else(|| anyhow::anyhow!("malformed cop-thief answer {answer:?}"))?;
    println!("{value}");
    Ok(ExitCode::SUCCESS)
}
