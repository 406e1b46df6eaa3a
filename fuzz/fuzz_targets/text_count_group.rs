//! `orbit count group FILE --k K [--content C] [--cycle-index]`: the first line of the input holds
//! the flags as `K;C;c` (`C` empty for no `--content`, a trailing `c` for `--cycle-index`), the
//! rest is FILE. The parsers either give a job the server accepts (up to size limits and the
//! flags' own checks), or an error naming the line or the `--content` entry.
#![no_main]

use libfuzzer_sys::fuzz_target;
use orbit_api::v1 as pb;
use orbit_cli::text_formats::count_group_family;

fuzz_target!(|data: &[u8]| {
    // The CLI reads its input as UTF-8 and refuses anything else before parsing.
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (flags, text) = input.split_once('\n').unwrap_or((input, ""));
    let mut flags = flags.split(';');
    // clap refuses a `--k` that is not a u64 before anything is parsed.
    let Ok(k) = flags.next().unwrap_or("").trim().parse::<u64>() else {
        return;
    };
    let content = flags.next().filter(|c| !c.is_empty());
    let cycle_index = flags.next().is_some_and(|c| c.contains('c'));
    match count_group_family(text, k, content, cycle_index) {
        Ok(family) => orbit_fuzz::check_parsed_job(
            orbit_fuzz::job(pb::job::Kind::Count(pb::CountJob {
                family: Some(pb::count_job::Family::Group(family)),
                modulus: String::new(),
            })),
            // Flags the text parsers do not check; the server names them.
            &["count.k", "count.content", "count.degree"],
        ),
        Err(e) => orbit_fuzz::check_text_error(&e),
    }
});
