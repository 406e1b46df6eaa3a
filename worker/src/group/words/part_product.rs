//! [`PartProductWords`]: words for a group `N` that is the direct product of small groups `N_P`,
//! one on each of some parts `P` of the points (`Alt(5)^40`, the bottom of the kernel of
//! `Sym(5) wr Sym(40)` on its blocks), from elements *supported on one part* (moving the points
//! of one part only), each with its word in some other group's generators.
//!
//! Each part keeps the supported elements found on it and a breadth-first table of the group
//! their restrictions generate (at most [`MAX_PART_GROUP`] elements): every element of it with
//! a shortest path over those elements and their inverses. A member `x` is the product of its
//! restrictions to the parts (they commute: their supports are disjoint), each the product along
//! its path, so `x`'s word is the paths' elements' words one after another; `x` is a member
//! exactly when every restriction is in its part's table.
//!
//! Supported elements come from elements `x` of `N` supported on several parts by a power: for
//! a prime `q`, if one part `P` has the largest power of `q` in the order of `x` restricted to
//! it, strictly, then `x^{L/q}` (`L` the lcm of the restrictions' orders) is supported on `P`
//! alone, of order `q` there ([`isolating_power`]).
//!
//! **Order.** The elements kept generate `Π_P ⟨N_P found⟩`, of order the product of the tables'
//! sizes; the caller compares it with the order it expects.
//!
//! # Complexity
//! Inserting on a part of `b` points whose table has `t` elements over `s` elements: `O(t · s ·
//! b)` (the table rebuilt). A word: `O(d)` for the restrictions and the paths' words. Memory:
//! `O(t · b)` per part.
//!
//! # Reference
//! Dixon, Mortimer, *Permutation Groups* (1996), §2.6 (the base group of a wreath product, a
//! direct product over the blocks); Seress, *Permutation Group Algorithms* (2003), §4.1 (orbit
//! algorithms: the breadth-first Cayley table of a small group).

use std::collections::HashMap;

use num_bigint::BigUint;

use super::word::{GeneratorOrders, Word};
use crate::group::Perm;

/// Largest group kept per part (`Sym(8)`): its table holds every element with its path (about
/// 4 MB for `Sym(8)`, charged to the job like the rest).
pub(super) const MAX_PART_GROUP: usize = 40_320;

/// What [`PartProductWords::insert`] did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum PartInserted {
    /// The element is supported on one part and its group there grew.
    New,
    /// Supported on one part, and already in its group there.
    Redundant,
    /// Not supported on a single part (or moving points outside the parts).
    NotSupported,
    /// Its part's group would exceed [`MAX_PART_GROUP`] elements.
    TooLarge,
}

/// A part's table: every member's restriction, with `(predecessor, element, inverse)`: the
/// member is the predecessor times the element (or its inverse); the identity has none.
type CayleyTable = HashMap<Vec<u8>, Option<(Vec<u8>, u32, bool)>>;

/// One part's elements and table.
#[derive(Debug, Default)]
struct PartTable {
    /// The supported elements: their restrictions (images of the part's indices), themselves
    /// and their words.
    elements: Vec<(Vec<u8>, Perm, Word)>,
    table: CayleyTable,
}

/// Words for a direct product over parts (see the module documentation).
#[derive(Debug)]
pub(super) struct PartProductWords {
    degree: usize,
    parts: Vec<Vec<u32>>,
    /// `position[x]`: `(part, index in it)`, or `None` for a point outside every part.
    position: Vec<Option<(u32, u32)>>,
    tables: Vec<PartTable>,
    /// Every element kept, in order: `(part, index in its table's elements)`.
    found: Vec<(usize, usize)>,
}

impl PartProductWords {
    /// An empty structure (the trivial group) for `parts` (disjoint, each sorted, each of at
    /// most 255 points) with `position` as from `orbit_positions`.
    pub(super) fn new(
        degree: usize,
        parts: Vec<Vec<u32>>,
        position: Vec<Option<(u32, u32)>>,
    ) -> PartProductWords {
        let tables = parts.iter().map(|_| PartTable::default()).collect();
        PartProductWords {
            degree,
            parts,
            position,
            tables,
            found: Vec::new(),
        }
    }

    /// The number of elements kept.
    pub(super) fn found_len(&self) -> usize {
        self.found.len()
    }

    /// Element `i` kept, with its word.
    pub(super) fn found(&self, i: usize) -> (&Perm, &Word) {
        let (part, j) = self.found[i];
        let (_, perm, word) = &self.tables[part].elements[j];
        (perm, word)
    }

    /// The order of the group generated: the product of the tables' sizes.
    pub(super) fn order(&self) -> BigUint {
        self.tables
            .iter()
            .map(|t| BigUint::from(t.table.len().max(1)))
            .product()
    }

    /// Adds `x` (with its `word`) when it is supported on a single part and new there.
    pub(super) fn insert(&mut self, x: &Perm, word: Word) -> PartInserted {
        let Some(part) = self.single_support(x) else {
            return PartInserted::NotSupported;
        };
        let restriction = self.restriction(x, part);
        let table = &mut self.tables[part];
        if table.table.contains_key(&restriction) {
            return PartInserted::Redundant;
        }
        table.elements.push((restriction, x.clone(), word));
        match closure(&table.elements) {
            Some(grown) => {
                table.table = grown;
                self.found.push((part, table.elements.len() - 1));
                PartInserted::New
            }
            None => {
                table.elements.pop();
                PartInserted::TooLarge
            }
        }
    }

    /// The word of `x` (the paths' words, part by part), `Ok(None)` when it is not in the
    /// group generated, `Err(letters)` once the word is known to be longer than `max_letters`.
    pub(super) fn word_of(
        &self,
        x: &Perm,
        orders: &GeneratorOrders,
        max_letters: u64,
    ) -> Result<Option<Word>, u64> {
        if x.degree() != self.degree
            || (0..self.degree as u32)
                .any(|y| x.image(y) != y && self.position[y as usize].is_none())
        {
            return Ok(None);
        }
        let mut word = Word::identity();
        for part in 0..self.parts.len() {
            let mut at = self.restriction(x, part);
            let table = &self.tables[part];
            // The path, read backwards from the member to the identity.
            let mut steps: Vec<(u32, bool)> = Vec::new();
            loop {
                match table.table.get(&at) {
                    None if is_identity(&at) => break,
                    None => return Ok(None),
                    Some(None) => break,
                    Some(Some((previous, element, inverse))) => {
                        steps.push((*element, *inverse));
                        at = previous.clone();
                    }
                }
            }
            for &(element, inverse) in steps.iter().rev() {
                let w = &table.elements[element as usize].2;
                word.append_power(w, if inverse { -1 } else { 1 }, orders);
            }
            if word.len() > max_letters {
                return Err(word.len());
            }
        }
        Ok(Some(word))
    }

    /// Bytes held: the tables (each entry its key, its predecessor and the map's slot) and the
    /// elements' words.
    pub(super) fn bytes(&self) -> u64 {
        let tables: u64 = self
            .tables
            .iter()
            .zip(&self.parts)
            .map(|(t, p)| {
                let words: u64 = t
                    .elements
                    .iter()
                    .map(|(_, _, w)| {
                        16 * w.letters().len() as u64 + p.len() as u64 + 4 * self.degree as u64 + 72
                    })
                    .sum();
                words + t.table.len() as u64 * (2 * p.len() as u64 + 80)
            })
            .sum();
        tables + 8 * self.degree as u64 + 16 * self.found.len() as u64
    }

    /// The one part `x` moves points of, if it moves points of exactly one part (and none
    /// outside the parts).
    fn single_support(&self, x: &Perm) -> Option<usize> {
        let mut part = None;
        for y in 0..x.degree() as u32 {
            if x.image(y) != y {
                let (p, _) = self.position[y as usize]?;
                match part {
                    None => part = Some(p as usize),
                    Some(q) if q != p as usize => return None,
                    Some(_) => {}
                }
            }
        }
        part
    }

    /// `x` restricted to `part`, as images of the part's indices (`x` maps the part onto
    /// itself).
    fn restriction(&self, x: &Perm, part: usize) -> Vec<u8> {
        self.parts[part]
            .iter()
            .map(|&y| self.position[x.image(y) as usize].map_or(0, |(_, i)| i as u8))
            .collect()
    }
}

fn is_identity(p: &[u8]) -> bool {
    p.iter().enumerate().all(|(i, &y)| i == y as usize)
}

/// `a` then `b`, as images.
fn then(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().map(|&y| b[y as usize]).collect()
}

fn inverse(a: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; a.len()];
    for (i, &y) in a.iter().enumerate() {
        out[y as usize] = i as u8;
    }
    out
}

/// The breadth-first table of the group the elements generate (shortest paths over them and
/// their inverses), or `None` beyond [`MAX_PART_GROUP`] elements.
fn closure(elements: &[(Vec<u8>, Perm, Word)]) -> Option<CayleyTable> {
    let b = elements[0].0.len();
    let identity: Vec<u8> = (0..b as u8).collect();
    let steps: Vec<(Vec<u8>, u32, bool)> = elements
        .iter()
        .enumerate()
        .flat_map(|(i, (r, _, _))| [(r.clone(), i as u32, false), (inverse(r), i as u32, true)])
        .collect();
    let mut table = HashMap::from([(identity.clone(), None)]);
    let mut frontier = vec![identity];
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for at in &frontier {
            for (step, element, inverse) in &steps {
                let y = then(at, step);
                if !table.contains_key(&y) {
                    if table.len() == MAX_PART_GROUP {
                        return None;
                    }
                    table.insert(y.clone(), Some((at.clone(), *element, *inverse)));
                    next.push(y);
                }
            }
        }
        frontier = next;
    }
    Some(table)
}

/// The power `e` of `x` (supported on some of `parts`, each mapped onto itself) that is
/// supported on a single part with a restriction of prime order `q` there, choosing the largest
/// prime `q` that works: `e = L / q` for `L` the lcm of the restrictions' orders, when one part's
/// order holds a strictly larger power of `q` than every other part's. `None` when no prime
/// works (or `L` overflows).
///
/// Complexity: O(d + parts · log L).
pub(super) fn isolating_power(
    x: &Perm,
    parts: &[Vec<u32>],
    position: &[Option<(u32, u32)>],
) -> Option<u64> {
    let orders: Vec<u64> = parts
        .iter()
        .map(|part| restriction_order(x, part, position))
        .collect::<Option<Vec<u64>>>()?;
    let lcm = orders.iter().try_fold(1u64, |l, &o| {
        let g = gcd(l, o);
        (l / g).checked_mul(o)
    })?;
    let mut primes = prime_factors(lcm);
    primes.sort_unstable_by(|a, b| b.cmp(a));
    for q in primes {
        let valuation = |mut n: u64| {
            let mut v = 0;
            while n.is_multiple_of(q) {
                n /= q;
                v += 1;
            }
            v
        };
        let valuations: Vec<u32> = orders.iter().map(|&o| valuation(o)).collect();
        let top = *valuations.iter().max()?;
        if top > 0 && valuations.iter().filter(|&&v| v == top).count() == 1 {
            return Some(lcm / q);
        }
    }
    None
}

/// The order of `x` on `part` (the lcm of its cycle lengths there).
fn restriction_order(x: &Perm, part: &[u32], position: &[Option<(u32, u32)>]) -> Option<u64> {
    let mut seen = vec![false; part.len()];
    let mut order = 1u64;
    for start in 0..part.len() {
        if seen[start] {
            continue;
        }
        let mut length = 0u64;
        let mut j = start;
        while !seen[j] {
            seen[j] = true;
            length += 1;
            j = position[x.image(part[j]) as usize]?.1 as usize;
        }
        order = (order / gcd(order, length)).checked_mul(length)?;
    }
    Some(order)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn prime_factors(mut n: u64) -> Vec<u64> {
    let mut primes = Vec::new();
    let mut p = 2;
    while p * p <= n {
        if n.is_multiple_of(p) {
            primes.push(p);
            while n.is_multiple_of(p) {
                n /= p;
            }
        }
        p += 1;
    }
    if n > 1 {
        primes.push(n);
    }
    primes
}

#[cfg(test)]
mod tests {
    use super::super::orbit_product::orbit_positions;
    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).unwrap()
    }

    /// `Alt(5) × Sym(3)` on two parts from supported elements: 360 elements, each one's word
    /// multiplies out to it; an element moving a point outside the parts, and one mixing the
    /// parts, get none.
    #[test]
    fn alt5_times_sym3_from_supported_elements() {
        let gens = [
            perm("(1,2,3,4,5)", 9),
            perm("(1,2,3)", 9),
            perm("(6,7,8)", 9),
            perm("(6,7)", 9),
        ];
        let orders = GeneratorOrders::of(&gens);
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7]];
        let position = orbit_positions(9, parts.iter().map(Vec::as_slice));
        let mut n = PartProductWords::new(9, parts, position);
        for (i, g) in gens.iter().enumerate() {
            assert_eq!(
                n.insert(g, Word::letter(i as u32, 1, &orders)),
                PartInserted::New
            );
        }
        assert_eq!(
            n.insert(&perm("(1,2)(3,4)", 9), Word::identity()),
            PartInserted::Redundant
        );
        assert_eq!(
            n.insert(&perm("(1,2,3)(6,7,8)", 9), Word::identity()),
            PartInserted::NotSupported
        );
        assert_eq!(n.order(), BigUint::from(360u32));
        // Every element, by closure (the test's oracle).
        let mut all = vec![Perm::identity(9)];
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
        assert_eq!(all.len(), 360);
        for x in &all {
            let w = n.word_of(x, &orders, u64::MAX).unwrap().expect("a member");
            assert_eq!(w.evaluate(&gens, 9), *x);
        }
        assert_eq!(n.word_of(&perm("(1,2)", 9), &orders, u64::MAX), Ok(None));
        assert_eq!(n.word_of(&perm("(8,9)", 9), &orders, u64::MAX), Ok(None));
    }

    /// The isolating power: `(1,2,3,4,5)(6,7,8)` to the 3rd is the 5-cycle's power alone;
    /// `(1,2,3)(4,5,6)` has no prime held by one part alone.
    #[test]
    fn isolating_powers() {
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7]];
        let position = orbit_positions(8, parts.iter().map(Vec::as_slice));
        let x = perm("(1,2,3,4,5)(6,7,8)", 8);
        assert_eq!(isolating_power(&x, &parts, &position), Some(3));
        let parts = vec![vec![0, 1, 2], vec![3, 4, 5]];
        let position = orbit_positions(6, parts.iter().map(Vec::as_slice));
        let x = perm("(1,2,3)(4,5,6)", 6);
        assert_eq!(isolating_power(&x, &parts, &position), None);
        // (1,2)(4,5,6,7) on parts {1,2,3} and {4..7}: 2 is held strictly more by the 4-cycle;
        // the power 4/2 = 2 leaves (4,6)(5,7) alone.
        let parts = vec![vec![0, 1, 2], vec![3, 4, 5, 6]];
        let position = orbit_positions(7, parts.iter().map(Vec::as_slice));
        let x = perm("(1,2)(4,5,6,7)", 7);
        assert_eq!(isolating_power(&x, &parts, &position), Some(2));
    }
}
