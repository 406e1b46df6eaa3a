//! `orbit solve`: a batch of JSON-lines jobs through one `SolveStream`.
//!
//! Output: one line per job, the proto3 JSON of its final `JobEvent` — `{"id":…,"result":{…}}` or
//! `{"id":…,"error":{"code":3,"codeName":"INVALID_ARGUMENT","message":"…"}}` — in completion order.
//! A line that is not a valid job gets an error line too (id from the line if it has one, else
//! `line N`), so every input line gets exactly one output line.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use futures::StreamExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orbit_client::{Client, pb};

use super::input::read_input;

/// Parses the batch, streams it, prints the final events; exit 1 if any job failed.
pub async fn run(client: &mut Client, file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let mut jobs = Vec::new();
    let mut rejected = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<pb::Job>(line) {
            Ok(job) => jobs.push(job),
            Err(e) => rejected.push(error_event(
                line_id(line, i + 1),
                3,
                "INVALID_ARGUMENT",
                format!("line {}: not a valid orbit.v1.Job: {e}", i + 1),
            )),
        }
    }

    let bar = progress_bar(jobs.len() + rejected.len());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed = rejected.len();
    for event in &rejected {
        writeln!(out, "{}", serde_json::to_string(event)?)?;
        bar.inc(1);
    }

    // Ids still owed a final event (a multiset: ids need not be unique).
    let mut pending: HashMap<String, usize> = HashMap::new();
    for job in &jobs {
        *pending.entry(job.id.clone()).or_default() += 1;
    }
    let mut events = client.solve_stream(futures::stream::iter(jobs)).await?;
    let mut broken = None;
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(e) => e,
            Err(status) => {
                broken = Some(status);
                break;
            }
        };
        match &event.event {
            Some(pb::job_event::Event::Result(_)) | Some(pb::job_event::Event::Error(_)) => {
                if matches!(event.event, Some(pb::job_event::Event::Error(_))) {
                    failed += 1;
                }
                if let Some(n) = pending.get_mut(&event.id) {
                    *n -= 1;
                    if *n == 0 {
                        pending.remove(&event.id);
                    }
                }
                writeln!(out, "{}", serde_json::to_string(&event)?)?;
                bar.inc(1);
            }
            Some(pb::job_event::Event::Progress(p)) => {
                bar.set_message(format!("{}: {:.0}%", event.id, p.fraction * 100.0))
            }
            Some(pb::job_event::Event::Queued(_)) | None => {}
        }
    }
    // The stream ended early (server gone, transport error): every unanswered job gets an error
    // line, so nothing the caller sent is silently lost.
    if !pending.is_empty() {
        let (code, name, why) = match &broken {
            Some(s) => (
                s.code() as i32,
                orbit_server::error::code_name(s.code()),
                s.message().to_string(),
            ),
            None => (
                14,
                "UNAVAILABLE",
                "the stream ended before this job was answered".to_string(),
            ),
        };
        for (id, n) in pending {
            for _ in 0..n {
                failed += 1;
                writeln!(
                    out,
                    "{}",
                    serde_json::to_string(&error_event(id.clone(), code, name, why.clone()))?
                )?;
            }
        }
    }
    out.flush()?;
    bar.finish_and_clear();
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The id of a line that failed to parse as a job: its `"id"` if it is JSON with one, else
/// `line N`.
fn line_id(line: &str, number: usize) -> String {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_string))
        .unwrap_or_else(|| format!("line {number}"))
}

fn error_event(id: String, code: i32, code_name: &str, message: String) -> pb::JobEvent {
    pb::JobEvent {
        id,
        event: Some(pb::job_event::Event::Error(pb::JobError {
            code,
            code_name: code_name.to_string(),
            message,
        })),
    }
}

/// A bar on stderr when it is a terminal; hidden otherwise.
fn progress_bar(len: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} jobs {elapsed} {msg}") {
        bar.set_style(style);
    }
    bar
}
