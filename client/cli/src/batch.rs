//! `orbit batch`: durable batches (`orbit.v1.Batches`), kept by an `orbit-server` with a store, so
//! every subcommand needs `--server` (the embedded server keeps none).
//!
//! - `submit FILE [--name NAME] [--request-id ID]`: JSON lines of `orbit.v1.Job`, as for `orbit
//!   solve`, streamed to `CreateBatch` line by line; prints the batch id. A line that is not a
//!   valid job is sent as a job with that line's id and no kind, which the server answers with an
//!   INVALID_ARGUMENT error event of its own. A create that breaks off is finished by running the
//!   command again with the request id it prints (the jobs already stored are skipped).
//! - `status ID`, `list`, `cancel ID`: the `Batch` message(s) in proto3 JSON, one line each.
//! - `results ID [--follow] [--after N]`: the final `JobEvent` of each job, as `orbit solve`
//!   prints them, each once (the watch resumes after transient breaks); exit 0 if the batch is
//!   finished with no failed or cancelled job, 1 if it is finished with some, 3 if it is not
//!   finished yet (only without `--follow`).
//! - `delete ID`: prints nothing.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use futures::StreamExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use orbit_client::batches::{WatchRetry, is_finished, is_transient};
use orbit_client::pb;
use tokio::sync::{mpsc, oneshot};

use crate::GlobalArgs;
use crate::connection::remote_client;
use crate::input::status_text;
use crate::solve::{line_id, progress_bar};

/// `orbit batch` and its subcommand.
#[derive(Debug, Args)]
pub struct BatchArgs {
    #[command(subcommand)]
    pub command: BatchCommand,
}

/// The `orbit batch` subcommands.
#[derive(Debug, Subcommand)]
pub enum BatchCommand {
    /// Create a batch from FILE (JSON lines of orbit.v1.Job, as for `orbit solve`; `-` for
    /// stdin), streamed line by line. Prints the batch id. If the create breaks off, run the
    /// command it prints (the same FILE with --request-id) to finish it: no job is stored twice.
    Submit {
        /// Input file; `-` for stdin.
        file: PathBuf,
        /// A name to recognise the batch by.
        #[arg(long, default_value = "")]
        name: String,
        /// The create's request id (default: 128 random bits in hexadecimal). The same id with
        /// the same FILE finishes a create that broke off, or returns the batch it made.
        #[arg(long, value_name = "ID")]
        request_id: Option<String>,
    },
    /// Print the batch (state, counts, times) as one JSON line.
    Status {
        /// The batch id.
        id: String,
    },
    /// Print every batch, newest first, one JSON line each.
    List,
    /// Print the final event of each job of the batch, one JSON line each, as `orbit solve` does.
    /// Exit 0 if the batch is finished and no job failed or was cancelled, 1 if it is finished
    /// with some, 3 if it is not finished (only without --follow).
    Results {
        /// The batch id.
        id: String,
        /// Wait for the jobs still running and print their events as they finish, until the
        /// batch is finished.
        #[arg(long)]
        follow: bool,
        /// Print only the events after the N-th (events are numbered 1, 2, ... in the order they
        /// are printed).
        #[arg(long, value_name = "N", default_value_t = 0)]
        after: u64,
    },
    /// Cancel the batch: jobs that have not finished get a CANCELLED error. Prints the batch as
    /// one JSON line.
    Cancel {
        /// The batch id.
        id: String,
    },
    /// Delete the batch with its jobs and results. Prints nothing.
    Delete {
        /// The batch id.
        id: String,
    },
}

/// Runs an `orbit batch` subcommand against the first `--server`.
pub async fn run(args: BatchArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let client = remote_client(global, "orbit batch").await?;
    let mut batches = client.batches();
    let status = |s: tonic::Status| anyhow::anyhow!(status_text(&s));
    match args.command {
        BatchCommand::Submit {
            file,
            name,
            request_id,
        } => submit(batches, &file, &name, request_id).await,
        BatchCommand::Status { id } => {
            let batch = batches.get_batch(&id).await.map_err(status)?;
            println!("{}", serde_json::to_string(&batch)?);
            Ok(ExitCode::SUCCESS)
        }
        BatchCommand::List => {
            let all = batches.list_all_batches().await.map_err(status)?;
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            for batch in &all {
                writeln!(out, "{}", serde_json::to_string(batch)?)?;
            }
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        BatchCommand::Results { id, follow, after } => results(batches, &id, follow, after).await,
        BatchCommand::Cancel { id } => {
            let batch = batches.cancel_batch(&id).await.map_err(status)?;
            println!("{}", serde_json::to_string(&batch)?);
            Ok(ExitCode::SUCCESS)
        }
        BatchCommand::Delete { id } => {
            batches.delete_batch(&id).await.map_err(status)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Where `submit` reads its jobs.
enum Source {
    Stdin,
    File(std::fs::File),
}

/// Jobs sent through the channel before the reader waits for the create to take them.
const READ_AHEAD: usize = 256;

/// `orbit batch submit`: streams FILE's lines as jobs, prints the batch id.
async fn submit(
    mut batches: orbit_client::batches::BatchesClient,
    file: &Path,
    name: &str,
    request_id: Option<String>,
) -> anyhow::Result<ExitCode> {
    let (source, size) = if file == Path::new("-") {
        (Source::Stdin, None)
    } else {
        let opened =
            std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
        let size = opened
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        (Source::File(opened), size)
    };
    let request_id = request_id.unwrap_or_else(|| format!("{:032x}", rand::random::<u128>()));
    let bar = submit_bar(size);

    // A thread reads the lines (blocking I/O) and hands the jobs over a bounded channel, so the
    // file is never held whole; it counts every job line, also those it reads after the create
    // has stopped taking them (see the check below).
    let (tx, rx) = mpsc::channel::<std::io::Result<pb::Job>>(READ_AHEAD);
    let reader_bar = bar.clone();
    let reader = std::thread::spawn(move || read_jobs(source, &tx, &reader_bar));

    // A read error must not end the stream cleanly (that would seal the batch without the rest):
    // the stream then never ends, and the create is dropped, which cancels the call.
    let (read_failed, read_error) = oneshot::channel::<std::io::Error>();
    let jobs = futures::stream::unfold(
        (rx, Some(read_failed)),
        |(mut rx, mut read_failed)| async move {
            match rx.recv().await? {
                Ok(job) => Some((job, (rx, read_failed))),
                Err(e) => {
                    if let Some(failed) = read_failed.take() {
                        let _ = failed.send(e);
                    }
                    std::future::pending().await
                }
            }
        },
    );
    let created = tokio::select! {
        created = batches.create_batch(&request_id, name, jobs) => {
            created.map_err(|s| status_text(&s))
        }
        Ok(e) = read_error => Err(format!("cannot read {}: {e}", file.display())),
    };
    bar.finish_and_clear();
    let batch = match created {
        Ok(batch) => batch,
        Err(reason) => {
            eprintln!(
                "orbit: batch create broke off ({reason}); finish it with: orbit batch submit {} \
                 --request-id {}",
                shell_word(&file.display().to_string()),
                shell_word(&request_id)
            );
            return Ok(ExitCode::FAILURE);
        }
    };
    println!("{}", batch.id);

    // The server answers a create whose batch was already sealed (a retry after it completed,
    // or after a limit refused the rest) at once, with the jobs it holds: say so if FILE has a
    // different number of jobs.
    let lines = tokio::task::spawn_blocking(move || reader.join())
        .await
        .ok()
        .and_then(|joined| joined.ok())
        .and_then(|counted| counted.ok());
    let stored = batch.counts.map_or(0, |c| c.jobs);
    if let Some(lines) = lines
        && lines != stored
    {
        eprintln!(
            "orbit: batch {} holds {stored} jobs but {} has {lines}: request id {} names a batch \
             that was already sealed (refused over a server limit, or made from other input); \
             submit the jobs as a new batch",
            batch.id,
            file.display(),
            request_id
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads `source` line by line, sending each non-blank line as a job (a line that is not a valid
/// job as a job with its id and no kind); returns how many job lines there are. Once the
/// receiver is gone it goes on counting without sending. A read error is sent, then returned.
fn read_jobs(
    source: Source,
    tx: &mpsc::Sender<std::io::Result<pb::Job>>,
    bar: &ProgressBar,
) -> std::io::Result<u64> {
    let stdin;
    let mut reader: Box<dyn BufRead> = match source {
        Source::Stdin => {
            stdin = std::io::stdin();
            Box::new(stdin.lock())
        }
        Source::File(file) => Box::new(std::io::BufReader::new(file)),
    };
    let mut sending = true;
    let mut count = 0u64;
    let mut number = 0usize;
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        let read = match reader.read_until(b'\n', &mut bytes) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let kind = e.kind();
                let message = e.to_string();
                if sending {
                    let _ = tx.blocking_send(Err(e));
                }
                return Err(std::io::Error::new(kind, message));
            }
        };
        if read == 0 {
            return Ok(count);
        }
        number += 1;
        bar.inc(read as u64);
        let line = String::from_utf8_lossy(&bytes);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        count += 1;
        if !sending {
            continue;
        }
        let job = serde_json::from_str::<pb::Job>(line).unwrap_or_else(|_| pb::Job {
            id: line_id(line, number),
            ..pb::Job::default()
        });
        if tx.blocking_send(Ok(job)).is_err() {
            sending = false;
        } else {
            bar.set_message(format!("{count} jobs sent"));
        }
    }
}

/// The submit progress bar: bytes of FILE read (jobs sent as its message), or a spinner for
/// stdin; hidden unless stderr is a terminal.
fn submit_bar(size: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match size {
        Some(size) => (
            ProgressBar::with_draw_target(Some(size), ProgressDrawTarget::stderr()),
            "{bar:40} {bytes}/{total_bytes} {elapsed} {msg}",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "{spinner} {bytes} read {elapsed} {msg}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// `word` as a shell reads it back: as it is if it holds only safe characters, else in single
/// quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./,:=@%+".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Events printed between two flushes of stdout, at most.
const FLUSH_EVERY: usize = 1024;

/// `orbit batch results`: the final events after `after`, each once; the exit code from the
/// batch's state and counts.
async fn results(
    mut batches: orbit_client::batches::BatchesClient,
    id: &str,
    follow: bool,
    after: u64,
) -> anyhow::Result<ExitCode> {
    let status = |s: tonic::Status| anyhow::anyhow!(status_text(&s));
    let bar = if follow && std::io::stderr().is_terminal() {
        let batch = batches.get_batch(id).await.map_err(status)?;
        let jobs = batch.counts.map_or(0, |c| c.jobs);
        let bar = progress_bar(jobs as usize);
        bar.set_position(after.min(jobs));
        bar
    } else {
        ProgressBar::hidden()
    };
    let events = batches
        .watch_batch_resuming(id, after, follow, WatchRetry::default())
        .ready_chunks(FLUSH_EVERY);
    futures::pin_mut!(events);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut last = after;
    while let Some(chunk) = events.next().await {
        for item in chunk {
            match item {
                Ok(event) => {
                    last = event.sequence;
                    if let Some(job_event) = &event.event {
                        writeln!(out, "{}", serde_json::to_string(job_event)?)?;
                    }
                    bar.inc(1);
                }
                Err(s) => {
                    out.flush()?;
                    bar.finish_and_clear();
                    if is_transient(&s) {
                        anyhow::bail!(
                            "{}; the events after {last} are still to come: orbit batch results \
                             {id} --after {last}{}",
                            status_text(&s),
                            if follow { " --follow" } else { "" }
                        );
                    }
                    return Err(status(s));
                }
            }
        }
        // Printed as they come: a script reading the pipe sees each chunk at once.
        out.flush()?;
    }
    out.flush()?;
    drop(out);
    bar.finish_and_clear();
    let batch = batches.get_batch(id).await.map_err(status)?;
    if !is_finished(&batch) {
        return Ok(ExitCode::from(3));
    }
    let counts = batch.counts.unwrap_or_default();
    Ok(if counts.failed == 0 && counts.cancelled == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("jobs/batch.jsonl"), "jobs/batch.jsonl");
        assert_eq!(shell_word("-"), "-");
        assert_eq!(shell_word("my jobs.jsonl"), "'my jobs.jsonl'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
