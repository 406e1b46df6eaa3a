//! What Orbit's fuzz targets check, shared by the targets in `fuzz_targets/`.
//!
//! The property is the service's contract for bad input: whatever a caller sends, the server's
//! conversion and validation (the very functions `Solve` and `SolveStream` call) either accept the
//! job or refuse it with INVALID_ARGUMENT naming a field or RESOURCE_EXHAUSTED stating a limit, and
//! an accepted job, when small enough to run in a fuzzing loop, is solved (or refused by the solver
//! with a typed error) and its answer converted back to protobuf — never a panic, a hang or an
//! allocation beyond libFuzzer's `-malloc_limit_mb`. For the CLI's text formats, the parser either
//! gives a job or an error naming the line.
//!
//! A broken property is a panic here, which libFuzzer reports as a crash with the input.

pub mod inputs;

use std::time::Duration;

use orbit_api::v1 as pb;
use orbit_server::admission::accept;
use orbit_server::convert::{self, JobRequest};
use orbit_server::error::ServiceError;
use orbit_worker::cop_thief::CopThiefJob;
use orbit_worker::counting::{CountKind, CountProblem};
use orbit_worker::game::GameJob;
use orbit_worker::job::JobSpec;
use orbit_worker::{Limits, SolveContext, SolveError};
use prost::Message;
use tonic::{Code, Status};

/// The limits a fresh `orbit-server` validates with (its flags' defaults).
pub fn server_limits() -> Limits {
    Limits::default()
}

/// The limits a solver run gets in the fuzzer: the server's defaults, except that a counting job
/// may enumerate at most 20,000 group elements, so that one run stays well under a second (the
/// limit's error path is exercised instead of a long enumeration).
pub fn run_limits() -> Limits {
    Limits {
        max_group_elements: 20_000,
        ..Limits::default()
    }
}

/// Runs `job` through the server's acceptance (proto → domain, validation against the default
/// limits); if accepted and [`is_small`], through the solver and back to protobuf. Panics only when
/// the contract is broken.
pub fn check_job(job: pb::Job) {
    let request = match accept(job, &server_limits()) {
        Ok(request) => request,
        Err((_, refusal)) => {
            check_refusal(&refusal);
            return;
        }
    };
    check_accepted(request);
}

/// Like [`check_job`] for a job built from a CLI text format the parser accepted: the server may
/// refuse it only for a size limit (what the CLI's parser accepts must be well-formed), except for
/// the fields named by `flag_fields` prefixes, which come from command-line flags the parser does
/// not check (e.g. `count.k`).
pub fn check_parsed_job(job: pb::Job, flag_fields: &[&str]) {
    let request = match accept(job, &server_limits()) {
        Ok(request) => request,
        Err((_, refusal)) => {
            check_refusal(&refusal);
            if let ServiceError::Solve(SolveError::InvalidArgument { field, reason }) = &refusal {
                assert!(
                    flag_fields.iter().any(|prefix| field.starts_with(prefix)),
                    "the CLI's parser accepted the text but the server refused it: {field}: {reason}"
                );
            }
            return;
        }
    };
    check_accepted(request);
}

/// A CLI parser's refusal must say where: `line N ...` (or `lines A-B` for a grid as a whole),
/// or name the flag (`count.content[i]`); or be a size limit.
pub fn check_text_error(error: &SolveError) {
    match error {
        SolveError::InvalidArgument { field, reason } => {
            assert!(
                field.starts_with("line ")
                    || field.starts_with("lines ")
                    || field.starts_with("count.content"),
                "a text-format error must name the line: {field}: {reason}"
            );
            assert!(!reason.is_empty(), "empty reason for {field}");
        }
        SolveError::LimitExceeded { what, limit, .. } => {
            assert!(!what.is_empty() && !limit.is_empty(), "unclear limit error");
        }
        SolveError::Cancelled | SolveError::Panicked(_) => {
            panic!("a parser returned {error:?}")
        }
    }
}

/// A refusal before queueing is INVALID_ARGUMENT naming a field, or RESOURCE_EXHAUSTED stating a
/// limit, and converts to a gRPC status carrying the same message.
fn check_refusal(refusal: &ServiceError) {
    match refusal {
        ServiceError::Solve(SolveError::InvalidArgument { field, reason }) => {
            assert!(
                !field.is_empty(),
                "INVALID_ARGUMENT without a field: {reason}"
            );
            assert!(
                !reason.is_empty(),
                "INVALID_ARGUMENT without a reason: {field}"
            );
        }
        ServiceError::Solve(SolveError::LimitExceeded { what, limit, .. }) => {
            assert!(!what.is_empty() && !limit.is_empty(), "unclear limit error");
        }
        other => panic!("validation refused a job with {other:?}"),
    }
    let status = Status::from(refusal.clone());
    assert!(
        matches!(
            status.code(),
            Code::InvalidArgument | Code::ResourceExhausted
        ),
        "{status:?}"
    );
    assert_eq!(status.message(), refusal.to_string());
}

/// Solves an accepted job if it is small, then shapes the answer as the server sends it.
fn check_accepted(request: JobRequest) {
    if !is_small(&request.spec) {
        return;
    }
    let JobRequest { id, spec, .. } = request;
    match spec.run(&SolveContext::detached(), &run_limits()) {
        Ok(answer) => {
            let result = convert::result_to_proto(id, answer, Duration::ZERO, Duration::ZERO);
            let _ = result.encode_to_vec();
        }
        Err(SolveError::InvalidArgument { .. } | SolveError::LimitExceeded { .. }) => {}
        Err(e) => panic!("solver failed an accepted job with {e:?}"),
    }
}

/// Whether an accepted job is small enough to solve inside the fuzzing loop (a fraction of a
/// second). The server's limits admit jobs that legitimately take minutes; those are checked for
/// acceptance only.
pub fn is_small(spec: &JobSpec) -> bool {
    match spec {
        JobSpec::Game(GameJob { graph, .. }) => {
            graph.vertices <= 10_000 && graph.edges.len() <= 100_000
        }
        JobSpec::CopThief(CopThiefJob { grid, .. }) => grid.states() <= 2_000_000,
        // Deterministic Schreier-Sims completion on a large intransitive group of degree 170
        // takes 0.5 s unoptimised and 20 times that under the fuzzer's instrumentation.
        JobSpec::Group(problem) => problem.degree <= 48,
        JobSpec::Count(problem) => count_is_small(problem),
        // Move sequences grow polynomially faster than the verdicts: a smaller graph.
        JobSpec::Puzzle(job) => job.problem.n <= if job.moves { 1_000 } else { 10_000 },
        // The search is exponential in the worst case (Miyazaki's graphs): small graphs only.
        JobSpec::Graph(job) => job.graph.vertices <= 200 && job.graph.edges.len() <= 2_000,
    }
}

/// Bits of `k^e`, roughly.
fn power_bits(k: u64, e: u64) -> f64 {
    (k.max(1) as f64).log2() * e as f64
}

fn count_is_small(problem: &CountProblem) -> bool {
    const SMALL_ANSWER_BITS: f64 = 65_536.0;
    let modular = problem.modulus.is_some();
    if problem.modulus.as_ref().is_some_and(|m| m.bits() > 256) {
        return false;
    }
    let small_answer = |k: u64, points: u64| modular || power_bits(k, points) <= SMALL_ANSWER_BITS;
    match &problem.kind {
        CountKind::Necklace { n, k } | CountKind::Bracelet { n, k } => small_answer(*k, *n),
        CountKind::Torus { rows, cols, k, .. } => {
            *rows <= 1_000_000 && *cols <= 1_000_000 && small_answer(*k, rows.saturating_mul(*cols))
        }
        CountKind::Cube { .. } => true,
        CountKind::Graphs { n } => *n <= 40,
        CountKind::BinaryTree { depth, k } => {
            *depth <= 1_000 && (modular || (*depth <= 20 && small_answer(*k, 1 << (depth + 1))))
        }
        CountKind::Group {
            degree, content, k, ..
        } => {
            let colours = content.as_ref().map_or(*k, |c| c.len() as u64);
            *degree <= 32 && small_answer(colours, *degree as u64)
        }
        CountKind::GraphColourings {
            graph,
            edges,
            k,
            content,
            ..
        } => {
            let colours = content.as_ref().map_or(*k, |c| c.len() as u64);
            let points = if *edges {
                graph.edges.len() as u64
            } else {
                u64::from(graph.vertices)
            };
            graph.vertices <= 200 && graph.edges.len() <= 2_000 && small_answer(colours, points)
        }
    }
}

/// A job with id `fuzz`, no options, of the given kind.
pub fn job(kind: pb::job::Kind) -> pb::Job {
    pb::Job {
        id: "fuzz".to_string(),
        options: None,
        kind: Some(kind),
    }
}
