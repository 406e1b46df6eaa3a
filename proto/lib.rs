//! The Orbit gRPC contract, package `orbit.v1`, generated at build time from `proto/`.
//!
//! Every message and field is documented in `proto/orbit/v1/orbit.proto`; the generated types
//! carry those comments. Messages also implement serde's traits following the proto3 JSON mapping
//! (via pbjson), which is what the `orbit solve` JSON-lines format uses.

mod job_kind;

pub use job_kind::JobKind;

/// `orbit.v1`: jobs, results, events and the `Orbit` service.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    missing_debug_implementations
)]
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/orbit.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/orbit.v1.serde.rs"));
}

/// `orbit.bench`: a bare echo service, the baseline of the spine benchmark. Not part of the API.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    missing_debug_implementations
)]
pub mod bench {
    include!(concat!(env!("OUT_DIR"), "/orbit.bench.rs"));
}

/// What both ends need besides the messages: gRPC code names, HTTP/2 windows, message size, and
/// the `JobError` of a status with its `google.rpc` details.
pub mod wire;

/// The encoded `FileDescriptorSet` of `proto/`, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/orbit_descriptor.bin"));
