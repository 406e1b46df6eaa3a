//! `orbit puzzle` input text: the parser either gives a problem whose chunked jobs (as the CLI
//! streams them) the server accepts (up to size limits), or an error naming the line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_cli::text_formats::{puzzle_jobs, puzzle_problem};

/// A small chunk size, so that the chunking is exercised on small inputs too.
const CHUNK_BYTES: usize = 256;

fuzz_target!(|data: &[u8]| {
    // The CLI reads its input as UTF-8 and refuses anything else before parsing.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match puzzle_problem(text) {
        Ok(problem) => {
            let targets = problem.targets.len();
            let jobs = puzzle_jobs(&problem, CHUNK_BYTES);
            assert!(jobs.len() <= targets.max(1), "more chunks than targets");
            for job in jobs {
                orbit_fuzz::check_parsed_job(job, &[]);
            }
        }
        Err(e) => orbit_fuzz::check_text_error(&e),
    }
});
