//! The symmetries of a graph: the automorphism group (generators, exact order, orbits on the
//! vertices) and a canonical labelling of an undirected, optionally vertex-coloured graph, so
//! that two graphs can be tested for isomorphism.
//!
//! - [`UndirectedGraph`]: the input (simple: no self-loops, no repeated edges), with the graph
//!   kind's own size limits ([`MAX_GRAPH_VERTICES`], [`MAX_GRAPH_EDGES`]);
//!   [`parse_graph_text`]: the `orbit game` format read as undirected, with an optional
//!   `colours` line.
//! - [`dense_search`]: McKay's partition refinement and search tree (nauty) on the adjacency bit
//!   matrix, through the `canonaut` crate (a safe Rust port of nauty), with Orbit's cancellation
//!   and memory budget; it gives the canonical labelling and generators. Orbit's own
//!   bit-parallel equitable refinement of the root (`dense_refinement`) runs first: a discrete
//!   root (almost every random dense graph) is the answer without a search.
//! - [`CanonicalForm`]: the relabelled graph, the certificate of isomorphism;
//!   [`is_isomorphism`] checks an answer independently.
//! - [`order_from_search`]: the exact order from the generators, a strong generating set
//!   relative to the search's first path (McKay 1981); [`solve_graph`]: the job, with the orbits
//!   from the group engine's orbit algorithm ([`orbits_of`](crate::group::orbits_of)). The tests
//!   check the order against Schreier–Sims ([`PermGroup`](crate::group::PermGroup)) as well as
//!   brute force.
//!
//! References: B. D. McKay, "Practical graph isomorphism" (1981); B. D. McKay and A. Piperno,
//! "Practical graph isomorphism, II", J. Symbolic Comput. 60 (2014).

mod bit_matrix;
mod canonical_form;
mod dense_refinement;
mod dense_search;
mod job;
mod search_order;
mod sparse_permutation;
mod sparse_refinement;
mod sparse_search;
mod text_format;
mod undirected_graph;

pub use canonical_form::{
    CanonicalForm, canonical_labels, is_isomorphism, isomorphism_from_labellings,
};
pub use dense_search::{
    MAX_DENSE_VERTICES, SearchResult, dense_search, dense_search_bytes, generator_bytes,
};
pub use job::{
    GraphAnswer, GraphJob, MAX_GENERATOR_BYTES, SPARSE_FROM_VERTICES, SPARSE_MAX_AVERAGE_DEGREE,
    graph_memory_estimate, solve_graph, uses_sparse_search, validate_graph_job,
};
pub use search_order::order_from_search;
pub use sparse_permutation::SparsePermutation;
pub use sparse_refinement::{OrderedPartition, SparseAdjacency, UndoMark};
pub use sparse_search::{
    DIRECT_SEARCH_FRAMES, SparseSearchOptions, SparseSearchResult, sparse_generator_bytes,
    sparse_search, sparse_search_bytes, sparse_search_with,
};
pub use text_format::parse_graph_text;
pub use undirected_graph::{Adjacency, MAX_GRAPH_EDGES, MAX_GRAPH_VERTICES, UndirectedGraph};
