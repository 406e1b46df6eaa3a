//! The standard gRPC server series, named, labelled and bucketed as go-grpc-prometheus
//! (`server_metrics.go`) defines them, so that dashboards and alerts written for any gRPC server
//! work on Orbit unchanged:
//!
//! - `grpc_server_started_total{grpc_type, grpc_service, grpc_method}`: calls started.
//! - `grpc_server_handled_total{grpc_type, grpc_service, grpc_method, grpc_code}`: calls finished,
//!   by status code in Go's spelling (`OK`, `InvalidArgument`, `Canceled`, ...).
//! - `grpc_server_msg_received_total` / `grpc_server_msg_sent_total{grpc_type, grpc_service,
//!   grpc_method}`: messages (gRPC length-prefixed frames) in the requests and the responses.
//! - `grpc_server_handling_seconds{grpc_type, grpc_service, grpc_method}`: a histogram of the time
//!   from a call's start to the end of its response, with the Prometheus client libraries'
//!   default buckets (5 ms to 10 s).
//!
//! `grpc_type` is `unary`, `client_stream`, `server_stream` or `bidi_stream`, read from the
//! methods' descriptors. Like go-grpc-prometheus, every method the server serves has its series
//! from the start, at zero (`handled_total` for every code), so rates and ratios need no special
//! case for a method not yet called; and calls to methods the server does not have are not
//! counted, so a caller cannot create series at will. The layer that records them is
//! [`crate::layers::grpc_metrics`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use prost::Message;
use tonic::Code;

/// The descriptor sets of every service the server serves (`orbit.v1.Orbit`, `orbit.v1.Batches`,
/// health, and both versions of reflection): where the methods and their kinds are read from.
const SERVED_DESCRIPTOR_SETS: [&[u8]; 4] = [
    orbit_api::FILE_DESCRIPTOR_SET,
    tonic_health::pb::FILE_DESCRIPTOR_SET,
    tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
    tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET,
];

/// `prometheus.DefBuckets` of the Go client (and of every official Prometheus client library),
/// which go-grpc-prometheus uses for `grpc_server_handling_seconds`.
const DEFAULT_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Every gRPC status code, in numeric order (the index into [`MethodSeries::handled`]).
const ALL_CODES: [Code; 17] = [
    Code::Ok,
    Code::Cancelled,
    Code::Unknown,
    Code::InvalidArgument,
    Code::DeadlineExceeded,
    Code::NotFound,
    Code::AlreadyExists,
    Code::PermissionDenied,
    Code::ResourceExhausted,
    Code::FailedPrecondition,
    Code::Aborted,
    Code::OutOfRange,
    Code::Unimplemented,
    Code::Internal,
    Code::Unavailable,
    Code::DataLoss,
    Code::Unauthenticated,
];

/// The name Go's `codes.Code.String()` gives a code, which is what go-grpc-prometheus puts in
/// `grpc_code` (note `Canceled`, with one l, unlike the C++/proto name CANCELLED).
pub fn go_code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "Canceled",
        Code::Unknown => "Unknown",
        Code::InvalidArgument => "InvalidArgument",
        Code::DeadlineExceeded => "DeadlineExceeded",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::PermissionDenied => "PermissionDenied",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::Aborted => "Aborted",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        Code::Unavailable => "Unavailable",
        Code::DataLoss => "DataLoss",
        Code::Unauthenticated => "Unauthenticated",
    }
}

/// How a method streams, by gRPC's four kinds of call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodType {
    /// One request, one response.
    Unary,
    /// A stream of requests, one response.
    ClientStream,
    /// One request, a stream of responses.
    ServerStream,
    /// Streams both ways.
    BidiStream,
}

impl MethodType {
    /// From a method descriptor's two streaming flags.
    pub fn of(client_streaming: bool, server_streaming: bool) -> Self {
        match (client_streaming, server_streaming) {
            (false, false) => Self::Unary,
            (true, false) => Self::ClientStream,
            (false, true) => Self::ServerStream,
            (true, true) => Self::BidiStream,
        }
    }

    /// The `grpc_type` label value.
    pub fn label(self) -> &'static str {
        match self {
            Self::Unary => "unary",
            Self::ClientStream => "client_stream",
            Self::ServerStream => "server_stream",
            Self::BidiStream => "bidi_stream",
        }
    }
}

/// Labels of a method's series.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodLabels {
    grpc_type: &'static str,
    grpc_service: Arc<str>,
    grpc_method: Arc<str>,
}

/// Labels of `grpc_server_handled_total`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HandledLabels {
    grpc_type: &'static str,
    grpc_service: Arc<str>,
    grpc_method: Arc<str>,
    grpc_code: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn handling_histogram() -> Histogram {
    Histogram::new(DEFAULT_BUCKETS)
}

/// One method's series, looked up once at start: recording a call touches no map.
#[derive(Debug)]
pub struct MethodSeries {
    started: Counter,
    msg_received: Counter,
    msg_sent: Counter,
    handling: Histogram,
    /// By code, in the order of [`ALL_CODES`] (the codes' numbers).
    handled: Vec<Counter>,
}

impl MethodSeries {
    /// A call started.
    pub fn started(&self) {
        self.started.inc();
    }

    /// `n` request messages received.
    pub fn messages_received(&self, n: u64) {
        if n > 0 {
            self.msg_received.inc_by(n);
        }
    }

    /// `n` response messages sent.
    pub fn messages_sent(&self, n: u64) {
        if n > 0 {
            self.msg_sent.inc_by(n);
        }
    }

    /// A call finished with `code` after `elapsed`.
    pub fn handled(&self, code: Code, elapsed: Duration) {
        // `ALL_CODES` lists the codes by their numbers, 0 to 16.
        self.handled[code as usize].inc();
        self.handling.observe(elapsed.as_secs_f64());
    }
}

/// The series of every method served, by request path (`/package.Service/Method`).
#[derive(Debug, Clone)]
pub struct GrpcMetrics {
    methods: Arc<HashMap<String, Arc<MethodSeries>>>,
}

impl GrpcMetrics {
    /// Registers the series in `registry`, for every method of the services served, at zero.
    pub fn register(registry: &mut Registry) -> Self {
        let started = Family::<MethodLabels, Counter>::default();
        registry.register(
            "grpc_server_started",
            "Total number of RPCs started on the server.",
            started.clone(),
        );
        let handled = Family::<HandledLabels, Counter>::default();
        registry.register(
            "grpc_server_handled",
            "Total number of RPCs completed on the server, regardless of success or failure.",
            handled.clone(),
        );
        let msg_received = Family::<MethodLabels, Counter>::default();
        registry.register(
            "grpc_server_msg_received",
            "Total number of RPC stream messages received on the server.",
            msg_received.clone(),
        );
        let msg_sent = Family::<MethodLabels, Counter>::default();
        registry.register(
            "grpc_server_msg_sent",
            "Total number of gRPC stream messages sent by the server.",
            msg_sent.clone(),
        );
        let handling: HistogramFamily<MethodLabels> =
            Family::new_with_constructor(handling_histogram);
        registry.register_with_unit(
            "grpc_server_handling",
            "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
            Unit::Seconds,
            handling.clone(),
        );

        let mut methods = HashMap::new();
        for method in served_methods() {
            let labels = MethodLabels {
                grpc_type: method.kind.label(),
                grpc_service: Arc::from(method.service.as_str()),
                grpc_method: Arc::from(method.method.as_str()),
            };
            let series = MethodSeries {
                started: started.get_or_create(&labels).clone(),
                msg_received: msg_received.get_or_create(&labels).clone(),
                msg_sent: msg_sent.get_or_create(&labels).clone(),
                handling: handling.get_or_create(&labels).clone(),
                handled: ALL_CODES
                    .iter()
                    .map(|&code| {
                        let labels = HandledLabels {
                            grpc_type: labels.grpc_type,
                            grpc_service: Arc::clone(&labels.grpc_service),
                            grpc_method: Arc::clone(&labels.grpc_method),
                            grpc_code: go_code_name(code),
                        };
                        handled.get_or_create(&labels).clone()
                    })
                    .collect(),
            };
            let path = format!("/{}/{}", method.service, method.method);
            methods.insert(path, Arc::new(series));
        }
        Self {
            methods: Arc::new(methods),
        }
    }

    /// The series of the method at request path `path`; `None` for a method not served.
    pub fn method(&self, path: &str) -> Option<Arc<MethodSeries>> {
        self.methods.get(path).cloned()
    }
}

/// A method of a served service, from its descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedMethod {
    /// Fully qualified service name, e.g. `orbit.v1.Orbit`.
    pub service: String,
    /// Method name, e.g. `SolveStream`.
    pub method: String,
    /// How it streams.
    pub kind: MethodType,
}

/// Every method of the services served, read from their compiled-in descriptor sets.
pub fn served_methods() -> Vec<ServedMethod> {
    let mut methods = Vec::new();
    for encoded in SERVED_DESCRIPTOR_SETS {
        // The sets are generated at build time by protox/tonic-build: a failure to decode one
        // is a build defect, not a run-time condition.
        let set = prost_types::FileDescriptorSet::decode(encoded)
            .expect("compiled-in file descriptor sets decode");
        for file in set.file {
            let package = file.package.unwrap_or_default();
            for service in file.service {
                let name = service.name.unwrap_or_default();
                let service_name = if package.is_empty() {
                    name
                } else {
                    format!("{package}.{name}")
                };
                for method in service.method {
                    methods.push(ServedMethod {
                        service: service_name.clone(),
                        method: method.name.unwrap_or_default(),
                        kind: MethodType::of(
                            method.client_streaming.unwrap_or(false),
                            method.server_streaming.unwrap_or(false),
                        ),
                    });
                }
            }
        }
    }
    methods
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kinds of call, checked against the .proto files' `stream` keywords (an independent
    /// reading of the same contract), for the methods whose type matters most to dashboards.
    #[test]
    fn methods_and_their_types_come_from_the_descriptors() {
        let methods = served_methods();
        let kind = |service: &str, method: &str| {
            methods
                .iter()
                .find(|m| m.service == service && m.method == method)
                .map(|m| m.kind)
        };
        assert_eq!(kind("orbit.v1.Orbit", "Solve"), Some(MethodType::Unary));
        assert_eq!(
            kind("orbit.v1.Orbit", "SolveStream"),
            Some(MethodType::BidiStream)
        );
        assert_eq!(
            kind("orbit.v1.Orbit", "ServerInfo"),
            Some(MethodType::Unary)
        );
        assert_eq!(
            kind("orbit.v1.Batches", "CreateBatch"),
            Some(MethodType::ClientStream)
        );
        assert_eq!(
            kind("orbit.v1.Batches", "WatchBatch"),
            Some(MethodType::ServerStream)
        );
        assert_eq!(
            kind("grpc.health.v1.Health", "Check"),
            Some(MethodType::Unary)
        );
        assert_eq!(
            kind("grpc.health.v1.Health", "Watch"),
            Some(MethodType::ServerStream)
        );
        assert_eq!(
            kind(
                "grpc.reflection.v1.ServerReflection",
                "ServerReflectionInfo"
            ),
            Some(MethodType::BidiStream)
        );
        assert_eq!(
            kind(
                "grpc.reflection.v1alpha.ServerReflection",
                "ServerReflectionInfo"
            ),
            Some(MethodType::BidiStream)
        );
    }

    #[test]
    fn code_names_are_gos() {
        // Go's codes.Code.String() (google.golang.org/grpc/codes, code_string.go).
        assert_eq!(go_code_name(Code::Cancelled), "Canceled");
        assert_eq!(go_code_name(Code::ResourceExhausted), "ResourceExhausted");
        for (number, code) in ALL_CODES.iter().enumerate() {
            assert_eq!(*code as usize, number);
        }
    }
}
