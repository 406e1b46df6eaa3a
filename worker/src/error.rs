//! The one error type every solver returns.

/// Why a job produced no answer.
///
/// The server maps each variant to one gRPC status (see `server/src/error.rs`); the CLI prints the
/// `Display` text. Messages name the offending field the way a caller wrote it, e.g.
/// `game.edges[12]: vertex 40 out of range 0..39`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// The input is malformed: `field` is a path into the job (`game.edges[12]`), `reason` says
    /// what is wrong with it.
    #[error("{field}: {reason}")]
    InvalidArgument { field: String, reason: String },
    /// The input is well-formed but larger than a configured limit allows, or the solver would
    /// need more memory or work than it may use. `what` names the quantity, `limit` the bound.
    #[error("{what} exceeds the limit of {limit}")]
    LimitExceeded { what: String, limit: String },
    /// The caller cancelled, disconnected or passed its deadline.
    #[error("job cancelled")]
    Cancelled,
    /// The solver panicked; the message is the panic payload. Only that job fails.
    #[error("solver panicked: {0}")]
    Panicked(String),
}

impl SolveError {
    /// Shorthand for [`SolveError::InvalidArgument`].
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        SolveError::InvalidArgument {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`SolveError::LimitExceeded`].
    pub fn limit(what: impl Into<String>, limit: impl ToString) -> Self {
        SolveError::LimitExceeded {
            what: what.into(),
            limit: limit.to_string(),
        }
    }
}
