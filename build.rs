//! Compiles `proto/orbit/v1/*.proto` into Rust for the `orbit-api` crate.
//!
//! protox parses the .proto files in pure Rust (no system `protoc`); tonic-prost-build turns the
//! descriptor set into messages and gRPC stubs; pbjson-build adds serde impls that follow the
//! proto3 JSON mapping (what `orbit solve` reads and writes). The encoded descriptor set is written
//! to OUT_DIR for server reflection, because `compile_fds` ignores `file_descriptor_set_path`.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = ["proto/orbit/v1/orbit.proto"];
    for p in &protos {
        println!("cargo:rerun-if-changed={p}");
    }
    println!("cargo:rerun-if-changed=proto/orbit");

    let fds = protox::compile(protos, ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let descriptor_path = out_dir.join("orbit_descriptor.bin");
    std::fs::write(&descriptor_path, fds.encode_to_vec())?;

    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
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
        .build(&[".orbit.v1"])?;
    Ok(())
}
