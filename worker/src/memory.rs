//! Memory accounting shared by the solvers: how estimates are worded, what the common building
//! blocks cost (grown vectors, big integers), and [`MemoryBudget`], the runtime meter for the
//! parts of a job that are only known while it runs.
//!
//! Every solver has a `memory_estimate` next to it: an upper bound, in bytes, on what it allocates
//! for one job — its working memory and the answer it builds, not its input, which is already in
//! memory. [`JobSpec::memory_estimate`](crate::job::JobSpec::memory_estimate) dispatches to them
//! and [`JobSpec::validate`](crate::job::JobSpec::validate) refuses a job whose estimate is above
//! [`Limits::max_job_memory`](crate::Limits::max_job_memory). The bounds count requested bytes
//! (what the global allocator is asked for), not the allocator's own bookkeeping; the tests in
//! `worker/tests/memory_estimates.rs` measure them with a counting allocator.

use crate::error::SolveError;

/// Slack added to every estimate for the small allocations no formula tracks (scratch vectors of
/// a few elements, thread handles, hash-map headers).
pub const SMALL_ALLOCATIONS: u64 = 64 << 10;

/// Bytes of a vector of `len` elements of `elem` bytes grown by `push` from empty or from one
/// element: Rust's vectors double their capacity (at least 4 elements), so the capacity is below
/// `2 * len + 4`.
pub const fn grown_vec_bytes(len: u64, elem: u64) -> u64 {
    len.saturating_mul(2).saturating_add(4).saturating_mul(elem)
}

/// Bytes of the digits of a big integer of `bits` bits (64-bit limbs).
pub const fn bigint_bytes(bits: u64) -> u64 {
    bits.div_ceil(64).saturating_mul(8)
}

/// Peak bytes of one `num-bigint` operation on numbers of at most `bits` bits, result included,
/// as a multiple of the operands' size. Measured with `num-bigint` 0.4.8 by
/// `big_integer_operations_stay_under_the_factor` in `worker/tests/memory_estimates.rs`, for
/// 10^4 to 10^6 bits: a product of two equal numbers peaks at up to 9.9x one operand (Toom-3 keeps
/// about 9 operand sizes of temporaries), a power at 5.3x its result, a quotient at 9.7x its
/// dividend, the decimal conversion at 12.6x (its string included), a modular power at 24.4x the
/// modulus (Montgomery keeps a window of 16 powers).
pub const BIGINT_OP_FACTOR: u64 = 26;

/// Peak bytes of a computation made of `num-bigint` operations on numbers of at most `bits`
/// bits, with at most `live` such numbers held between the operations (accumulators, the answer):
/// `(BIGINT_OP_FACTOR + live) * bits / 8`, plus 1 KiB.
pub const fn bigint_work_bytes(bits: u64, live: u64) -> u64 {
    bigint_bytes(bits)
        .saturating_mul(BIGINT_OP_FACTOR + live)
        .saturating_add(1024)
}

/// A byte count for people: `512 bytes`, `3.5 KiB`, `5.2 GiB`.
///
/// ```
/// use orbit_worker::memory::format_bytes;
/// assert_eq!(format_bytes(512), "512 bytes");
/// assert_eq!(format_bytes(4 << 30), "4.0 GiB");
/// assert_eq!(format_bytes(5_583_457_484), "5.2 GiB");
/// ```
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The error for a job whose estimate is above `limit`: `LimitExceeded` with the text
/// `{kind} job memory estimate of 5.2 GiB exceeds the limit of 4.0 GiB (max_job_memory)`. When
/// both round to the same text, exact byte counts are given instead.
///
/// ```
/// use orbit_worker::memory::over_budget;
/// assert_eq!(
///     over_budget("game", 5_583_457_484, 4 << 30).to_string(),
///     "game job memory estimate of 5.2 GiB exceeds the limit of 4.0 GiB (max_job_memory)"
/// );
/// assert_eq!(
///     over_budget("game", (4 << 30) + 1, 4 << 30).to_string(),
///     "game job memory estimate of 4294967297 bytes exceeds the limit of 4294967296 bytes (max_job_memory)"
/// );
/// ```
pub fn over_budget(kind: &str, estimate: u64, limit: u64) -> SolveError {
    let (mut shown_estimate, mut shown_limit) = (format_bytes(estimate), format_bytes(limit));
    if shown_estimate == shown_limit {
        shown_estimate = format!("{estimate} bytes");
        shown_limit = format!("{limit} bytes");
    }
    let mut error = SolveError::limit_shown(
        format!("{kind} job memory estimate of {shown_estimate}"),
        "max_job_memory",
        limit,
        format!("{shown_limit} (max_job_memory)"),
    )
    .requested(estimate);
    if let SolveError::LimitExceeded {
        memory_estimate, ..
    } = &mut error
    {
        *memory_estimate = true;
    }
    error
}

/// A running job's allowance for what is only known while it runs, charged before each such
/// allocation. Charging more than is left fails with `LimitExceeded` naming what was being
/// allocated, so the job stops before it allocates beyond its budget.
///
/// ```
/// use orbit_worker::memory::MemoryBudget;
/// let mut budget = MemoryBudget::new(1000);
/// budget.charge(600, || "the tally".into()).unwrap();
/// assert_eq!(budget.remaining(), 400);
/// let e = budget.charge(500, || "the cycle index".into()).unwrap_err();
/// assert_eq!(e.to_string(), "memory for the cycle index (1100 bytes in all) exceeds the limit of 1000 bytes (the job's budget, max_job_memory)");
/// budget.release(600);
/// assert_eq!(budget.remaining(), 1000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryBudget {
    limit: u64,
    used: u64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes, nothing charged.
    pub fn new(limit: u64) -> Self {
        Self { limit, used: 0 }
    }

    /// Charges `bytes`; `what` names the allocation in the error when the budget does not allow
    /// it (the charge is then not recorded).
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] stating the total and the budget.
    pub fn charge(&mut self, bytes: u64, what: impl FnOnce() -> String) -> Result<(), SolveError> {
        let total = self.used.saturating_add(bytes);
        if total > self.limit {
            return Err(SolveError::limit_shown(
                format!("memory for {} ({total} bytes in all)", what()),
                "max_job_memory",
                self.limit,
                format!("{} bytes (the job's budget, max_job_memory)", self.limit),
            )
            .requested(total));
        }
        self.used = total;
        Ok(())
    }

    /// Gives back `bytes` charged earlier (what was freed).
    pub fn release(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
    }

    /// Bytes not yet charged.
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Bytes charged so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The whole budget.
    pub fn limit(&self) -> u64 {
        self.limit
    }
}
