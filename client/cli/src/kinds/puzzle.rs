//! `orbit puzzle`: the token-swapping puzzle (the WC2017 "board game") in its contest format.
//!
//! Big inputs (n = 100,000 with 100 targets is 10^7 tokens) need not fit one gRPC message (4 MiB
//! by default in gRPC; `--max-message-bytes` on Orbit's servers), so the targets are streamed: the
//! job is split into chunks of targets that fit the smaller of the server's and the client's
//! message limits, each chunk a job of its own (with the graph and start) sent through one
//! `SolveStream`, and the answers are put back in target order.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use futures::StreamExt;
use orbit_client::witness::{PuzzleReplay, check_puzzle_moves};
use orbit_client::{Client, pb};
use orbit_worker::SolveError;
use orbit_worker::puzzle::{PuzzleProblem, parse_puzzle_text};

use crate::input::{read_input, status_text};
use crate::unary::{JobBar, solve_job};

/// `orbit puzzle`: parses the contest format `n m q` (edges, start, targets).
///
/// # Errors
/// The parser's error naming the line, the target, the vertex and the token.
pub fn puzzle_problem(text: &str) -> Result<PuzzleProblem, SolveError> {
    parse_puzzle_text(text)
}

/// An upper bound of `problem`'s encoded size as one job, so a caller can tell whether it fits
/// a message without building it.
pub fn puzzle_bytes_bound(problem: &PuzzleProblem) -> usize {
    let (base, per_target) =
        puzzle_bytes_bounds(problem.n, problem.edges.len(), problem.start.len());
    base + per_target * problem.targets.len()
}

/// Upper bounds of the encoded sizes of a puzzle job's fixed part and of one target: 5 bytes per
/// varint, plus tags and lengths.
fn puzzle_bytes_bounds(n: u32, edges: usize, start: usize) -> (usize, usize) {
    (16 + edges * 14 + start * 5, 8 + n as usize * 5)
}

/// Splits a puzzle into jobs of at most `chunk_bytes` encoded bytes (estimated from above), each
/// with the graph, the start and a run of consecutive targets (at least one); ids are the chunk
/// numbers `0, 1, ...`. A problem without targets is one job. This is how `orbit puzzle` sends
/// 10^7 tokens through a server whose messages are limited to a few MiB.
///
/// ```
/// use orbit_cli::text_formats::{puzzle_jobs, puzzle_problem};
/// let problem = puzzle_problem("2 1 3\n1 2\n0 1\n1 0\n0 1\n1 0\n").unwrap();
/// let jobs = puzzle_jobs(&problem, 0); // at least one target per job
/// assert_eq!(jobs.len(), 3);
/// assert_eq!(jobs[2].id, "2");
/// ```
pub fn puzzle_jobs(problem: &PuzzleProblem, chunk_bytes: usize) -> Vec<pb::Job> {
    let (base_bytes, target_bytes) =
        puzzle_bytes_bounds(problem.n, problem.edges.len(), problem.start.len());
    let per_chunk = (chunk_bytes.saturating_sub(base_bytes) / target_bytes).max(1);
    let job = |index: usize, targets: &[Vec<u32>]| pb::Job {
        id: index.to_string(),
        options: None,
        kind: Some(pb::job::Kind::Puzzle(puzzle_chunk_to_proto(
            problem, targets,
        ))),
    };
    if problem.targets.is_empty() {
        return vec![job(0, &[])];
    }
    problem
        .targets
        .chunks(per_chunk)
        .enumerate()
        .map(|(index, chunk)| job(index, chunk))
        .collect()
}

/// domain → proto for a puzzle (the CLI's `orbit puzzle`), the targets in `targets_packed`.
pub fn puzzle_to_proto(problem: &PuzzleProblem) -> pb::PuzzleJob {
    puzzle_chunk_to_proto(problem, &problem.targets)
}

/// domain → proto for `problem`'s graph and start with `targets` (a run of its targets), packed in
/// `targets_packed`: how `orbit puzzle` splits a big puzzle into jobs without copying it first.
pub fn puzzle_chunk_to_proto(problem: &PuzzleProblem, targets: &[Vec<u32>]) -> pb::PuzzleJob {
    pb::PuzzleJob {
        n: problem.n,
        edges: problem
            .edges
            .iter()
            .map(|&(from, to)| pb::Edge { from, to })
            .collect(),
        start: Some(pb::Arrangement {
            tokens: problem.start.clone(),
        }),
        targets: Vec::new(),
        moves: false,
        targets_packed: {
            let mut bytes = Vec::with_capacity(4 * problem.n as usize * targets.len());
            for token in targets.iter().flatten() {
                bytes.extend_from_slice(&token.to_le_bytes());
            }
            bytes
        },
    }
}

/// Every gRPC implementation accepts messages of this size by default.
const GRPC_DEFAULT_MESSAGE_BYTES: usize = 4 << 20;

/// One chunk's answer: the verdicts and, when asked for, the move sequences.
type ChunkAnswer = (Vec<bool>, Vec<pb::PuzzleMoves>);

/// Parses the `n m q` file, solves it over gRPC and prints one `Yes`/`No` per target (with
/// `moves`, each `Yes` followed by its checked move sequence).
///
/// A problem that fits in one message of the size every server accepts (the contest sizes do)
/// goes as one unary call, without asking the server for its limit first: one round trip instead
/// of three. Bigger ones, or one the server refuses as too large, are chunked to the server's
/// `ServerInfo` limit and streamed.
pub async fn run(
    client: &mut Client,
    file: Option<&Path>,
    max_message_bytes: usize,
    moves: bool,
) -> anyhow::Result<ExitCode> {
    let text = read_input(file)?;
    let problem = puzzle_problem(&text)?;
    drop(text);
    let with_moves = |mut jobs: Vec<pb::Job>| {
        for job in &mut jobs {
            if let Some(pb::job::Kind::Puzzle(p)) = &mut job.kind {
                p.moves = moves;
            }
        }
        jobs
    };
    let small = GRPC_DEFAULT_MESSAGE_BYTES.min(max_message_bytes) / 4 * 3;
    // On a terminal, a bar once the work has taken a second: the job's progress, or the share of
    // the chunks answered.
    let bar = JobBar::on_terminal("puzzle");
    if puzzle_bytes_bound(&problem) <= small {
        let job = with_moves(puzzle_jobs(&problem, small))
            .pop()
            .expect("a problem is at least one job");
        match solve_job(client, job, bar.as_ref()).await {
            Ok(pb::JobResult {
                result: Some(pb::job_result::Result::Puzzle(p)),
                ..
            }) => {
                // Cleared before the answers go to what may be the same terminal.
                drop(bar);
                return print_answers(&problem, moves, std::iter::once((p.reachable, p.moves)));
            }
            Ok(_) => anyhow::bail!("the server answered a puzzle job with another kind of result"),
            Err(status) if status.code() == tonic::Code::ResourceExhausted && !moves => {}
            Err(status)
                if status.code() == tonic::Code::ResourceExhausted
                    && status.message().contains("max_message_bytes") => {}
            Err(status) => anyhow::bail!(status_text(&status)),
        }
    }
    let info = client
        .info()
        .await
        .map_err(|s| anyhow::anyhow!(status_text(&s)))?;
    let server_limit = info
        .limits
        .map_or(GRPC_DEFAULT_MESSAGE_BYTES, |l| l.max_message_bytes as usize);
    // Three quarters of the smaller limit, leaving room for the estimate's slack.
    let chunk_bytes = server_limit.min(max_message_bytes) / 4 * 3;
    let chunks = with_moves(puzzle_jobs(&problem, chunk_bytes));
    let count = chunks.len();
    let mut answers: Vec<Option<ChunkAnswer>> = vec![None; count];
    let mut events = client
        .solve_stream(futures::stream::iter(chunks))
        .await
        .map_err(|s| anyhow::anyhow!(status_text(&s)))?;
    while let Some(event) = events.next().await {
        let event = event.map_err(|s| anyhow::anyhow!(status_text(&s)))?;
        let index: usize = event
            .id
            .parse()
            .map_err(|_| anyhow::anyhow!("unexpected job id {:?} in the answers", event.id))?;
        match event.event {
            Some(pb::job_event::Event::Result(pb::JobResult {
                result: Some(pb::job_result::Result::Puzzle(p)),
                ..
            })) => {
                *answers
                    .get_mut(index)
                    .ok_or_else(|| anyhow::anyhow!("unexpected chunk {index}"))? =
                    Some((p.reachable, p.moves));
                if let Some(bar) = &bar {
                    let answered = answers.iter().filter(|a| a.is_some()).count();
                    bar.set_fraction(answered as f64 / count as f64);
                }
            }
            Some(pb::job_event::Event::Error(e)) => anyhow::bail!("{}: {}", e.code_name, e.message),
            Some(pb::job_event::Event::Result(_)) => {
                anyhow::bail!("the server answered a puzzle job with another kind of result")
            }
            Some(pb::job_event::Event::Queued(_))
            | Some(pb::job_event::Event::Progress(_))
            | None => {}
        }
    }
    drop(bar);
    let chunks = answers
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| chunk.ok_or_else(|| anyhow::anyhow!("no answer for targets chunk {i}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    print_answers(&problem, moves, chunks)
}

/// Prints one `Yes`/`No` line per target, chunk after chunk; with `moves`, each `Yes` followed by
/// a space and the 1-based vertices of its move sequence, after the sequences were replayed on
/// the graph (all of them, before anything is printed).
fn print_answers(
    problem: &PuzzleProblem,
    moves: bool,
    chunks: impl IntoIterator<Item = ChunkAnswer>,
) -> anyhow::Result<ExitCode> {
    let (reachable, sequences): (Vec<Vec<bool>>, Vec<Vec<pb::PuzzleMoves>>) =
        chunks.into_iter().unzip();
    let reachable: Vec<bool> = reachable.into_iter().flatten().collect();
    let sequences: Vec<pb::PuzzleMoves> = sequences.into_iter().flatten().collect();
    if reachable.len() != problem.targets.len() {
        anyhow::bail!(
            "the server answered {} targets of {}",
            reachable.len(),
            problem.targets.len()
        );
    }
    if moves {
        let replay = PuzzleReplay::new(problem.n, &problem.edges, &problem.start);
        check_puzzle_moves(&replay, &problem.targets, &reachable, &sequences).map_err(|e| {
            anyhow::anyhow!(
                "wrong move sequence from the server for target {} (line {} of the targets): {}",
                e.target + 1,
                e.target + 1,
                e.reason
            )
        })?;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (i, &yes) in reachable.iter().enumerate() {
        if !yes {
            writeln!(out, "No")?;
            continue;
        }
        out.write_all(b"Yes")?;
        if moves {
            for &v in &sequences[i].vertices {
                write!(out, " {}", u64::from(v) + 1)?;
            }
        }
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
