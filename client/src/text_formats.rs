//! The `orbit` CLI's text formats, turned into the protobuf jobs the CLI sends.
//!
//! Each function is the whole pure step "input text → job" of one subcommand (`orbit game`,
//! `group`, `cop-thief`, `puzzle`, `count group`); the subcommands in `src/cli/` only add reading
//! the input, the gRPC call and printing. They live in the library, not the binary, so the fuzz
//! targets in `fuzz/` run exactly what the CLI runs.
//!
//! Parsing itself is done by the solvers' parsers in `orbit-worker` (one per format); errors are
//! theirs: [`SolveError::InvalidArgument`] whose field is `line N ...` and whose reason says what
//! is wrong, or [`SolveError::LimitExceeded`] for a size beyond [`Limits::default`].

use orbit_worker::counting::{parse_content, parse_count_group_text};
use orbit_worker::game::{parse_game_text, parse_grid_text};
use orbit_worker::group::parse_group_text_with_limits;
use orbit_worker::puzzle::{PuzzleProblem, parse_puzzle_text};
use orbit_worker::{Limits, SolveError};

use crate::pb;

/// `orbit game`: `n m`, then m lines `u v` (1-based) → a game job.
///
/// # Errors
/// The parser's error naming the line, e.g. `line 3: vertex 9 out of range 1..4`.
///
/// ```
/// let job = orbit_client::text_formats::game_job("2 1\n1 2\n").unwrap();
/// assert_eq!((job.vertices, job.edges.len()), (2, 1));
/// ```
pub fn game_job(text: &str) -> Result<pb::GameGraphJob, SolveError> {
    let graph = parse_game_text(text)?;
    Ok(orbit_server::convert::game_to_proto(&graph))
}

/// `orbit group`: `d k q`, then k generator and q candidate lines in GAP cycle notation → a group
/// job (permutations as 0-based image arrays).
///
/// # Errors
/// The parser's error naming the line and column, or `LimitExceeded` for a degree or a number of
/// permutation entries beyond the default limits.
///
/// ```
/// let job = orbit_client::text_formats::group_job("3 1 1\n(1,2,3)\n()\n").unwrap();
/// assert_eq!(job.generators[0].images, vec![1, 2, 0]);
/// ```
pub fn group_job(text: &str) -> Result<pb::GroupJob, SolveError> {
    let problem = parse_group_text_with_limits(text, &Limits::default())?;
    Ok(orbit_server::convert::group_to_proto(&problem))
}

/// `orbit cop-thief`: `n m`, then n rows of `. * C T E` → a policeman-and-thief job (no queries).
///
/// # Errors
/// The parser's error naming the line, e.g. `line 3: a second exit ...`.
///
/// ```
/// let job = orbit_client::text_formats::cop_thief_job("1 3\nC.T\n").unwrap();
/// assert_eq!(job.rows, vec!["C.T"]);
/// ```
pub fn cop_thief_job(text: &str) -> Result<pb::CopThiefJob, SolveError> {
    let grid = parse_grid_text(text)?;
    Ok(pb::CopThiefJob {
        rows: grid.row_strings(),
        queries: Vec::new(),
    })
}

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
/// use orbit_client::text_formats::{puzzle_jobs, puzzle_problem};
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
        kind: Some(pb::job::Kind::Puzzle(
            orbit_server::convert::puzzle_chunk_to_proto(problem, targets),
        )),
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

/// `orbit count group FILE --k K [--content C] [--cycle-index]`: the group in the `orbit group`
/// format (candidate lines ignored) and the flags → a count family.
///
/// # Errors
/// The parser's error naming the line, or `count.content[i]` for a malformed `--content` entry.
///
/// ```
/// use orbit_client::text_formats::count_group_family;
/// let family = count_group_family("4 1 0\n(1,2,3,4)\n", 2, Some("2,2"), false).unwrap();
/// assert_eq!((family.degree, family.content.clone()), (4, vec![2, 2]));
/// ```
pub fn count_group_family(
    text: &str,
    k: u64,
    content: Option<&str>,
    cycle_index: bool,
) -> Result<pb::GroupCount, SolveError> {
    let limits = Limits::default();
    let (degree, generators) = parse_count_group_text(text, &limits)?;
    let content = match content {
        Some(c) => parse_content(c)?,
        None => Vec::new(),
    };
    let degree = u32::try_from(degree)
        .map_err(|_| SolveError::limit(format!("group degree {degree}"), u32::MAX))?;
    Ok(pb::GroupCount {
        degree,
        generators: generators
            .iter()
            .map(|g| pb::Permutation {
                images: g.images().to_vec(),
                cycles: String::new(),
            })
            .collect(),
        k,
        content,
        cycle_index,
    })
}
