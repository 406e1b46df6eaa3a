//! Structured protobuf input: a `game` job, through the server's conversion and validation, and the
//! solver when it is accepted and small. See `orbit_fuzz::check_job`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_fuzz::inputs::GameInput;

fuzz_target!(|input: GameInput| orbit_fuzz::check_job(input.job()));
