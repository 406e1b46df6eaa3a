//! Every conversion between protobuf messages and domain types, in one place.
//!
//! proto → domain happens before validation: it only reshapes (and rejects what cannot be
//! reshaped, such as a job with no kind); the domain's `validate` then checks ranges and limits and
//! names fields the way the proto spells them (`game.edges[12]`). domain → proto shapes answers.

use std::time::Duration;

use num_bigint::BigUint;
use orbit_api::v1 as pb;
use orbit_worker::counting::{CountAnswer, CountKind, CountProblem, CubePart};
use orbit_worker::game::{
    Cell, CopThiefValue, GameGraph, GameSolution, Grid, NO_DEPTH, NO_MOVE, Outcome,
};
use orbit_worker::group::{GroupAnswer, GroupKind, GroupProblem, Perm, check_group_sizes};
use orbit_worker::job::{CopThiefQuery, JobAnswer, JobSpec};
use orbit_worker::puzzle::PuzzleProblem;
use orbit_worker::{Limits, SolveError};

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

/// The name of a protobuf job's kind, as `JobSpec::kind` names it, or
/// [`NO_KIND`](crate::metrics::NO_KIND) when the oneof is unset: for counting a job refused before
/// it converts.
pub fn kind_name(job: &pb::Job) -> &'static str {
    match &job.kind {
        Some(pb::job::Kind::Game(_)) => "game",
        Some(pb::job::Kind::CopThief(_)) => "cop_thief",
        Some(pb::job::Kind::Group(_)) => "group",
        Some(pb::job::Kind::Count(_)) => "count",
        Some(pb::job::Kind::Puzzle(_)) => "puzzle",
        None => crate::metrics::NO_KIND,
    }
}

/// proto → domain for a whole job. `limits` bound what the conversion itself may allocate
/// (permutations are expanded from cycle notation to image arrays here).
///
/// # Errors
/// `InvalidArgument` naming the field for input that cannot be converted (no job kind, a malformed
/// permutation, ...); `LimitExceeded` before an allocation the limits do not allow.
pub fn job_from_proto(job: pb::Job, limits: &Limits) -> Result<JobRequest, SolveError> {
    let pb::Job { id, options, kind } = job;
    let options = options.unwrap_or_default();
    let spec = match kind {
        Some(pb::job::Kind::Game(game)) => game_from_proto(game),
        Some(pb::job::Kind::CopThief(job)) => JobSpec::CopThief {
            grid: Grid::from_rows(&job.rows)?,
            queries: job
                .queries
                .iter()
                .enumerate()
                .map(|(i, q)| cop_thief_query_from_proto(q, i))
                .collect::<Result<_, _>>()?,
        },
        Some(pb::job::Kind::Group(group)) => JobSpec::Group(group_from_proto(group, limits)?),
        Some(pb::job::Kind::Count(count)) => JobSpec::Count(count_from_proto(count, limits)?),
        Some(pb::job::Kind::Puzzle(puzzle)) => JobSpec::Puzzle(puzzle_from_proto(puzzle)?),
        None => {
            return Err(SolveError::invalid(
                "kind",
                format!(
                    "no job kind set (expected one of: {})",
                    JobSpec::KINDS.join(", ")
                ),
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

fn game_from_proto(game: pb::GameGraphJob) -> JobSpec {
    let graph = GameGraph {
        vertices: game.vertices,
        edges: game.edges.iter().map(|e| (e.from, e.to)).collect(),
    };
    JobSpec::Game {
        graph,
        query: game.query,
    }
}

/// proto → domain for one permutation of `degree` points; `field` names it in errors
/// (`group.generators[2]`). Exactly one of `images` (0-based) and `cycles` (GAP notation, 1-based)
/// must be set; `()` is the identity.
pub fn perm_from_proto(
    p: &pb::Permutation,
    degree: usize,
    field: &str,
) -> Result<Perm, SolveError> {
    match (p.images.is_empty(), p.cycles.trim().is_empty()) {
        (false, false) => Err(SolveError::invalid(
            field,
            "set exactly one of images and cycles, not both",
        )),
        (true, true) if degree > 0 => Err(SolveError::invalid(
            field,
            "empty permutation: set images (0-based) or cycles (1-based; \"()\" is the identity)",
        )),
        (true, true) => Ok(Perm::identity(0)),
        (true, false) => Perm::parse_cycles(&p.cycles, degree)
            .map_err(|e| e.into_solve_error(&format!("{field}.cycles"))),
        (false, true) => {
            if p.images.len() != degree {
                return Err(SolveError::invalid(
                    format!("{field}.images"),
                    format!(
                        "has {} images, expected the degree {degree}",
                        p.images.len()
                    ),
                ));
            }
            Perm::from_images(p.images.clone(), &format!("{field}.images"))
        }
    }
}

/// proto → domain for a list of permutations, after checking that `count x degree` entries fit
/// the limits (each permutation becomes a `degree`-long image array, whatever its input size).
fn perms_from_proto(
    perms: &[pb::Permutation],
    degree: usize,
    field: &str,
) -> Result<Vec<Perm>, SolveError> {
    perms
        .iter()
        .enumerate()
        .map(|(i, p)| perm_from_proto(p, degree, &format!("{field}[{i}]")))
        .collect()
}

fn group_from_proto(group: pb::GroupJob, limits: &Limits) -> Result<GroupProblem, SolveError> {
    let degree = group.degree as usize;
    check_group_sizes(
        degree as u64,
        (group.generators.len() + group.candidates.len()) as u64,
        limits,
    )?;
    Ok(GroupProblem {
        degree,
        generators: perms_from_proto(&group.generators, degree, "group.generators")?,
        candidates: perms_from_proto(&group.candidates, degree, "group.candidates")?,
    })
}

fn count_from_proto(count: pb::CountJob, limits: &Limits) -> Result<CountProblem, SolveError> {
    use pb::count_job::Family;
    let kind = match count.family {
        Some(Family::Necklace(f)) => CountKind::Necklace { n: f.n, k: f.k },
        Some(Family::Bracelet(f)) => CountKind::Bracelet { n: f.n, k: f.k },
        Some(Family::Torus(f)) => CountKind::Torus {
            rows: f.rows,
            cols: f.cols,
            k: f.k,
            rotation: !f.no_rotation,
        },
        Some(Family::Cube(f)) => {
            let part = match pb::CubePart::try_from(f.part) {
                Ok(pb::CubePart::Faces) => CubePart::Faces,
                Ok(pb::CubePart::Vertices) => CubePart::Vertices,
                Ok(pb::CubePart::Edges) => CubePart::Edges,
                Ok(pb::CubePart::Unspecified) | Err(_) => {
                    return Err(SolveError::invalid(
                        "count.cube.part",
                        "set one of FACES, VERTICES, EDGES",
                    ));
                }
            };
            CountKind::Cube { part, k: f.k }
        }
        Some(Family::Graphs(f)) => CountKind::Graphs { n: f.n },
        Some(Family::BinaryTree(f)) => CountKind::BinaryTree {
            depth: f.depth,
            k: f.k,
        },
        Some(Family::Group(f)) => {
            let degree = f.degree as usize;
            check_group_sizes(degree as u64, f.generators.len() as u64, limits)?;
            CountKind::Group {
                degree,
                generators: perms_from_proto(&f.generators, degree, "count.group.generators")?,
                k: f.k,
                content: (!f.content.is_empty()).then_some(f.content),
                cycle_index: f.cycle_index,
            }
        }
        None => {
            return Err(SolveError::invalid(
                "count.family",
                "no family set (one of necklace, bracelet, torus, cube, graphs, binary_tree, group)",
            ));
        }
    };
    let mut problem = CountProblem::new(kind);
    let modulus = count.modulus.trim();
    if !modulus.is_empty() {
        let m: BigUint = modulus.parse().map_err(|_| {
            SolveError::invalid(
                "count.modulus",
                format!("`{modulus}` is not a decimal integer"),
            )
        })?;
        problem = problem.with_modulus(m);
    }
    Ok(problem)
}

fn puzzle_from_proto(puzzle: pb::PuzzleJob) -> Result<PuzzleProblem, SolveError> {
    let pb::PuzzleJob {
        n,
        edges,
        start,
        targets,
        targets_packed,
    } = puzzle;
    let targets = if targets_packed.is_empty() {
        targets.into_iter().map(|a| a.tokens).collect()
    } else {
        if !targets.is_empty() {
            return Err(SolveError::invalid(
                "puzzle.targets_packed",
                "set either targets or targets_packed, not both",
            ));
        }
        let target_bytes = 4 * n as usize;
        if n == 0 || targets_packed.len() % target_bytes != 0 {
            return Err(SolveError::invalid(
                "puzzle.targets_packed",
                format!(
                    "holds {} bytes, not a multiple of 4n = {target_bytes} (n tokens of 4 bytes per target)",
                    targets_packed.len()
                ),
            ));
        }
        targets_packed
            .chunks_exact(target_bytes)
            .map(|target| {
                target
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            })
            .collect()
    };
    Ok(PuzzleProblem {
        n,
        edges: edges.iter().map(|e| (e.from, e.to)).collect(),
        start: start.map(|a| a.tokens).unwrap_or_default(),
        targets,
    })
}

/// domain → proto for a finished job's answer.
pub fn result_to_proto(
    id: String,
    answer: JobAnswer,
    queue_wait: Duration,
    run_time: Duration,
) -> pb::JobResult {
    let timing = Some(pb::JobTiming {
        queue_ms: queue_wait.as_secs_f64() * 1e3,
        run_ms: run_time.as_secs_f64() * 1e3,
    });
    let result = match answer {
        JobAnswer::Game { solution, query } => {
            pb::job_result::Result::Game(game_result_to_proto(&solution, &query))
        }
        JobAnswer::Group(answer) => pb::job_result::Result::Group(group_result_to_proto(answer)),
        JobAnswer::Count(answer) => pb::job_result::Result::Count(count_result_to_proto(answer)),
        JobAnswer::Puzzle(reachable) => {
            pb::job_result::Result::Puzzle(pb::PuzzleResult { reachable })
        }
        JobAnswer::CopThief { value, queries } => {
            pb::job_result::Result::CopThief(cop_thief_to_proto(value, &queries))
        }
    };
    pb::JobResult {
        id,
        timing,
        result: Some(result),
    }
}

fn game_result_to_proto(solution: &GameSolution, query: &[u32]) -> pb::GameGraphResult {
    let one = |v: u32| {
        let i = v as usize;
        let depth = solution.depth[i];
        let best = solution.best_move[i];
        pb::VertexOutcome {
            vertex: v,
            outcome: outcome_to_proto(solution.outcome[i]) as i32,
            depth: (depth != NO_DEPTH).then_some(depth),
            best_move: (best != NO_MOVE).then_some(best),
        }
    };
    let vertices = if query.is_empty() {
        (0..solution.len() as u32).map(one).collect()
    } else {
        query.iter().copied().map(one).collect()
    };
    let count = |o: Outcome| solution.outcome.iter().filter(|&&x| x == o).count() as u64;
    pb::GameGraphResult {
        vertices,
        wins: count(Outcome::Win),
        losses: count(Outcome::Lose),
        draws: count(Outcome::Draw),
    }
}

fn group_result_to_proto(answer: GroupAnswer) -> pb::GroupResult {
    let kind = match answer.kind {
        GroupKind::Trivial => pb::GroupKind::Trivial,
        GroupKind::Symmetric => pb::GroupKind::Symmetric,
        GroupKind::Alternating => pb::GroupKind::Alternating,
        GroupKind::General => pb::GroupKind::General,
    };
    pb::GroupResult {
        order: answer.order.to_string(),
        base: answer.base,
        orbits: answer
            .orbits
            .into_iter()
            .map(|mut points| {
                // The contract promises ascending points.
                points.sort_unstable();
                pb::PointOrbit { points }
            })
            .collect(),
        members: answer.members,
        kind: kind as i32,
    }
}

fn count_result_to_proto(answer: CountAnswer) -> pb::CountResult {
    let cycle_index = answer
        .cycle_index
        .map(|ci| {
            ci.terms
                .iter()
                .map(|t| pb::CycleIndexTerm {
                    coefficient: t.coefficient.to_string(),
                    cycle_type: t
                        .cycle_type
                        .parts()
                        .iter()
                        .map(|&(length, count)| pb::CyclePart { length, count })
                        .collect(),
                })
                .collect()
        })
        .unwrap_or_default();
    pb::CountResult {
        count: answer.count.to_string(),
        modulus: answer.modulus.map(|m| m.to_string()).unwrap_or_default(),
        cycle_index,
    }
}

/// domain → proto for a policeman-and-thief answer.
fn cop_thief_to_proto(
    value: CopThiefValue,
    queries: &[(CopThiefQuery, CopThiefValue, Option<Cell>)],
) -> pb::CopThiefResult {
    let (winner, half_moves) = winner_to_proto(value);
    let queries = queries
        .iter()
        .map(|&(q, value, best)| {
            let (winner, half_moves) = winner_to_proto(value);
            pb::CopThiefStateResult {
                state: Some(pb::CopThiefState {
                    cop: Some(cell_to_proto(q.cop)),
                    thief: Some(cell_to_proto(q.thief)),
                    thief_to_move: !q.cop_to_move,
                }),
                winner: winner as i32,
                half_moves,
                best_move: best.map(cell_to_proto),
            }
        })
        .collect();
    pb::CopThiefResult {
        winner: winner as i32,
        half_moves,
        queries,
    }
}

fn winner_to_proto(value: CopThiefValue) -> (pb::Winner, Option<u32>) {
    match value {
        CopThiefValue::Cop(n) => (pb::Winner::Cop, Some(n)),
        CopThiefValue::Thief(n) => (pb::Winner::Thief, Some(n)),
        CopThiefValue::Draw => (pb::Winner::Draw, None),
    }
}

fn cell_to_proto((row, col): Cell) -> pb::GridCell {
    pb::GridCell {
        row: row as u32,
        col: col as u32,
    }
}

/// proto → domain for one queried state; a missing cell is an error naming it.
fn cop_thief_query_from_proto(
    q: &pb::CopThiefState,
    i: usize,
) -> Result<CopThiefQuery, SolveError> {
    let cell = |c: &Option<pb::GridCell>, who: &str| {
        c.as_ref()
            .map(|c| (c.row as usize, c.col as usize))
            .ok_or_else(|| SolveError::invalid(format!("cop_thief.queries[{i}].{who}"), "missing"))
    };
    Ok(CopThiefQuery {
        cop: cell(&q.cop, "cop")?,
        thief: cell(&q.thief, "thief")?,
        cop_to_move: !q.thief_to_move,
    })
}

fn outcome_to_proto(o: Outcome) -> pb::Outcome {
    match o {
        Outcome::Win => pb::Outcome::Win,
        Outcome::Lose => pb::Outcome::Lose,
        Outcome::Draw => pb::Outcome::Draw,
    }
}

/// domain → proto for the limits `ServerInfo` reports.
pub fn limits_to_proto(limits: &orbit_worker::Limits, max_message_bytes: usize) -> pb::Limits {
    pb::Limits {
        max_message_bytes: max_message_bytes as u64,
        max_vertices: limits.max_vertices,
        max_edges: limits.max_edges,
        max_states: limits.max_states,
        max_degree: limits.max_degree,
        max_group_elements: limits.max_group_elements,
        max_permutation_entries: limits.max_permutation_entries,
        max_job_memory: limits.max_job_memory,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kind_name` (for jobs refused before conversion) and `JobSpec::kind` (for converted jobs)
    /// label the same kind alike in the metrics, and every kind `ServerInfo` lists is covered.
    #[test]
    fn kind_names_match_the_converted_kinds() {
        let kinds = [
            pb::job::Kind::Game(pb::GameGraphJob {
                vertices: 1,
                edges: vec![],
                query: vec![],
            }),
            pb::job::Kind::CopThief(pb::CopThiefJob {
                rows: vec!["CT".into()],
                queries: vec![],
            }),
            pb::job::Kind::Group(pb::GroupJob {
                degree: 2,
                generators: vec![],
                candidates: vec![],
            }),
            pb::job::Kind::Count(pb::CountJob {
                family: Some(pb::count_job::Family::Necklace(pb::NecklaceCount {
                    n: 3,
                    k: 2,
                })),
                modulus: String::new(),
            }),
            pb::job::Kind::Puzzle(pb::PuzzleJob {
                n: 1,
                edges: vec![],
                start: Some(pb::Arrangement { tokens: vec![0] }),
                targets: vec![],
                targets_packed: vec![],
            }),
        ];
        let mut named = Vec::new();
        for kind in kinds {
            let job = pb::Job {
                id: "k".into(),
                options: None,
                kind: Some(kind),
            };
            let name = kind_name(&job);
            let request = job_from_proto(job, &Limits::default()).expect("valid job");
            assert_eq!(name, request.spec.kind());
            named.push(name);
        }
        named.sort_unstable();
        let mut listed = JobSpec::KINDS.to_vec();
        listed.sort_unstable();
        assert_eq!(named, listed);
        let no_kind = pb::Job {
            id: "none".into(),
            options: None,
            kind: None,
        };
        assert_eq!(kind_name(&no_kind), crate::metrics::NO_KIND);
    }
}
