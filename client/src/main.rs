//! `orbit`: the Orbit command-line client. Every command talks gRPC, to `--server` if given or
//! else to an embedded server started in-process on a loopback port. See `orbit --help`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
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
    match runtime.block_on(cli::run(args)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("orbit: {e:#}");
            ExitCode::FAILURE
        }
    }
}
