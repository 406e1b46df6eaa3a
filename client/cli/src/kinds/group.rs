//! `orbit group`: a permutation group in GAP cycle notation, its order and memberships.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_client::witness::{check_group_words, format_word};
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
        ..Default::default()
    }
}

/// The words `orbit group` asks for (`--words`, `--word-effort`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Words {
    /// `--words`.
    pub words: bool,
    /// `--word-effort`; the server's default when `None`.
    pub effort: Option<u32>,
}

/// Parses the `d k q` file, solves it over gRPC and prints the order, then one `Yes`/`No` per
/// candidate; with `--words`, each `Yes` followed by the member's word, checked first by
/// multiplying it out.
pub async fn run(
    endpoints: &[BatchEndpoint],
    file: Option<&Path>,
    words: Words,
) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let mut job = group_job(&text)?;
    job.words = words.words;
    job.word_effort = words.effort;
    let pb::job_result::Result::Group(group) =
        solve_one(endpoints, "group", pb::job::Kind::Group(job.clone())).await?
    else {
        anyhow::bail!("the server answered a group job with another kind of result");
    };
    if let Err(wrong) = check_group_words(&job, &group) {
        anyhow::bail!("the server's answer does not check out: {wrong}");
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{}", group.order)?;
    for (i, member) in group.members.iter().enumerate() {
        match (member, group.words.get(i)) {
            (true, Some(word)) if words.words => writeln!(out, "Yes {}", format_word(word))?,
            (true, _) => writeln!(out, "Yes")?,
            (false, _) => writeln!(out, "No")?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
