//! One job through the unary `Solve` call, for the commands that send exactly one.

use orbit_client::{Client, pb};

use super::input::status_text;

/// Sends `kind` as job `id` and returns its result, or the server's status as an error
/// (`CODE: message`).
pub async fn solve_one(
    client: &mut Client,
    id: &str,
    kind: pb::job::Kind,
) -> anyhow::Result<pb::job_result::Result> {
    let job = pb::Job {
        id: id.to_string(),
        options: None,
        kind: Some(kind),
    };
    let result = client
        .solve(job)
        .await
        .map_err(|s| anyhow::anyhow!(status_text(&s)))?;
    result
        .result
        .ok_or_else(|| anyhow::anyhow!("the server sent an empty result for job {id}"))
}
