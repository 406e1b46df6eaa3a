//! [`ElementaryAbelianWords`]: words for the members of an elementary abelian `p`-group, such as
//! the kernel `C_2^50` of `Sym(2) wr Sym(50)` acting on its 50 blocks, by Gaussian elimination
//! over `GF(p)`.
//!
//! The group is given by elements `c_1, c_2, …` (each with a word in some other group's
//! generators) as they are found, and kept as a stabiliser chain made for abelian groups: level
//! `j` has a base point `π_j` and elements `r_{j,1}, …, r_{j,t}` fixing `π_1, …, π_{j-1}`, and
//! the orbit `Δ_j` of `π_j` under them, each point with its exponents (`y = π_j^{Π r^{ε}}`). A
//! member `x` is sifted: at each level the exponents of `π_j^x` are read off and `x` is multiplied
//! by the inverse product, which fixes `π_j`; `x` is a member exactly when the residue is the
//! identity. A new element whose residue `r` maps `π_j` outside `Δ_j` extends level `j`: in an
//! abelian group the images `Δ_j^{r^a}`, `0 <= a < p`, are disjoint, so `Δ_j` grows `p`-fold and
//! nothing changes elsewhere (`r` fixes `π_1..π_{j-1}`, hence their whole orbits pointwise, and
//! no element of `<r, K_j>` outside `K_j` fixes `π_j`); a residue surviving every level starts a
//! new one at a point it moves. The `r_{j,k}` are kept as vectors of coefficients over the
//! `c_i`, never as words: the residues' words would grow with every level, while a member's word
//! here is `Π c_i^{λ_i}` with `λ_i ∈ (-p/2, p/2]`, at most `Σ_i (p/2) |c_i|` letters.
//!
//! **What is checked.** Each new `c_i` has order `p` and commutes with every earlier one (checked
//! as it is inserted, which refuses it otherwise), and every orbit image above was disjoint as it
//! must be; then the group generated is elementary abelian of order exactly `p^r`, `r` the number
//! of `r_{j,k}` (the product of the orbit lengths), which the caller compares with the proven
//! order it expects.
//!
//! # Complexity
//! Sifting: `O(r · d)` for `r` elements `r_{j,k}` of degree `d`; inserting adds `O(r²)` for the
//! coefficients, `O(|Δ_j| · p · t)` to extend an orbit and `O(r · d)` for the commutation
//! checks (`O(r² · d)` in all). Memory: the
//! `2r` permutations, `d` integers per level and the orbits' exponents.
//!
//! # Reference
//! Seress, *Permutation Group Algorithms* (2003), §4.1 (sifting; for an abelian group with this
//! base the chain is the echelon form); Holt, Eick, O'Brien, *Handbook of Computational Group
//! Theory* (2005), §2.4 (elementary abelian groups as vector spaces).

use super::word::{GeneratorOrders, LetterBudget, Word};
use crate::group::Perm;

const NONE: u32 = u32::MAX;

/// One level of the chain.
#[derive(Debug)]
struct Level {
    base_point: u32,
    /// The level's elements `r_{j,k}`, each with its coefficients over the elements `c_i`
    /// found (shorter than their number when later ones are missing: those are 0).
    elements: Vec<(Perm, Vec<u32>)>,
    /// `slot[y]`: the index of point `y` in the orbit, `NONE` outside it.
    slot: Vec<u32>,
    /// The orbit's points in slot order, and their exponents, `elements.len()` per point.
    points: Vec<u32>,
    exponents: Vec<u32>,
}

/// What [`ElementaryAbelianWords::insert`] did with an element.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Inserted {
    /// It was new: the rank grew by one.
    New,
    /// It was already in the group generated so far.
    Redundant,
    /// It cannot belong to an elementary abelian group with the elements found so far (its
    /// order is not the prime `p` of the others, or not prime, it does not commute with one of
    /// them, or an orbit image overlapped).
    NotElementary,
}

/// Words for an elementary abelian `p`-group (see the module documentation).
#[derive(Debug)]
pub(super) struct ElementaryAbelianWords {
    degree: usize,
    /// The prime, once the first non-trivial element has been inserted.
    p: Option<u32>,
    /// The elements `c_i` found: their permutations (for the check) and words.
    found: Vec<(Perm, Word)>,
    levels: Vec<Level>,
}

impl ElementaryAbelianWords {
    /// An empty structure (the trivial group) for permutations of degree `degree`.
    pub(super) fn new(degree: usize) -> ElementaryAbelianWords {
        ElementaryAbelianWords {
            degree,
            p: None,
            found: Vec::new(),
            levels: Vec::new(),
        }
    }

    /// The number `r` of elements `r_{j,k}`: the group generated has order `p^r`.
    pub(super) fn rank(&self) -> usize {
        self.levels.iter().map(|l| l.elements.len()).sum()
    }

    /// The prime `p`, once a non-trivial element is in.
    pub(super) fn prime(&self) -> Option<u32> {
        self.p
    }

    /// Adds `x` (with its `word`) to the generating elements if it is not in the group generated
    /// so far. O(r · d + r² + |Δ_j| · p · t).
    pub(super) fn insert(&mut self, x: &Perm, word: Word) -> Inserted {
        if x.degree() != self.degree {
            return Inserted::NotElementary;
        }
        let index = self.found.len();
        let mut coefficients = vec![0u32; index + 1];
        coefficients[index] = 1;
        let mut residue = x.clone();
        let mut at = self.levels.len();
        for (j, level) in self.levels.iter().enumerate() {
            let Some(exponents) = level.exponents_of(residue.image(level.base_point)) else {
                at = j;
                break;
            };
            let p = self.p.expect("a level holds a non-trivial element");
            for ((r, rc), &e) in level.elements.iter().zip(exponents) {
                if e != 0 {
                    residue = residue.compose(&r.pow(-(e as i64)));
                    for (c, &v) in coefficients.iter_mut().zip(rc) {
                        *c = (*c + (p - e) * v) % p;
                    }
                }
            }
        }
        let Some(moved) = residue.first_moved_point() else {
            return Inserted::Redundant;
        };
        let base_point = self.levels.get(at).map_or(moved, |l| l.base_point);
        let mut cycle = 1u32;
        let mut y = residue.image(base_point);
        while y != base_point {
            cycle += 1;
            y = residue.image(y);
        }
        if self.p.is_some_and(|q| q != cycle)
            || !is_prime(cycle)
            || !residue.pow(cycle as i64).is_identity()
            || !x.pow(cycle as i64).is_identity()
            || self.found.iter().any(|(c, _)| x.compose(c) != c.compose(x))
        {
            return Inserted::NotElementary;
        }
        if at == self.levels.len() {
            let mut level = Level::new(self.degree, base_point);
            if !level.extend(residue, coefficients, cycle) {
                return Inserted::NotElementary;
            }
            self.levels.push(level);
        } else if !self.levels[at].extend(residue, coefficients, cycle) {
            return Inserted::NotElementary;
        }
        self.p = Some(cycle);
        self.found.push((x.clone(), word));
        Inserted::New
    }

    /// The number of elements `c_i` found (each new element inserted is one).
    pub(super) fn found_len(&self) -> usize {
        self.found.len()
    }

    /// The element `c_i` and its word.
    pub(super) fn found(&self, i: usize) -> (&Perm, &Word) {
        let (perm, word) = &self.found[i];
        (perm, word)
    }

    /// The word of `x` in the words' generators (each element `c_i` replaced by its word), or
    /// `Ok(None)` when `x` is not a member, or `Err(letters)` once the word is known to be longer
    /// than `budget` allows. O(r · d + r² + letters).
    pub(super) fn word_of(
        &self,
        x: &Perm,
        orders: &GeneratorOrders,
        budget: LetterBudget<'_>,
    ) -> Result<Option<Word>, u64> {
        if x.degree() != self.degree {
            return Ok(None);
        }
        let Some(p) = self.p else {
            return Ok(x.is_identity().then(Word::identity));
        };
        let mut lambda = vec![0u32; self.found.len()];
        let mut residue = x.clone();
        for level in &self.levels {
            let Some(exponents) = level.exponents_of(residue.image(level.base_point)) else {
                return Ok(None);
            };
            for ((r, rc), &e) in level.elements.iter().zip(exponents) {
                if e != 0 {
                    residue = residue.compose(&r.pow(-(e as i64)));
                    for (l, &v) in lambda.iter_mut().zip(rc) {
                        *l = (*l + e * v) % p;
                    }
                }
            }
        }
        if !residue.is_identity() {
            return Ok(None);
        }
        let mut word = Word::identity();
        for ((_, w), &l) in self.found.iter().zip(&lambda) {
            // The exponent in (-p/2, p/2].
            let e = if 2 * l > p {
                l as i64 - p as i64
            } else {
                l as i64
            };
            word.append_power(w, e, orders);
            budget.check(word.len())?;
        }
        Ok(Some(word))
    }

    /// Bytes held: permutations, coefficients, orbits and words.
    pub(super) fn bytes(&self) -> u64 {
        let r = self.found.len() as u64;
        let d = self.degree as u64;
        let words: u64 = self
            .found
            .iter()
            .map(|(_, w)| w.letters().len() as u64 * 16)
            .sum();
        let orbits: u64 = self
            .levels
            .iter()
            .map(|l| 4 * d + 4 * l.points.len() as u64 * (1 + l.elements.len() as u64))
            .sum();
        2 * r * (4 * d + 64) + 4 * r * r + orbits + words
    }
}

impl Level {
    fn new(degree: usize, base_point: u32) -> Level {
        let mut slot = vec![NONE; degree];
        slot[base_point as usize] = 0;
        Level {
            base_point,
            elements: Vec::new(),
            slot,
            points: vec![base_point],
            exponents: Vec::new(),
        }
    }

    /// The exponents of orbit point `y`, `None` outside the orbit.
    fn exponents_of(&self, y: u32) -> Option<&[u32]> {
        let i = self.slot[y as usize];
        let t = self.elements.len();
        (i != NONE).then(|| &self.exponents[i as usize * t..(i as usize + 1) * t])
    }

    /// Adds `r` (of prime order `p`, fixing the earlier base points, mapping the base point
    /// outside the orbit): the orbit becomes the union of its `p` images under the powers of
    /// `r`. Returns `false`, the level unchanged, if two images overlap (the group is then not
    /// abelian).
    fn extend(&mut self, r: Perm, coefficients: Vec<u32>, p: u32) -> bool {
        let t = self.elements.len();
        let old = self.points.len();
        let mut exponents = Vec::with_capacity(old * p as usize * (t + 1));
        for i in 0..old {
            exponents.extend_from_slice(&self.exponents[i * t..(i + 1) * t]);
            exponents.push(0);
        }
        for a in 1..p {
            for i in 0..old {
                let y = self.points[(a as usize - 1) * old + i];
                let z = r.image(y);
                if self.slot[z as usize] != NONE {
                    for &added in &self.points[old..] {
                        self.slot[added as usize] = NONE;
                    }
                    self.points.truncate(old);
                    return false;
                }
                self.slot[z as usize] = self.points.len() as u32;
                self.points.push(z);
                exponents.extend_from_slice(&self.exponents[i * t..(i + 1) * t]);
                exponents.push(a);
            }
        }
        self.exponents = exponents;
        self.elements.push((r, coefficients));
        true
    }
}

fn is_prime(p: u32) -> bool {
    p >= 2
        && (2..)
            .take_while(|q| q * q <= p)
            .all(|q| !p.is_multiple_of(q))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).unwrap()
    }

    #[test]
    fn the_klein_four_group_by_elimination() {
        // V4 regular on {1..4}, given redundantly: the second element maps the first level's
        // base point outside its orbit, so the level grows.
        let gens = [
            perm("(1,2)(3,4)", 4),
            perm("(1,3)(2,4)", 4),
            perm("(1,4)(2,3)", 4),
        ];
        let orders = GeneratorOrders::of(&gens);
        let mut v4 = ElementaryAbelianWords::new(4);
        for (i, g) in gens.iter().enumerate() {
            let expected = if i < 2 {
                Inserted::New
            } else {
                Inserted::Redundant
            };
            assert_eq!(v4.insert(g, Word::letter(i as u32, 1, &orders)), expected);
        }
        assert_eq!((v4.rank(), v4.prime()), (2, Some(2)));
        for x in gens.iter().chain([&Perm::identity(4)]) {
            let w = v4
                .word_of(x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .unwrap();
            assert_eq!(w.evaluate(&gens, 4), *x);
        }
        assert_eq!(
            v4.word_of(&perm("(1,2)", 4), &orders, LetterBudget::letters(u64::MAX)),
            Ok(None)
        );
    }

    #[test]
    fn other_groups_are_told_apart() {
        // Not of prime order: refused at once.
        let mut g = ElementaryAbelianWords::new(4);
        assert_eq!(
            g.insert(&perm("(1,2,3,4)", 4), Word::identity()),
            Inserted::NotElementary
        );
        assert_eq!(g.insert(&perm("(1,2)", 4), Word::identity()), Inserted::New);
        assert_eq!(g.insert(&perm("(3,4)", 4), Word::identity()), Inserted::New);
        assert_eq!(g.rank(), 2);
        // A 3-cycle's residue after (1,2) is a transposition, but the 3-cycle has order 3.
        assert_eq!(
            g.insert(&perm("(1,2,3)", 4), Word::identity()),
            Inserted::NotElementary
        );
        // (1,3)(2,4) has order 2 but does not commute with (1,2).
        assert_eq!(
            g.insert(&perm("(1,3)(2,4)", 4), Word::identity()),
            Inserted::NotElementary
        );
        // An element of order 3 after elements of order 2.
        let mut k = ElementaryAbelianWords::new(6);
        assert_eq!(k.insert(&perm("(1,2)", 6), Word::identity()), Inserted::New);
        assert_eq!(
            k.insert(&perm("(4,5,6)", 6), Word::identity()),
            Inserted::NotElementary
        );
        assert_eq!(k.rank(), 1);
    }
}
