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
    /// need more memory or work than it may use. `what` names the quantity, `limit` the bound, in
    /// words (the message); the other fields state the same facts for programs (the server sends
    /// them as `google.rpc.ErrorInfo` metadata and a `QuotaFailure`).
    #[error("{what} exceeds the limit of {limit}")]
    LimitExceeded {
        what: String,
        limit: String,
        /// The limit's name in snake case: the server flag's (`max_vertices` for
        /// `--max-vertices`, `max_job_memory`, ...) when a flag sets it, else the name of the
        /// solver's internal cap (see [`SolveError::INTERNAL_LIMITS`]).
        limit_name: &'static str,
        /// The limit as a number, in the unit its name implies (bytes for `*_bytes` and
        /// `max_job_memory`, else a count).
        limit_value: u64,
        /// The amount the job asked for, as a decimal integer in the limit's unit, when known
        /// (it can exceed `u64`: a group's order).
        requested: Option<String>,
        /// Whether this is the job's memory estimate refused before it ran (against
        /// `max_job_memory`), as opposed to a size limit or a budget running out while it ran.
        memory_estimate: bool,
    },
    /// The caller cancelled, disconnected or passed its deadline.
    #[error("job cancelled")]
    Cancelled,
    /// The solver panicked; the message is the panic payload. Only that job fails.
    #[error("solver panicked: {0}")]
    Panicked(String),
}

impl SolveError {
    /// The names of the solvers' internal caps: bounds no server flag sets, each fixed in the code
    /// (a representation's range, or work that would not finish), with what it bounds. Every
    /// other `limit_name` is a server flag's name.
    pub const INTERNAL_LIMITS: &'static [(&'static str, &'static str)] = &[
        (
            "max_group_chain_bytes",
            "bytes of a permutation group's stabiliser chain or transversals (1 GiB, within max_job_memory)",
        ),
        (
            "game_edges_u32",
            "edges of a game graph: u32 offsets, 2^32 - 2",
        ),
        ("cop_thief_slots", "policeman-and-thief state slots: 2^40"),
        (
            "cop_thief_depth",
            "depth of a policeman-and-thief game: the widest state word's range",
        ),
        (
            "exact_answer_bits",
            "bits of an exact count without a modulus: 2^24",
        ),
        ("count_cells", "cells of a count grid: 2^62"),
        ("count_n_usize", "count.n: the machine's address range"),
        (
            "tree_depth_with_modulus",
            "count.depth of a binary tree count with a modulus: 10000",
        ),
        (
            "pattern_inventory_states",
            "states of one pattern-inventory table: 2^22",
        ),
        (
            "giant_binomial_word_operations",
            "word operations of an exact Sym/Alt count: 2^28",
        ),
        (
            "reference_puzzle_n",
            "puzzle.n of the reference solver (tests only): 200",
        ),
        (
            "group_degree_u32",
            "a group's degree in the CLI's text format: 2^32 - 1",
        ),
        ("graph_vertices", "vertices of a graph job: 1,000,000"),
        ("graph_edges", "edges of a graph job: 10,000,000"),
        (
            "graph_dense_vertices",
            "vertices the graph kind's dense search takes: 32,768 (its bit matrices)",
        ),
    ];

    /// Shorthand for [`SolveError::InvalidArgument`].
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        SolveError::InvalidArgument {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// [`SolveError::LimitExceeded`]: `what` is over the limit `limit_name` of `limit`, shown in
    /// the message as the number. Add the amount asked for with [`requested`](Self::requested).
    ///
    /// ```
    /// use orbit_worker::SolveError;
    /// let e = SolveError::limit("game.vertices (40)", "max_vertices", 10).requested(40);
    /// assert_eq!(e.to_string(), "game.vertices (40) exceeds the limit of 10");
    /// ```
    pub fn limit(what: impl Into<String>, limit_name: &'static str, limit: u64) -> Self {
        Self::limit_shown(what, limit_name, limit, limit.to_string())
    }

    /// As [`limit`](Self::limit), with the limit shown in the message as `shown` (with its unit
    /// or its flag, e.g. `4.0 GiB (max_job_memory)`).
    pub fn limit_shown(
        what: impl Into<String>,
        limit_name: &'static str,
        limit: u64,
        shown: impl Into<String>,
    ) -> Self {
        SolveError::LimitExceeded {
            what: what.into(),
            limit: shown.into(),
            limit_name,
            limit_value: limit,
            requested: None,
            memory_estimate: false,
        }
    }

    /// The same error with the amount the job asked for (a [`SolveError::LimitExceeded`]; any
    /// other error is returned unchanged).
    #[must_use]
    pub fn requested(mut self, amount: impl ToString) -> Self {
        if let SolveError::LimitExceeded { requested, .. } = &mut self {
            *requested = Some(amount.to_string());
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_limit_names_are_distinct_snake_case() {
        let names: Vec<_> = SolveError::INTERNAL_LIMITS
            .iter()
            .map(|(n, _)| *n)
            .collect();
        for name in &names {
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{name}"
            );
        }
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }

    #[test]
    fn requested_only_touches_limit_errors() {
        let e = SolveError::limit("x", "max_edges", 3).requested(4u8);
        assert!(matches!(
            e,
            SolveError::LimitExceeded { requested: Some(ref r), limit_value: 3, .. } if r == "4"
        ));
        assert_eq!(SolveError::Cancelled.requested(4), SolveError::Cancelled);
    }
}
