//! `orbit group`: a permutation group in GAP cycle notation, its order and memberships.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_worker::group::{GroupProblem, Perm, parse_group_text_with_limits};
use orbit_worker::{Limits, SolveError};

use crate::input::read_input;
use crate::unary::solve_one;

/// `orbit group`: `d k q`, then k generator and q candidate lines in GAP cycle notation → a group
/// job (permutations as 0-based image arrays).
///
/// # Errors
/// The parser's error naming the line and column, or `LimitExceeded` for a degree or a number of
/// permutation entries beyond the default limits.
///
/// ```
/// let job = orbit_cli::text_formats::group_job("3 1 1\n(1,2,3)\n()\n").unwrap();
/// assert_eq!(job.generators[0].images, vec![1, 2, 0]);
/// ```
pub fn group_job(text: &str) -> Result<pb::GroupJob, SolveError> {
    let problem = parse_group_text_with_limits(text, &Limits::default())?;
    Ok(group_to_proto(&problem))
}

/// domain → proto for a group problem (the CLI's `orbit group`), as image arrays.
pub fn group_to_proto(problem: &GroupProblem) -> pb::GroupJob {
    let perms = |ps: &[Perm]| {
        ps.iter()
            .map(|p| pb::Permutation {
                images: p.images().to_vec(),
                cycles: String::new(),
            })
            .collect()
    };
    pb::GroupJob {
        degree: problem.degree as u32,
        generators: perms(&problem.generators),
        candidates: perms(&problem.candidates),
    }
}

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
