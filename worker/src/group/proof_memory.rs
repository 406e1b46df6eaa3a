//! What a proof of completeness holds beside the stabiliser chain — permutations of `4d` bytes
//! and subgroup chains — charged against what the chain's budget leaves, with the most held at
//! once recorded, so that the chain can report an honest peak ([`super::schreier_sims`]'s
//! `peak_bytes`).

/// Bytes held against a budget; the most held at once goes to `peak`.
pub(crate) struct Held<'p> {
    n: usize,
    budget: u64,
    bytes: u64,
    peak: &'p mut u64,
}

impl<'p> Held<'p> {
    /// Nothing held yet, for permutations of degree `n`, within `budget` bytes.
    pub(crate) fn new(n: usize, budget: u64, peak: &'p mut u64) -> Self {
        Held {
            n,
            budget,
            bytes: 0,
            peak,
        }
    }

    /// Charges `bytes`; `false` (nothing charged) if that would exceed the budget.
    pub(crate) fn add(&mut self, bytes: u64) -> bool {
        let total = self.bytes.saturating_add(bytes);
        if total > self.budget {
            return false;
        }
        self.record(bytes);
        true
    }

    /// Charges `bytes` already held (a chain built within [`left`](Self::left), whose peak may
    /// have passed it by what its own proofs held), without checking the budget.
    pub(crate) fn record(&mut self, bytes: u64) {
        self.bytes = self.bytes.saturating_add(bytes);
        *self.peak = (*self.peak).max(self.bytes);
    }

    /// Charges `count` permutations; `false` (nothing charged) if over the budget.
    pub(crate) fn hold(&mut self, count: usize) -> bool {
        self.add((count as u64).saturating_mul(4 * self.n as u64))
    }

    /// Returns `bytes` charged before.
    pub(crate) fn release(&mut self, bytes: u64) {
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    /// What is left of the budget (for a subgroup chain).
    pub(crate) fn left(&self) -> u64 {
        self.budget.saturating_sub(self.bytes)
    }

    /// What is held now, to [`release_to`](Self::release_to) later.
    pub(crate) fn mark(&self) -> u64 {
        self.bytes
    }

    /// Releases everything charged since `mark`.
    pub(crate) fn release_to(&mut self, mark: u64) {
        self.bytes = mark;
    }
}
