//! [`OrbitProductWords`]: words for a group whose generators each move the points of one orbit
//! only, such as 60 copies of `Sym(3)` or `Sym(30) × Alt(40)` given factor by factor.
//!
//! Such a group is the direct product of its factors, the groups its generators of one orbit
//! generate on that orbit: generators of different orbits move disjoint points, so they commute,
//! and an element is the product of its restrictions to the orbits. A member's word is therefore
//! the concatenation of its restrictions' words in their factors' generators, each factor with
//! its own [`GroupWords`] (Minkwitz's tables, which for a small factor search its whole Cayley
//! graph and give shortest words, or the giants' method). The words are as short as the factors'
//! (for factors of a few elements: shortest), and a query costs one small query per factor
//! rather than a search of the whole group's tables, whose base is as long as all the factors'
//! together.
//!
//! Reference: Seress, *Permutation Group Algorithms* (2003), §5.1 (orbits, restrictions to them);
//! the factorisation within a factor as in [`GroupWords`].

use super::group_words::{GroupWords, WordEffort, chain_limits};
use super::word::{GeneratorOrders, LetterBudget, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{Perm, PermGroup};

/// One factor: an orbit, the generators that move it, and the words of the group they generate
/// on it.
#[derive(Debug)]
struct Factor {
    /// The orbit's points, in the group's numbering; factor point `i` is `orbit[i]`.
    orbit: Vec<u32>,
    /// The group's index of factor generator `j`.
    generator_index: Vec<u32>,
    words: GroupWords,
}

/// Words for a direct product of groups on disjoint orbits (see the module documentation).
#[derive(Debug)]
pub(super) struct OrbitProductWords {
    factors: Vec<Factor>,
    /// `position[x]`: `(factor, index in its orbit)` of point `x`, or `None` for a point no
    /// generator moves.
    position: Vec<Option<(u32, u32)>>,
    orders: GeneratorOrders,
    bytes: u64,
}

/// The orbits of `group` with the generators that move each, if it has at least two non-trivial
/// orbits and every generator moves points of one orbit only.
///
/// Complexity: O(d · k).
pub(super) fn orbit_factors(group: &PermGroup) -> Option<Vec<(Vec<u32>, Vec<u32>)>> {
    let degree = group.degree();
    let orbits: Vec<&Vec<u32>> = group.orbits_ref().iter().filter(|o| o.len() > 1).collect();
    if orbits.len() < 2 {
        return None;
    }
    let mut orbit_of = vec![u32::MAX; degree];
    for (i, orbit) in orbits.iter().enumerate() {
        for &x in orbit.iter() {
            orbit_of[x as usize] = i as u32;
        }
    }
    let mut classes: Vec<Vec<u32>> = vec![Vec::new(); orbits.len()];
    for (j, g) in group.generators().iter().enumerate() {
        let mut moved = (0..degree as u32).filter(|&x| g.image(x) != x);
        let Some(first) = moved.next() else {
            continue; // the identity belongs to no factor
        };
        let orbit = orbit_of[first as usize];
        if moved.any(|x| orbit_of[x as usize] != orbit) {
            return None;
        }
        classes[orbit as usize].push(j as u32);
    }
    Some(orbits.into_iter().cloned().zip(classes).collect::<Vec<_>>())
}

/// `position[x]`: `(orbit, index of x in it)` for the points of `orbits`, `None` for the others.
///
/// Complexity: O(d + Σ |orbit|).
pub(super) fn orbit_positions<'a>(
    degree: usize,
    orbits: impl Iterator<Item = &'a [u32]>,
) -> Vec<Option<(u32, u32)>> {
    let mut position = vec![None; degree];
    for (i, orbit) in orbits.enumerate() {
        for (j, &x) in orbit.iter().enumerate() {
            position[x as usize] = Some((i as u32, j as u32));
        }
    }
    position
}

/// Whether `g` (of the positions' degree) maps every orbit onto itself and fixes the points of
/// no orbit, as every member of a group with these orbits does.
///
/// Complexity: O(d).
pub(super) fn preserves_orbits(g: &Perm, position: &[Option<(u32, u32)>]) -> bool {
    g.degree() == position.len()
        && (0..position.len() as u32).all(|x| {
            let y = g.image(x);
            match (position[x as usize], position[y as usize]) {
                (Some((a, _)), Some((b, _))) => a == b,
                (None, None) => x == y,
                _ => false,
            }
        })
}

impl OrbitProductWords {
    /// Builds the factors' groups and words.
    ///
    /// # Arguments
    /// `group` and its `factors` ([`orbit_factors`]); `effort`, `ctx`, `budget_bytes` and
    /// `limit_name` as for [`GroupWords::new`]: the factors' chains and words share the budget.
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] naming `limit_name` when the factors need more than
    /// `budget_bytes`; [`SolveError::Cancelled`].
    ///
    /// Complexity: the factors' groups and words, each on its own orbit.
    pub(super) fn new(
        group: &PermGroup,
        factors: Vec<(Vec<u32>, Vec<u32>)>,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<OrbitProductWords, SolveError> {
        let degree = group.degree();
        let position = orbit_positions(degree, factors.iter().map(|(orbit, _)| orbit.as_slice()));
        let mut built = Vec::with_capacity(factors.len());
        // What stays: the position table, the orbits and the factors' words. A factor's group
        // (its chain) lives only while its words are built.
        let mut held = (degree as u64) * 12;
        for (orbit, generator_index) in factors {
            ctx.check()?;
            let local = |g: &Perm| {
                let images = orbit
                    .iter()
                    .map(|&x| position[g.image(x) as usize].map_or(0, |(_, i)| i))
                    .collect();
                Perm::from_images(images, "a factor generator")
            };
            let generators = generator_index
                .iter()
                .map(|&j| local(&group.generators()[j as usize]))
                .collect::<Result<Vec<Perm>, SolveError>>()?;
            held = held.saturating_add(orbit.len() as u64 * 4);
            let left = budget_bytes.saturating_sub(held);
            let factor_group = PermGroup::new(orbit.len(), generators, ctx, &chain_limits(left))?;
            let words = GroupWords::beside_chain(&factor_group, effort, ctx, left, limit_name)?;
            held = held.saturating_add(words.bytes());
            built.push(Factor {
                orbit,
                generator_index,
                words,
            });
        }
        Ok(OrbitProductWords {
            factors: built,
            position,
            orders: GeneratorOrders::of(group.generators()),
            bytes: held,
        })
    }

    /// The word of `g` (the concatenation of its restrictions' words), `Ok(None)` for a
    /// non-member, or `Err(letters)` as soon as the word is known to be longer than
    /// `budget` allows.
    ///
    /// Complexity: O(d) for the restrictions, then one query per factor.
    pub(super) fn word_of(&self, g: &Perm, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
        if !preserves_orbits(g, &self.position) {
            return Ok(None);
        }
        let mut word = Word::identity();
        for factor in &self.factors {
            let images = factor
                .orbit
                .iter()
                .map(|&x| self.position[g.image(x) as usize].map_or(0, |(_, i)| i))
                .collect();
            let Ok(restricted) = Perm::from_images(images, "a restriction") else {
                return Ok(None);
            };
            let left = budget.less(word.len());
            let Some(part) = factor
                .words
                .word_within(&restricted, left)
                .map_err(|letters| word.len().saturating_add(letters))?
            else {
                return Ok(None);
            };
            for letter in part.letters() {
                word.push(
                    factor.generator_index[letter.generator as usize],
                    letter.exponent,
                    &self.orders,
                );
            }
            budget.check(word.len())?;
        }
        Ok(Some(word))
    }

    /// Bytes held: the factors' chains and words, the position table and the orbits.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The factors' mean entry length (weighted by factor) and their largest, for benchmarks.
    pub(super) fn entry_lengths(&self) -> (f64, u64) {
        let lengths: Vec<(f64, u64)> = self
            .factors
            .iter()
            .map(|f| f.words.entry_lengths())
            .collect();
        let mean = lengths.iter().map(|l| l.0).sum::<f64>() / lengths.len().max(1) as f64;
        (mean, lengths.iter().map(|l| l.1).max().unwrap_or(0))
    }
}
