//! `orbit health` and `orbit info`.

use std::process::ExitCode;

use orbit_client::Client;
use tonic_health::pb::health_check_response::ServingStatus;

use crate::input::status_text;

/// Prints the serving status; exit 0 only when SERVING.
pub async fn health(client: &mut Client, service: &str) -> anyhow::Result<ExitCode> {
    let status = client
        .health(service)
        .await
        .map_err(|s| anyhow::anyhow!(status_text(&s)))?;
    println!("{}", status.as_str_name());
    Ok(if status == ServingStatus::Serving {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Prints `ServerInfo` as pretty JSON.
pub async fn info(client: &mut Client) -> anyhow::Result<ExitCode> {
    let info = client
        .info()
        .await
        .map_err(|s| anyhow::anyhow!(status_text(&s)))?;
    println!("{}", serde_json::to_string_pretty(&info)?);
    Ok(ExitCode::SUCCESS)
}
