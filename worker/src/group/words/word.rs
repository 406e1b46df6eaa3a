//! [`Word`]: a product of generators and their powers, kept in a normal form.

use super::super::perm::Perm;
use crate::context::SolveContext;

/// Bytes of one letter of a [`Word`] in memory (a [`WordLetter`] and its share of the vector).
pub(super) const LETTER_BYTES: u64 = 16;

/// One letter of a [`Word`]: generator `generator` (0-based) raised to `exponent` (never 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WordLetter {
    /// Index of the generator in the job's list, 0-based.
    pub generator: u32,
    /// The power, positive or negative, never 0.
    pub exponent: i64,
}

/// A word in a group's generators, multiplied left to right as GAP does: the image of a point
/// under `g1*g2` is its image under `g1`, then under `g2`.
///
/// Kept in the normal form of a free product of cyclic groups: no two neighbouring letters share a
/// generator (`g2*g2` is `g2^2`, `g1*g1^-1` vanishes) and each exponent is reduced modulo its
/// generator's order into `(-m/2, m/2]` (with `g` of order 4, `g^3` is `g^-1`). Its length is the
/// sum of the absolute values of the exponents.
///
/// ```
/// use orbit_worker::group::{Perm, Word, WordLetter};
/// let w = Word::from_letters(&[WordLetter { generator: 0, exponent: 2 }, WordLetter { generator: 1, exponent: -1 }]);
/// assert_eq!(w.to_string(), "g1^2*g2^-1");
/// assert_eq!(w.len(), 3);
/// assert_eq!(Word::identity().to_string(), "<identity>");
/// let gens = [Perm::parse_cycles("(1,2,3)", 3).unwrap(), Perm::parse_cycles("(1,2)", 3).unwrap()];
/// assert_eq!(w.evaluate(&gens, 3).to_string(), "(1,3)"); // (1,3,2)*(1,2), as GAP multiplies
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Word {
    letters: Vec<WordLetter>,
    len: u64,
}

/// The orders of a job's generators (exponents are reduced modulo them); `None` where an order
/// does not fit in an `i64` (such exponents are left as they are).
#[derive(Debug, Clone, Default)]
pub(crate) struct GeneratorOrders(Vec<Option<i64>>);

impl GeneratorOrders {
    /// The order of generator `g`, if known and it fits in an `i64`.
    pub(crate) fn order(&self, g: usize) -> Option<i64> {
        self.0.get(g).copied().flatten()
    }

    /// The order of each generator: the lcm of its cycle lengths.
    ///
    /// Complexity: O(d) per generator.
    pub(crate) fn of(generators: &[Perm]) -> GeneratorOrders {
        GeneratorOrders(
            generators
                .iter()
                .map(|g| {
                    let mut order: i128 = 1;
                    for len in g.cycle_lengths() {
                        let len = len as i128;
                        order = order / gcd(order, len) * len;
                        if order > i64::MAX as i128 {
                            return None;
                        }
                    }
                    Some(order as i64)
                })
                .collect(),
        )
    }

    /// No reduction: every order unknown (for words built without their generators).
    pub(crate) fn unknown() -> GeneratorOrders {
        GeneratorOrders(Vec::new())
    }

    /// `e` reduced modulo the order `m` of `generator` into `(-m/2, m/2]`.
    pub(super) fn reduce(&self, generator: u32, e: i64) -> i64 {
        match self.0.get(generator as usize).copied().flatten() {
            // Most exponents are small: already reduced, no division.
            Some(m) if e.unsigned_abs() < (m / 2).unsigned_abs() => e,
            Some(m) => {
                let r = e.rem_euclid(m);
                if r > m / 2 { r - m } else { r }
            }
            None => e,
        }
    }
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Word {
    /// The empty word (the identity).
    pub fn identity() -> Word {
        Word::default()
    }

    /// The word of these letters, in normal form (neighbours with the same generator merged,
    /// zero exponents dropped; exponents are not reduced by orders, which it does not know).
    ///
    /// Complexity: O(letters).
    pub fn from_letters(letters: &[WordLetter]) -> Word {
        let mut w = Word::identity();
        for l in letters {
            w.push(l.generator, l.exponent, &GeneratorOrders::unknown());
        }
        w
    }

    /// One generator to the power `exponent`.
    pub(crate) fn letter(generator: u32, exponent: i64, orders: &GeneratorOrders) -> Word {
        let mut w = Word::identity();
        w.push(generator, exponent, orders);
        w
    }

    /// The letters, left to right.
    pub fn letters(&self) -> &[WordLetter] {
        &self.letters
    }

    /// The length: the sum of the absolute values of the exponents.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether this is the empty word.
    pub fn is_identity(&self) -> bool {
        self.letters.is_empty()
    }

    /// Appends `generator^exponent`, keeping the normal form (a stack-based reduction: merging
    /// with the last letter can cancel it, and the next push then meets the letter before).
    pub(crate) fn push(&mut self, generator: u32, exponent: i64, orders: &GeneratorOrders) {
        let e = orders.reduce(generator, exponent);
        if e == 0 {
            return;
        }
        if let Some(last) = self.letters.last_mut()
            && last.generator == generator
        {
            self.len -= last.exponent.unsigned_abs();
            let merged = orders.reduce(generator, last.exponent.saturating_add(e));
            if merged == 0 {
                self.letters.pop();
            } else {
                last.exponent = merged;
                self.len += merged.unsigned_abs();
            }
            return;
        }
        self.letters.push(WordLetter {
            generator,
            exponent: e,
        });
        self.len += e.unsigned_abs();
    }

    /// Appends `other` (the product `self * other`), in normal form.
    ///
    /// Complexity: `O(letters of other)`, copied as they are past the junction.
    pub(crate) fn append(&mut self, other: &Word, orders: &GeneratorOrders) {
        self.append_normal(other.letters.iter().copied(), orders);
    }

    /// Appends `other^-1`, in normal form.
    pub(crate) fn append_inverse(&mut self, other: &Word, orders: &GeneratorOrders) {
        let inverse = other.letters.iter().rev().map(|l| WordLetter {
            generator: l.generator,
            exponent: -l.exponent,
        });
        self.append_normal(inverse, orders);
    }

    /// Appends `letters` that are in normal form among themselves (a word's, or its inverse's):
    /// they can only merge with this word's end, so once one is pushed without merging, each
    /// next one is copied as it is, unless `orders` changes its exponent (a word made with
    /// other orders, such as an image's words, is reduced again) or drops it.
    fn append_normal(
        &mut self,
        letters: impl Iterator<Item = WordLetter>,
        orders: &GeneratorOrders,
    ) {
        // Whether the last letter is the previous one of `letters`, so that the next differs
        // from it in generator.
        let mut joined = false;
        for l in letters {
            let e = orders.reduce(l.generator, l.exponent);
            if joined && e == l.exponent {
                self.letters.push(l);
                self.len += e.unsigned_abs();
                continue;
            }
            let merges = self
                .letters
                .last()
                .is_some_and(|last| last.generator == l.generator);
            self.push(l.generator, l.exponent, orders);
            joined = !merges && e != 0;
        }
    }

    /// Appends the commutator `[c, a] = c⁻¹ a⁻¹ c a` (as [`Perm::commutator`] multiplies), in
    /// normal form.
    ///
    /// [`Perm::commutator`]: crate::group::Perm::commutator
    pub(crate) fn append_commutator(&mut self, c: &Word, a: &Word, orders: &GeneratorOrders) {
        self.append_inverse(c, orders);
        self.append_inverse(a, orders);
        self.append(c, orders);
        self.append(a, orders);
    }

    /// Appends the conjugate `x^g = g⁻¹ x g` (as `small_support_powers::conjugate` multiplies),
    /// in normal form.
    pub(crate) fn append_conjugate(&mut self, x: &Word, g: &Word, orders: &GeneratorOrders) {
        self.append_inverse(g, orders);
        self.append(x, orders);
        self.append(g, orders);
    }

    /// Appends `other^e` (`e` copies of `other`, or of its inverse for `e < 0`), in normal form.
    pub(crate) fn append_power(&mut self, other: &Word, e: i64, orders: &GeneratorOrders) {
        for _ in 0..e.unsigned_abs() {
            if e > 0 {
                self.append(other, orders);
            } else {
                self.append_inverse(other, orders);
            }
        }
    }

    /// The word itself when `budget` allows its letters, else `Err(its length)` (the form the
    /// word methods report a word over the cap, or a cancelled job, in).
    pub(crate) fn at_most(self, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
        budget.check(self.len())?;
        Ok(Some(self))
    }

    /// `g · w⁻¹` for this word `w` in `generators` (`inverses` their inverses): what is left of
    /// `g` once `w` is taken off its end. Stops with `Err(letters)` (the word's letters) when
    /// `budget`'s job is cancelled, checked every [`LETTERS_BETWEEN_CHECKS`] letters.
    ///
    /// Complexity: `O(|w| · d)`, with no allocation but the result's.
    pub(crate) fn taken_off(
        &self,
        g: &Perm,
        generators: &[Perm],
        inverses: &[Perm],
        budget: LetterBudget<'_>,
    ) -> Result<Perm, u64> {
        let mut images = g.images().to_vec();
        let mut since_check = 0u64;
        for letter in self.letters.iter().rev() {
            let step = if letter.exponent > 0 {
                &inverses[letter.generator as usize]
            } else {
                &generators[letter.generator as usize]
            };
            for _ in 0..letter.exponent.unsigned_abs() {
                images.iter_mut().for_each(|y| *y = step.image(*y));
            }
            since_check += letter.exponent.unsigned_abs();
            if since_check >= LETTERS_BETWEEN_CHECKS {
                since_check = 0;
                if budget.is_cancelled() {
                    return Err(self.len());
                }
            }
        }
        Ok(Perm::from_images_unchecked(images.into_boxed_slice()))
    }

    /// The permutation this word stands for, given the generators (of degree `degree`).
    ///
    /// Complexity: O(d · letters · log |exponent|).
    ///
    /// # Panics
    /// If a letter names a generator outside `generators` (words built for these generators
    /// never do).
    pub fn evaluate(&self, generators: &[Perm], degree: usize) -> Perm {
        let mut out = Perm::identity(degree);
        for l in &self.letters {
            out = out.compose(&generators[l.generator as usize].pow(l.exponent));
        }
        out
    }
}

impl std::fmt::Display for Word {
    /// GAP's notation with 1-based generator names: `g1*g3^-1*g2^2`; the empty word is
    /// `<identity>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.letters.is_empty() {
            return f.write_str("<identity>");
        }
        for (i, l) in self.letters.iter().enumerate() {
            if i > 0 {
                f.write_str("*")?;
            }
            write!(f, "g{}", l.generator + 1)?;
            if l.exponent != 1 {
                write!(f, "^{}", l.exponent)?;
            }
        }
        Ok(())
    }
}

/// Letters applied between two checks for cancellation in [`Word::taken_off`]: at degree 1,000
/// four million images, a few milliseconds.
const LETTERS_BETWEEN_CHECKS: u64 = 1 << 12;

/// How far a member's word may grow: at most `max` letters, and only while the job it is
/// written for is not cancelled. The word methods check it piece by piece and stop with
/// `Err(letters)` (the letters reached) as soon as either fails, so that neither a word over a
/// job's cap nor a cancelled job costs more than one piece's work; the caller tells which by
/// its context.
#[derive(Debug, Clone, Copy)]
pub struct LetterBudget<'a> {
    max: u64,
    /// `None`: never cancelled (benchmarks, tests, callers with their own checks).
    ctx: Option<&'a SolveContext>,
}

impl<'a> LetterBudget<'a> {
    /// At most `max` letters, while `ctx` is not cancelled.
    pub fn new(max: u64, ctx: &'a SolveContext) -> LetterBudget<'a> {
        LetterBudget {
            max,
            ctx: Some(ctx),
        }
    }

    /// At most `max` letters, never cancelled.
    pub fn letters(max: u64) -> LetterBudget<'static> {
        LetterBudget { max, ctx: None }
    }

    /// The letters allowed.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// What is left after `used` letters.
    pub(crate) fn less(self, used: u64) -> LetterBudget<'a> {
        LetterBudget {
            max: self.max.saturating_sub(used),
            ..self
        }
    }

    /// `Err(letters)` when a word of `letters` letters is to stop: longer than allowed, or the
    /// job cancelled. O(1).
    pub(crate) fn check(&self, letters: u64) -> Result<(), u64> {
        if letters > self.max || self.is_cancelled() {
            Err(letters)
        } else {
            Ok(())
        }
    }

    /// Whether the job is cancelled. O(1).
    pub(crate) fn is_cancelled(&self) -> bool {
        self.ctx.is_some_and(SolveContext::is_cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orders(ms: &[i64]) -> GeneratorOrders {
        GeneratorOrders(ms.iter().map(|&m| Some(m)).collect())
    }

    #[test]
    fn free_cancellation_reaches_through_removed_letters() {
        let o = GeneratorOrders::unknown();
        let mut w = Word::identity();
        for (g, e) in [(0, 1), (1, 2), (1, -2), (0, -1), (2, 1)] {
            w.push(g, e, &o);
        }
        assert_eq!(w.to_string(), "g3");
        assert_eq!(w.len(), 1);
    }

    /// Appending a word, or its inverse, letter by letter through `push` and at once through
    /// `append` (which copies past the junction) give the same word: random words over three
    /// generators, made with orders that may differ from the ones they are appended with (as an
    /// image's words are), including unknown ones.
    #[test]
    fn append_agrees_with_pushing_letter_by_letter() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6041);
        let order_sets = [
            GeneratorOrders::unknown(),
            orders(&[2, 3, 4]),
            orders(&[4, 6, 12]),
            orders(&[1, 5, 2]),
        ];
        for _ in 0..2_000 {
            let made_with = &order_sets[rng.random_range(0..order_sets.len())];
            let appended_with = &order_sets[rng.random_range(0..order_sets.len())];
            let mut random_word = |orders: &GeneratorOrders| {
                let mut w = Word::identity();
                for _ in 0..rng.random_range(0..12) {
                    let e = rng.random_range(-7i64..=7);
                    w.push(rng.random_range(0..3), if e == 0 { 1 } else { e }, orders);
                }
                w
            };
            let start = random_word(appended_with);
            let other = random_word(made_with);
            let mut pushed = start.clone();
            for l in other.letters() {
                pushed.push(l.generator, l.exponent, appended_with);
            }
            let mut appended = start.clone();
            appended.append(&other, appended_with);
            assert_eq!(appended, pushed, "{start} then {other}");
            let mut pushed = start.clone();
            for l in other.letters().iter().rev() {
                pushed.push(l.generator, -l.exponent, appended_with);
            }
            let mut appended = start;
            appended.append_inverse(&other, appended_with);
            assert_eq!(appended, pushed, "then the inverse of {other}");
        }
    }

    #[test]
    fn exponents_are_reduced_by_the_generator_order() {
        let o = orders(&[4, 2]);
        let mut w = Word::letter(0, 3, &o);
        assert_eq!(w.to_string(), "g1^-1");
        w.push(1, 1, &o);
        w.push(1, 1, &o);
        assert_eq!(w.to_string(), "g1^-1");
        w.push(0, -1, &o);
        assert_eq!(w.to_string(), "g1^2");
        w.push(0, 2, &o);
        assert!(w.is_identity());
        assert_eq!(w.len(), 0);
    }

    /// `w^e` multiplies out to the `e`-th power of `w`'s permutation, for positive, negative
    /// and zero `e`; `at_most` keeps a word at the cap and reports one over it.
    #[test]
    fn powers_multiply_out_and_the_cap_is_inclusive() {
        let gens = [
            Perm::parse_cycles("(1,2,3,4,5)", 6).unwrap(),
            Perm::parse_cycles("(1,6)", 6).unwrap(),
        ];
        let o = GeneratorOrders::of(&gens);
        let mut w = Word::letter(0, 1, &o);
        w.push(1, 1, &o);
        let x = w.evaluate(&gens, 6);
        for e in [-3i64, -1, 0, 2, 5] {
            let mut power = Word::identity();
            power.append_power(&w, e, &o);
            assert_eq!(power.evaluate(&gens, 6), x.pow(e), "e = {e}");
        }
        assert_eq!(
            w.clone().at_most(LetterBudget::letters(2)),
            Ok(Some(w.clone()))
        );
        assert_eq!(w.at_most(LetterBudget::letters(1)), Err(2));
    }

    /// `taken_off` is `g` times the word's inverse (against `evaluate`), and a cancelled job
    /// stops it, as it stops any word at its first check.
    #[test]
    fn a_word_taken_off_a_permutation_and_a_cancelled_budget() {
        let gens = [
            Perm::parse_cycles("(1,2,3,4,5,6,7)", 7).unwrap(),
            Perm::parse_cycles("(1,2)", 7).unwrap(),
        ];
        let inverses: Vec<Perm> = gens.iter().map(Perm::inverse).collect();
        let o = GeneratorOrders::unknown();
        let mut w = Word::identity();
        // 3 · 5,000 letters: more than one stretch between checks.
        for _ in 0..5_000 {
            w.push(0, 2, &o);
            w.push(1, -1, &o);
        }
        let g = Perm::parse_cycles("(2,5,7)(3,4)", 7).unwrap();
        let within = LetterBudget::letters(u64::MAX);
        let expected = g.compose(&w.evaluate(&gens, 7).inverse());
        assert_eq!(w.taken_off(&g, &gens, &inverses, within), Ok(expected));
        let flag = crate::CancelFlag::new();
        flag.cancel();
        let ctx = SolveContext::new(flag, None);
        let cancelled = LetterBudget::new(u64::MAX, &ctx);
        assert_eq!(w.taken_off(&g, &gens, &inverses, cancelled), Err(w.len()));
        assert_eq!(cancelled.check(1), Err(1));
        assert_eq!(w.clone().at_most(cancelled), Err(w.len()));
        assert_eq!(within.less(10).max(), u64::MAX - 10);
    }

    #[test]
    fn orders_are_lcms_of_cycle_lengths() {
        let g = Perm::parse_cycles("(1,2)(3,4,5)", 5).unwrap();
        let o = GeneratorOrders::of(&[g, Perm::identity(5)]);
        assert_eq!(o.0, vec![Some(6), Some(1)]);
    }
}
