//! The server's error types and their one mapping to gRPC statuses: [`ServiceError`] for jobs,
//! [`StoreError`] for the batch store.

use orbit_worker::SolveError;

use crate::batches::store::StoreError;
use tonic::{Code, Status};

/// Why a job got no answer, as the server sees it: a solver error, or something the front decided
/// before or around the solver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServiceError {
    /// The solver (or validation, which speaks the solver's language) refused or failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
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
}

impl ServiceError {
    /// The gRPC code this error is reported with.
    pub fn code(&self) -> Code {
        // Exhaustive on purpose: a new variant must choose its code here.
        match self {
            ServiceError::Solve(e) => match e {
                SolveError::InvalidArgument { .. } => Code::InvalidArgument,
                SolveError::LimitExceeded { .. } => Code::ResourceExhausted,
                SolveError::Cancelled => Code::Cancelled,
                SolveError::Panicked(_) => Code::Internal,
            },
            ServiceError::QueueFull { .. } => Code::ResourceExhausted,
            ServiceError::Draining => Code::Unavailable,
            ServiceError::DeadlineExceeded { .. } => Code::DeadlineExceeded,
            ServiceError::AnswerTooLarge { .. } => Code::ResourceExhausted,
        }
    }
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Self {
        Status::new(e.code(), e.to_string())
    }
}

impl From<StoreError> for Status {
    fn from(e: StoreError) -> Self {
        // Exhaustive on purpose: a new variant must choose its code here.
        let code = match &e {
            StoreError::Unavailable(_) => Code::Unavailable,
            StoreError::Full(_) | StoreError::LimitExceeded { .. } => Code::ResourceExhausted,
            StoreError::NotFound(_) => Code::NotFound,
            StoreError::Closed { .. } | StoreError::Gap { .. } => Code::FailedPrecondition,
            // Start-up errors: never the answer to a call.
            StoreError::BadUrl { .. } | StoreError::Migrate(_) => Code::Internal,
        };
        Status::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_maps_to_its_status() {
        let cases = [
            (
                ServiceError::Solve(SolveError::invalid(
                    "game.edges[1]",
                    "vertex 5 out of range 0..1",
                )),
                Code::InvalidArgument,
            ),
            (
                ServiceError::Solve(SolveError::limit("game.vertices (40)", 10)),
                Code::ResourceExhausted,
            ),
            (ServiceError::Solve(SolveError::Cancelled), Code::Cancelled),
            (
                ServiceError::Solve(SolveError::Panicked("index out of bounds".into())),
                Code::Internal,
            ),
            (
                ServiceError::QueueFull { capacity: 4 },
                Code::ResourceExhausted,
            ),
            (ServiceError::Draining, Code::Unavailable),
            (
                ServiceError::DeadlineExceeded { deadline_ms: 150 },
                Code::DeadlineExceeded,
            ),
            (
                ServiceError::AnswerTooLarge {
                    bytes: 183_517,
                    limit: 65_536,
                },
                Code::ResourceExhausted,
            ),
        ];
        for (error, code) in cases {
            let message = error.to_string();
            let status = Status::from(error);
            assert_eq!(status.code(), code);
            assert_eq!(status.message(), message);
        }
        let panic = Status::from(ServiceError::Solve(SolveError::Panicked(
            "index out of bounds".into(),
        )));
        assert_eq!(panic.message(), "solver panicked: index out of bounds");
    }
}
