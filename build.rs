//! Compiles `proto/orbit/v1/*.proto` (the solve service and the batch service) into Rust for the `orbit-api` crate.
//!
//! protox parses the .proto files in pure Rust (no system `protoc`); tonic-prost-build turns the
//! descriptor set into messages and gRPC stubs; pbjson-build adds serde impls that follow the
//! proto3 JSON mapping (what `orbit solve` reads and writes). The encoded descriptor set is written
//! to OUT_DIR for server reflection, because `compile_fds` ignores `file_descriptor_set_path`.
//! The job-kind registry (`JobKind`, `proto/job_kind.rs`) is generated here from the `Job.kind`
//! oneof, so that the proto is the one place a kind is named.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["proto/orbit/v1/orbit.proto", "proto/orbit/v1/batches.proto"];
    for p in &protos {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rerun-if-changed=proto/orbit");

    let fds = protox::compile(protos, ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let descriptor_path = out_dir.join("orbit_descriptor.bin");
    std::fs::write(&descriptor_path, fds.encode_to_vec())?;

    std::fs::write(out_dir.join("job_kind.rs"), job_kind_source(&fds)?)?;

    // `JobError.metadata` as a BTreeMap (here and in pbjson below): its keys come out sorted, so
    // the same error prints the same JSON line every time.
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .btree_map(".orbit.v1.JobError.metadata")
        .compile_fds(fds)?;

    // The benchmark's echo service: compiled separately so that it stays out of the descriptor set
    // served by reflection.
    println!("cargo:rerun-if-changed=proto/orbit/bench/echo.proto");
    let bench = protox::compile(["proto/orbit/bench/echo.proto"], ["proto"])?;
    tonic_prost_build::configure().compile_fds(bench)?;

    let descriptor_bytes = std::fs::read(&descriptor_path)?;
    pbjson_build::Builder::new()
        .register_descriptors(&descriptor_bytes)?
        // Print every field, defaults included (vertex 0, zero counts), so scripts need not
        // know proto3 default rules to read our output. Input may still omit them.
        .emit_fields()
        // (pbjson matches messages, not fields: JobError has no other map.)
        .btree_map([".orbit.v1.JobError"])
        .build(&[".orbit.v1"])?;
    Ok(())
}

/// One field of a oneof: its number, its name and the name of its message type.
type OneofField = (i32, String, String);

/// The fields of `message`'s oneof `oneof` in `orbit.v1`, in field-number order.
fn oneof_fields(
    fds: &prost_types::FileDescriptorSet,
    message: &str,
    oneof: &str,
) -> Result<Vec<OneofField>, Box<dyn std::error::Error>> {
    let message = fds
        .file
        .iter()
        .filter(|f| f.package() == "orbit.v1")
        .flat_map(|f| f.message_type.iter())
        .find(|m| m.name() == message)
        .ok_or_else(|| format!("no message {message}"))?;
    let index = message
        .oneof_decl
        .iter()
        .position(|o| o.name() == oneof)
        .ok_or_else(|| format!("no oneof {oneof}"))? as i32;
    let mut fields: Vec<_> = message
        .field
        .iter()
        .filter(|f| f.oneof_index == Some(index))
        .map(|f| {
            let type_name = f.type_name().rsplit('.').next().unwrap_or_default();
            (f.number(), f.name().to_string(), type_name.to_string())
        })
        .collect();
    fields.sort();
    Ok(fields)
}

/// `snake_case` → `UpperCamelCase`, as prost names a oneof's variants.
fn upper_camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Rust source of `JobKind` and its generated items, from `Job.kind` (which must name the same
/// fields as `JobResult.result`).
fn job_kind_source(
    fds: &prost_types::FileDescriptorSet,
) -> Result<String, Box<dyn std::error::Error>> {
    let kinds = oneof_fields(fds, "Job", "kind")?;
    let results = oneof_fields(fds, "JobResult", "result")?;
    let names = |fields: &[OneofField]| -> Vec<(i32, String)> {
        fields
            .iter()
            .map(|(n, name, _)| (*n, name.clone()))
            .collect()
    };
    if names(&kinds) != names(&results) {
        return Err("Job.kind and JobResult.result must have the same fields and numbers".into());
    }
    let variants: Vec<(String, &str, &str, &str)> = kinds
        .iter()
        .zip(&results)
        .map(|((_, name, job), (_, _, result))| {
            (
                upper_camel(name),
                name.as_str(),
                job.as_str(),
                result.as_str(),
            )
        })
        .collect();
    let mut out = String::from(
        "/// One kind of solve job: one field of the `Job.kind` oneof and the field of the same\n\
         /// name and number in `JobResult.result` (generated from the proto by `build.rs`).\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\n\
         pub enum JobKind {\n",
    );
    for (variant, name, job, result) in &variants {
        out += &format!(
            "    /// `Job.{name}`: a `{job}`, answered by a `{result}`.\n    {variant},\n"
        );
    }
    out += "}\n\nimpl JobKind {\n";
    out += "    /// Every kind, in the order of the `Job.kind` oneof's field numbers.\n";
    out += &format!("    pub const ALL: [JobKind; {}] = [", variants.len());
    for (variant, ..) in &variants {
        out += &format!("JobKind::{variant}, ");
    }
    out += "];\n\n";
    out += "    /// The kind's field name in the `Job.kind` oneof (`\"cop_thief\"`): what\n    \
            /// `ServerInfo.job_kinds` lists, what the metrics label, and what errors name.\n    \
            pub const fn name(self) -> &'static str {\n        match self {\n";
    for (variant, name, ..) in &variants {
        out += &format!("            JobKind::{variant} => \"{name}\",\n");
    }
    out += "        }\n    }\n\n";
    out += "    /// The `orbit` CLI's command for the kind: its name with `-` for `_` (`\"cop-thief\"`).\n    \
            pub const fn cli_command(self) -> &'static str {\n        match self {\n";
    for (variant, name, ..) in &variants {
        out += &format!(
            "            JobKind::{variant} => \"{}\",\n",
            name.replace('_', "-")
        );
    }
    out += "        }\n    }\n\n";
    out += "    /// The kind of a job's payload.\n    \
            pub const fn of_job(kind: &crate::v1::job::Kind) -> JobKind {\n        match kind {\n";
    for (variant, ..) in &variants {
        out += &format!("            crate::v1::job::Kind::{variant}(_) => JobKind::{variant},\n");
    }
    out += "        }\n    }\n\n";
    out += "    /// The kind of a result's payload.\n    \
            pub const fn of_result(result: &crate::v1::job_result::Result) -> JobKind {\n        match result {\n";
    for (variant, ..) in &variants {
        out += &format!(
            "            crate::v1::job_result::Result::{variant}(_) => JobKind::{variant},\n"
        );
    }
    out += "        }\n    }\n}\n";
    Ok(out)
}
