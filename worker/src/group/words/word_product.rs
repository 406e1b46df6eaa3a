//! [`WordProduct`]: a word followed by the inverses of other words, kept as spans of their
//! letters (nothing copied) with the length of its normal form, so that Minkwitz's fill can sift
//! a walk through every level, comparing the residue's length with the tables' at each, and copy
//! its letters only when a table takes it.
//!
//! Appending `y⁻¹` meets the product's last letters as [`Word::push`] would: `y⁻¹`'s first
//! letters merge with or cancel the product's last ones (the spans shrink, or their last letter
//! takes a merged exponent), and the rest of `y⁻¹` becomes a new span (a word in normal form has
//! no two neighbours with one generator, so nothing merges inside it).
//!
//! # Complexity
//! Appending: `O(c + 1)` for `c` letters cancelled, plus `O(|y|)` to add up the new span's
//! length; the word: `O(letters)`.
//!
//! # Reference
//! W. Magnus, A. Karrass, D. Solitar, *Combinatorial Group Theory* (1966), §4.1 (free products
//! and their reduced words).

use super::word::{GeneratorOrders, Word, WordLetter};

/// A run of one word's letters: `letters[lo..hi]` as they are, or inverted (the letters in
/// reverse order, each negated); `tail`, when set, is the exponent the span's last letter has
/// taken by a merge with the next span's first.
#[derive(Debug)]
struct Span<'a> {
    letters: &'a [WordLetter],
    lo: usize,
    hi: usize,
    inverted: bool,
    tail: Option<i64>,
}

impl Span<'_> {
    /// The span's last letter, as the product has it.
    fn last(&self, orders: &GeneratorOrders) -> WordLetter {
        let at = if self.inverted { self.lo } else { self.hi - 1 };
        let letter = self.letters[at];
        let exponent = match (self.tail, self.inverted) {
            (Some(e), _) => e,
            (None, true) => orders.reduce(letter.generator, -letter.exponent),
            (None, false) => letter.exponent,
        };
        WordLetter {
            generator: letter.generator,
            exponent,
        }
    }

    /// Drops the last letter; `true` when the span is then empty.
    fn pop(&mut self) -> bool {
        if self.inverted {
            self.lo += 1;
        } else {
            self.hi -= 1;
        }
        self.tail = None;
        self.lo == self.hi
    }

    /// Pushes the span's letters onto `w`, in order.
    fn push_onto(&self, w: &mut Word, orders: &GeneratorOrders) {
        let last = if self.inverted { self.lo } else { self.hi - 1 };
        let mut push = |j: usize| {
            let letter = self.letters[j];
            let exponent = match self.tail {
                Some(e) if j == last => e,
                _ if self.inverted => -letter.exponent,
                _ => letter.exponent,
            };
            w.push(letter.generator, exponent, orders);
        };
        if self.inverted {
            (self.lo..self.hi).rev().for_each(&mut push);
        } else {
            (self.lo..self.hi).for_each(&mut push);
        }
    }
}

/// A word times the inverses of other words, in normal form, without copying their letters
/// (see the module documentation).
#[derive(Debug)]
pub(super) struct WordProduct<'a> {
    spans: Vec<Span<'a>>,
    len: u64,
}

impl<'a> WordProduct<'a> {
    /// The product that is `w` alone.
    pub(super) fn of(w: &'a Word) -> WordProduct<'a> {
        let letters = w.letters();
        let spans = if letters.is_empty() {
            Vec::new()
        } else {
            vec![Span {
                letters,
                lo: 0,
                hi: letters.len(),
                inverted: false,
                tail: None,
            }]
        };
        WordProduct {
            spans,
            len: w.len(),
        }
    }

    /// The length of the product's normal form ([`Word::len`]).
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Multiplies on the right by `y⁻¹` (`y` in normal form for `orders`).
    pub(super) fn times_inverse(&mut self, y: &'a Word, orders: &GeneratorOrders) {
        let letters = y.letters();
        // `y⁻¹` is `letters[k-1]⁻¹ … letters[0]⁻¹`; `letters[..k]` are still to come.
        let mut k = letters.len();
        while k > 0 {
            let next = letters[k - 1];
            let Some(top) = self.spans.last_mut() else {
                break;
            };
            let last = top.last(orders);
            if last.generator != next.generator {
                break;
            }
            k -= 1;
            self.len -= last.exponent.unsigned_abs();
            let e = orders.reduce(next.generator, -next.exponent);
            let merged = orders.reduce(next.generator, last.exponent.saturating_add(e));
            if merged != 0 {
                top.tail = Some(merged);
                self.len += merged.unsigned_abs();
                break;
            }
            if top.pop() {
                self.spans.pop();
            }
        }
        if k > 0 {
            self.len += letters[..k]
                .iter()
                .map(|l| l.exponent.unsigned_abs())
                .sum::<u64>();
            self.spans.push(Span {
                letters,
                lo: 0,
                hi: k,
                inverted: true,
                tail: None,
            });
        }
    }

    /// The product as a word.
    pub(super) fn to_word(&self, orders: &GeneratorOrders) -> Word {
        let mut w = Word::identity();
        for span in &self.spans {
            span.push_onto(&mut w, orders);
        }
        w
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::group::Perm;

    /// Against [`Word::append_inverse`] letter by letter: random words in three generators of
    /// orders 2, 4 and 5 (or of unknown order), short enough that junctions often cancel whole
    /// words; after each inverse appended, the same length and, written out, the same word.
    #[test]
    fn a_product_of_inverses_is_the_word_appended_letter_by_letter() {
        let mut rng = ChaCha8Rng::seed_from_u64(4103);
        let gens = [
            Perm::parse_cycles("(1,2)", 5).unwrap(),
            Perm::parse_cycles("(1,2,3,4)", 5).unwrap(),
            Perm::parse_cycles("(1,2,3,4,5)", 5).unwrap(),
        ];
        for orders in [GeneratorOrders::of(&gens), GeneratorOrders::unknown()] {
            let random_word = |rng: &mut ChaCha8Rng| {
                let mut w = Word::identity();
                for _ in 0..rng.random_range(0..5) {
                    w.push(rng.random_range(0..3), rng.random_range(-3..=3), &orders);
                }
                w
            };
            for _ in 0..2_000 {
                let first = random_word(&mut rng);
                let others: Vec<Word> = (0..rng.random_range(1..6))
                    .map(|_| random_word(&mut rng))
                    .collect();
                let mut product = WordProduct::of(&first);
                let mut expected = first.clone();
                for y in &others {
                    product.times_inverse(y, &orders);
                    expected.append_inverse(y, &orders);
                    assert_eq!(product.len(), expected.len());
                    assert_eq!(product.to_word(&orders), expected);
                }
            }
        }
    }
}
