//! The `graph` kind on the wire: `GraphJob` → [`GraphJob`], [`GraphAnswer`] → `GraphResult`;
//! and the graph a `count` job's `graph_colourings` family carries.

use orbit_api::v1 as pb;
use orbit_worker::graph::{
    GraphAnswer, GraphJob, MAX_DENSE_VERTICES, MAX_GRAPH_EDGES, SparsePermutation, UndirectedGraph,
};
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

/// Most image-array entries a graph answer carries (16 Mi points, 64 MiB): above, generators go
/// as cycles even for graphs within the dense range.
const MAX_IMAGE_ENTRIES: u64 = 1 << 24;

/// A generator on the wire: its image array when the graph has at most [`MAX_DENSE_VERTICES`]
/// vertices and the arrays of all generators stay within [`MAX_IMAGE_ENTRIES`] points (what
/// clients have always read); GAP's cycle notation (1-based, moved points only) otherwise, so a
/// tree's many generators stay proportional to their supports.
fn generator_to_proto(g: &SparsePermutation, n: usize, as_images: bool) -> pb::Permutation {
    if as_images {
        pb::Permutation {
            images: g.images(n),
            cycles: String::new(),
        }
    } else {
        pb::Permutation {
            images: Vec::new(),
            cycles: g.to_string(),
        }
    }
}

/// domain → proto: order (decimal), orbits, generators (image arrays up to
/// [`MAX_DENSE_VERTICES`] vertices, cycles above), canonical labels and the certificate.
pub fn result_to_proto(answer: GraphAnswer) -> pb::GraphResult {
    let n = answer.canonical_labels.len();
    let as_images = n as u64 <= MAX_DENSE_VERTICES
        && (n as u64).saturating_mul(answer.generators.len() as u64) <= MAX_IMAGE_ENTRIES;
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
            .map(|g| generator_to_proto(g, n, as_images))
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
