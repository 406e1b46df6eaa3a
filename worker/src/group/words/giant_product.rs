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
//! conjugate), one orbit after another ([`in_writing_order`]). The last one's 3-cycle is the
//! identity on all others ([`GiantWords::on_orbit`]); that costs a power killing the long cycles
//! of every orbit, and for `Sym(500) × Sym(500)` from two random elements about 18,000 letters
//! against about 1,900 for one orbit alone (with three orbits or more it may also be the
//! commutator of two 3-cycles each fixing some of the others, whichever is shorter:
//! [`super::three_cycle::commutator_of_sides`]). So each earlier orbit's 3-cycle need only fix
//! the orbits before it, and may act on the later ones by an even permutation
//! ([`GiantWords::on_orbit_before`]): the word `P_i` of `z`'s restriction to orbit `i` then
//! moves the later orbits too, and the later orbits write `P_i⁻¹ · z`, which is the identity on
//! orbits `1..=i` and even on the others. The last orbit is the one whose 3-cycle fixing all
//! others costs least per piece, the others go largest first.
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

use super::giant::GiantWords;
use super::group_words::WordEffort;
use super::orbit_product::{orbit_positions, preserves_orbits};
use super::parity_space::{ParitySpace, parity_vector};
use super::word::{GeneratorOrders, LetterBudget, Word};
use crate::context::SolveContext;
use crate::counting::arith::factorial;
use crate::error::SolveError;
use crate::group::giant_recognition::Giant;
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
        order *= factorial(orbit.len() as u64) / 2u32;
    }
    (order == group.order()).then_some(orbits)
}

/// The words of the alternating groups of `parts` (the orbits of a product of giants, or the
/// blocks of several orbits, one part per orbit), in the order they are written, with the bytes
/// they hold. The last part's 3-cycle fixes every other part, and what that costs varies from
/// part to part (for `Sym(200) x Sym(150)` from two random elements, 9,800 letters on the first
/// orbit, 25,078 on the second): every part's is found (`fixing_all`), the part whose pieces
/// cost least with it (about `points/2` conjugates of it) is written last, and the others
/// largest first, each with a 3-cycle free on the parts after it (`before`). Both builders get
/// the bytes left of `budget_bytes`.
///
/// # Errors
/// The builders' errors; [`SolveError::Cancelled`].
pub(super) fn in_writing_order<P>(
    mut parts: Vec<P>,
    points: impl Fn(&P) -> usize,
    ctx: &SolveContext,
    budget_bytes: u64,
    fixing_all: impl Fn(&P, u64) -> Result<GiantWords, SolveError>,
    before: impl Fn(&P, &[P], u64) -> Result<GiantWords, SolveError>,
) -> Result<(Vec<P>, Vec<GiantWords>, u64), SolveError> {
    let mut held = 0u64;
    let mut each = Vec::with_capacity(parts.len());
    for part in &parts {
        ctx.check()?;
        let words = fixing_all(part, budget_bytes.saturating_sub(held))?;
        held = held.saturating_add(words.bytes());
        each.push(words);
    }
    let cost = |i: usize| points(&parts[i]) as u128 * each[i].base_len() as u128;
    let Some(last) = (0..parts.len()).min_by_key(|&i| cost(i)) else {
        return Ok((parts, Vec::new(), 0));
    };
    let last_words = each.swap_remove(last);
    drop(each);
    let last_part = parts.swap_remove(last);
    parts.sort_by_key(|p| std::cmp::Reverse(points(p)));
    parts.push(last_part);
    let mut held = last_words.bytes();
    let mut words = Vec::with_capacity(parts.len());
    for i in 0..parts.len() - 1 {
        ctx.check()?;
        let part_words = before(
            &parts[i],
            &parts[i + 1..],
            budget_bytes.saturating_sub(held),
        )?;
        held = held.saturating_add(part_words.bytes());
        words.push(part_words);
    }
    words.push(last_words);
    Ok((parts, words, held))
}

/// The word of `z` (images of all points) from the parts' `words` in the order of
/// [`in_writing_order`]: each part's word leaves in `z` what the later parts are to write
/// ([`GiantWords::append_word_of_leading`]). `Ok(None)` when `z` is not a member on some part,
/// `Err(letters)` as soon as the word is known to be longer than `budget` allows.
pub(super) fn word_in_writing_order(
    words: &[GiantWords],
    mut z: Vec<u32>,
    budget: LetterBudget<'_>,
) -> Result<Option<Word>, u64> {
    let mut word = Word::identity();
    for part_words in words {
        if !part_words.append_word_of_leading(&mut z, &mut word, budget)? {
            return Ok(None);
        }
    }
    Ok(Some(word))
}

/// Words for a product of giants (see the module documentation).
#[derive(Debug)]
pub(super) struct GiantProductWords {
    /// Each orbit's points (increasing), and the words of its alternating group, in writing
    /// order ([`in_writing_order`]): each orbit's words may move the orbits after it.
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
        orbits: Vec<Vec<u32>>,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantProductWords, SolveError> {
        // The parity is fixed for all orbits at once, so each orbit only sees even elements.
        let giant = Giant::Alternating;
        let tables = group.degree() as u64 * 16;
        let (orbits, words, words_bytes) = in_writing_order(
            orbits,
            Vec::len,
            ctx,
            budget_bytes.saturating_sub(tables),
            |orbit, left| GiantWords::on_orbit(group, orbit, giant, effort, ctx, left, limit_name),
            |orbit, later, left| {
                GiantWords::on_orbit_before(group, orbit, later, effort, ctx, left, limit_name)
            },
        )?;
        let position = orbit_positions(group.degree(), orbits.iter().map(Vec::as_slice));
        let parity = ParitySpace::of(group, &orbits, &position);
        let held = tables + words_bytes + parity.bytes();
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
    /// to be longer than `budget` allows.
    ///
    /// Complexity: O(d · k) for the parity correction, then one giant's word per orbit.
    pub(super) fn word_of(&self, g: &Perm, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
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
        let z: Vec<u32> = g.compose(&y.inverse()).images().to_vec();
        let Some(mut word) = word_in_writing_order(&self.words, z, budget)? else {
            return Ok(None);
        };
        word.append(&y_word, &self.orders);
        word.at_most(budget)
    }

    /// Bytes held: the orbits' words, the position table and the parity basis.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Each orbit's base element's word ([`GiantWords::base_word`]).
    pub(super) fn base_words(&self) -> impl Iterator<Item = &Word> {
        self.words.iter().map(GiantWords::base_word)
    }

    /// The orbits' base elements' mean and largest word length, for benchmarks.
    pub(super) fn entry_lengths(&self) -> (f64, u64) {
        let lengths: Vec<u64> = self.words.iter().map(GiantWords::base_len).collect();
        let mean = lengths.iter().sum::<u64>() as f64 / lengths.len().max(1) as f64;
        (mean, lengths.into_iter().max().unwrap_or(0))
    }
}
