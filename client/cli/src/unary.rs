//! One job through the unary `Solve` call, for the commands that send exactly one.

use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use tonic::Code;

use crate::input::status_text;

/// Sends `kind` as job `id` and returns its result, or the server's status as an error
/// (`CODE: message`).
///
/// With several endpoints, a job answered UNAVAILABLE (server down, draining or with a full
/// queue) is tried on the next one; the job is a pure function of its input, so sending it again
/// is safe.
pub async fn solve_one(
    endpoints: &[BatchEndpoint],
    id: &str,
    kind: pb::job::Kind,
) -> anyhow::Result<pb::job_result::Result> {
    let job = pb::Job {
        id: id.to_string(),
        options: None,
        kind: Some(kind),
    };
    let mut last = None;
    for endpoint in endpoints {
        match endpoint.client.clone().solve(job.clone()).await {
            Ok(result) => {
                return result.result.ok_or_else(|| {
                    anyhow::anyhow!("the server sent an empty result for job {id}")
                });
            }
            Err(status) if status.code() == Code::Unavailable => last = Some(status),
            Err(status) => anyhow::bail!(status_text(&status)),
        }
    }
    let status = last.expect("the connection has at least one endpoint");
    anyhow::bail!(status_text(&status))
}
