//! The server's error types and their one mapping to gRPC statuses: [`ServiceError`] for jobs and
//! calls, [`StoreError`] for the batch store.
//!
//! Every status carries, beside its message, the standard `google.rpc` error details (AIP-193,
//! "Errors", and `google/rpc/error_details.proto`) in the `grpc-status-details-bin` trailer: an
//! `ErrorInfo` with domain `orbit.v1` and a stable [`Reason`], plus `BadRequest` (the bad fields),
//! `QuotaFailure` (the limit) or `RetryInfo` (when to try again) as the reason calls for.
//! [`ErrorReport`] is that one mapping; a unary call returns [`ErrorReport::to_status`], and a
//! stream's or a batch's `JobError` is made from that same status
//! ([`orbit_api::wire::job_error`]), so both carry the same details.

use std::collections::BTreeMap;
use std::time::Duration;

use orbit_api::v1 as pb;
use orbit_api::wire::ERROR_DOMAIN;
use orbit_worker::SolveError;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::batches::store::StoreError;

/// Field violations one status carries at most; the message says how many more there were.
pub const MAX_FIELD_VIOLATIONS: usize = 100;

/// The encoded `google.rpc.Status` (message and details) one status carries at most, bytes.
/// grpc's C core (Python's and C++'s grpcio) refuses response metadata over 8 KiB by default
/// (`grpc.max_metadata_size`), and the details travel base64-encoded (4/3 larger) in a trailer
/// beside `grpc-message`: 3 KiB keeps the whole under that with room to spare. Violations beyond
/// it are dropped (the message counts them) and long descriptions are cut.
pub const MAX_DETAILS_BYTES: usize = 3 << 10;

/// A field violation's description is cut to this many bytes (at a character boundary).
const MAX_DESCRIPTION_BYTES: usize = 512;

/// A status's message is cut to this many bytes (at a character boundary, marked with "..."):
/// it travels twice, in `grpc-message` and inside the details. Orbit's own messages are far
/// shorter; this bounds what they quote (a database's error text, say).
const MAX_MESSAGE_BYTES: usize = 1536;

/// How long a unary caller refused with QUEUE_FULL should wait: about what a short job takes to
/// free a queue slot; streams wait for a slot by themselves instead.
pub const QUEUE_FULL_RETRY_DELAY: Duration = Duration::from_secs(1);
/// How long a caller refused with DRAINING should wait: long enough for a load balancer to stop
/// sending to this replica (its health check fails at once), short enough for a replica that is
/// restarted in place to be back.
pub const DRAINING_RETRY_DELAY: Duration = Duration::from_secs(2);
/// How long a caller refused with STORE_UNAVAILABLE should wait: a database failover or restart
/// takes seconds.
pub const STORE_RETRY_DELAY: Duration = Duration::from_secs(2);

/// Why a job got no answer or a call was refused, as the server sees it: a solver error, or
/// something the front decided before or around the solver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    /// The solver (or validation, which speaks the solver's language) refused or failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A field of a request other than a job (a batch call's) is malformed.
    #[error("{field}: {reason}")]
    InvalidRequest { field: String, reason: String },
    /// The shared queue is full (unary calls only; streams wait).
    #[error("the job queue is full ({capacity} jobs waiting); retry later or use SolveStream")]
    QueueFull { capacity: usize },
    /// The server is shutting down and takes no new jobs.
    #[error("the server is shutting down and accepts no new jobs")]
    Draining,
    /// `JobOptions.deadline_ms` passed before the job finished.
    #[error("the job's deadline of {deadline_ms} ms passed")]
    DeadlineExceeded { deadline_ms: u64 },
    /// The answer does not fit one message of `--max-message-bytes`. Sending it anyway would fail
    /// in tonic's encoder with OUT_OF_RANGE and, on a `SolveStream`, end the whole stream.
    #[error(
        "the answer is {bytes} bytes, over the --max-message-bytes limit of {limit}; ask for less \
         (e.g. game.query lists the vertices to report) or split the job"
    )]
    AnswerTooLarge { bytes: usize, limit: usize },
    /// A request message is over `--max-message-bytes` (tonic's decoder refused it; `decoder`
    /// is its message, `bytes` the size it found, when it says).
    #[error("request message too large (the server's --max-message-bytes limit): {decoder}")]
    MessageTooLarge {
        decoder: String,
        bytes: Option<u64>,
        limit: usize,
    },
    /// A `SolveStream` client took no event for `--stall-timeout`: the stream is ended.
    #[error(
        "the client read no event for {:.1} s (--stall-timeout): the stream is closed and its \
         jobs in flight are cancelled",
        stall_timeout.as_secs_f64()
    )]
    StreamStalled { stall_timeout: Duration },
    /// A batch job whose runs kept ending with their replica.
    #[error(
        "the replica running this job stopped before it finished (a crash, a kill, a lost node) \
         {max_attempts} times (--max-attempts): it is not run again"
    )]
    AttemptsExhausted { max_attempts: u32 },
    /// The call lacks the server's bearer token (`token_sent`: a wrong one was sent).
    #[error("{}", if *token_sent {
        "invalid bearer token (expected `authorization: Bearer <token>` with the server's token)"
    } else {
        "missing `authorization: Bearer <token>` metadata; this server requires the token of its \
         --auth-token-file"
    })]
    Unauthenticated { token_sent: bool },
    /// A `Batches` call on a server without a batch store.
    #[error(
        "this server keeps no batches: start orbit-server with --store (sqlite:PATH or \
         postgres://...); the orbit CLI's embedded server has none"
    )]
    NoStore,
    /// No batch with that id (`while_watched`: it was deleted during a watch).
    #[error("no batch {batch_id}{}", if *while_watched { " (deleted while watched)" } else { "" })]
    BatchNotFound {
        batch_id: String,
        while_watched: bool,
    },
    /// A create names the request id of a cancelled batch.
    #[error("request id '{request_id}' belongs to batch {batch_id}, which was cancelled")]
    BatchCancelled {
        request_id: String,
        batch_id: String,
    },
    /// A fault of the server itself (a stored result that does not decode, a task that
    /// panicked): nothing a caller can act on, reported as INTERNAL_ERROR so that a program
    /// still finds an `ErrorInfo` on it.
    #[error("{0}")]
    Internal(String),
}

impl ServiceError {
    /// `Err(AnswerTooLarge)` if `answer` would not fit one message of `limit` bytes.
    pub fn check_answer_size(answer: &impl prost::Message, limit: usize) -> Result<(), Self> {
        let bytes = answer.encoded_len();
        if bytes > limit {
            Err(ServiceError::AnswerTooLarge { bytes, limit })
        } else {
            Ok(())
        }
    }

    /// The reason this error is reported with.
    pub fn reason(&self) -> Reason {
        // Exhaustive on purpose: a new variant must choose its reason here (and its details in
        // `ErrorReport::from`).
        match self {
            ServiceError::Solve(solve) => match solve {
                SolveError::InvalidArgument { .. } => Reason::InvalidField,
                SolveError::LimitExceeded {
                    memory_estimate: true,
                    ..
                } => Reason::MemoryEstimateExceeded,
                SolveError::LimitExceeded { .. } => Reason::LimitExceeded,
                SolveError::Cancelled => Reason::Cancelled,
                SolveError::Panicked(_) => Reason::SolverPanicked,
            },
            ServiceError::InvalidRequest { .. } => Reason::InvalidField,
            ServiceError::QueueFull { .. } => Reason::QueueFull,
            ServiceError::Draining => Reason::Draining,
            ServiceError::DeadlineExceeded { .. } => Reason::DeadlineExceeded,
            ServiceError::AnswerTooLarge { .. } => Reason::AnswerTooLarge,
            ServiceError::MessageTooLarge { .. } => Reason::MessageTooLarge,
            ServiceError::StreamStalled { .. } => Reason::StreamStalled,
            ServiceError::AttemptsExhausted { .. } => Reason::AttemptsExhausted,
            ServiceError::Unauthenticated { .. } => Reason::Unauthenticated,
            ServiceError::NoStore => Reason::NoStore,
            ServiceError::BatchNotFound { .. } => Reason::BatchNotFound,
            ServiceError::BatchCancelled { .. } => Reason::BatchClosed,
            ServiceError::Internal(_) => Reason::InternalError,
        }
    }

    /// The gRPC code this error is reported with: its reason's.
    pub fn code(&self) -> Code {
        self.reason().code()
    }
}

/// The stable, machine-readable cause of an error: `google.rpc.ErrorInfo.reason` (domain
/// `orbit.v1`), and the `JobError.reason` of a failed job. Each has one gRPC code. The README's
/// "Errors" section and the `JobError` comment in `orbit.proto` list them with their details.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// INVALID_ARGUMENT: a malformed job or request; `BadRequest` names each bad field.
    InvalidField,
    /// RESOURCE_EXHAUSTED: a size limit (`--max-vertices`, ...) or a solver's internal cap.
    LimitExceeded,
    /// RESOURCE_EXHAUSTED: the job's memory estimate is over `--max-job-memory`.
    MemoryEstimateExceeded,
    /// RESOURCE_EXHAUSTED: the answer does not fit one message of `--max-message-bytes`.
    AnswerTooLarge,
    /// RESOURCE_EXHAUSTED: the request is over `--max-message-bytes`.
    MessageTooLarge,
    /// RESOURCE_EXHAUSTED: a unary call while the queue is full.
    QueueFull,
    /// RESOURCE_EXHAUSTED: a stream that took no events for `--stall-timeout`.
    StreamStalled,
    /// UNAVAILABLE: the server is shutting down.
    Draining,
    /// DEADLINE_EXCEEDED: `JobOptions.deadline_ms` passed.
    DeadlineExceeded,
    /// CANCELLED: the job was cancelled (client gone, batch cancelled).
    Cancelled,
    /// INTERNAL: a solver panicked.
    SolverPanicked,
    /// INTERNAL: any other fault of the server itself (a damaged stored result, a store that
    /// cannot be opened or migrated).
    InternalError,
    /// ABORTED: a batch job whose runs kept dying.
    AttemptsExhausted,
    /// UNAUTHENTICATED: a missing or wrong bearer token.
    Unauthenticated,
    /// UNAVAILABLE: the batch store cannot be reached.
    StoreUnavailable,
    /// FAILED_PRECONDITION: a `Batches` call on a server without a store.
    NoStore,
    /// RESOURCE_EXHAUSTED: the store refused a write (disk full).
    StoreFull,
    /// RESOURCE_EXHAUSTED: a batch over `--max-batch-jobs` or `--max-batch-bytes`.
    BatchLimitExceeded,
    /// NOT_FOUND: no batch with that id.
    BatchNotFound,
    /// FAILED_PRECONDITION: the batch takes no more jobs (cancelled, deleted, sealed).
    BatchClosed,
}

impl Reason {
    /// Every reason.
    pub const ALL: [Reason; 20] = [
        Reason::InvalidField,
        Reason::LimitExceeded,
        Reason::MemoryEstimateExceeded,
        Reason::AnswerTooLarge,
        Reason::MessageTooLarge,
        Reason::QueueFull,
        Reason::StreamStalled,
        Reason::Draining,
        Reason::DeadlineExceeded,
        Reason::Cancelled,
        Reason::SolverPanicked,
        Reason::InternalError,
        Reason::AttemptsExhausted,
        Reason::Unauthenticated,
        Reason::StoreUnavailable,
        Reason::NoStore,
        Reason::StoreFull,
        Reason::BatchLimitExceeded,
        Reason::BatchNotFound,
        Reason::BatchClosed,
    ];

    /// The name on the wire, e.g. `"LIMIT_EXCEEDED"`.
    pub fn name(self) -> &'static str {
        match self {
            Reason::InvalidField => "INVALID_FIELD",
            Reason::LimitExceeded => "LIMIT_EXCEEDED",
            Reason::MemoryEstimateExceeded => "MEMORY_ESTIMATE_EXCEEDED",
            Reason::AnswerTooLarge => "ANSWER_TOO_LARGE",
            Reason::MessageTooLarge => "MESSAGE_TOO_LARGE",
            Reason::QueueFull => "QUEUE_FULL",
            Reason::StreamStalled => "STREAM_STALLED",
            Reason::Draining => "DRAINING",
            Reason::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Reason::Cancelled => "CANCELLED",
            Reason::SolverPanicked => "SOLVER_PANICKED",
            Reason::InternalError => "INTERNAL_ERROR",
            Reason::AttemptsExhausted => "ATTEMPTS_EXHAUSTED",
            Reason::Unauthenticated => "UNAUTHENTICATED",
            Reason::StoreUnavailable => "STORE_UNAVAILABLE",
            Reason::NoStore => "NO_STORE",
            Reason::StoreFull => "STORE_FULL",
            Reason::BatchLimitExceeded => "BATCH_LIMIT_EXCEEDED",
            Reason::BatchNotFound => "BATCH_NOT_FOUND",
            Reason::BatchClosed => "BATCH_CLOSED",
        }
    }

    /// The gRPC code of every error with this reason.
    pub fn code(self) -> Code {
        match self {
            Reason::InvalidField => Code::InvalidArgument,
            Reason::LimitExceeded
            | Reason::MemoryEstimateExceeded
            | Reason::AnswerTooLarge
            | Reason::MessageTooLarge
            | Reason::QueueFull
            | Reason::StreamStalled
            | Reason::StoreFull
            | Reason::BatchLimitExceeded => Code::ResourceExhausted,
            Reason::Draining | Reason::StoreUnavailable => Code::Unavailable,
            Reason::DeadlineExceeded => Code::DeadlineExceeded,
            Reason::Cancelled => Code::Cancelled,
            Reason::SolverPanicked | Reason::InternalError => Code::Internal,
            Reason::AttemptsExhausted => Code::Aborted,
            Reason::Unauthenticated => Code::Unauthenticated,
            Reason::NoStore | Reason::BatchClosed => Code::FailedPrecondition,
            Reason::BatchNotFound => Code::NotFound,
        }
    }
}

/// An error as the caller receives it: the code and message, and the `google.rpc` details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorReport {
    pub code: Code,
    pub message: String,
    /// `ErrorInfo.reason`: every error has one (INTERNAL_ERROR for the server's own faults).
    pub reason: Reason,
    /// `ErrorInfo.metadata`.
    pub metadata: BTreeMap<String, String>,
    /// `BadRequest.field_violations`: (field path, description).
    pub field_violations: Vec<(String, String)>,
    /// `QuotaFailure`'s one violation: (subject: the limit's name, description: the message).
    pub quota_violation: Option<(String, String)>,
    /// `RetryInfo.retry_delay`.
    pub retry_delay: Option<Duration>,
}

impl ErrorReport {
    /// A report of `reason` (with its code) and no details beyond the `ErrorInfo`.
    fn new(reason: Reason, message: String) -> Self {
        Self {
            code: reason.code(),
            message,
            reason,
            metadata: BTreeMap::new(),
            field_violations: Vec::new(),
            quota_violation: None,
            retry_delay: None,
        }
    }

    /// INVALID_FIELD with one violation of `field`.
    #[cfg(test)]
    fn invalid_field(field: &str, description: &str, message: String) -> Self {
        let mut report = Self::new(Reason::InvalidField, message);
        report
            .field_violations
            .push((field.to_string(), description.to_string()));
        report
    }

    /// Adds a limit's details: `QuotaFailure` (subject `limit_name`, the message as
    /// description) and the metadata `limit_name`, `limit`, `requested` (when known).
    fn limit(&mut self, limit_name: &str, limit: u64, requested: Option<String>) {
        self.quota_violation = Some((limit_name.to_string(), self.message.clone()));
        self.with("limit_name", limit_name).with("limit", limit);
        if let Some(requested) = requested {
            self.with("requested", requested);
        }
    }

    fn with(&mut self, key: &str, value: impl ToString) -> &mut Self {
        self.metadata.insert(key.to_string(), value.to_string());
        self
    }

    /// The status: code, message and the details, within [`MAX_FIELD_VIOLATIONS`] and
    /// [`MAX_DETAILS_BYTES`].
    pub fn to_status(&self) -> Status {
        let mut violations: Vec<FieldViolation> = self
            .field_violations
            .iter()
            .take(MAX_FIELD_VIOLATIONS)
            .map(|(field, description)| {
                FieldViolation::new(
                    cut(field, MAX_DESCRIPTION_BYTES),
                    cut(description, MAX_DESCRIPTION_BYTES),
                )
            })
            .collect();
        loop {
            let message = self.message_with_omitted(self.field_violations.len() - violations.len());
            let details = self.details(&violations);
            let status = Status::with_error_details(self.code, message, details);
            if status.details().len() <= MAX_DETAILS_BYTES || violations.is_empty() {
                return status;
            }
            violations.pop();
        }
    }

    /// A stream's or a batch's final error event for job `id`: the status's fields.
    pub fn to_event(&self, id: String) -> pb::JobEvent {
        pb::JobEvent {
            id,
            event: Some(pb::job_event::Event::Error(orbit_api::wire::job_error(
                &self.to_status(),
            ))),
        }
    }

    fn message_with_omitted(&self, omitted: usize) -> String {
        let mut message = cut(&self.message, MAX_MESSAGE_BYTES);
        if message.len() < self.message.len() {
            message.push_str("...");
        }
        match omitted {
            0 => message,
            n => format!(
                "{message} (and {n} more bad field{}, not listed)",
                if n == 1 { "" } else { "s" }
            ),
        }
    }

    fn details(&self, violations: &[FieldViolation]) -> ErrorDetails {
        let mut details = ErrorDetails::with_error_info(
            self.reason.name(),
            ERROR_DOMAIN,
            self.metadata
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<std::collections::HashMap<_, _>>(),
        );
        if !violations.is_empty() {
            details.set_bad_request(violations.to_vec());
        }
        if let Some((subject, description)) = &self.quota_violation {
            details.add_quota_failure_violation(
                subject.clone(),
                cut(description, MAX_DESCRIPTION_BYTES),
            );
        }
        if let Some(delay) = self.retry_delay {
            details.set_retry_info(Some(delay));
        }
        details
    }
}

/// `text` cut to at most `max` bytes at a character boundary.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

impl From<&ServiceError> for ErrorReport {
    fn from(e: &ServiceError) -> Self {
        let mut report = ErrorReport::new(e.reason(), e.to_string());
        // Exhaustive on purpose: a new variant must choose its details here.
        match e {
            ServiceError::Solve(SolveError::InvalidArgument { field, reason })
            | ServiceError::InvalidRequest { field, reason } => {
                report
                    .field_violations
                    .push((field.clone(), reason.clone()));
            }
            ServiceError::Solve(SolveError::LimitExceeded {
                limit_name,
                limit_value,
                requested,
                ..
            }) => report.limit(limit_name, *limit_value, requested.clone()),
            ServiceError::Solve(SolveError::Cancelled | SolveError::Panicked(_))
            | ServiceError::Unauthenticated { .. }
            | ServiceError::NoStore
            | ServiceError::BatchCancelled { .. }
            | ServiceError::Internal(_) => {}
            ServiceError::QueueFull { capacity } => {
                report.limit("queue_capacity", *capacity as u64, None);
                report.retry_delay = Some(QUEUE_FULL_RETRY_DELAY);
            }
            ServiceError::Draining => report.retry_delay = Some(DRAINING_RETRY_DELAY),
            ServiceError::DeadlineExceeded { deadline_ms } => {
                report.with("deadline_ms", deadline_ms);
            }
            ServiceError::AnswerTooLarge { bytes, limit } => {
                report.limit("max_message_bytes", *limit as u64, Some(bytes.to_string()));
            }
            ServiceError::MessageTooLarge { bytes, limit, .. } => {
                report.limit(
                    "max_message_bytes",
                    *limit as u64,
                    bytes.map(|b| b.to_string()),
                );
            }
            ServiceError::StreamStalled { stall_timeout } => {
                report.with("stall_timeout_s", stall_timeout.as_secs_f64());
            }
            ServiceError::AttemptsExhausted { max_attempts } => {
                report.with("max_attempts", max_attempts);
            }
            ServiceError::BatchNotFound { batch_id, .. } => {
                report.with("batch_id", batch_id);
            }
        }
        report
    }
}

impl From<&StoreError> for ErrorReport {
    fn from(e: &StoreError) -> Self {
        let message = e.to_string();
        // Exhaustive on purpose: a new variant must choose its reason and details here.
        let reason = match e {
            StoreError::Unavailable(_) => Reason::StoreUnavailable,
            StoreError::Full(_) => Reason::StoreFull,
            StoreError::LimitExceeded { .. } => Reason::BatchLimitExceeded,
            StoreError::NotFound(_) => Reason::BatchNotFound,
            // A gap: the create went on from a position the batch does not hold, so the batch
            // takes no more jobs from it.
            StoreError::Closed { .. } | StoreError::Gap { .. } => Reason::BatchClosed,
            // Start-up errors: never the answer to a call, but a status all the same.
            StoreError::BadUrl { .. } | StoreError::Migrate(_) => Reason::InternalError,
        };
        let mut report = ErrorReport::new(reason, message);
        match e {
            StoreError::Unavailable(_) => report.retry_delay = Some(STORE_RETRY_DELAY),
            StoreError::LimitExceeded {
                limit_name,
                limit,
                requested,
                ..
            } => report.limit(
                // The flag, `--max-batch-jobs`, by its snake-case name as every limit_name.
                &limit_name.trim_start_matches('-').replace('-', "_"),
                *limit,
                Some(requested.to_string()),
            ),
            StoreError::NotFound(batch_id) => {
                report.with("batch_id", batch_id);
            }
            _ => {}
        }
        report
    }
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Self {
        ErrorReport::from(&e).to_status()
    }
}

impl From<StoreError> for Status {
    fn from(e: StoreError) -> Self {
        ErrorReport::from(&e).to_status()
    }
}

/// The encoded size of `status`'s details, for the tests of the bound.
#[cfg(test)]
fn details_len(status: &Status) -> usize {
    use prost::Message;
    tonic_types::pb::Status::decode(status.details())
        .map(|s| s.encoded_len())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::StatusExt;

    /// The details of `status`, read back as a client would.
    fn read(status: &Status) -> ErrorDetails {
        status.check_error_details().expect("details decode")
    }

    fn metadata(status: &Status) -> BTreeMap<String, String> {
        read(status)
            .error_info()
            .expect("an ErrorInfo")
            .metadata
            .clone()
            .into_iter()
            .collect()
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Every ServiceError variant: its code, reason, metadata, and the message unchanged. The
    /// expected values are written out from the contract's table, not computed.
    #[test]
    fn every_service_error_maps_to_its_status_and_details() {
        let cases: Vec<(ServiceError, Code, &str, BTreeMap<String, String>)> = vec![
            (
                ServiceError::Solve(SolveError::invalid(
                    "game.edges[1]",
                    "vertex 5 out of range 0..1",
                )),
                Code::InvalidArgument,
                "INVALID_FIELD",
                map(&[]),
            ),
            (
                ServiceError::Solve(
                    SolveError::limit("game.vertices (40)", "max_vertices", 10).requested(40),
                ),
                Code::ResourceExhausted,
                "LIMIT_EXCEEDED",
                map(&[
                    ("limit_name", "max_vertices"),
                    ("limit", "10"),
                    ("requested", "40"),
                ]),
            ),
            (
                ServiceError::Solve(orbit_worker::memory::over_budget(
                    "game",
                    5_583_457_484,
                    4 << 30,
                )),
                Code::ResourceExhausted,
                "MEMORY_ESTIMATE_EXCEEDED",
                map(&[
                    ("limit_name", "max_job_memory"),
                    ("limit", "4294967296"),
                    ("requested", "5583457484"),
                ]),
            ),
            (
                ServiceError::Solve(SolveError::Cancelled),
                Code::Cancelled,
                "CANCELLED",
                map(&[]),
            ),
            (
                ServiceError::Solve(SolveError::Panicked("index out of bounds".into())),
                Code::Internal,
                "SOLVER_PANICKED",
                map(&[]),
            ),
            (
                ServiceError::Internal("stored result 3 is damaged: invalid wire type".into()),
                Code::Internal,
                "INTERNAL_ERROR",
                map(&[]),
            ),
            (
                ServiceError::InvalidRequest {
                    field: "batch_id".into(),
                    reason: "empty".into(),
                },
                Code::InvalidArgument,
                "INVALID_FIELD",
                map(&[]),
            ),
            (
                ServiceError::QueueFull { capacity: 4 },
                Code::ResourceExhausted,
                "QUEUE_FULL",
                map(&[("limit_name", "queue_capacity"), ("limit", "4")]),
            ),
            (
                ServiceError::Draining,
                Code::Unavailable,
                "DRAINING",
                map(&[]),
            ),
            (
                ServiceError::DeadlineExceeded { deadline_ms: 150 },
                Code::DeadlineExceeded,
                "DEADLINE_EXCEEDED",
                map(&[("deadline_ms", "150")]),
            ),
            (
                ServiceError::AnswerTooLarge {
                    bytes: 183_517,
                    limit: 65_536,
                },
                Code::ResourceExhausted,
                "ANSWER_TOO_LARGE",
                map(&[
                    ("limit_name", "max_message_bytes"),
                    ("limit", "65536"),
                    ("requested", "183517"),
                ]),
            ),
            (
                ServiceError::MessageTooLarge {
                    decoder: "decoded message length too large: found 2000 bytes, the limit is: \
                              1024 bytes"
                        .into(),
                    bytes: Some(2000),
                    limit: 1024,
                },
                Code::ResourceExhausted,
                "MESSAGE_TOO_LARGE",
                map(&[
                    ("limit_name", "max_message_bytes"),
                    ("limit", "1024"),
                    ("requested", "2000"),
                ]),
            ),
            (
                ServiceError::StreamStalled {
                    stall_timeout: Duration::from_millis(2500),
                },
                Code::ResourceExhausted,
                "STREAM_STALLED",
                map(&[("stall_timeout_s", "2.5")]),
            ),
            (
                ServiceError::AttemptsExhausted { max_attempts: 3 },
                Code::Aborted,
                "ATTEMPTS_EXHAUSTED",
                map(&[("max_attempts", "3")]),
            ),
            (
                ServiceError::Unauthenticated { token_sent: false },
                Code::Unauthenticated,
                "UNAUTHENTICATED",
                map(&[]),
            ),
            (
                ServiceError::Unauthenticated { token_sent: true },
                Code::Unauthenticated,
                "UNAUTHENTICATED",
                map(&[]),
            ),
            (
                ServiceError::NoStore,
                Code::FailedPrecondition,
                "NO_STORE",
                map(&[]),
            ),
            (
                ServiceError::BatchNotFound {
                    batch_id: "00ff".into(),
                    while_watched: true,
                },
                Code::NotFound,
                "BATCH_NOT_FOUND",
                map(&[("batch_id", "00ff")]),
            ),
            (
                ServiceError::BatchCancelled {
                    request_id: "r1".into(),
                    batch_id: "00ff".into(),
                },
                Code::FailedPrecondition,
                "BATCH_CLOSED",
                map(&[]),
            ),
        ];
        for (error, code, reason, expected_metadata) in cases {
            let message = error.to_string();
            assert_eq!(error.code(), code, "{error:?}");
            let status = Status::from(error.clone());
            assert_eq!(status.code(), code, "{error:?}");
            assert_eq!(status.message(), message);
            let details = read(&status);
            let info = details.error_info().expect("an ErrorInfo");
            assert_eq!(info.reason, reason, "{error:?}");
            assert_eq!(info.domain, "orbit.v1");
            assert_eq!(metadata(&status), expected_metadata, "{error:?}");
            // A quota failure exactly when there is a limit, naming it.
            let subject = details
                .quota_failure()
                .map(|q| q.violations[0].subject.clone());
            assert_eq!(subject.as_ref(), expected_metadata.get("limit_name"));
            // A retry delay exactly for the reasons that say to retry.
            let delay = details.retry_info().and_then(|r| r.retry_delay);
            let expected_delay = match reason {
                "QUEUE_FULL" => Some(Duration::from_secs(1)),
                "DRAINING" => Some(Duration::from_secs(2)),
                _ => None,
            };
            assert_eq!(delay, expected_delay, "{error:?}");
            // The stream's event carries the same.
            let Some(pb::job_event::Event::Error(job_error)) =
                ErrorReport::from(&error).to_event("j1".into()).event
            else {
                panic!("not an error event");
            };
            assert_eq!(job_error.code, code as i32);
            assert_eq!(job_error.message, message);
            assert_eq!(job_error.reason, reason);
            assert_eq!(
                job_error.metadata.into_iter().collect::<BTreeMap<_, _>>(),
                expected_metadata
            );
            assert_eq!(
                u64::from(job_error.retry_delay_ms),
                expected_delay.map_or(0, |d| d.as_millis() as u64)
            );
        }
        let panic = Status::from(ServiceError::Solve(SolveError::Panicked(
            "index out of bounds".into(),
        )));
        assert_eq!(panic.message(), "solver panicked: index out of bounds");
    }

    #[test]
    fn invalid_fields_carry_their_path_and_reason() {
        let status = Status::from(ServiceError::Solve(SolveError::invalid(
            "puzzle.targets[3][7]",
            "token 9 out of range 0..8",
        )));
        let bad = read(&status).bad_request().cloned().expect("a BadRequest");
        assert_eq!(bad.field_violations.len(), 1);
        assert_eq!(bad.field_violations[0].field, "puzzle.targets[3][7]");
        assert_eq!(
            bad.field_violations[0].description,
            "token 9 out of range 0..8"
        );
    }

    #[test]
    fn limits_without_a_requested_amount_omit_it() {
        let status = Status::from(ServiceError::Solve(SolveError::limit_shown(
            "the exact answer (2^41 vertices; give a modulus)",
            "exact_answer_bits",
            1 << 24,
            "16777216 bits",
        )));
        assert_eq!(
            metadata(&status),
            map(&[("limit_name", "exact_answer_bits"), ("limit", "16777216")])
        );
    }

    /// Every StoreError, the start-up ones (which no call meets) included. (sqlx errors are built
    /// from `sqlx::Error::PoolTimedOut`, the one variant without a payload.)
    #[test]
    fn every_store_error_maps_to_its_status_and_details() {
        // (error, code, reason, metadata, whether it carries a retry delay)
        type Case = (
            StoreError,
            Code,
            &'static str,
            BTreeMap<String, String>,
            bool,
        );
        let cases: Vec<Case> = vec![
            (
                StoreError::Unavailable(sqlx::Error::PoolTimedOut),
                Code::Unavailable,
                "STORE_UNAVAILABLE",
                map(&[]),
                true,
            ),
            (
                StoreError::Full(sqlx::Error::PoolTimedOut),
                Code::ResourceExhausted,
                "STORE_FULL",
                map(&[]),
                false,
            ),
            (
                StoreError::LimitExceeded {
                    batch_id: "00ff".into(),
                    limit_name: "--max-batch-jobs",
                    what: "jobs",
                    limit: 5,
                    requested: 7,
                    stored: 4,
                },
                Code::ResourceExhausted,
                "BATCH_LIMIT_EXCEEDED",
                map(&[
                    ("limit_name", "max_batch_jobs"),
                    ("limit", "5"),
                    ("requested", "7"),
                ]),
                false,
            ),
            (
                StoreError::NotFound("00ff".into()),
                Code::NotFound,
                "BATCH_NOT_FOUND",
                map(&[("batch_id", "00ff")]),
                false,
            ),
            (
                StoreError::Closed {
                    batch_id: "00ff".into(),
                    request_id: "r1".into(),
                    state: "deleted",
                },
                Code::FailedPrecondition,
                "BATCH_CLOSED",
                map(&[]),
                false,
            ),
            (
                StoreError::Gap {
                    batch_id: "00ff".into(),
                    stored: 3,
                    first: 5,
                },
                Code::FailedPrecondition,
                "BATCH_CLOSED",
                map(&[]),
                false,
            ),
            (
                StoreError::BadUrl {
                    url: "mysql://db/orbit".into(),
                    reason: "expected postgres:// or sqlite:".into(),
                },
                Code::Internal,
                "INTERNAL_ERROR",
                map(&[]),
                false,
            ),
            (
                StoreError::Migrate(sqlx::migrate::MigrateError::VersionMissing(3)),
                Code::Internal,
                "INTERNAL_ERROR",
                map(&[]),
                false,
            ),
        ];
        for (error, code, reason, expected_metadata, retry) in cases {
            let message = error.to_string();
            let status = Status::from(error);
            assert_eq!(status.code(), code);
            assert_eq!(status.message(), message);
            let details = read(&status);
            assert_eq!(details.error_info().expect("an ErrorInfo").reason, reason);
            assert_eq!(metadata(&status), expected_metadata);
            assert_eq!(
                details.retry_info().and_then(|r| r.retry_delay),
                retry.then_some(Duration::from_secs(2))
            );
        }
    }

    /// The server's own faults carry an `ErrorInfo` too (INTERNAL_ERROR, no metadata) and
    /// nothing else: no field to fix, no limit, no advice to retry.
    #[test]
    fn internal_faults_carry_only_an_error_info() {
        let statuses = [
            Status::from(ServiceError::Internal("stored result 3 is damaged".into())),
            Status::from(StoreError::BadUrl {
                url: "mysql://db/orbit".into(),
                reason: "expected postgres:// or sqlite:".into(),
            }),
        ];
        for status in statuses {
            assert_eq!(status.code(), Code::Internal, "{status:?}");
            let details = read(&status);
            let info = details.error_info().expect("an ErrorInfo");
            assert_eq!(
                (info.reason.as_str(), info.domain.as_str()),
                ("INTERNAL_ERROR", "orbit.v1")
            );
            assert!(info.metadata.is_empty(), "{status:?}");
            assert!(details.bad_request().is_none(), "{status:?}");
            assert!(details.quota_failure().is_none(), "{status:?}");
            assert!(details.retry_info().is_none(), "{status:?}");
        }
    }

    #[test]
    fn reasons_have_distinct_names_and_their_codes() {
        let mut names: Vec<_> = Reason::ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Reason::ALL.len());
        // Written out from the contract's table.
        let codes = [
            ("INVALID_FIELD", Code::InvalidArgument),
            ("LIMIT_EXCEEDED", Code::ResourceExhausted),
            ("MEMORY_ESTIMATE_EXCEEDED", Code::ResourceExhausted),
            ("ANSWER_TOO_LARGE", Code::ResourceExhausted),
            ("MESSAGE_TOO_LARGE", Code::ResourceExhausted),
            ("QUEUE_FULL", Code::ResourceExhausted),
            ("STREAM_STALLED", Code::ResourceExhausted),
            ("DRAINING", Code::Unavailable),
            ("DEADLINE_EXCEEDED", Code::DeadlineExceeded),
            ("CANCELLED", Code::Cancelled),
            ("SOLVER_PANICKED", Code::Internal),
            ("INTERNAL_ERROR", Code::Internal),
            ("ATTEMPTS_EXHAUSTED", Code::Aborted),
            ("UNAUTHENTICATED", Code::Unauthenticated),
            ("STORE_UNAVAILABLE", Code::Unavailable),
            ("NO_STORE", Code::FailedPrecondition),
            ("STORE_FULL", Code::ResourceExhausted),
            ("BATCH_LIMIT_EXCEEDED", Code::ResourceExhausted),
            ("BATCH_NOT_FOUND", Code::NotFound),
            ("BATCH_CLOSED", Code::FailedPrecondition),
        ];
        assert_eq!(codes.len(), Reason::ALL.len());
        for (reason, (name, code)) in Reason::ALL.iter().zip(codes) {
            assert_eq!((reason.name(), reason.code()), (name, code));
        }
    }

    /// The README's "Errors" table lists every reason.
    #[test]
    fn the_readme_lists_every_reason() {
        let readme = include_str!("../../README.md");
        for reason in Reason::ALL {
            assert!(
                readme.contains(&format!("| `{}` |", reason.name())),
                "README's Errors table lacks {}",
                reason.name()
            );
        }
    }

    /// More than [`MAX_FIELD_VIOLATIONS`] problems, with long descriptions: at most 100 go out,
    /// the details stay within [`MAX_DETAILS_BYTES`], and the message counts the rest.
    #[test]
    fn many_violations_are_bounded() {
        let mut report =
            ErrorReport::invalid_field("group.generators[0].images[0]", "x", "bad".into());
        report.field_violations = (0..250)
            .map(|i| (format!("group.generators[0].images[{i}]"), "é".repeat(400)))
            .collect();
        let status = report.to_status();
        assert!(
            status.details().len() <= MAX_DETAILS_BYTES,
            "{}",
            details_len(&status)
        );
        let kept = read(&status)
            .bad_request()
            .expect("a BadRequest")
            .field_violations
            .len();
        assert!((1..=MAX_FIELD_VIOLATIONS).contains(&kept), "{kept}");
        assert_eq!(
            status.message(),
            format!("bad (and {} more bad fields, not listed)", 250 - kept)
        );
        // Short ones: exactly 100 go out.
        report.field_violations = (0..150)
            .map(|i| (format!("game.edges[{i}]"), "out of range".to_string()))
            .collect();
        let status = report.to_status();
        let bad = read(&status).bad_request().cloned().expect("a BadRequest");
        assert!(status.details().len() <= MAX_DETAILS_BYTES);
        let kept = bad.field_violations.len();
        assert!(kept <= MAX_FIELD_VIOLATIONS);
        assert_eq!(bad.field_violations[0].field, "game.edges[0]");
        assert!(
            status
                .message()
                .ends_with(&format!("(and {} more bad fields, not listed)", 150 - kept))
        );
    }

    /// A long message (quoting a database's error, say) is cut, and the whole stays bounded.
    #[test]
    fn long_messages_are_cut() {
        let status = Status::from(ServiceError::InvalidRequest {
            field: "header.name".into(),
            reason: "x".repeat(10_000),
        });
        assert_eq!(status.message().len(), MAX_MESSAGE_BYTES + 3);
        assert!(
            status.message().starts_with("header.name: xxx") && status.message().ends_with("x...")
        );
        assert!(
            status.details().len() <= MAX_DETAILS_BYTES,
            "{}",
            details_len(&status)
        );
    }
}
