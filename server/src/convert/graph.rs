//! The `graph` kind on the wire: `GraphJob` → [`GraphJob`], [`GraphAnswer`] → `GraphResult`;
//! and the graph a `count` job's `graph_colourings` family carries.

use orbit_api::v1 as pb;
use orbit_worker::graph::{GraphAnswer, GraphJob, MAX_GRAPH_EDGES, UndirectedGraph};
use orbit_worker::{Limits, SolveError};

/// proto → domain for a graph; `field` names it in errors (`graph`,
/// `count.graph_colourings.graph`). The edge count is checked against the graph kind's limit
/// before the edges are copied; the rest is the domain's `check`.
pub fn graph_from_proto(job: pb::GraphJob, field: &str) -> Result<UndirectedGraph, SolveError> {
    if job.edges.len() as u64 > MAX_GRAPH_EDGES {
        return Err(SolveError::limit(
            format!("the number of {field}.edges ({})", job.edges.len()),
            "graph_edges",
            MAX_GRAPH_EDGES,
        )
        .requested(job.edges.len()));
    }
    Ok(UndirectedGraph {
        vertices: job.vertices,
        edges: job.edges.iter().map(|e| (e.from, e.to)).collect(),
        colours: (!job.colours.is_empty()).then_some(job.colours),
    })
}

/// proto → domain for a graph job.
pub fn from_proto(job: pb::GraphJob, _limits: &Limits) -> Result<GraphJob, SolveError> {
    Ok(GraphJob {
        graph: graph_from_proto(job, "graph")?,
    })
}

/// domain → proto: order (decimal), orbits, generators (image arrays), canonical labels and the
/// certificate.
pub fn result_to_proto(answer: GraphAnswer) -> pb::GraphResult {
    pb::GraphResult {
        order: answer.order.to_string(),
        orbits: answer
            .orbits
            .into_iter()
            .map(|points| pb::PointOrbit { points })
            .collect(),
        generators: answer
            .generators
            .iter()
            .map(|g| pb::Permutation {
                images: g.images().to_vec(),
                cycles: String::new(),
            })
            .collect(),
        canonical_labels: answer.canonical_labels,
        canonical_edges: answer
            .canonical_form
            .edges
            .iter()
            .map(|&(from, to)| pb::Edge { from, to })
            .collect(),
        canonical_colours: answer.canonical_form.colours,
    }
}

/// The smallest valid job of the kind, for tests that walk every kind: a path on three vertices.
pub fn example() -> pb::GraphJob {
    pb::GraphJob {
        vertices: 3,
        edges: vec![pb::Edge { from: 0, to: 1 }, pb::Edge { from: 1, to: 2 }],
        colours: Vec::new(),
    }
}
