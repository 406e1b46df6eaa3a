//! Partition refinement and search on a dense adjacency bit matrix: McKay's canonical labelling
//! algorithm (nauty), through the `canonaut` crate, with Orbit's cancellation and memory budget.
//! Orbit refines the root partition itself first ([`DensePartition`]): when it is discrete (as
//! for almost every random dense graph) it is the answer, and `canonaut` is not called.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

use canonaut::refine::GraphContext;
use canonaut::search::canonicalize;
use canonaut::structs::{CanonautOptions, Statistics};
use canonaut::utilities::words_needed;

use super::bit_matrix::{relabelled_upper_edges, symmetric_bit_matrix, upper_triangle_edges};
use super::dense_refinement::DensePartition;
use super::undirected_graph::UndirectedGraph;
use crate::context::{CancelWatch, SolveContext};
use crate::error::SolveError;
use crate::group::Perm;

/// Most vertices the dense search takes: its bit matrices hold `n^2 / 8` bytes each (two of them),
/// 256 MiB at this size.
pub const MAX_DENSE_VERTICES: u64 = 32_768;

/// What the search finds: a canonical labelling and generators of the automorphism group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// `labelling[i]` is the vertex placed at canonical position `i`.
    pub labelling: Vec<u32>,
    /// Generators of the automorphism group (of the coloured graph), in the order found; none for
    /// a trivial group. They form a strong generating set relative to the first path's vertices.
    pub generators: Vec<Perm>,
    /// The edges of the graph relabelled by `labelling` (`(a, b)`, `a < b`, sorted), read off the
    /// canonical adjacency matrix the search builds.
    pub canonical_edges: Vec<(u32, u32)>,
    /// `stabilised[i]`: the first-path vertex of the level generator `i` was found at (it fixes
    /// the first-path vertices above it); see [`order_from_search`](super::order_from_search).
    pub stabilised: Vec<u32>,
}

/// Bytes the dense search allocates for a graph of `n` vertices, its generators aside: the
/// adjacency and the canonical bit matrices, nauty's workspace (1,000 rows of the matrix, twice)
/// and a few arrays of `n` integers.
pub fn dense_search_bytes(n: u64) -> u64 {
    let words = n.div_ceil(64).max(1);
    let matrix = n.saturating_mul(words).saturating_mul(8);
    matrix
        .saturating_mul(2)
        .saturating_add(words.saturating_mul(8 * 4_000))
        .saturating_add(n.saturating_mul(64))
}

/// Bytes one generator takes once found (an image array of `n` 4-byte points, kept twice while
/// it is converted).
pub fn generator_bytes(n: u64) -> u64 {
    n.saturating_mul(8)
}

/// The search's callbacks are plain function pointers: what they need lives here, for the
/// duration of one search on this thread.
struct SearchState {
    vertices: usize,
    generators: Vec<Perm>,
    stabilised: Vec<u32>,
    generator_budget: u64,
    cancel: CancelWatch,
    stop: Option<SolveError>,
}

thread_local! {
    static SEARCH: RefCell<Option<SearchState>> = const { RefCell::new(None) };
}

/// The unwinding payload that ends a search early (no panic hook runs for it).
struct StopSearch;

fn stop_if_cancelled() {
    let stop = SEARCH.with_borrow_mut(|state| match state {
        Some(s) if s.cancel.is_cancelled() => {
            s.stop = Some(SolveError::Cancelled);
            true
        }
        _ => false,
    });
    if stop {
        resume_unwind(Box::new(StopSearch));
    }
}

// The signature is the library's node callback (nauty's `usernodeproc`).
#[allow(clippy::too_many_arguments)]
fn on_node(
    _: &[usize],
    _: &mut [u32],
    _: &mut [u32],
    _: u32,
    _: u32,
    _: i32,
    _: u32,
    _: u32,
    _: u32,
) {
    stop_if_cancelled();
}

fn on_automorphism(_: u32, perm: &mut [u32], _: &mut [u32], _: u32, stabilised: u32, _: u32) {
    let stop = SEARCH.with_borrow_mut(|state| {
        let Some(s) = state else { return false };
        let n = s.vertices;
        let used = (s.generators.len() as u64 + 1).saturating_mul(generator_bytes(n as u64));
        if used > s.generator_budget {
            s.stop = Some(
                SolveError::limit_shown(
                    format!(
                        "the automorphism group's generators ({} of {n} points so far, {used} bytes)",
                        s.generators.len() + 1
                    ),
                    "max_job_memory",
                    s.generator_budget,
                    format!("{} bytes (what max_job_memory leaves the generators)", s.generator_budget),
                )
                .requested(used),
            );
            return true;
        }
        match Perm::from_images(perm[..n].to_vec(), "automorphism") {
            Ok(p) => {
                s.generators.push(p);
                s.stabilised.push(stabilised);
            }
            Err(e) => {
                s.stop = Some(SolveError::Panicked(format!("the search reported a non-permutation: {e}")));
                return true;
            }
        }
        s.cancel.is_cancelled() && {
            s.stop = Some(SolveError::Cancelled);
            true
        }
    });
    if stop {
        resume_unwind(Box::new(StopSearch));
    }
}

/// The search's "cheap partition" test, replaced by one that never finds a partition cheap.
///
/// nauty skips the automorphism check of a leaf, and prunes the tree more, below a partition it
/// proves "cheap" (McKay 1981, Theorem 2.33: few vertices in non-trivial cells); that is an
/// optimisation only. In `canonaut` 1.0 the pruning that follows it loses automorphisms: on the
/// 7-vertex graph K(3,4) plus a perfect matching of the 4-side the search reported 16
/// automorphisms of 48 (dreadnaut: 48), and every graph on 7 and 8 vertices checked by exhaustive
/// search found more such graphs. Without the shortcut every leaf is checked and the groups agree.
fn never_cheap(_partition: &[u32], _level: u32, _digraph: bool, _vertices: u32) -> bool {
    false
}

/// The ranks of the colour numbers: equal colours get equal ranks, and ranks keep the colours'
/// order (so the canonical form orders its cells by colour number).
fn colour_ranks(colours: &[u64]) -> Vec<u32> {
    let mut distinct = colours.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    colours
        .iter()
        .map(|c| distinct.binary_search(c).unwrap_or(0) as u32)
        .collect()
}

/// Canonical labelling and automorphism group generators of a graph of at most
/// [`MAX_DENSE_VERTICES`] vertices, by McKay's partition refinement and search tree with
/// automorphism pruning on the adjacency bit matrix.
///
/// # Arguments
/// `graph` (checked with [`UndirectedGraph::check`]), `ctx` (checked at every node of the search
/// tree and at every automorphism found), `generator_budget` (bytes the generators may take).
///
/// # Returns
/// The labelling (position → vertex) and generators; isomorphic graphs (colour numbers
/// included) get labellings under which their edge sets coincide. When the equitable refinement
/// of the colour partition (Orbit's own, bit-parallel) is discrete, the group is trivial and
/// that partition's order is the labelling, with no search; otherwise `canonaut` searches from
/// the colour partition. Whether the refinement ends discrete is an isomorphism invariant, so
/// isomorphic graphs always take the same way.
///
/// # Errors
/// [`SolveError::Cancelled`]; [`SolveError::LimitExceeded`] when the generators outgrow
/// `generator_budget` or the graph has more than [`MAX_DENSE_VERTICES`] vertices.
///
/// Complexity: the refinement is O(n^2 log n) per node on the bit matrix; the number of nodes is
/// polynomial for most graphs, exponential in the worst case (Miyazaki's graphs). Memory:
/// [`dense_search_bytes`] plus the generators.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::graph::{UndirectedGraph, dense_search};
/// let c4 = UndirectedGraph { vertices: 4, edges: vec![(0, 1), (1, 2), (2, 3), (3, 0)], colours: None };
/// let found = dense_search(&c4, &SolveContext::detached(), 1 << 20).unwrap();
/// assert_eq!(found.labelling.len(), 4);
/// assert!(!found.generators.is_empty());
/// ```
///
/// Reference: B. D. McKay, "Practical graph isomorphism", Congressus Numerantium 30 (1981);
/// B. D. McKay and A. Piperno, "Practical graph isomorphism, II", J. Symbolic Comput. 60 (2014).
pub fn dense_search(
    graph: &UndirectedGraph,
    ctx: &SolveContext,
    generator_budget: u64,
) -> Result<SearchResult, SolveError> {
    let n = graph.vertices as usize;
    if n as u64 > MAX_DENSE_VERTICES {
        return Err(SolveError::limit(
            format!("graph.vertices ({n}) for the dense search"),
            "graph_dense_vertices",
            MAX_DENSE_VERTICES,
        )
        .requested(n));
    }
    ctx.check()?;
    if n == 0 {
        return Ok(SearchResult {
            labelling: Vec::new(),
            generators: Vec::new(),
            canonical_edges: Vec::new(),
            stabilised: Vec::new(),
        });
    }
    let words = words_needed(n);
    let adjacency = symmetric_bit_matrix(n, words, &graph.edges);
    let ranks = graph.colours.as_deref().map(colour_ranks);
    // The root of the search tree first: when its equitable partition is discrete, it is the
    // only leaf (the group is trivial) and its order the canonical labelling.
    let root = DensePartition::refine(&adjacency, words, n, ranks.as_deref(), ctx)?;
    if root.is_discrete() {
        let canonical_edges =
            relabelled_upper_edges(&adjacency, words, &root.order, graph.edges.len());
        return Ok(SearchResult {
            labelling: root.order,
            generators: Vec::new(),
            canonical_edges,
            stabilised: Vec::new(),
        });
    }
    drop(root);
    let mut labelling: Vec<u32> = (0..n as u32).collect();
    let mut partition = vec![1u32; n];
    let mut options = CanonautOptions {
        get_canonical: true,
        user_node_procedure: Some(on_node),
        user_automorphism_procedure: Some(on_automorphism),
        ..CanonautOptions::default()
    };
    options.dispatch.cheap_automorphism_check = Some(never_cheap);
    match &ranks {
        Some(ranks) => {
            labelling.sort_by_key(|&v| (ranks[v as usize], v));
            for i in 0..n {
                let last =
                    i + 1 == n || ranks[labelling[i] as usize] != ranks[labelling[i + 1] as usize];
                partition[i] = u32::from(!last);
            }
            options.default_partition = false;
        }
        None => partition[n - 1] = 0,
    }
    let mut orbits = vec![0u32; n];
    let mut canonical = vec![0usize; n * words];
    let mut statistics = Statistics::new();
    let mut graph_context = GraphContext::new(n);
    options
        .algorithm_context
        .ensure_capacity(words as u32, n as u32);
    SEARCH.with_borrow_mut(|state| {
        *state = Some(SearchState {
            vertices: n,
            generators: Vec::new(),
            stabilised: Vec::new(),
            generator_budget,
            cancel: ctx.cancel_watch(),
            stop: None,
        })
    });
    let run = catch_unwind(AssertUnwindSafe(|| {
        canonicalize(
            &adjacency,
            &mut labelling,
            &mut partition,
            None,
            &mut orbits,
            &mut options,
            &mut statistics,
            &mut [],
            words as u32,
            n as u32,
            Some(&mut canonical),
            &mut graph_context,
        )
    }));
    let state = SEARCH.with_borrow_mut(Option::take);
    let state = state.ok_or_else(|| SolveError::Panicked("the search lost its state".into()))?;
    if let Err(payload) = run {
        if payload.is::<StopSearch>() {
            return Err(state.stop.unwrap_or(SolveError::Cancelled));
        }
        resume_unwind(payload);
    }
    if statistics.error_status_code != 0 {
        return Err(SolveError::Panicked(format!(
            "the dense search failed with status {}",
            statistics.error_status_code
        )));
    }
    let canonical_edges = upper_triangle_edges(&canonical, words, graph.edges.len());
    Ok(SearchResult {
        labelling,
        canonical_edges,
        generators: state.generators,
        stabilised: state.stabilised,
    })
}
