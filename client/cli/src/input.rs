//! Reading a command's input: a file, or stdin for `-` or no argument.

use std::io::Read;
use std::path::Path;

use anyhow::Context;

/// The whole input as text.
pub fn read_input(file: Option<&Path>) -> anyhow::Result<String> {
    let mut text = String::new();
    match file {
        None => {
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read stdin")?;
        }
        Some(p) if p == Path::new("-") => {
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read stdin")?;
        }
        Some(p) => {
            text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
        }
    }
    Ok(text)
}

/// A gRPC status as the CLI prints it: `CODE: message`.
pub fn status_text(status: &tonic::Status) -> String {
    format!(
        "{}: {}",
        orbit_api::wire::code_name(status.code()),
        status.message()
    )
}
