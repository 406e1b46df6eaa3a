//! Structured protobuf input: a `puzzle` job, through the server's conversion and validation, and the
//! solver when it is accepted and small. See `orbit_fuzz::check_job`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_fuzz::inputs::PuzzleInput;

fuzz_target!(|input: PuzzleInput| orbit_fuzz::check_job(input.job()));
