//! The worker's integration tests, one binary (one link of the solvers instead of eleven): every
//! solver against an independent oracle (brute force on small random cases, published values,
//! the definitions), one module per solver family.
//!
//! `memory_estimates` is a binary of its own: it installs a counting global allocator and
//! measures peaks, which other tests running in parallel threads would disturb.

#[path = "../common/mod.rs"]
mod common;

mod counting;
mod fuzz_regressions;
mod game_cop_thief;
mod game_cop_thief_witness;
mod game_retrograde;
mod game_witness;
mod graph_colourings;
mod graph_dense_root;
mod graph_every_small_graph;
mod graph_sparse_search;
mod graph_symmetry;
mod group_closure;
mod group_gap_corpus;
mod group_giant_products;
mod group_known_orders;
mod group_large_degree;
mod group_level_proofs;
mod group_text;
mod group_words;
mod group_wreath_products;
mod puzzle;
mod puzzle_moves;
