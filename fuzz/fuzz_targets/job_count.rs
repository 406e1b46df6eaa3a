//! Structured protobuf input: a `count` job (every family), through the server's conversion and validation, and the
//! solver when it is accepted and small. See `orbit_fuzz::check_job`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_fuzz::inputs::CountInput;

fuzz_target!(|input: CountInput| orbit_fuzz::check_job(input.job()));
