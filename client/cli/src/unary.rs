//! One job, for the commands that send exactly one (`game`, `group`, `count`, `cop-thief`, and
//! `puzzle` when it fits one message).
//!
//! Through the unary `Solve` call; or, when stderr is a terminal, through a `SolveStream` of that
//! one job with progress events requested (the server sends progress on streams only), so that a
//! job still running after [`BAR_AFTER`] shows a bar. The answer, the printed output, the error
//! text and the exit code are the same either way: a job's error event is turned back into the
//! status the unary call would have returned.

use std::io::IsTerminal;
use std::time::Duration;

use futures::StreamExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orbit_client::batch::BatchEndpoint;
use orbit_client::{Client, pb};
use tokio::task::JoinHandle;
use tonic::{Code, Status};

use crate::input::status_text;

/// How long a job runs before its bar appears: a quicker job prints nothing more than its answer.
pub const BAR_AFTER: Duration = Duration::from_secs(1);

/// Bar positions per job: progress fractions are shown to a tenth of a percent.
const BAR_STEPS: u64 = 1000;

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
    let bar = JobBar::on_terminal(id);
    let mut last = None;
    for endpoint in endpoints {
        match solve_job(&mut endpoint.client.clone(), job.clone(), bar.as_ref()).await {
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

/// One job on one server: through `Solve` without a bar, through a `SolveStream` with progress
/// events feeding `bar` with one. Either way the job's failure is the call's status.
pub async fn solve_job(
    client: &mut Client,
    job: pb::Job,
    bar: Option<&JobBar>,
) -> Result<pb::JobResult, Status> {
    let Some(bar) = bar else {
        return client.solve(job).await;
    };
    let mut job = job;
    job.options.get_or_insert_with(Default::default).progress = true;
    let id = job.id.clone();
    let mut events = client.solve_stream(futures::stream::iter([job])).await?;
    while let Some(event) = events.next().await {
        match event?.event {
            Some(pb::job_event::Event::Progress(progress)) => bar.set_fraction(progress.fraction),
            Some(pb::job_event::Event::Result(result)) => return Ok(result),
            Some(pb::job_event::Event::Error(error)) => {
                return Err(Status::new(Code::from_i32(error.code), error.message));
            }
            Some(pb::job_event::Event::Queued(_)) | None => {}
        }
    }
    Err(Status::unknown(format!(
        "the server ended the stream without an answer for job {id}"
    )))
}

/// A progress bar for one job on stderr, drawn only once the job has run for [`BAR_AFTER`], and
/// cleared when it is dropped.
#[derive(Debug)]
pub struct JobBar {
    bar: ProgressBar,
    /// Draws the bar once [`BAR_AFTER`] has passed.
    reveal: JoinHandle<()>,
}

impl JobBar {
    /// A bar for job `id` if stderr is a terminal; `None` otherwise (output to a file or a pipe
    /// stays free of it).
    pub fn on_terminal(id: &str) -> Option<Self> {
        std::io::stderr().is_terminal().then(|| Self::new(id))
    }

    fn new(id: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(BAR_STEPS), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {bar:40} {percent:>3}% {elapsed} {msg}")
        {
            bar.set_style(style);
        }
        bar.set_message(id.to_string());
        let shown = bar.clone();
        let reveal = tokio::spawn(async move {
            tokio::time::sleep(BAR_AFTER).await;
            shown.set_draw_target(ProgressDrawTarget::stderr());
            // Redrawn by itself, so the elapsed time moves for a job that sends no progress.
            shown.enable_steady_tick(Duration::from_millis(100));
        });
        Self { bar, reveal }
    }

    /// The job's progress, 0 to 1.
    pub fn set_fraction(&self, fraction: f64) {
        let steps = (fraction.clamp(0.0, 1.0) * BAR_STEPS as f64).round() as u64;
        self.bar.set_position(steps);
    }
}

impl Drop for JobBar {
    fn drop(&mut self) {
        self.reveal.abort();
        self.bar.finish_and_clear();
    }
}
