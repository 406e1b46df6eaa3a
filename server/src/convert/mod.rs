//! Every conversion between protobuf messages and domain types: the dispatch over the job kinds
//! here, each kind's own conversions in its file (`game.rs`, `cop_thief.rs`, `group.rs`,
//! `count.rs`, `puzzle.rs`, `graph.rs`).
//!
//! proto → domain happens before validation: it only reshapes (and rejects what cannot be
//! reshaped, such as a job with no kind); the domain's `validate` then checks ranges and limits and
//! names fields the way the proto spells them (`game.edges[12]`). domain → proto shapes answers.
//!
//! Adding a job kind here: a file with `from_proto`, `result_to_proto` and `example`, its `mod`
//! line, and one arm in each match below.

pub mod cop_thief;
pub mod count;
pub mod game;
pub mod graph;
pub mod group;
pub mod puzzle;

use std::time::Duration;

use orbit_api::JobKind;
use orbit_api::v1 as pb;
use orbit_worker::job::{JobAnswer, JobSpec};
use orbit_worker::{Limits, SolveError};

pub use group::perm_from_proto;

/// A job as the server handles it: the caller's id and options, and the domain job.
#[derive(Debug, Clone)]
pub struct JobRequest {
    /// The caller's id, echoed on every event.
    pub id: String,
    /// What to solve.
    pub spec: JobSpec,
    /// `JobOptions.deadline_ms`, if non-zero.
    pub deadline: Option<Duration>,
    /// `JobOptions.progress`.
    pub progress: bool,
}

/// The kind of a converted job.
pub fn kind_of(spec: &JobSpec) -> JobKind {
    match spec {
        JobSpec::Game(_) => JobKind::Game,
        JobSpec::CopThief(_) => JobKind::CopThief,
        JobSpec::Group(_) => JobKind::Group,
        JobSpec::Count(_) => JobKind::Count,
        JobSpec::Puzzle(_) => JobKind::Puzzle,
        JobSpec::Graph(_) => JobKind::Graph,
    }
}

/// The name of a protobuf job's kind ([`JobKind::name`]), or
/// [`NO_KIND`](crate::metrics::NO_KIND) when the oneof is unset: for counting a job refused before
/// it converts.
pub fn kind_name(job: &pb::Job) -> &'static str {
    job.kind
        .as_ref()
        .map_or(crate::metrics::NO_KIND, |kind| JobKind::of_job(kind).name())
}

/// proto → domain for a whole job. `limits` bound what the conversion itself may allocate
/// (permutations are expanded from cycle notation to image arrays here).
///
/// # Errors
/// `InvalidArgument` naming the field for input that cannot be converted (no job kind, a malformed
/// permutation, ...); `LimitExceeded` before an allocation the limits do not allow.
pub fn job_from_proto(job: pb::Job, limits: &Limits) -> Result<JobRequest, SolveError> {
    use pb::job::Kind;
    let pb::Job { id, options, kind } = job;
    let options = options.unwrap_or_default();
    let spec = match kind {
        Some(Kind::Game(job)) => JobSpec::Game(game::from_proto(job, limits)?),
        Some(Kind::CopThief(job)) => JobSpec::CopThief(cop_thief::from_proto(job, limits)?),
        Some(Kind::Group(job)) => JobSpec::Group(group::from_proto(job, limits)?),
        Some(Kind::Count(job)) => JobSpec::Count(count::from_proto(job, limits)?),
        Some(Kind::Puzzle(job)) => JobSpec::Puzzle(puzzle::from_proto(job, limits)?),
        Some(Kind::Graph(job)) => JobSpec::Graph(graph::from_proto(job, limits)?),
        None => {
            return Err(SolveError::invalid(
                "kind",
                format!("no job kind set (expected one of: {})", JobKind::names()),
            ));
        }
    };
    Ok(JobRequest {
        id,
        spec,
        deadline: (options.deadline_ms > 0).then(|| Duration::from_millis(options.deadline_ms)),
        progress: options.progress,
    })
}

/// domain → proto for a finished job's answer.
pub fn result_to_proto(
    id: String,
    answer: JobAnswer,
    queue_wait: Duration,
    run_time: Duration,
) -> pb::JobResult {
    use pb::job_result::Result;
    let timing = Some(pb::JobTiming {
        queue_ms: queue_wait.as_secs_f64() * 1e3,
        run_ms: run_time.as_secs_f64() * 1e3,
    });
    let result = match answer {
        JobAnswer::Game(answer) => Result::Game(game::result_to_proto(answer)),
        JobAnswer::CopThief(answer) => Result::CopThief(cop_thief::result_to_proto(answer)),
        JobAnswer::Group(answer) => Result::Group(group::result_to_proto(answer)),
        JobAnswer::Count(answer) => Result::Count(count::result_to_proto(answer)),
        JobAnswer::Puzzle(answer) => Result::Puzzle(puzzle::result_to_proto(answer)),
        JobAnswer::Graph(answer) => Result::Graph(graph::result_to_proto(answer)),
    };
    pb::JobResult {
        id,
        timing,
        result: Some(result),
    }
}

/// The smallest valid job of `kind`, for tests (and fuzz seeds) that walk every kind.
pub fn example_job(kind: JobKind) -> pb::job::Kind {
    use pb::job::Kind;
    match kind {
        JobKind::Game => Kind::Game(game::example()),
        JobKind::CopThief => Kind::CopThief(cop_thief::example()),
        JobKind::Group => Kind::Group(group::example()),
        JobKind::Count => Kind::Count(count::example()),
        JobKind::Puzzle => Kind::Puzzle(puzzle::example()),
        JobKind::Graph => Kind::Graph(graph::example()),
    }
}

/// domain → proto for the limits `ServerInfo` reports.
pub fn limits_to_proto(limits: &Limits, max_message_bytes: usize) -> pb::Limits {
    pb::Limits {
        max_message_bytes: max_message_bytes as u64,
        max_vertices: limits.max_vertices,
        max_edges: limits.max_edges,
        max_states: limits.max_states,
        max_degree: limits.max_degree,
        max_group_elements: limits.max_group_elements,
        max_permutation_entries: limits.max_permutation_entries,
        max_job_memory: limits.max_job_memory,
        max_line: limits.max_line,
        max_reported_moves: limits.max_reported_moves,
        max_word_letters: limits.max_word_letters,
        max_puzzle_moves: limits.max_puzzle_moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For every kind of the registry: its example converts, to a spec of the same kind, whose
    /// worker name is the registry's name; `kind_name` (for jobs refused before conversion)
    /// agrees; and the worker lists the same kinds in the same order.
    #[test]
    fn every_kind_converts_to_its_own_spec() {
        for kind in JobKind::ALL {
            let job = pb::Job {
                id: "k".into(),
                options: None,
                kind: Some(example_job(kind)),
            };
            assert_eq!(kind_name(&job), kind.name());
            let request = job_from_proto(job, &Limits::default()).expect("valid job");
            assert_eq!(kind_of(&request.spec), kind);
            assert_eq!(request.spec.kind(), kind.name());
            request.spec.validate(&Limits::default()).expect("valid");
        }
        let names: Vec<&str> = JobKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(JobSpec::KINDS, names.as_slice());
        let no_kind = pb::Job {
            id: "none".into(),
            options: None,
            kind: None,
        };
        assert_eq!(kind_name(&no_kind), crate::metrics::NO_KIND);
    }
}
