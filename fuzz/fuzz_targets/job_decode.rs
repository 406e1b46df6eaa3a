//! Raw bytes decoded as an `orbit.v1.Job` (what tonic does with a request body), then through the
//! server's conversion and validation, and the solver when the job is accepted and small. A decode
//! error is tonic's to report (INTERNAL, as gRPC specifies for an unparsable request).
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_api::v1 as pb;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    if let Ok(job) = pb::Job::decode(data) {
        orbit_fuzz::check_job(job);
    }
});
