//! `orbit group`: a permutation group in GAP cycle notation, its order and memberships.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_client::text_formats::group_job;

use super::input::read_input;
use super::unary::solve_one;

/// Parses the `d k q` file, solves it over gRPC and prints the order, then one `Yes`/`No` per
/// candidate.
pub async fn run(endpoints: &[BatchEndpoint], file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let job = group_job(&text)?;
    let pb::job_result::Result::Group(group) =
        solve_one(endpoints, "group", pb::job::Kind::Group(job)).await?
    else {
        anyhow::bail!("the server answered a group job with another kind of result");
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{}", group.order)?;
    for member in &group.members {
        writeln!(out, "{}", if *member { "Yes" } else { "No" })?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
