//! [`GiantProductWords`]: words for a product of giants on several orbits whose generators may
//! move several orbits at once, such as `Sym(400) × Sym(300)` given by two random elements of the
//! product (each moving both orbits).
//!
//! Such a group `G` acts on each orbit `O_i` (of `m_i >= 5` points) as `Sym(O_i)` or `Alt(O_i)`.
//! When it contains the product `A` of the `Alt(O_i)` (each fixing the other orbits), it is `A`
//! extended by its *parity vectors*: `x ↦ (sign of x on O_1, …, sign on O_k)` maps `G` onto a
//! subspace `P` of `GF(2)^k` with kernel `A`, so `|G| = |A| · |P|`. That order equation is how the
//! structure is recognised, and it is a proof (the order is proven): `|G ∩ A| = |G| / |P| = |A|`.
//!
//! A member `x` is then written as `x = z · y`: `y` a product of generators with the parity
//! vector of `x` (Gaussian elimination over `GF(2)` on the generators' vectors; a vector outside
//! their span proves `x` is not a member), and `z = x · y⁻¹` even on every orbit, written orbit
//! by orbit by the giants' method (conjugates of a word that is a 3-cycle on the orbit, found as
//! a power of a random element or as the commutator of a power with few moved points, and its
//! conjugate). The orbits are written largest first. The last one's 3-cycle is the identity on
//! all others ([`GiantWords::on_orbit`]); that costs a power killing the long cycles of every
//! orbit, and for `Sym(500) × Sym(500)` from two random elements about 18,000 letters against
//! about 3,000 for one orbit alone. So each earlier orbit's 3-cycle need only fix the orbits
//! before it, and may act on the later ones by an even permutation
//! ([`GiantWords::on_orbit_before`]): the word `P_i` of `z`'s restriction to orbit `i` then
//! moves the later orbits too, and the later orbits write `P_i⁻¹ · z`, which is the identity on
//! orbits `1..=i` and even on the others.
//!
//! # Complexity
//! Set-up: one giant's set-up per orbit (each random walk follows all moved points). A word:
//! one giant's word per orbit plus at most `k` letters, and for each earlier orbit its pieces'
//! action on the later orbits (`O(depth · d)` per piece).
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §10.2 (giants, Jordan elements); the parity
//! map onto `GF(2)^k` is the product of the sign homomorphisms.

use num_bigint::BigUint;

use super::giant::{Giant, GiantWords};
use super::group_words::WordEffort;
use super::orbit_product::{orbit_positions, preserves_orbits};
use super::parity_space::{ParitySpace, parity_vector};
use super::word::{GeneratorOrders, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{Perm, PermGroup};

/// Fewest points of an orbit of a product of giants (`Alt(m)` is simple and the 3-cycles are
/// conjugate in it from `m = 5` on).
const LEAST_ORBIT: usize = 5;

/// The non-trivial orbits of `group` (points increasing) if it is a product of giants on at least
/// two orbits: every
/// such orbit has at least five points and `|G| = Π m_i!/2 · 2^r`, `r` the rank of the
/// generators' parity vectors (see the module documentation).
///
/// Complexity: O(d · k) for the parity vectors, O(k² · g / 64) for the rank.
pub(super) fn giant_product_orbits(group: &PermGroup) -> Option<Vec<Vec<u32>>> {
    let mut orbits: Vec<Vec<u32>> = group
        .orbits_ref()
        .iter()
        .filter(|o| o.len() > 1)
        .cloned()
        .collect();
    if orbits.len() < 2 || orbits.iter().any(|o| o.len() < LEAST_ORBIT) {
        return None;
    }
    orbits.iter_mut().for_each(|o| o.sort_unstable());
    let position = orbit_positions(group.degree(), orbits.iter().map(Vec::as_slice));
    let parity = ParitySpace::of(group, &orbits, &position);
    let mut order = BigUint::from(1u32) << parity.rank();
    for orbit in &orbits {
        let factorial: BigUint = (3..=orbit.len() as u64).product();
        order *= factorial;
    }
    (order == group.order()).then_some(orbits)
}

/// Words for a product of giants (see the module documentation).
#[derive(Debug)]
pub(super) struct GiantProductWords {
    /// Each orbit's points (increasing), and the words of its alternating group, largest orbit
    /// first; each orbit's words may move the orbits after it.
    orbits: Vec<Vec<u32>>,
    words: Vec<GiantWords>,
    /// `position[x]`: `(orbit, index in it)`, or `None` for a point no generator moves.
    position: Vec<Option<(u32, u32)>>,
    parity: ParitySpace,
    generators: Vec<Perm>,
    orders: GeneratorOrders,
    bytes: u64,
}

impl GiantProductWords {
    /// Builds one giant's words per orbit.
    ///
    /// # Arguments
    /// `group` and its `orbits` ([`giant_product_orbits`]); `effort`, `ctx`, `budget_bytes` and
    /// `limit_name` as for [`GroupWords::new`](super::GroupWords::new): the orbits share the
    /// budget.
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] naming `limit_name` beyond `budget_bytes`;
    /// [`SolveError::Cancelled`].
    pub(super) fn new(
        group: &PermGroup,
        mut orbits: Vec<Vec<u32>>,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantProductWords, SolveError> {
        // The parity is fixed for all orbits at once, so each orbit only sees even elements.
        let giant = Giant::Alternating;
        // The last orbit's 3-cycle fixes every other orbit; what that costs varies from orbit to
        // orbit (for `Sym(200) x Sym(150)` from two random elements, 9,800 letters on the first,
        // 25,078 on the second). Each orbit's is found, and the orbit whose pieces cost least
        // (about `m/2` conjugates of it) is written last; the others largest first.
        let mut held = group.degree() as u64 * 12;
        let mut fixing_all = Vec::with_capacity(orbits.len());
        for orbit in &orbits {
            ctx.check()?;
            let left = budget_bytes.saturating_sub(held);
            let orbit_words =
                GiantWords::on_orbit(group, orbit, giant, effort, ctx, left, limit_name)?;
            held = held.saturating_add(orbit_words.bytes());
            fixing_all.push(orbit_words);
        }
        let pieces_cost = |i: usize| orbits[i].len() as u128 * fixing_all[i].base_len() as u128;
        let last = (0..orbits.len())
            .min_by_key(|&i| pieces_cost(i))
            .expect("at least two orbits");
        let last_words = fixing_all.swap_remove(last);
        drop(fixing_all);
        let last_orbit = orbits.swap_remove(last);
        orbits.sort_by_key(|o| std::cmp::Reverse(o.len()));
        orbits.push(last_orbit);
        let position = orbit_positions(group.degree(), orbits.iter().map(Vec::as_slice));
        let parity = ParitySpace::of(group, &orbits, &position);
        let mut held = group.degree() as u64 * 12 + parity.bytes() + last_words.bytes();
        let mut words = Vec::with_capacity(orbits.len());
        let (before_last, _) = orbits.split_at(orbits.len() - 1);
        for (i, orbit) in before_last.iter().enumerate() {
            ctx.check()?;
            let left = budget_bytes.saturating_sub(held);
            let later = &orbits[i + 1..];
            let orbit_words =
                GiantWords::on_orbit_before(group, orbit, later, effort, ctx, left, limit_name)?;
            held = held.saturating_add(orbit_words.bytes());
            words.push(orbit_words);
        }
        words.push(last_words);
        held = held.saturating_add(4 * group.degree() as u64);
        Ok(GiantProductWords {
            orbits,
            words,
            position,
            parity,
            generators: group.generators().to_vec(),
            orders: GeneratorOrders::of(group.generators()),
            bytes: held,
        })
    }

    /// The word of `g`, `Ok(None)` for a non-member, `Err(letters)` as soon as the word is known
    /// to be longer than `max_letters`.
    ///
    /// Complexity: O(d · k) for the parity correction, then one giant's word per orbit.
    pub(super) fn word_of(&self, g: &Perm, max_letters: u64) -> Result<Option<Word>, u64> {
        if !preserves_orbits(g, &self.position) {
            return Ok(None);
        }
        let signs = parity_vector(g, &self.orbits, &self.position);
        let Some(chosen) = self.parity.solve(&signs) else {
            return Ok(None); // a parity vector no member has
        };
        // y: the chosen generators in increasing order; z = g · y⁻¹ is even on every orbit.
        let mut y = Perm::identity(g.degree());
        let mut y_word = Word::identity();
        for &j in &chosen {
            y = y.compose(&self.generators[j as usize]);
            y_word.push(j, 1, &self.orders);
        }
        let mut z: Vec<u32> = g.compose(&y.inverse()).images().to_vec();
        let mut word = Word::identity();
        for (orbit, words) in self.orbits.iter().zip(&self.words) {
            let inner: Vec<u32> = orbit
                .iter()
                .map(|&x| self.position[z[x as usize] as usize].map_or(0, |(_, j)| j))
                .collect();
            let left = max_letters.saturating_sub(word.len());
            let Some((part, rest)) = words
                .word_and_rest_of_inner(inner, left)
                .map_err(|letters| word.len().saturating_add(letters))?
            else {
                return Ok(None);
            };
            word.append(&part, &self.orders);
            if word.len() > max_letters {
                return Err(word.len());
            }
            // z = P · z' for the part's product P: the later orbits write z' = P⁻¹ · z, which
            // maps P(x) to z(x).
            let later = words.free_points();
            let before: Vec<u32> = later.iter().map(|&x| z[x as usize]).collect();
            for (&image, z_of_x) in rest.iter().zip(before) {
                z[later[image as usize] as usize] = z_of_x;
            }
        }
        word.append(&y_word, &self.orders);
        word.at_most(max_letters)
    }

    /// Bytes held: the orbits' words, the position table and the parity basis.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The orbits' base elements' mean and largest word length, for benchmarks.
    pub(super) fn entry_lengths(&self) -> (f64, u64) {
        let lengths: Vec<u64> = self.words.iter().map(GiantWords::base_len).collect();
        let mean = lengths.iter().sum::<u64>() as f64 / lengths.len().max(1) as f64;
        (mean, lengths.into_iter().max().unwrap_or(0))
    }
}
