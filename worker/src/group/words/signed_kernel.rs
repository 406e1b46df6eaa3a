//! [`SignedKernelWords`]: words for a group `K` that maps each of some parts of the points onto
//! itself (the kernel of an action on blocks, or on one orbit) and whose *even part* — its
//! elements even on every part — is elementary abelian: `C_2^50` (all of it signs), `Sym(3)^50`
//! (signs `C_2^50` over the even part `C_3^50`), `C_3^50`.
//!
//! The sign of an element on each part is a homomorphism `σ: K → GF(2)^parts`. Elements are
//! inserted as they are found: one whose sign vector is outside the span of the earlier ones is
//! kept as an *odd element* (a [`ParitySpace`] holds the span in echelon form, each basis vector
//! with the odd elements whose product has it); any other, `x`, is multiplied by the product `y`
//! of odd elements with its sign vector, and `x · y⁻¹`, even on every part, goes to the even
//! part's elimination over `GF(p)` ([`ElementaryAbelianWords`]). A member `k` is written the same
//! way: `k = (k · y⁻¹) · y`, the even part's word followed by the odd elements' words.
//!
//! **Order.** With `s` odd elements (their sign vectors independent) and an even part of order
//! `p^r`, the group the elements found generate has order at least `2^s · p^r` (its image under
//! `σ` has at least `2^s` elements, and its even part contains the `p^r` found); the caller stops
//! when that reaches the proven order of `K`, so the elements found generate `K`.
//!
//! # Complexity
//! Inserting: `O(d)` for the signs, `O(s · parts / 64)` to solve them, `O(s · d)` for the
//! product, then the even part's insertion. Memory: the odd elements, the echelon basis and the
//! even part.
//!
//! # Reference
//! Dixon, Mortimer, *Permutation Groups* (1996), §2.6 (wreath products: the base group and its
//! sign homomorphisms); Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005),
//! §7.8 (working down an elementary abelian series).

use num_bigint::BigUint;

use super::elementary_abelian::{ElementaryAbelianWords, Inserted};
use super::orbit_product::{orbit_positions, preserves_orbits};
use super::parity_space::{Bits, ParitySpace, flip, parity_vector};
use super::word::{GeneratorOrders, Word};
use crate::group::Perm;

/// Words for a kernel with signs on parts over an elementary abelian even part (see the module
/// documentation).
#[derive(Debug)]
pub(super) struct SignedKernelWords {
    degree: usize,
    parts: Vec<Vec<u32>>,
    position: Vec<Option<(u32, u32)>>,
    /// Elements found with a new sign vector, with their words.
    odd: Vec<(Perm, Word)>,
    signs: ParitySpace,
    even: ElementaryAbelianWords,
    /// Every element kept, in order: `(true, i)` the odd element `i`, `(false, i)` the even
    /// part's element `i`.
    found: Vec<(bool, usize)>,
}

impl SignedKernelWords {
    /// An empty structure (the trivial group) for permutations of degree `degree` mapping each
    /// of `parts` (disjoint point sets) onto itself and fixing every other point.
    pub(super) fn new(degree: usize, parts: Vec<Vec<u32>>) -> SignedKernelWords {
        let position = orbit_positions(degree, parts.iter().map(Vec::as_slice));
        SignedKernelWords {
            degree,
            parts,
            position,
            odd: Vec::new(),
            signs: ParitySpace::new(),
            even: ElementaryAbelianWords::new(degree),
            found: Vec::new(),
        }
    }

    /// A lower bound on the order of the group the elements found generate, `2^s · p^r` (see
    /// the module documentation).
    pub(super) fn order_at_least(&self) -> BigUint {
        let signs = BigUint::from(1u32) << self.odd.len();
        match self.even.prime() {
            Some(p) => signs * BigUint::from(p).pow(self.even.rank() as u32),
            None => signs,
        }
    }

    /// The number of elements kept.
    pub(super) fn found_len(&self) -> usize {
        self.found.len()
    }

    /// Element `i` kept (an odd element, or an even one), with its word.
    pub(super) fn found(&self, i: usize) -> (&Perm, &Word) {
        match self.found[i] {
            (true, j) => {
                let (perm, word) = &self.odd[j];
                (perm, word)
            }
            (false, j) => self.even.found(j),
        }
    }

    /// Adds `x`, an element of the group (with its `word`), if it is new.
    pub(super) fn insert(&mut self, x: &Perm, word: Word, orders: &GeneratorOrders) -> Inserted {
        if x.degree() != self.degree || !preserves_orbits(x, &self.position) {
            return Inserted::NotElementary;
        }
        let vector = parity_vector(x, &self.parts, &self.position);
        let Some(chosen) = self.signs.solve(&vector) else {
            let mut combination: Bits = vec![0u64; self.parts.len().div_ceil(64).max(1)];
            flip(&mut combination, self.odd.len());
            self.signs.insert(vector, combination);
            self.odd.push((x.clone(), word));
            self.found.push((true, self.odd.len() - 1));
            return Inserted::New;
        };
        let (y, y_word) = self.product(&chosen, orders);
        let even = x.compose(&y.inverse());
        let mut even_word = word;
        even_word.append_inverse(&y_word, orders);
        let inserted = self.even.insert(&even, even_word);
        if inserted == Inserted::New {
            self.found.push((false, self.even.found_len() - 1));
        }
        inserted
    }

    /// The word of `k`, `Ok(None)` when it is not in the group generated, `Err(letters)` once
    /// the word is known to be longer than `max_letters`.
    pub(super) fn word_of(
        &self,
        k: &Perm,
        orders: &GeneratorOrders,
        max_letters: u64,
    ) -> Result<Option<Word>, u64> {
        if k.degree() != self.degree || !preserves_orbits(k, &self.position) {
            return Ok(None);
        }
        let vector = parity_vector(k, &self.parts, &self.position);
        let Some(chosen) = self.signs.solve(&vector) else {
            return Ok(None);
        };
        let (y, y_word) = self.product(&chosen, orders);
        let even = k.compose(&y.inverse());
        let left = max_letters.saturating_sub(y_word.len());
        let Some(mut word) = self
            .even
            .word_of(&even, orders, left)
            .map_err(|letters| letters.saturating_add(y_word.len()))?
        else {
            return Ok(None);
        };
        word.append(&y_word, orders);
        if word.len() > max_letters {
            return Err(word.len());
        }
        Ok(Some(word))
    }

    /// Bytes held: the odd elements, the echelon basis, the even part and the part tables.
    pub(super) fn bytes(&self) -> u64 {
        let odd: u64 = self
            .odd
            .iter()
            .map(|(_, w)| 4 * self.degree as u64 + 16 * w.letters().len() as u64 + 64)
            .sum();
        let parts: u64 = self.parts.iter().map(|p| 4 * p.len() as u64 + 24).sum();
        odd + parts
            + 12 * self.degree as u64
            + self.signs.bytes()
            + self.even.bytes()
            + 16 * self.found.len() as u64
    }

    /// The product of the odd elements `chosen` (increasing), with its word.
    fn product(&self, chosen: &[u32], orders: &GeneratorOrders) -> (Perm, Word) {
        let mut y = Perm::identity(self.degree);
        let mut word = Word::identity();
        for &i in chosen {
            let (perm, w) = &self.odd[i as usize];
            y = y.compose(perm);
            word.append(w, orders);
        }
        (y, word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).unwrap()
    }

    /// `Sym(3) × Sym(3)` on two parts: two odd elements, and the even part `C_3 × C_3`; every
    /// element's word multiplies out to it (36 elements).
    #[test]
    fn sym3_squared_by_signs_and_threes() {
        let gens = [
            perm("(1,2)(4,5)", 6),
            perm("(4,5)", 6),
            perm("(1,2,3)", 6),
            perm("(4,5,6)", 6),
        ];
        let orders = GeneratorOrders::of(&gens);
        let mut k = SignedKernelWords::new(6, vec![vec![0, 1, 2], vec![3, 4, 5]]);
        for (i, g) in gens.iter().enumerate() {
            assert_eq!(
                k.insert(g, Word::letter(i as u32, 1, &orders), &orders),
                Inserted::New
            );
        }
        assert_eq!(k.order_at_least(), BigUint::from(36u32));
        let mut all = vec![Perm::identity(6)];
        let mut i = 0;
        while i < all.len() {
            for g in &gens {
                let y = all[i].compose(g);
                if !all.contains(&y) {
                    all.push(y);
                }
            }
            i += 1;
        }
        assert_eq!(all.len(), 36);
        for x in &all {
            let w = k.word_of(x, &orders, u64::MAX).unwrap().expect("a member");
            assert_eq!(w.evaluate(&gens, 6), *x);
        }
        assert_eq!(k.word_of(&perm("(1,4)", 6), &orders, u64::MAX), Ok(None));
    }
}
