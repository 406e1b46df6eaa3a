//! `orbit solve`: a batch of JSON-lines jobs, through `SolveStream`s on one or more servers.
//!
//! Output: one line per job, the proto3 JSON of its final `JobEvent` — `{"id":…,"result":{…}}` or
//! `{"id":…,"error":{"code":3,"codeName":"INVALID_ARGUMENT","message":"…","reason":"INVALID_FIELD",
//! "metadata":{},"fieldViolations":[…],"retryDelayMs":0}}` — in completion order.
//! A line that is not a valid job gets an error line too (id from the line if it has one, else
//! `line N`), so every input line gets exactly one output line. With several servers the batch is
//! spread over them and a job whose server fails is solved on another (`orbit_client::batch`).

use std::collections::HashMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orbit_client::batch::{BatchEndpoint, BatchEvent, BatchOptions, error_event, solve_batch};
use orbit_client::pb;
use orbit_server::error::ServiceError;

use crate::GlobalArgs;
use crate::input::read_input;

/// `orbit solve` flags.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Input file; `-` or nothing for stdin.
    pub file: Option<PathBuf>,

    /// Write the answers to OUT.jsonl (appending) instead of stdout, first skipping every job
    /// already answered there: re-running the same command after a crash finishes the batch
    /// where it stopped. A cut-off last line, and jobs that failed only because no server could
    /// take them (UNAVAILABLE, CANCELLED), are dropped from OUT and solved again.
    #[arg(long, value_name = "OUT.jsonl")]
    pub resume: Option<PathBuf>,

    /// Jobs in flight per server.
    #[arg(long, default_value_t = BatchOptions::default().window)]
    pub window: usize,
}

/// Parses the batch, spreads it over the endpoints, prints the final events; exit 1 if any job
/// failed.
pub async fn run(
    endpoints: &[BatchEndpoint],
    args: &SolveArgs,
    global: &GlobalArgs,
) -> anyhow::Result<ExitCode> {
    if args.window == 0 {
        anyhow::bail!("--window must be at least 1");
    }
    let text = read_input(args.file.as_deref())?;
    let mut jobs = Vec::new();
    let mut rejected = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<pb::Job>(line) {
            Ok(job) => jobs.push(job),
            // INVALID_FIELD naming the line, with the details a server would send.
            Err(e) => rejected.push(error_event(
                line_id(line, i + 1),
                &tonic::Status::from(ServiceError::InvalidRequest {
                    field: format!("line {}", i + 1),
                    reason: format!("not a valid orbit.v1.Job: {e}"),
                }),
            )),
        }
    }
    drop(text);

    let mut failed = 0;
    let mut out: Box<dyn Write> = match &args.resume {
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        Some(path) => {
            let done = Answered::load(path)?;
            failed += done.failed;
            let before = jobs.len() + rejected.len();
            let mut skip = done.ids;
            jobs.retain(|job| !take_one(&mut skip, &job.id));
            rejected.retain(|event| !take_one(&mut skip, &event.id));
            eprintln!(
                "orbit: resuming {}: {} of {before} jobs already answered",
                path.display(),
                before - jobs.len() - rejected.len()
            );
            Box::new(std::io::BufWriter::new(done.file))
        }
    };

    let total = jobs.len() + rejected.len();
    let bar = progress_bar(total);
    for event in &rejected {
        failed += 1;
        writeln!(out, "{}", serde_json::to_string(event)?)?;
        bar.inc(1);
    }
    out.flush()?;
    let expected = jobs.len();
    if expected > 0 {
        let options = BatchOptions {
            window: args.window,
            max_message_bytes: global.max_message_bytes,
            ..BatchOptions::default()
        };
        let mut events = solve_batch(endpoints.to_vec(), jobs, options);
        let mut answered = 0;
        let mut retried = 0usize;
        while answered < expected {
            let Some(event) = events.recv().await else {
                anyhow::bail!(
                    "the batch ended with {} jobs unanswered",
                    expected - answered
                );
            };
            match event {
                BatchEvent::Final(event) => {
                    answered += 1;
                    if matches!(event.event, Some(pb::job_event::Event::Error(_))) {
                        failed += 1;
                    }
                    writeln!(out, "{}", serde_json::to_string(&event)?)?;
                    bar.inc(1);
                    // Keep the file current so that a crash loses as little as possible.
                    if events.is_empty() {
                        out.flush()?;
                    }
                }
                BatchEvent::Progress(event) => {
                    if let Some(pb::job_event::Event::Progress(p)) = &event.event {
                        bar.set_message(format!("{}: {:.0}%", event.id, p.fraction * 100.0));
                    }
                }
                BatchEvent::Retry { .. } => retried += 1,
                BatchEvent::EndpointDown { address, reason } => bar.suspend(|| {
                    eprintln!(
                        "orbit: giving up on {address}: {}; its jobs go to the other servers",
                        crate::input::status_text(&reason)
                    )
                }),
            }
        }
        if retried > 0 {
            bar.suspend(|| {
                eprintln!("orbit: {retried} sends were lost by a server and retried on another")
            });
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

/// Removes one occurrence of `id` from the multiset; whether there was one.
fn take_one(ids: &mut HashMap<String, usize>, id: &str) -> bool {
    match ids.get_mut(id) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// What an earlier run left in the `--resume` file.
struct Answered {
    /// Ids with a final answer, counted (ids need not be unique).
    ids: HashMap<String, usize>,
    /// How many of those answers are errors.
    failed: usize,
    /// The file, cut to its kept lines and open for appending.
    file: std::fs::File,
}

impl Answered {
    /// Reads `path` (a missing file is an empty one), keeps its complete final-event lines except
    /// UNAVAILABLE/CANCELLED errors, rewrites it with those if anything was dropped, and opens it
    /// for appending.
    fn load(path: &Path) -> anyhow::Result<Self> {
        let mut ids = HashMap::new();
        let mut failed = 0;
        let mut kept = Vec::new();
        let mut dropped = false;
        match std::fs::File::open(path) {
            Ok(file) => {
                let mut reader = std::io::BufReader::new(file);
                let mut line = String::new();
                loop {
                    line.clear();
                    let read = reader
                        .read_line(&mut line)
                        .with_context(|| format!("cannot read {}", path.display()))?;
                    if read == 0 {
                        break;
                    }
                    let complete = line.ends_with('\n');
                    let event = serde_json::from_str::<pb::JobEvent>(line.trim_end())
                        .ok()
                        .filter(|_| complete);
                    let keep = match event.as_ref().and_then(|e| e.event.as_ref()) {
                        Some(pb::job_event::Event::Result(_)) => true,
                        Some(pb::job_event::Event::Error(e)) => {
                            let code = tonic::Code::from_i32(e.code);
                            let retry =
                                matches!(code, tonic::Code::Unavailable | tonic::Code::Cancelled);
                            if !retry {
                                failed += 1;
                            }
                            !retry
                        }
                        _ => false,
                    };
                    match (keep, event) {
                        (true, Some(event)) => {
                            *ids.entry(event.id).or_insert(0) += 1;
                            kept.push(line.clone());
                        }
                        _ => dropped = true,
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", path.display()));
            }
        }
        if dropped {
            let temporary = path.with_extension("resume-tmp");
            std::fs::write(&temporary, kept.concat())
                .with_context(|| format!("cannot write {}", temporary.display()))?;
            std::fs::rename(&temporary, path)
                .with_context(|| format!("cannot replace {}", path.display()))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {} for appending", path.display()))?;
        Ok(Self { ids, failed, file })
    }
}

/// The id of a line that failed to parse as a job: its `"id"` if it is JSON with one, else
/// `line N`.
pub(crate) fn line_id(line: &str, number: usize) -> String {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_string))
        .unwrap_or_else(|| format!("line {number}"))
}

/// A bar on stderr when it is a terminal; hidden otherwise.
pub(crate) fn progress_bar(len: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} jobs {elapsed} {msg}") {
        bar.set_style(style);
    }
    bar
}
