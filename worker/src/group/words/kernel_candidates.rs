//! [`KernelCandidates`]: elements of an action's kernel `K` to try, each with its word in the
//! group's generators, the shortest word first, so that `K` is spanned by short elements and
//! its members' words stay short.
//!
//! Four sources, merged by length:
//! - the powers `t^o` of the short words `t` (`o` the order of `t`'s image under the action);
//! - the conjugates of every element kept by every generator (two letters longer: `K` and each
//!   term of its series are normal);
//! - the `p`-th power of every element kept in a layer of the series over `GF(p)` (it lies one
//!   term further down: the layer's quotient has exponent `p`), for `p` times the letters;
//! - elements that an insertion moved down the series (multiplied by a product of the layer's
//!   elements, so with a longer word): they wait here for their turn by their new length rather
//!   than filling a deeper layer with long words while short candidates are left.
//!
//! Only the short words' powers are listed up front; every other candidate's permutation is made
//! when it is taken, so what is held beside the kernel's elements stays small.
//!
//! # Complexity
//! Taking a candidate: `O(d + |w|)` for a conjugate, `O(p · (d + |w|))` for a layer power,
//! `O(|t| · d + log o)` for a short word's power, `O(log m)` for one of `m` waiting elements.
//!
//! # Reference
//! Seress, *Permutation Group Algorithms* (2003), §2.3 (normal closures by conjugates of the
//! elements found); Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §8.1
//! (`p`-th powers and commutators go down an elementary abelian series).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::kernel_series::KernelSeriesWords;
use super::word::{GeneratorOrders, Word};
use crate::group::Perm;

/// An element waiting its turn, ordered by letters (then by arrival).
#[derive(Debug)]
struct Waiting {
    key: Reverse<(u64, u64)>,
    perm: Perm,
    word: Word,
}

impl PartialEq for Waiting {
    fn eq(&self, other: &Waiting) -> bool {
        self.key == other.key
    }
}

impl Eq for Waiting {}

impl PartialOrd for Waiting {
    fn partial_cmp(&self, other: &Waiting) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Waiting {
    fn cmp(&self, other: &Waiting) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// The candidates' sources and where each one stands (see the module documentation).
#[derive(Debug)]
pub(super) struct KernelCandidates {
    /// `(letters, t, o)`: the power `t^o` of a short word, by increasing letters.
    powers: Vec<(u64, Word, u64)>,
    next_power: usize,
    /// The next conjugate: of kept element `.0` by generator `.1`.
    conjugated: (usize, usize),
    /// The next kept element whose `p`-th power is tried.
    powered: usize,
    waiting: BinaryHeap<Waiting>,
    arrivals: u64,
    waiting_bytes: u64,
}

/// Where the next candidate comes from.
enum Source {
    Conjugate,
    ShortPower,
    LayerPower,
    Waiting,
}

impl KernelCandidates {
    /// The candidates, with `powers` the short words' powers `(letters, t, o)` (any order).
    pub(super) fn new(mut powers: Vec<(u64, Word, u64)>) -> KernelCandidates {
        powers.sort_by_key(|(letters, _, _)| *letters);
        KernelCandidates {
            powers,
            next_power: 0,
            conjugated: (0, 0),
            powered: 0,
            waiting: BinaryHeap::new(),
            arrivals: 0,
            waiting_bytes: 0,
        }
    }

    /// Puts an element moved down the series back in line, by the letters of its word.
    pub(super) fn wait(&mut self, perm: Perm, word: Word) {
        self.waiting_bytes += Self::waiting_cost(&perm, &word);
        self.arrivals += 1;
        self.waiting.push(Waiting {
            key: Reverse((word.len(), self.arrivals)),
            perm,
            word,
        });
    }

    /// Bytes held by the elements waiting (the short words' powers are few and short).
    pub(super) fn waiting_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// The next candidate, the shortest of the four sources, or `None` when they are all
    /// exhausted (then random elements are the caller's to try).
    pub(super) fn next(
        &mut self,
        kernel: &KernelSeriesWords,
        generators: &[Perm],
        inverses: &[Perm],
        orders: &GeneratorOrders,
    ) -> Option<(Perm, Word)> {
        while self.powered < kernel.found_len() && kernel.found_prime(self.powered).is_none() {
            self.powered += 1;
        }
        let conjugate = (self.conjugated.0 < kernel.found_len())
            .then(|| kernel.found(self.conjugated.0).1.len() + 2);
        let short_power = self.powers.get(self.next_power).map(|(l, _, _)| *l);
        let layer_power = (self.powered < kernel.found_len()).then(|| {
            let p = kernel
                .found_prime(self.powered)
                .expect("skipped to a layer's element");
            p as u64 * kernel.found(self.powered).1.len()
        });
        let waiting = self.waiting.peek().map(|w| w.key.0.0);
        let source = [
            (conjugate, Source::Conjugate),
            (short_power, Source::ShortPower),
            (layer_power, Source::LayerPower),
            (waiting, Source::Waiting),
        ]
        .into_iter()
        .filter_map(|(letters, source)| letters.map(|l| (l, source)))
        .min_by_key(|(letters, _)| *letters)?
        .1;
        let degree = generators[0].degree();
        Some(match source {
            Source::Conjugate => {
                let (element, word) = kernel.found(self.conjugated.0);
                let j = self.conjugated.1;
                let x = inverses[j].compose(element).compose(&generators[j]);
                let mut w = Word::letter(j as u32, -1, orders);
                w.append(word, orders);
                w.push(j as u32, 1, orders);
                self.conjugated.1 += 1;
                if self.conjugated.1 == generators.len() {
                    self.conjugated = (self.conjugated.0 + 1, 0);
                }
                (x, w)
            }
            Source::ShortPower => {
                let (_, t, o) = &self.powers[self.next_power];
                self.next_power += 1;
                let mut w = Word::identity();
                w.append_power(t, *o as i64, orders);
                (t.evaluate(generators, degree).pow(*o as i64), w)
            }
            Source::LayerPower => {
                let (element, word) = kernel.found(self.powered);
                let p = kernel.found_prime(self.powered).expect("a layer's element");
                self.powered += 1;
                let mut w = Word::identity();
                w.append_power(word, p as i64, orders);
                (element.pow(p as i64), w)
            }
            Source::Waiting => {
                let w = self.waiting.pop().expect("peeked");
                self.waiting_bytes -= Self::waiting_cost(&w.perm, &w.word);
                (w.perm, w.word)
            }
        })
    }

    fn waiting_cost(perm: &Perm, word: &Word) -> u64 {
        4 * perm.degree() as u64 + 16 * word.letters().len() as u64 + 64
    }
}
