//! The server's integration tests, one binary: real gRPC against embedded servers on loopback
//! ports (and, in `process`, `scale_out` and `traces`, the `orbit-server` binary itself), one
//! module per concern.

mod common;
mod otlp_collector;

mod batches;
mod e2e;
mod error_details;
mod game_witness;
mod group_words;
mod input_errors;
mod kinds;
mod memory_limit;
mod ops;
mod process;
mod puzzle_moves;
mod scale_out;
mod traces;
