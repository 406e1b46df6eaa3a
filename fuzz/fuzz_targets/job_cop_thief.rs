//! Structured protobuf input: a `cop_thief` job (grid and queried states), through the server's conversion and validation, and the
//! solver when it is accepted and small. See `orbit_fuzz::check_job`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_fuzz::inputs::CopThiefInput;

fuzz_target!(|input: CopThiefInput| orbit_fuzz::check_job(input.job()));
