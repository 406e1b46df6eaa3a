//! `orbit`: the Orbit command-line client. Every command talks gRPC, to `--server` if given or
//! else to an embedded server started in-process on a loopback port. See `orbit --help`; the
//! commands themselves are the `orbit_cli` library.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = orbit_cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("orbit: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(orbit_cli::run(args)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("orbit: {e:#}");
            ExitCode::FAILURE
        }
    }
}
