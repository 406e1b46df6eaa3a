//! [`KernelCandidates`]: elements of an action's kernel `K` to try, each with its word in the
//! group's generators, the shortest word first, so that `K` is spanned by short elements and
//! its members' words stay short.
//!
//! Four sources, merged by length:
//! - seeds made from short words `t`: the powers `t^o` (`o` the order of `t`'s image under the
//!   action) and, when the image has several orbits, commutators of powers that act trivially
//!   on different orbits of the image (see [`Seed`]), and elements the caller made with their
//!   words (a giant image's 3-cycle conjugated, times the inverse of its image's word);
//! - the conjugates of every element kept by every generator (two letters longer: `K` and each
//!   term of its series are normal);
//! - the `p`-th power of every element kept in a layer of the series over `GF(p)` (it lies one
//!   term further down: the layer's quotient has exponent `p`), for `p` times the letters;
//! - elements that an insertion moved down the series (multiplied by a product of the layer's
//!   elements, so with a longer word, or raised to the layer's prime `p` when that is
//!   shorter): they wait here for their turn by their new length rather than filling a deeper
//!   layer with long words while short candidates are left.
//!
//! Only the seeds are listed up front; every other candidate's permutation is made
//! when it is taken, so what is held beside the kernel's elements stays small.
//!
//! # Complexity
//! Taking a candidate: `O(d + |w|)` for a conjugate, `O(p · (d + |w|))` for a layer power,
//! `O(Σ |t_i| · d + log o_i)` for a seed, `O(log m)` for one of `m` waiting elements.
//!
//! # Reference
//! Seress, *Permutation Group Algorithms* (2003), §2.3 (normal closures by conjugates of the
//! elements found); Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §8.1
//! (`p`-th powers and commutators go down an elementary abelian series).

use std::collections::BTreeMap;

use super::kernel_series::KernelSeriesWords;
use super::word::{GeneratorOrders, Word};
use crate::group::Perm;

/// A kernel element made from short words: the iterated commutator `[…[[a_1, a_2], a_3]…, a_k]`
/// of powers `a_i = t_i^{o_i}`, or the power `a_1` itself when there is one factor; or an
/// element the caller made, with its word.
///
/// Why commutators: when the image of the action has orbits `Ω_1, …, Ω_k`, let `N_i` be the
/// (normal) subgroup acting trivially on `Ω_i`. A power `t^o` of a short word lies in the kernel
/// `N_1 ∩ … ∩ N_k` only when `o` kills `t`'s image on every orbit: for an image such as
/// `Sym(100) × Sym(100)` the least such `o` over short words is in the tens of thousands. But
/// `[N_i, N_j] ⊆ N_i ∩ N_j`, so the commutator of `t^{o_1}` (trivial on `Ω_1`) and `s^{o_2}`
/// (trivial on `Ω_2`) is in the kernel of two orbits with `2(o_1|t| + o_2|s|)` letters, each
/// `o_i` killing one orbit's cycles only: hundreds of letters.
#[derive(Debug, Clone)]
pub(super) struct Seed {
    letters: u64,
    made: Made,
}

/// How a [`Seed`]'s element is made.
#[derive(Debug, Clone)]
enum Made {
    /// When it is taken: the iterated commutator of these powers `t^o`.
    Commutator(Vec<(Word, u64)>),
    /// Already: the element and its word.
    Element(Perm, Word),
}

impl Seed {
    /// The power `t^o`.
    pub(super) fn power(t: Word, o: u64) -> Seed {
        Seed::commutator(vec![(t, o)])
    }

    /// The iterated commutator of the powers `t^o` in `factors` (at least one).
    pub(super) fn commutator(factors: Vec<(Word, u64)>) -> Seed {
        let letters = factors.iter().skip(1).fold(
            factors[0].1.saturating_mul(factors[0].0.len()),
            |c, (t, o)| {
                c.saturating_add(o.saturating_mul(t.len()))
                    .saturating_mul(2)
            },
        );
        Seed {
            letters,
            made: Made::Commutator(factors),
        }
    }

    /// A kernel element made by the caller, with its word.
    pub(super) fn element_of(perm: Perm, word: Word) -> Seed {
        Seed {
            letters: word.len(),
            made: Made::Element(perm, word),
        }
    }

    /// Its letters before free reduction.
    pub(super) fn letters(&self) -> u64 {
        self.letters
    }

    /// The element and its word.
    pub(super) fn element(&self, generators: &[Perm], orders: &GeneratorOrders) -> (Perm, Word) {
        (self.perm(generators), self.word(orders))
    }

    /// The word alone: `[c, a]` is written `c⁻¹ a⁻¹ c a`, as [`Perm::commutator`] multiplies.
    fn word(&self, orders: &GeneratorOrders) -> Word {
        let factors = match &self.made {
            Made::Commutator(factors) => factors,
            Made::Element(_, word) => return word.clone(),
        };
        let power = |(t, o): &(Word, u64)| {
            let mut w = Word::identity();
            w.append_power(t, *o as i64, orders);
            w
        };
        factors[1..].iter().fold(power(&factors[0]), |c, factor| {
            let mut w = Word::identity();
            w.append_commutator(&c, &power(factor), orders);
            w
        })
    }

    /// The element alone, its word not written.
    pub(super) fn perm(&self, generators: &[Perm]) -> Perm {
        let factors = match &self.made {
            Made::Commutator(factors) => factors,
            Made::Element(perm, _) => return perm.clone(),
        };
        factors[1..]
            .iter()
            .fold(Seed::power_of(&factors[0], generators), |c, factor| {
                c.commutator(&Seed::power_of(factor, generators))
            })
    }

    /// The permutation `t^o` of a factor.
    fn power_of((t, o): &(Word, u64), generators: &[Perm]) -> Perm {
        t.evaluate(generators, generators[0].degree())
            .pow(*o as i64)
    }
}

/// The candidates' sources and where each one stands (see the module documentation).
#[derive(Debug)]
pub(super) struct KernelCandidates {
    /// The seeds, by increasing letters.
    seeds: Vec<Seed>,
    next_seed: usize,
    /// The next conjugate: of kept element `.0` by generator `.1`.
    conjugated: (usize, usize),
    /// The next kept element whose `p`-th power is tried.
    powered: usize,
    /// Elements waiting their turn, by `(letters, arrival)`.
    waiting: BTreeMap<(u64, u64), (Perm, Word)>,
    arrivals: u64,
    waiting_bytes: u64,
}

/// Where the next candidate comes from.
enum Source {
    Conjugate,
    Seed,
    LayerPower,
    Waiting,
}

impl KernelCandidates {
    /// The candidates, with the `seeds` made from short words, by increasing letters.
    pub(super) fn new(seeds: Vec<Seed>) -> KernelCandidates {
        debug_assert!(seeds.is_sorted_by_key(Seed::letters));
        KernelCandidates {
            seeds,
            next_seed: 0,
            conjugated: (0, 0),
            powered: 0,
            waiting: BTreeMap::new(),
            arrivals: 0,
            waiting_bytes: 0,
        }
    }

    /// Puts an element moved down the series back in line, by the letters of its word; then,
    /// while the waiting elements hold more than `max_bytes`, drops the longest (another
    /// element, a conjugate or a random one, can bring what it would have: the search stops on
    /// the order, not on the candidates).
    pub(super) fn wait(&mut self, perm: Perm, word: Word, max_bytes: u64) {
        self.waiting_bytes += Self::waiting_cost(&perm, &word);
        self.arrivals += 1;
        self.waiting
            .insert((word.len(), self.arrivals), (perm, word));
        while self.waiting_bytes > max_bytes
            && let Some((_, (perm, word))) = self.waiting.pop_last()
        {
            self.waiting_bytes -= Self::waiting_cost(&perm, &word);
        }
    }

    /// Bytes held by the elements waiting (the seeds are few and short).
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
        let seed = self.seeds.get(self.next_seed).map(Seed::letters);
        let layer_power = (self.powered < kernel.found_len()).then(|| {
            let p = kernel
                .found_prime(self.powered)
                .expect("skipped to a layer's element");
            p as u64 * kernel.found(self.powered).1.len()
        });
        let waiting = self.waiting.first_key_value().map(|(key, _)| key.0);
        let source = [
            (conjugate, Source::Conjugate),
            (seed, Source::Seed),
            (layer_power, Source::LayerPower),
            (waiting, Source::Waiting),
        ]
        .into_iter()
        .filter_map(|(letters, source)| letters.map(|l| (l, source)))
        .min_by_key(|(letters, _)| *letters)?
        .1;
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
            Source::Seed => {
                self.next_seed += 1;
                self.seeds[self.next_seed - 1].element(generators, orders)
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
                let (_, (perm, word)) = self.waiting.pop_first().expect("peeked");
                self.waiting_bytes -= Self::waiting_cost(&perm, &word);
                (perm, word)
            }
        })
    }

    fn waiting_cost(perm: &Perm, word: &Word) -> u64 {
        4 * perm.degree() as u64 + 16 * word.letters().len() as u64 + 64
    }
}
