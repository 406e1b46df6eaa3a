//! Tower layers wrapped around every gRPC service, one per file.

pub mod message_limit;
