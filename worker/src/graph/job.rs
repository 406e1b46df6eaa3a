//! The graph job as the server and the CLI see it: a graph, and its automorphism group (order,
//! orbits, generators) and canonical labelling.

use num_bigint::BigUint;

use super::canonical_form::{CanonicalForm, canonical_labels};
use super::dense_search::{MAX_DENSE_VERTICES, dense_search, dense_search_bytes, generator_bytes};
use super::search_order::order_from_search;
use super::sparse_permutation::SparsePermutation;
use super::sparse_search::{sparse_search, sparse_search_bytes};
use super::undirected_graph::UndirectedGraph;
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{Perm, orbits_of};
use crate::limits::Limits;
use crate::memory::SMALL_ALLOCATIONS;

/// Most bytes the generators of one graph's automorphism group may take (within
/// `max_job_memory`): 256 MiB.
pub const MAX_GENERATOR_BYTES: u64 = 256 << 20;

/// A graph job: the automorphism group and canonical labelling of an undirected graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphJob {
    /// The graph (optionally vertex-coloured).
    pub graph: UndirectedGraph,
}

/// The answer to a [`GraphJob`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphAnswer {
    /// The exact order of the automorphism group.
    pub order: BigUint,
    /// The orbits of the group on the vertices, each sorted, ordered by their least vertex.
    pub orbits: Vec<Vec<u32>>,
    /// Generators of the group, sparse (their moved points only; none for the trivial group).
    pub generators: Vec<SparsePermutation>,
    /// `canonical_labels[v]` is vertex `v`'s position in the canonical labelling (stable within
    /// a release of Orbit, not across releases).
    pub canonical_labels: Vec<u32>,
    /// The graph relabelled canonically: the certificate (equal for isomorphic graphs only).
    pub canonical_form: CanonicalForm,
}

/// The generators' budget of a graph of `n` vertices: at most `n - 1` generators (a search
/// reports at most one per level of the tree), within [`MAX_GENERATOR_BYTES`].
fn generator_budget(n: u64) -> u64 {
    n.saturating_sub(1)
        .saturating_mul(generator_bytes(n))
        .min(MAX_GENERATOR_BYTES)
}

/// Graphs the sparse search takes: more vertices than the dense search's bit matrix holds, or
/// more than [`SPARSE_FROM_VERTICES`] vertices with an average degree of at most
/// [`SPARSE_MAX_AVERAGE_DEGREE`] (where the bit matrix's `O(n^2)` refinement loses).
pub fn uses_sparse_search(n: u64, m: u64) -> bool {
    n > MAX_DENSE_VERTICES
        || (n > SPARSE_FROM_VERTICES && m.saturating_mul(2) <= n * SPARSE_MAX_AVERAGE_DEGREE)
}

/// Vertices above which a sparse graph goes to the sparse search (see [`uses_sparse_search`]).
pub const SPARSE_FROM_VERTICES: u64 = 64;

/// Average degree at most which a graph counts as sparse (see [`uses_sparse_search`]).
pub const SPARSE_MAX_AVERAGE_DEGREE: u64 = 16;

/// The sparse search's generators' budget, charged by
/// [`sparse_generator_bytes`](super::sparse_search::sparse_generator_bytes) as they are
/// found: 256 bytes per vertex (16 moved points per vertex over all generators; at least 1
/// MiB), within [`MAX_GENERATOR_BYTES`]. The search keeps only generators that join orbits, so
/// at most `n - 1` of them, but their supports have no bound below `n` each: the budget is a
/// policy, charged in full by the memory estimate (a grid's reflections take about 3 moved
/// points per vertex, a Cai–Fürer–Immerman graph's about 25 at 2,000 vertices).
fn sparse_generator_budget(n: u64) -> u64 {
    n.saturating_mul(256).clamp(1 << 20, MAX_GENERATOR_BYTES)
}

/// The parts of [`graph_memory_estimate`] for the sparse search: the search
/// ([`sparse_search_bytes`]), the generators' budget, the orbits (`24n`) and the answer (labels,
/// canonical form and their protobuf copies: `48n + 24m`).
fn sparse_fixed_bytes(n: u64, m: u64) -> u64 {
    sparse_search_bytes(n, m)
        .saturating_add(sparse_generator_budget(n))
        .saturating_add(n.saturating_mul(24 + 48))
        .saturating_add(m.saturating_mul(24))
        .saturating_add(SMALL_ALLOCATIONS)
}

/// The parts of [`graph_memory_estimate`]: the search, the generators' budget, the union-find
/// and orbits (`24n`), and the answer (labels, canonical form and their protobuf copies: `48n +
/// 24m`).
fn fixed_bytes(n: u64, m: u64) -> u64 {
    dense_search_bytes(n)
        .saturating_add(generator_budget(n))
        .saturating_add(n.saturating_mul(24 + 48))
        .saturating_add(m.saturating_mul(24))
        .saturating_add(SMALL_ALLOCATIONS)
}

/// Upper bound on the bytes [`solve_graph`] allocates. Dense search: the bit matrices
/// ([`dense_search_bytes`]), the generators (at most `n - 1` of `8n` bytes each, capped by
/// [`MAX_GENERATOR_BYTES`] and charged as they are found). Sparse search (see
/// [`uses_sparse_search`]): `O(n + m)` ([`sparse_search_bytes`]) and the generators charged by
/// their supports (256 bytes per vertex at most). Both: the orbits and the answer.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::graph::{GraphJob, UndirectedGraph, graph_memory_estimate};
/// let job = GraphJob { graph: UndirectedGraph { vertices: 1_000, edges: vec![], colours: None } };
/// assert!(graph_memory_estimate(&job, &Limits::default()) < 2 << 30);
/// ```
pub fn graph_memory_estimate(job: &GraphJob, _limits: &Limits) -> u64 {
    let (n, m) = (u64::from(job.graph.vertices), job.graph.edges.len() as u64);
    if uses_sparse_search(n, m) {
        sparse_fixed_bytes(n, m)
    } else {
        fixed_bytes(n, m)
    }
}

/// Checks a graph job before it is queued: a simple graph within the graph kind's limits.
///
/// # Errors
/// As [`UndirectedGraph::check`] with the field `graph`. (Graphs of more than
/// [`MAX_DENSE_VERTICES`] vertices go to the sparse search whatever their density; the dense
/// search's limit `graph_dense_vertices` is never reached from a job.)
pub fn validate_graph_job(job: &GraphJob) -> Result<(), SolveError> {
    job.graph.check("graph")
}

/// The automorphism group of a graph (generators, exact order from them as a strong generating
/// set, orbits by the group engine's orbit algorithm) and its canonical labelling and form.
///
/// # Arguments
/// `job` (checked by [`validate_graph_job`]), `ctx` (cancellation), `limits` (`max_job_memory`
/// bounds the generators' budget).
///
/// # Errors
/// [`SolveError::Cancelled`]; [`SolveError::LimitExceeded`] when the generators or the
/// stabiliser chain outgrow their budgets.
///
/// Complexity: the search (see [`dense_search`]), then O(k · n) for k generators.
///
/// ```
/// use orbit_worker::{Limits, SolveContext};
/// use orbit_worker::graph::{GraphJob, parse_graph_text, solve_graph};
/// // The 5-cycle: the dihedral group of order 10.
/// let graph = parse_graph_text("5 5\n1 2\n2 3\n3 4\n4 5\n5 1\n").unwrap();
/// let answer = solve_graph(&GraphJob { graph }, &SolveContext::detached(), &Limits::default()).unwrap();
/// assert_eq!(answer.order.to_string(), "10");
/// assert_eq!(answer.orbits, vec![vec![0, 1, 2, 3, 4]]);
/// ```
///
/// Reference: McKay and Piperno, "Practical graph isomorphism, II" (2014); McKay, "Practical
/// graph isomorphism" (1981), §3 (the order from the generators).
pub fn solve_graph(
    job: &GraphJob,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GraphAnswer, SolveError> {
    let graph = &job.graph;
    let n = graph.vertices as usize;
    let m = graph.edges.len() as u64;
    if uses_sparse_search(n as u64, m) {
        let budget = sparse_generator_budget(n as u64).min(
            limits
                .max_job_memory
                .saturating_sub(sparse_search_bytes(n as u64, m)),
        );
        let found = sparse_search(graph, ctx, budget)?;
        ctx.check()?;
        let mut orbits: Vec<Vec<u32>> = Vec::new();
        let mut index = vec![u32::MAX; n];
        for (v, &least) in found.orbit_of.iter().enumerate() {
            let slot = &mut index[least as usize];
            if *slot == u32::MAX {
                *slot = orbits.len() as u32;
                orbits.push(Vec::new());
            }
            orbits[*slot as usize].push(v as u32);
        }
        let canonical_labels = canonical_labels(&found.labelling);
        let canonical_form = CanonicalForm::new(graph, &found.labelling);
        return Ok(GraphAnswer {
            order: found.order,
            orbits,
            generators: found.generators,
            canonical_labels,
            canonical_form,
        });
    }
    let budget = generator_budget(n as u64).min(
        limits
            .max_job_memory
            .saturating_sub(dense_search_bytes(n as u64)),
    );
    let found = dense_search(graph, ctx, budget)?;
    ctx.check()?;
    let images: Vec<&[u32]> = found.generators.iter().map(Perm::images).collect();
    let order = order_from_search(n, &images, &found.stabilised);
    let mut orbits = orbits_of(n, &found.generators);
    for orbit in &mut orbits {
        orbit.sort_unstable();
    }
    orbits.sort_unstable_by_key(|o| o[0]);
    let canonical_labels = canonical_labels(&found.labelling);
    let canonical_form = CanonicalForm::from_search(graph, &found.labelling, found.canonical_edges);
    let generators = found
        .generators
        .iter()
        .map(|g| {
            SparsePermutation::from_pairs(
                g.images()
                    .iter()
                    .enumerate()
                    .map(|(x, &y)| (x as u32, y))
                    .collect(),
            )
        })
        .collect();
    Ok(GraphAnswer {
        order,
        orbits,
        generators,
        canonical_labels,
        canonical_form,
    })
}

impl crate::job::Solve for GraphJob {
    type Answer = GraphAnswer;
    const KIND: &'static str = "graph";

    /// [`validate_graph_job`].
    fn validate(&self, _limits: &Limits) -> Result<(), SolveError> {
        validate_graph_job(self)
    }

    /// [`graph_memory_estimate`].
    fn memory_estimate(&self, limits: &Limits) -> u64 {
        graph_memory_estimate(self, limits)
    }

    /// [`solve_graph`].
    fn solve(self, ctx: &SolveContext, limits: &Limits) -> Result<GraphAnswer, SolveError> {
        solve_graph(&self, ctx, limits)
    }
}
