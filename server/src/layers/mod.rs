//! Tower layers wrapped around every gRPC service, one per file.

pub mod auth;
pub mod message_limit;
