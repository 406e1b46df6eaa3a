//! `orbit cop-thief` input text: the parser either gives a job the server accepts (up to size
//! limits), or an error naming the line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_api::v1 as pb;
use orbit_cli::text_formats::cop_thief_job;

fuzz_target!(|data: &[u8]| {
    // The CLI reads its input as UTF-8 and refuses anything else before parsing.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match cop_thief_job(text) {
        Ok(job) => orbit_fuzz::check_parsed_job(orbit_fuzz::job(pb::job::Kind::CopThief(job)), &[]),
        Err(e) => orbit_fuzz::check_text_error(&e),
    }
});
