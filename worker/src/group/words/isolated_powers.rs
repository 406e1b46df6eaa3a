//! [`isolated_power_seeds`]: powers `t^e` of short words `t` in the generators that move the
//! points of a single part only, as kernel elements to start from.
//!
//! `t^e` moves exactly the points of the cycles of `t` whose length does not divide `e` (on a
//! cycle of length `ℓ` it is the rotation by `e mod ℓ`). So for a part `B` that holds every
//! cycle of some lengths (`B` *owns* them), the smallest exponent that fixes every point outside
//! `B` is `e_B`, the lcm of the lengths `B` does not own; `t^{e_B}` is supported on `B`, and is
//! not the identity when one of `B`'s lengths does not divide `e_B`. Every power of `t` that
//! moves one part only is a power of some `t^{e_B}`, so these are the shortest. (For a prime `q`
//! whose top power in the order `L` only `B`'s cycles hold, `e_B` divides `L/q`: a power
//! `t^{L/q}` is never shorter, and in a product of groups on two orbits, whose cycles share
//! fewer primes, `e_B` can be several times smaller.)
//!
//! Why: the kernel of `T wr Sym(m)` on its blocks, for a non-abelian `T`, is written part by
//! part from elements supported on one block each, and every member's word holds about `m`
//! of them. Made from kernel elements (powers `s^o` of words of up to three letters that kill
//! the image, or `t · u⁻¹` with `u` the word of `t`'s image, which carries the image's words),
//! each is a power of a kernel element: on `PSL(2,7) wr Sym(100)` 431,340 letters (a word of
//! three letters to the power 143,780), and members' words of about 170 million letters. Among
//! more words, some have an order small enough: of the 4,686 words of at most five letters in
//! its three generators, one of five letters whose 308th power moves one block (1,540 letters),
//! of six letters one of 1,152; their conjugates by the generators reach the other blocks, two
//! letters longer each, and the members' words have about 500,000 letters.
//!
//! # Complexity
//! `O(d)` per word (its images from its prefix's, then its cycles and their owners), `O(D²)`
//! for its `D` distinct cycle lengths, and `O(d log e)` per power kept; words are walked depth
//! first, `O(d · L)` memory.
//!
//! # Reference
//! Seress, *Permutation Group Algorithms* (2003), §10.2 (powers of random elements that are
//! supported on few points: the 3-cycles of giants); Holt, Eick, O'Brien, *Handbook of
//! Computational Group Theory* (2005), §3.5 (the order of a permutation from its cycles).

use super::kernel_candidates::Seed;
use super::word::{GeneratorOrders, Word};
use crate::context::SolveContext;
use crate::counting::arith::gcd;
use crate::error::SolveError;
use crate::group::Perm;

/// `Walk::owner` of a length not met yet, and of one whose cycles lie in two parts or more
/// (or outside every part).
const UNSEEN: u32 = u32::MAX;
const MIXED: u32 = u32::MAX - 1;

/// Words tried between two checks for cancellation (each `O(d)`: at degree 1,000 a check every
/// few hundred microseconds).
const CHECK_EVERY: usize = 128;

/// Where the words come from and what is kept of their powers.
#[derive(Debug, Clone, Copy)]
pub(super) struct IsolatingSearch {
    /// Letters of the words tried, at most: every freely reduced word of up to as many letters
    /// as keep the count within `words` is tried, then words of one letter more (in the walk's
    /// order) until `words` have been.
    pub(super) word_letters: usize,
    /// Words tried, at most.
    pub(super) words: usize,
    /// Letters of a power kept (`|t| · L/q`), at most.
    pub(super) power_letters: u64,
    /// Powers kept per class of parts (the parts the generators map onto each other: the
    /// blocks of one orbit), the shortest: a group with two orbits of blocks needs seeds on
    /// each, and the shortest powers overall may all move blocks of one.
    pub(super) most: usize,
}

/// The powers `t^{L/q}` of the freely reduced words `t` in `generators` that `search` allows,
/// supported on one of the parts (`position[x]` is `x`'s part and index in it, `None` outside
/// every part) and acting trivially by `in_kernel`, the shortest first.
///
/// # Returns
/// At most `search.most` seeds per class of parts (see [`IsolatingSearch::most`]), by
/// increasing letters; [`SolveError::Cancelled`] when `ctx` is cancelled.
///
/// # Complexity
/// `O(d)` per word tried (each word's images made from its prefix's, its cycles and their
/// owners), `O(D²)` for its `D` distinct cycle lengths, `O(d log e)` per power kept; the words
/// of the last, partial length walk their prefixes again. `O(d · L)` memory for the prefixes.
///
/// # Example
/// Blocks `{0,1} {2,3} {4,5}` and a generator `(0,1)(2,3,4)` of order 6: block 0 owns the
/// length 2, so the cube `(0,1)` (`e` the lcm of the other length, 3) is a seed of three
/// letters; the 3-cycle meets two blocks, so its length has no owner.
pub(super) fn isolated_power_seeds(
    generators: &[Perm],
    orders: &GeneratorOrders,
    position: &[Option<(u32, u32)>],
    search: IsolatingSearch,
    ctx: &SolveContext,
    in_kernel: impl Fn(&Perm) -> bool,
) -> Result<Vec<Seed>, SolveError> {
    let degree = generators[0].degree();
    let steps = &letter_steps(generators, orders);
    let mut letters = 0;
    while letters < search.word_letters
        && count_words(steps, orders, letters + 1, search.words).is_some()
    {
        letters += 1;
    }
    let class_of = part_classes(generators, position);
    let classes = class_of.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut walk = Walk {
        steps,
        orders,
        position,
        class_of,
        part_lcm_bound: lcm_bound(
            position
                .iter()
                .flatten()
                .map(|&(_, index)| index as usize + 1)
                .max()
                .unwrap_or(0),
        ),
        search,
        in_kernel: &in_kernel,
        ctx,
        tried: 0,
        kept: vec![Vec::new(); classes],
        bar: u64::MAX,
        length_of: vec![0; degree],
        lengths: Vec::new(),
        owner: vec![UNSEEN; degree + 1],
    };
    let identity: Vec<u32> = (0..degree as u32).collect();
    walk.extend(&Word::identity(), &identity, letters, 1)?;
    // Then the words of one letter more, in the walk's order, as many as the count leaves.
    if letters < search.word_letters {
        let more = letters as u64 + 1;
        walk.extend(&Word::identity(), &identity, letters + 1, more)?;
    }
    let mut kept: Vec<(u64, Word, u64)> = walk.kept.into_iter().flatten().collect();
    kept.sort_by_key(|power| power.0);
    Ok(kept
        .into_iter()
        .map(|(_, word, e)| Seed::power(word, e))
        .collect())
}

/// A bound on the order of a permutation of `points` points (Landau's function `g`): Massias's
/// `ln g(n) <= 1.05313 √(n ln n)` (J.-P. Massias, "Majoration explicite de l'ordre maximum d'un
/// élément du groupe symétrique", Ann. Fac. Sci. Toulouse 6 (1984)), rounded up, saturating.
fn lcm_bound(points: usize) -> u64 {
    let n = points.max(1) as f64;
    let bound = (1.05313 * (n * n.ln()).sqrt()).exp().ceil();
    if bound >= u64::MAX as f64 {
        u64::MAX
    } else {
        (bound as u64).max(1)
    }
}

/// Each part's class: the parts the generators map onto each other share one, numbered from 0
/// (union-find over the parts, joined along every generator's images of the parts' points).
fn part_classes(generators: &[Perm], position: &[Option<(u32, u32)>]) -> Vec<u32> {
    let parts = position
        .iter()
        .flatten()
        .map(|&(part, _)| part as usize + 1)
        .max()
        .unwrap_or(0);
    let mut parent: Vec<usize> = (0..parts).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for g in generators {
        for (x, at) in position.iter().enumerate() {
            if let (Some((a, _)), Some((b, _))) = (at, position[g.image(x as u32) as usize]) {
                let (a, b) = (
                    root(&mut parent, *a as usize),
                    root(&mut parent, b as usize),
                );
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut number = vec![u32::MAX; parts];
    let mut classes = 0;
    (0..parts)
        .map(|part| {
            let r = root(&mut parent, part);
            if number[r] == u32::MAX {
                number[r] = classes;
                classes += 1;
            }
            number[r]
        })
        .collect()
}

/// Each letter `g^±1` with its permutation; an involution's inverse is itself, so only `g^1`.
fn letter_steps(generators: &[Perm], orders: &GeneratorOrders) -> Vec<(u32, i64, Perm)> {
    let mut steps = Vec::new();
    for (g, p) in generators.iter().enumerate() {
        steps.push((g as u32, 1, p.clone()));
        if orders.order(g) != Some(2) {
            steps.push((g as u32, -1, p.inverse()));
        }
    }
    steps
}

/// The number of freely reduced words of 1 to `letters` letters over `steps`, or `None` beyond
/// `most`.
fn count_words(
    steps: &[(u32, i64, Perm)],
    orders: &GeneratorOrders,
    letters: usize,
    most: usize,
) -> Option<usize> {
    fn count(
        w: &Word,
        steps: &[(u32, i64, Perm)],
        orders: &GeneratorOrders,
        left: usize,
        total: &mut usize,
        most: usize,
    ) -> bool {
        for &(g, e, _) in steps {
            let mut longer = w.clone();
            longer.push(g, e, orders);
            if longer.len() != w.len() + 1 {
                continue;
            }
            *total += 1;
            if *total > most || (left > 1 && !count(&longer, steps, orders, left - 1, total, most))
            {
                return false;
            }
        }
        true
    }
    let mut total = 0;
    count(&Word::identity(), steps, orders, letters, &mut total, most).then_some(total)
}

/// The depth-first walk over the words, keeping the shortest powers found.
struct Walk<'a, F: Fn(&Perm) -> bool> {
    steps: &'a [(u32, i64, Perm)],
    orders: &'a GeneratorOrders,
    position: &'a [Option<(u32, u32)>],
    /// Each part's class ([`part_classes`]).
    class_of: Vec<u32>,
    /// A bound on the lcm of the cycles of a permutation of one part ([`lcm_bound`]).
    part_lcm_bound: u64,
    search: IsolatingSearch,
    in_kernel: &'a F,
    ctx: &'a SolveContext,
    /// Words tried so far (cancellation is checked every [`CHECK_EVERY`]).
    tried: usize,
    /// The powers kept per class of parts, as `(letters, word, exponent)`, by increasing
    /// letters.
    kept: Vec<Vec<(u64, Word, u64)>>,
    /// Letters from which a power is kept by no class (every class full with shorter ones).
    bar: u64,
    /// Scratch: each point's cycle length under the word at hand.
    length_of: Vec<u64>,
    /// Scratch: the distinct lengths of its cycles of two or more points.
    lengths: Vec<u64>,
    /// Scratch, by length: the part holding every cycle of that length, or [`MIXED`].
    owner: Vec<u32>,
}

impl<F: Fn(&Perm) -> bool> Walk<'_, F> {
    /// Tries every word `w · s` of at most `left` more letters and at least `from` letters in
    /// all, `images` being `w`'s, until `search.words` have been tried.
    fn extend(
        &mut self,
        w: &Word,
        images: &[u32],
        left: usize,
        from: u64,
    ) -> Result<(), SolveError> {
        for (g, e, step) in self.steps {
            if self.tried >= self.search.words {
                break;
            }
            let mut longer = w.clone();
            longer.push(*g, *e, self.orders);
            if longer.len() != w.len() + 1 {
                continue;
            }
            let next: Vec<u32> = images.iter().map(|&y| step.image(y)).collect();
            if longer.len() >= from {
                self.tried += 1;
                if self.tried.is_multiple_of(CHECK_EVERY) {
                    self.ctx.check()?;
                }
                self.try_powers(&longer, &next);
            }
            if left > 1 {
                self.extend(&longer, &next, left - 1, from)?;
            }
        }
        Ok(())
    }

    /// Keeps the powers of `t` (with `images`) that move one part only.
    fn try_powers(&mut self, t: &Word, images: &[u32]) {
        // A power moving part `B` has `e_B >= order / lcm(B's cycles)`: words of a larger order
        // have none short enough.
        let most_order = (self.search.power_letters / t.len())
            .saturating_add(1)
            .saturating_mul(self.part_lcm_bound);
        if self.cycle_lengths(images, most_order).is_none() {
            return;
        }
        // The part holding every cycle of a length, if one does (`owner`, by length).
        for &l in &self.lengths {
            self.owner[l as usize] = UNSEEN;
        }
        for (x, &l) in self.length_of.iter().enumerate() {
            if l > 1 {
                let part = self.position[x].map_or(MIXED, |(part, _)| part);
                let owner = &mut self.owner[l as usize];
                *owner = if *owner == UNSEEN || *owner == part {
                    part
                } else {
                    MIXED
                };
            }
        }
        let mut parts: Vec<u32> = self
            .lengths
            .iter()
            .map(|&l| self.owner[l as usize])
            .filter(|&owner| owner != MIXED)
            .collect();
        parts.sort_unstable();
        parts.dedup();
        for part in parts {
            // The smallest exponent that fixes every cycle outside the part: the lcm of the
            // lengths it does not own (at most the order: no overflow).
            let e = self
                .lengths
                .iter()
                .filter(|&&l| self.owner[l as usize] != part)
                .fold(1, |e, &l| e / gcd(e, l) * l);
            let moves_part = self
                .lengths
                .iter()
                .any(|&l| self.owner[l as usize] == part && !e.is_multiple_of(l));
            let letters = e.saturating_mul(t.len());
            if !moves_part
                || letters > self.search.power_letters
                || self.search.most == 0
                || letters >= self.bar
            {
                continue;
            }
            let kept = &mut self.kept[self.class_of[part as usize] as usize];
            if kept.len() == self.search.most && kept.last().is_some_and(|l| l.0 <= letters) {
                continue;
            }
            let power = Perm::from_images_unchecked(images.into()).pow(e as i64);
            if (self.in_kernel)(&power) {
                let at = kept.partition_point(|kept| kept.0 <= letters);
                kept.insert(at, (letters, t.clone(), e));
                kept.truncate(self.search.most);
                let most = self.search.most;
                self.bar = self.kept.iter().fold(0, |bar, kept| {
                    let full = kept.len() == most;
                    bar.max(if full { kept[most - 1].0 } else { u64::MAX })
                });
            }
        }
    }

    /// Fills `length_of` with each point's cycle length under `images` and `lengths` with the
    /// distinct ones; returns the order (the lcm of the lengths), `None` for the identity or
    /// as soon as the order passes `most_order` (then `length_of` is left incomplete).
    fn cycle_lengths(&mut self, images: &[u32], most_order: u64) -> Option<u64> {
        self.length_of.iter_mut().for_each(|l| *l = 0);
        self.lengths.clear();
        let mut order = 1u64;
        for start in 0..images.len() {
            if self.length_of[start] != 0 {
                continue;
            }
            let mut len = 1u64;
            let mut x = images[start] as usize;
            while x != start {
                len += 1;
                x = images[x] as usize;
            }
            let mut x = start;
            loop {
                self.length_of[x] = len;
                x = images[x] as usize;
                if x == start {
                    break;
                }
            }
            if len > 1 && !self.lengths.contains(&len) {
                self.lengths.push(len);
            }
            order = (order / gcd(order, len)).checked_mul(len)?;
            if order > most_order {
                return None;
            }
        }
        (order > 1).then_some(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detached() -> SolveContext {
        SolveContext::detached()
    }

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).unwrap()
    }

    /// Asserts that `seed` is the permutation of `cycles` (1-based) and that its word multiplies
    /// out to it.
    fn assert_seed_is(seed: &Seed, gens: &[Perm], orders: &GeneratorOrders, cycles: &str) {
        let d = gens[0].degree();
        let (x, w) = seed.element(gens, orders);
        assert_eq!(x, perm(cycles, d));
        assert_eq!(w.evaluate(gens, d), x);
    }

    /// `Sym(2) wr Sym(3)`'s blocks `{0,1} {2,3} {4,5}`.
    fn blocks_of_two() -> Vec<Option<(u32, u32)>> {
        (0..6u32).map(|x| Some((x / 2, x % 2))).collect()
    }

    fn search(power_letters: u64, most: usize) -> IsolatingSearch {
        IsolatingSearch {
            word_letters: 1,
            words: 100,
            power_letters,
            most,
        }
    }

    #[test]
    fn a_power_moves_the_cycles_whose_length_it_does_not_divide() {
        // 1-based cycles: (1,2)(3,4,5) is (0,1)(2,3,4); its cube (0,1) moves block 0 only, and
        // so does its inverse's. (0,2)(1,3) moves two blocks whatever the power.
        let gens = [perm("(1,2)(3,4,5)", 6), perm("(1,3)(2,4)", 6)];
        let orders = GeneratorOrders::of(&gens);
        let seeds = isolated_power_seeds(
            &gens,
            &orders,
            &blocks_of_two(),
            search(100, 8),
            &detached(),
            |_| true,
        )
        .unwrap();
        assert_eq!(seeds.len(), 2);
        for seed in &seeds {
            assert_eq!(seed.letters(), 3);
            assert_seed_is(seed, &gens, &orders, "(1,2)");
        }
    }

    #[test]
    fn powers_beyond_the_letters_or_outside_the_kernel_are_left_out() {
        let gens = [perm("(1,2)(3,4,5)", 6)];
        let orders = GeneratorOrders::of(&gens);
        let position = blocks_of_two();
        let seeds = |search, in_kernel: fn(&Perm) -> bool| {
            isolated_power_seeds(&gens, &orders, &position, search, &detached(), in_kernel)
                .unwrap()
                .len()
        };
        assert_eq!(seeds(search(100, 8), |_| true), 2);
        assert_eq!(seeds(search(2, 8), |_| true), 0);
        assert_eq!(seeds(search(100, 8), |_| false), 0);
        assert_eq!(seeds(search(100, 1), |_| true), 1);
        assert_eq!(seeds(search(100, 0), |_| true), 0);
    }

    #[test]
    fn each_part_gets_the_power_fixing_every_cycle_it_does_not_hold() {
        // Parts {0,1,2,3,4,5,6} {7,8}; (0,1,2,3)(4,5,6)(7,8) (1-based below). The first part holds
        // the lengths 4 and 3, so the square (lcm of the other length, 2) moves it alone,
        // though no power `L/q` of the order 12 is that short (`L/2` is 6, `L/3` is 4); the
        // second part's power `t^12` is the identity, so it gets none.
        let gens = [perm("(1,2,3,4)(5,6,7)(8,9)", 9)];
        let orders = GeneratorOrders::of(&gens);
        let position: Vec<Option<(u32, u32)>> = (0..9u32)
            .map(|x| Some(if x < 7 { (0, x) } else { (1, x - 7) }))
            .collect();
        let seeds = isolated_power_seeds(
            &gens,
            &orders,
            &position,
            search(100, 1),
            &detached(),
            |_| true,
        )
        .unwrap();
        assert_eq!(seeds.len(), 1);
        assert_eq!(seeds[0].letters(), 2);
        assert_seed_is(&seeds[0], &gens, &orders, "(1,3)(2,4)(5,7,6)");
    }

    #[test]
    fn every_class_of_parts_keeps_its_own_shortest_powers() {
        // (1,2)(3,4,5)(6,7,8,9,10) maps each of the parts {0,1} {2,3,4} {5,...,9} onto itself,
        // so each is a class of its own: with one power kept per class, each part gets its
        // power (of 15, 10 and 6 letters), not only the shortest overall.
        let gens = [perm("(1,2)(3,4,5)(6,7,8,9,10)", 10)];
        let orders = GeneratorOrders::of(&gens);
        let position: Vec<Option<(u32, u32)>> = (0..10u32)
            .map(|x| {
                Some(match x {
                    0..2 => (0, x),
                    2..5 => (1, x - 2),
                    _ => (2, x - 5),
                })
            })
            .collect();
        assert_eq!(part_classes(&gens, &position), vec![0, 1, 2]);
        let seeds = isolated_power_seeds(
            &gens,
            &orders,
            &position,
            search(100, 1),
            &detached(),
            |_| true,
        )
        .unwrap();
        assert_eq!(
            seeds.iter().map(Seed::letters).collect::<Vec<_>>(),
            vec![6, 10, 15]
        );
        let mut moved_parts: Vec<u32> = seeds
            .iter()
            .map(|seed| {
                let (x, w) = seed.element(&gens, &orders);
                assert_eq!(w.evaluate(&gens, 10), x);
                let moved: Vec<u32> = (0..10).filter(|&p| x.image(p) != p).collect();
                let part = position[moved[0] as usize].unwrap().0;
                assert!(
                    moved
                        .iter()
                        .all(|&p| position[p as usize].unwrap().0 == part)
                );
                part
            })
            .collect();
        moved_parts.sort_unstable();
        assert_eq!(moved_parts, vec![0, 1, 2]);
        // A generator swapping the first two parts' points joins them into one class.
        let swap = perm("(1,3)(2,4)", 10);
        assert_eq!(
            part_classes(&[gens[0].clone(), swap], &position),
            vec![0, 0, 1]
        );
    }

    #[test]
    fn words_of_one_letter_more_are_tried_up_to_the_count() {
        // a = (0,1)(2,3)(5,6) and b = (2,3)(5,6) over the parts {0,1} {2,3,4} {5,6,7}: neither
        // has a power moving one part (their 2-cycles lie in three parts and two), but
        // a·b = (0,1) does. Their orders unknown, there are 4 words of one letter (a, a⁻¹, b,
        // b⁻¹) and 12 of two; the walk's two-letter words start a·a (the identity), a·b.
        let gens = [perm("(1,2)(3,4)(6,7)", 8), perm("(3,4)(6,7)", 8)];
        let unknown = GeneratorOrders::unknown();
        let position: Vec<Option<(u32, u32)>> = (0..8u32)
            .map(|x| {
                Some(match x {
                    0..2 => (0, x),
                    2..5 => (1, x - 2),
                    _ => (2, x - 5),
                })
            })
            .collect();
        let seeds = |words: usize| {
            let search = IsolatingSearch {
                word_letters: 2,
                words,
                power_letters: 100,
                most: 16,
            };
            isolated_power_seeds(&gens, &unknown, &position, search, &detached(), |_| true).unwrap()
        };
        assert!(seeds(4).is_empty());
        assert!(seeds(5).is_empty());
        let found = seeds(6);
        assert_eq!(found.len(), 1);
        assert_seed_is(&found[0], &gens, &unknown, "(1,2)");
        assert!(seeds(16).len() > 1);
    }

    #[test]
    fn every_reduced_word_up_to_the_letters_is_counted() {
        // Two generators of unknown order: 4 words of one letter, 12 of two, 36 of three.
        let gens = [perm("(1,2,3,4,5)", 6), perm("(1,6)(2,3)", 6)];
        let unknown = GeneratorOrders::unknown();
        let steps = letter_steps(&gens, &unknown);
        assert_eq!(count_words(&steps, &unknown, 3, 100), Some(52));
        assert_eq!(count_words(&steps, &unknown, 3, 51), None);
        // With their orders 5 and 2: g1^-1 is g1, so three words of one letter, each extended
        // by two letters (g0 by g0 and g1, g0^-1 by g0^-1 and g1, g1 by g0 and g0^-1); three
        // letters: g0^3 is g0^-2, so g0^2 extends by g1 only, as g0^-2 does.
        let known = GeneratorOrders::of(&gens);
        let steps = letter_steps(&gens, &known);
        assert_eq!(count_words(&steps, &known, 2, 100), Some(3 + 6));
        assert_eq!(count_words(&steps, &known, 3, 100), Some(3 + 6 + 10));
    }

    #[test]
    fn the_shortest_power_moving_one_part_is_found_as_brute_force_finds_it() {
        use rand::{Rng, SeedableRng, seq::SliceRandom};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3301);
        // Parts {0,1,2} {3,4,5} {6,7,8}; words of up to four letters; powers of at most 400.
        let position: Vec<Option<(u32, u32)>> = (0..9u32).map(|x| Some((x / 3, x % 3))).collect();
        let mut found = 0;
        for _ in 0..60 {
            let gens: Vec<Perm> = (0..rng.random_range(1..=2))
                .map(|_| {
                    let mut images: Vec<u32> = (0..9).collect();
                    images.shuffle(&mut rng);
                    Perm::from_images(images, "random").unwrap()
                })
                .collect();
            let search = IsolatingSearch {
                word_letters: 4,
                words: 10_000,
                power_letters: 400,
                most: 1,
            };
            let unknown = GeneratorOrders::unknown();
            let seeds =
                isolated_power_seeds(&gens, &unknown, &position, search, &detached(), |_| true)
                    .unwrap();
            // Brute force: every sequence of letters g^±1 with no letter beside its inverse,
            // multiplied out, each power taken by repeated products.
            let mut best: Option<u64> = None;
            let mut sequences: Vec<(Vec<(usize, bool)>, Perm)> = vec![(vec![], Perm::identity(9))];
            for _ in 0..4 {
                let mut longer = Vec::new();
                for (letters, x) in &sequences {
                    for (g, generator) in gens.iter().enumerate() {
                        for inverse in [false, true] {
                            if letters.last() == Some(&(g, !inverse)) {
                                continue;
                            }
                            let step = if inverse {
                                generator.inverse()
                            } else {
                                generator.clone()
                            };
                            let mut more = letters.clone();
                            more.push((g, inverse));
                            longer.push((more, x.compose(&step)));
                        }
                    }
                }
                for (letters, x) in &longer {
                    let mut powers = vec![Perm::identity(9)];
                    while powers.len() == 1 || !powers.last().unwrap().is_identity() {
                        let next = powers.last().unwrap().compose(x);
                        powers.push(next);
                    }
                    // Every power short of the order, not only the kinds the search makes.
                    for (e, y) in powers.iter().enumerate().skip(1) {
                        let moved: Vec<u32> = (0..9).filter(|&p| y.image(p) != p).collect();
                        let letters = e as u64 * letters.len() as u64;
                        if !moved.is_empty()
                            && letters <= 400
                            && moved.iter().all(|&p| p / 3 == moved[0] / 3)
                        {
                            best = Some(best.map_or(letters, |b| b.min(letters)));
                        }
                    }
                }
                sequences = longer;
            }
            assert_eq!(seeds.first().map(Seed::letters), best, "{gens:?}");
            if let Some(seed) = seeds.first() {
                found += 1;
                let (x, w) = seed.element(&gens, &unknown);
                assert_eq!(w.evaluate(&gens, 9), x);
                let moved: Vec<u32> = (0..9).filter(|&p| x.image(p) != p).collect();
                assert!(!moved.is_empty() && moved.iter().all(|&p| p / 3 == moved[0] / 3));
            }
        }
        assert!(found > 10, "only {found} of 60 had such a power");
    }

    #[test]
    fn a_cancelled_search_stops() {
        let gens = [perm("(1,2,3,4,5,6,7)", 7), perm("(1,2)", 7)];
        let orders = GeneratorOrders::of(&gens);
        let position: Vec<Option<(u32, u32)>> = (0..7).map(|x| Some((0, x))).collect();
        let flag = crate::context::CancelFlag::new();
        flag.cancel();
        let ctx = SolveContext::new(flag, None);
        let search = IsolatingSearch {
            word_letters: 8,
            words: 10_000,
            power_letters: 1000,
            most: 4,
        };
        let result = isolated_power_seeds(&gens, &orders, &position, search, &ctx, |_| true);
        assert!(matches!(result, Err(SolveError::Cancelled)), "{result:?}");
    }
}
