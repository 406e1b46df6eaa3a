//! An OTLP/gRPC trace collector in the test process: what a server or the `orbit` CLI started with
//! `--otlp-endpoint` pointing at it sends is kept, span by span, for the tests to read. Shared by
//! the server's tests (`traces.rs`) and the CLI's (`client/cli/tests/cli/traces.rs`, which
//! includes this file by path).

use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::Span;
use tokio::net::TcpListener;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

/// A span as the collector received it, with the `service.name` of its resource.
#[derive(Debug, Clone)]
pub struct Received {
    pub service: String,
    pub span: Span,
}

impl Received {
    pub fn trace_id(&self) -> String {
        hex(&self.span.trace_id)
    }

    pub fn span_id(&self) -> String {
        hex(&self.span.span_id)
    }

    pub fn parent_id(&self) -> String {
        hex(&self.span.parent_span_id)
    }

    pub fn attribute(&self, key: &str) -> Option<&Value> {
        attribute(&self.span.attributes, key)
    }

    pub fn string(&self, key: &str) -> Option<&str> {
        match self.attribute(key) {
            Some(Value::StringValue(s)) => Some(s),
            _ => None,
        }
    }

    pub fn int(&self, key: &str) -> Option<i64> {
        match self.attribute(key) {
            Some(Value::IntValue(i)) => Some(*i),
            _ => None,
        }
    }

    pub fn double(&self, key: &str) -> Option<f64> {
        match self.attribute(key) {
            Some(Value::DoubleValue(d)) => Some(*d),
            _ => None,
        }
    }
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Value> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|AnyValue { value }| value.as_ref())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An OTLP/gRPC trace collector on a loopback port, keeping every span it is sent.
pub struct Collector {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

#[derive(Clone)]
struct Sink(Arc<Mutex<Vec<Received>>>);

#[tonic::async_trait]
impl TraceService for Sink {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut received = self.0.lock().expect("collector lock");
        for resource_spans in request.into_inner().resource_spans {
            let service = resource_spans
                .resource
                .as_ref()
                .and_then(|r| attribute(&r.attributes, "service.name"))
                .and_then(|v| match v {
                    Value::StringValue(s) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            for scope_spans in resource_spans.scope_spans {
                for span in scope_spans.spans {
                    received.push(Received {
                        service: service.clone(),
                        span,
                    });
                }
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

impl Collector {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("bound"));
        let received = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink(Arc::clone(&received));
        tokio::spawn(
            Server::builder()
                .add_service(TraceServiceServer::new(sink))
                .serve_with_incoming(TcpIncoming::from(listener)),
        );
        Self { url, received }
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Received> {
        self.received.lock().expect("collector lock").clone()
    }
}
