//! The `count` kind on the wire: `CountJob` → [`CountProblem`], [`CountAnswer`] → `CountResult`.

use num_bigint::BigUint;
use orbit_api::v1 as pb;
use orbit_worker::counting::{CountAnswer, CountKind, CountProblem, CubePart};
use orbit_worker::group::check_group_sizes;
use orbit_worker::{Limits, SolveError};

use super::graph::graph_from_proto;
use super::group::perms_from_proto;

/// proto → domain: the family, its parameters and the optional decimal modulus. A group family's
/// permutations are checked against the limits before they are expanded.
pub fn from_proto(count: pb::CountJob, limits: &Limits) -> Result<CountProblem, SolveError> {
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
        Some(Family::GraphColourings(f)) => {
            let graph = f.graph.ok_or_else(|| {
                SolveError::invalid("count.graph_colourings.graph", "missing: set the graph")
            })?;
            CountKind::GraphColourings {
                graph: graph_from_proto(graph, "count.graph_colourings.graph")?,
                edges: f.edges,
                k: f.k,
                content: (!f.content.is_empty()).then_some(f.content),
                cycle_index: f.cycle_index,
            }
        }
        None => {
            return Err(SolveError::invalid(
                "count.family",
                "no family set (one of necklace, bracelet, torus, cube, graphs, binary_tree, group, graph_colourings)",
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

/// domain → proto: the count and modulus in decimal, and the cycle index if it was asked for.
pub fn result_to_proto(answer: CountAnswer) -> pb::CountResult {
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

/// The smallest valid job of the kind, for tests that walk every kind.
pub fn example() -> pb::CountJob {
    pb::CountJob {
        family: Some(pb::count_job::Family::Necklace(pb::NecklaceCount {
            n: 3,
            k: 2,
        })),
        modulus: String::new(),
    }
}
