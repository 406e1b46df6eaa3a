//! Structured protobuf input: a `group` job, through the server's conversion and validation, and the
//! solver when it is accepted and small. See `orbit_fuzz::check_job`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_fuzz::inputs::GroupInput;

fuzz_target!(|input: GroupInput| orbit_fuzz::check_job(input.job()));
