//! Tower layers wrapped around every gRPC service, one per file.

pub mod auth;
pub mod grpc_metrics;
pub mod message_limit;
