//! The `job_decode` fuzz target's seeds (`fuzz/seeds/job_decode/`) are the example jobs, encoded:
//! each line of `examples/batch.jsonl` and `examples/bad-input.jsonl` that is an `orbit.v1.Job` in
//! the proto3 JSON mapping, as its protobuf bytes, named `<file>-<line>.pb`. They go through the
//! generated types, so every kind the proto has is covered without a list of kinds here.
//! `ORBIT_WRITE_FUZZ_SEEDS=1 cargo test -p orbit-cli fuzz_seeds` rewrites them after the examples
//! change.

use std::collections::BTreeSet;
use std::path::Path;

use orbit_client::pb;
use prost::Message;

#[test]
fn job_decode_seeds_are_the_examples_encoded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let seeds = root.join("fuzz/seeds/job_decode");
    let write = std::env::var_os("ORBIT_WRITE_FUZZ_SEEDS").is_some();
    let mut expected = BTreeSet::new();
    for name in ["batch", "bad-input"] {
        let text = std::fs::read_to_string(root.join(format!("examples/{name}.jsonl")))
            .expect("example file");
        for (i, line) in text.lines().enumerate() {
            // Lines that are not a job (the bad-input examples) have no seed.
            let Ok(job) = serde_json::from_str::<pb::Job>(line) else {
                continue;
            };
            let file = format!("{name}-{}.pb", i + 1);
            let bytes = job.encode_to_vec();
            if write {
                std::fs::write(seeds.join(&file), &bytes).expect("write seed");
            } else {
                let committed = std::fs::read(seeds.join(&file)).unwrap_or_default();
                assert!(
                    committed == bytes,
                    "fuzz/seeds/job_decode/{file} is not examples/{name}.jsonl line {} encoded \
                     (ORBIT_WRITE_FUZZ_SEEDS=1 rewrites the seeds)",
                    i + 1
                );
            }
            expected.insert(file);
        }
    }
    let committed: BTreeSet<String> = std::fs::read_dir(&seeds)
        .expect("seed folder")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        committed, expected,
        "seeds without an example line, or missing"
    );
}
