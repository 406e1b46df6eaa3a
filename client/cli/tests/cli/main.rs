//! The `orbit` binary's tests, one test binary with a module per subject (one link instead of
//! two):
//! - `batch`: `orbit batch` against a server with a SQLite batch store in a temporary directory;
//! - `commands`: each command as a user runs it, against its embedded server (real gRPC over
//!   loopback), checking the exact text output and the exit status;
//! - `security`: `--ca` and `--auth-token-file` against a server with TLS and a bearer token;
//! - `fuzz_seeds`: the `job_decode` fuzz seeds are the example jobs, encoded;
//! - `traces`: the W3C trace context every call of a command sends (`TRACEPARENT` continued), and
//!   the command's trace exported with `--otlp-endpoint`.

mod batch;
mod commands;
mod fuzz_seeds;
mod security;
mod traces;
