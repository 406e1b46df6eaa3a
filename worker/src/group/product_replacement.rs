//! Random group elements by the product replacement algorithm with an accumulator ("rattle").
//!
//! Used only to *find* things (strong generators, elements with a long prime cycle); every answer
//! built from them is proved by a deterministic step, so the quality of the randomness affects
//! speed, never correctness. Seeded, so runs are reproducible.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::perm::Perm;
use crate::context::SolveContext;
use crate::error::SolveError;

/// A stream of (nearly uniform) random elements of `<generators>`; a clone continues from the same
/// state (several chains of one group can share one warm-up).
#[derive(Debug, Clone)]
pub(crate) struct ProductReplacement {
    slots: Vec<Perm>,
    accumulator: Perm,
    scratch: Perm,
    /// The inverse of the slot multiplied in by a step, when it is inverted (kept, so that a
    /// step allocates nothing).
    inverse_scratch: Perm,
    rng: ChaCha8Rng,
}

/// Slots in the state (Celler et al. recommend at least 10).
const MIN_SLOTS: usize = 10;
/// Products computed before the first element is returned: `WARM_UP + min(4 · slots,
/// WARM_UP_PER_SLOT_CAP)`, so that many short generators (e.g. adjacent transpositions) get mixed.
const WARM_UP: usize = 60;
const WARM_UP_PER_SLOT_CAP: usize = 2000;

impl ProductReplacement {
    /// Starts a stream for `<generators>` (the identity group if there are none).
    ///
    /// Complexity: O((WARM_UP + min(4 · slots, 2000)) · degree).
    /// Reference: Celler, Leedham-Green, Murray, Niemeyer, O'Brien (1995), "Generating random
    /// elements of a finite group"; Leedham-Green–Murray "rattle"; Seress (2003), §2.2.
    pub(crate) fn new(
        degree: usize,
        generators: &[Perm],
        seed: u64,
        ctx: &SolveContext,
    ) -> Result<Self, SolveError> {
        let gens: Vec<&Perm> = generators.iter().filter(|g| !g.is_identity()).collect();
        let mut slots = Vec::with_capacity(MIN_SLOTS.max(gens.len()));
        if gens.is_empty() {
            slots.push(Perm::identity(degree));
        } else {
            while slots.len() < MIN_SLOTS.max(gens.len()) {
                slots.push(gens[slots.len() % gens.len()].clone());
            }
        }
        let mut pr = ProductReplacement {
            accumulator: Perm::identity(degree),
            scratch: Perm::identity(degree),
            inverse_scratch: Perm::identity(degree),
            slots,
            rng: ChaCha8Rng::seed_from_u64(seed),
        };
        let warm_up = WARM_UP + (4 * pr.slots.len()).min(WARM_UP_PER_SLOT_CAP);
        for _ in 0..warm_up {
            ctx.check()?;
            pr.step();
        }
        Ok(pr)
    }

    fn step(&mut self) {
        let s = self.slots.len();
        if s < 2 {
            return;
        }
        let i = self.rng.random_range(0..s);
        let mut j = self.rng.random_range(0..s - 1);
        if j >= i {
            j += 1;
        }
        let right = self.rng.random_bool(0.5);
        let invert = self.rng.random_bool(0.5);
        if invert {
            self.inverse_scratch.set_inverse(&self.slots[j]);
        }
        let other = if invert {
            &self.inverse_scratch
        } else {
            &self.slots[j]
        };
        let target = &self.slots[i];
        if right {
            self.scratch.set_product(target, other);
        } else {
            self.scratch.set_product(other, target);
        }
        std::mem::swap(&mut self.slots[i], &mut self.scratch);
        let k = self.rng.random_range(0..s);
        self.scratch.set_product(&self.accumulator, &self.slots[k]);
        std::mem::swap(&mut self.accumulator, &mut self.scratch);
    }

    /// The next random element.
    ///
    /// Complexity: O(degree).
    pub(crate) fn next_element(&mut self) -> &Perm {
        self.step();
        &self.accumulator
    }
}
