//! The base element of the giants' words ([`super::giant`]): a short word for a 3-cycle of a
//! group that contains the alternating group of an orbit, found by random walks.
//!
//! Every prefix `w` of a random walk (a permutation `t` with cycle lengths `ℓ_i`, `L` their lcm)
//! offers powers with few moved points: for a prime `p` whose highest power in `L` is `p^a`,
//! `t^{L/p}` is the identity on every cycle whose length `p^a` does not divide and a product of
//! `p`-cycles on the others, so it moves only the points of the cycles whose length `p^a`
//! divides; `t^{L/(p·p')}` likewise for two primes. Such a power `x = w^K` with `s` moved points
//! becomes the base element in one of two ways:
//!
//! 1. **Jordan's power.** When `x` is a 3-cycle (`t` had one 3-cycle and every other cycle
//!    length prime to 3), `x` itself, `K·|w|` letters.
//! 2. **A commutator.** When `s <= 2√m`, a short word `g` (also from random walks) whose
//!    permutation moves the support of `x` onto a set meeting it in exactly one point makes
//!    `[x, x^g] = x⁻¹·g⁻¹x⁻¹g·x·g⁻¹xg` a 3-cycle: two permutations whose supports meet in one
//!    point have a 3-cycle as their commutator. That costs `4·K·|w| + 4·|g|` letters, but `K`
//!    no longer has to kill the cycles of `p` (or of `p` and `p'`): for a random `t` of degree
//!    1,000 its lcm is dominated by a few primes with short cycles, so this `K` is often smaller
//!    by far more than 4.
//!
//! **Free parts.** For one orbit of a product of giants ([`super::giant_product`]) the base
//! element may act on the orbits written after it as any permutation even on each (they then
//! write what it did): `K` then only kills the cycles on the other points, as for a giant of
//! the orbit's own degree, and only those points count as moved. The free parts may also be
//! the blocks of later orbits (their alternating groups written after it): then the element must
//! map each block onto itself, so `K` also kills the cycles of the walk's permutation of them.
//!
//! **Two sides.** A 3-cycle that must fix two or more other orbits costs a power killing the
//! cycles of all of them; the commutator of two 3-cycles, each fixing one side of those orbits
//! and free on the other, fixes both sides and is often shorter ([`commutator_of_sides`]; the
//! caller keeps the shorter).
//!
//! The walks are drawn until a base element is found and then for a while longer
//! (`effort`-scaled), keeping the one with the fewest letters after free reduction. Every
//! candidate is computed and checked (moved points exactly three, in the wanted orbit), so the
//! element is certain: random only in time (Las Vegas).
//!
//! # Complexity
//! `O(S · m)` for `S` walk steps (a few thousand per point), plus the powers and commutators of
//! the candidates that would improve on the best (`O(m log K)` each, and `O(W · m)` for `W`
//! walks looking for `g`).
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §10.2 (Jordan elements as powers of random
//! elements); L. Babai, R. Beals, Á. Seress, "On the diameter of the symmetric group:
//! polynomial bounds", *SODA 2004* (3-cycles as commutators of elements whose supports meet in
//! one point).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::giant::Edge;
use super::group_words::WordEffort;
use super::word::{GeneratorOrders, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::{commutator, cycle_lengths_into, cycle_lengths_of_unseen};
use crate::group::small_support_powers::{
    commutator_with_conjugate, conjugate, moved, power, small_support_powers,
};

/// Random words drawn after the first base element is found, to find a shorter one, per moved
/// point and unit of [`WordEffort`] (plus one): a candidate turns up about once in `3m` words.
const SEARCH_PER_POINT_AND_EFFORT: usize = 8;
/// Random walks tried for the conjugator `g` of a commutator.
const CONJUGATOR_WALKS: usize = 48;

/// A 3-cycle's points in cycle order (`p → q → r → p`), its word, and its permutation of the
/// walker's points (a 3-cycle there but for [`Role::Free`] points).
pub(super) struct ThreeCycle {
    pub(super) points: [u32; 3],
    pub(super) word: Word,
    pub(super) perm: Vec<u32>,
}

/// What the base element does on one of the walker's points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// Its 3-cycle lies in these points (one orbit).
    Cycle,
    /// It fixes the point.
    Fixed,
    /// It may move the point, within its free part (an orbit or a block, numbered from 0;
    /// mapped onto itself) and by a permutation even on that part.
    Free(u32),
}

/// Finds a short word for a 3-cycle (see the module documentation).
///
/// # Arguments
/// `walker` walks on the group's generators; `roles`, when given, says for each of its points
/// whether the 3-cycle lies there, is to fix it or may move it (the group must contain the
/// alternating group of the [`Role::Cycle`] points fixing the [`Role::Fixed`] ones, else the
/// search does not end: it is cancellable); without, the 3-cycle may lie anywhere. `charge` is
/// called with the chosen element's letters before its word is written out (a power of a long
/// word can have billions), and its error returned.
///
/// # Errors
/// [`SolveError::Cancelled`]; `charge`'s error.
pub(super) fn short_three_cycle(
    walker: &Walker,
    roles: Option<&[Role]>,
    effort: WordEffort,
    rng: &mut ChaCha8Rng,
    ctx: &SolveContext,
    charge: &dyn Fn(u128) -> Result<(), SolveError>,
) -> Result<ThreeCycle, SolveError> {
    let m = walker.m;
    let search_after_first = SEARCH_PER_POINT_AND_EFFORT * m.max(64) * (effort.0 as usize + 1);
    let max_support = ((4 * m) as f64).sqrt() as usize;
    // The best candidate so far; its word is built once, at the end.
    let mut best: Option<Candidate> = None;
    let mut since_first = 0usize;
    let mut walk_len = 2 * (usize::BITS - m.leading_zeros()) as usize + 4;
    let mut drawn = 0usize;
    // The free points are left out of the cycle lengths: `K` need not kill their cycles, only
    // those of the walk's permutation of the free parts.
    let free: Vec<bool> = (0..m)
        .map(|x| roles.is_some_and(|r| matches!(r[x], Role::Free(_))))
        .collect();
    let parts = roles.map_or(FreeParts::default(), FreeParts::of);
    let (mut part_lengths, mut part_scratch) = (Vec::new(), (Vec::new(), Vec::new()));
    let mut seen = vec![false; m];
    let mut lengths: Vec<usize> = Vec::new();
    while best.is_none() || since_first < search_after_first {
        drawn += 1;
        if drawn.is_multiple_of(64) {
            ctx.check()?;
        }
        if best.is_none() && drawn.is_multiple_of(4 * m) {
            walk_len += walk_len / 2;
        }
        let mut walk = walker.start();
        for _ in 0..walk_len {
            walker.step(&mut walk, rng);
            if best.is_some() {
                since_first += 1;
            }
            seen.copy_from_slice(&free);
            cycle_lengths_of_unseen(&walk.perm, &mut seen, &mut lengths);
            parts.cycle_lengths_into(&walk.perm, &mut part_scratch, &mut part_lengths);
            lengths.extend_from_slice(&part_lengths);
            for (k, support) in small_support_powers(&lengths, max_support) {
                // The fewest letters this candidate can cost.
                let factor = if support == 3 { 1 } else { 4 };
                let bound = (k as u128) * (walk.word.len() as u128) * factor;
                if best.as_ref().is_some_and(|b| bound >= b.letters) {
                    continue;
                }
                if let Some(found) = walker.candidate(&walk, k, max_support, roles, rng)
                    && best.as_ref().is_none_or(|b| found.letters < b.letters)
                {
                    best = Some(found);
                }
            }
        }
    }
    let best = best.expect("the loop ends with a base element");
    charge(best.letters)?;
    Ok(walker.three_cycle(best))
}

/// A base element found but not yet written out: `x = w^k`, itself a 3-cycle (`g` is `None`)
/// or the 3-cycle `[x, x^g]`, and its permutation.
struct Candidate {
    points: [u32; 3],
    perm: Vec<u32>,
    w: Word,
    k: u64,
    g: Option<Word>,
    /// Its letters before free reduction.
    letters: u128,
}

/// A walk's position: the permutation of its word (images of `0..m`) and the word.
struct Walk {
    perm: Vec<u32>,
    word: Word,
    /// The last step (generator, inverse), so that the next does not undo it.
    last: Option<(usize, bool)>,
}

/// Random walks on the generators' Cayley graph: `generators` act on the points `0..m` (every
/// moved point of the group, so that a power known to fix a point fixes it in the group).
pub(super) struct Walker<'a> {
    pub(super) generators: &'a [Edge],
    pub(super) orders: &'a GeneratorOrders,
    pub(super) m: usize,
}

impl Walker<'_> {
    fn start(&self) -> Walk {
        Walk {
            perm: (0..self.m as u32).collect(),
            word: Word::identity(),
            last: None,
        }
    }

    /// One random step (a generator or its inverse, not undoing the last step).
    fn step(&self, walk: &mut Walk, rng: &mut ChaCha8Rng) {
        let (g, inverse) = loop {
            let g = rng.random_range(0..self.generators.len());
            let inverse = rng.random_bool(0.5);
            if walk.last != Some((g, !inverse)) {
                break (g, inverse);
            }
        };
        walk.last = Some((g, inverse));
        let e = &self.generators[g];
        let step = if inverse { &e.inv } else { &e.perm };
        walk.perm.iter_mut().for_each(|x| *x = step[*x as usize]);
        if inverse {
            walk.word.append_inverse(&e.word, self.orders);
        } else {
            walk.word.append(&e.word, self.orders);
        }
    }

    /// The base element from `walk^k`: the power itself when it is a 3-cycle (on the points not
    /// free; mapping each free part onto itself, even on it), else the commutator with a
    /// conjugate by a short word when its support allows; `None` when neither gives a 3-cycle
    /// in the wanted orbit. Both are computed and checked here.
    fn candidate(
        &self,
        walk: &Walk,
        k: u64,
        max_support: usize,
        roles: Option<&[Role]>,
        rng: &mut ChaCha8Rng,
    ) -> Option<Candidate> {
        let role = |p: u32| roles.map_or(Role::Cycle, |r| r[p as usize]);
        let bound = |t: &[u32]| -> Vec<u32> {
            let mut support = moved(t);
            support.retain(|&p| !matches!(role(p), Role::Free(_)));
            support
        };
        let wanted = |p: u32| role(p) == Role::Cycle;
        let x = power(&walk.perm, k);
        let support = bound(&x);
        let power_letters = k as u128 * walk.word.len() as u128;
        if support.len() == 3 {
            let points = cycle_order(&x, support[0]);
            let free_ok = roles.is_none_or(|r| even_on_free_parts(&x, r));
            return (wanted(points[0]) && free_ok).then(|| Candidate {
                points,
                perm: x,
                w: walk.word.clone(),
                k,
                g: None,
                letters: power_letters,
            });
        }
        if support.len() < 2 || support.len() > max_support {
            return None;
        }
        let g = self.one_point_conjugator(&support, &support, wanted, rng)?;
        let c = commutator_with_conjugate(&x, &g.perm);
        let c_support = bound(&c);
        let free_ok = roles.is_none_or(|r| even_on_free_parts(&c, r));
        if c_support.len() != 3 || !wanted(c_support[0]) || !free_ok {
            return None;
        }
        Some(Candidate {
            points: cycle_order(&c, c_support[0]),
            perm: c,
            w: walk.word.clone(),
            k,
            letters: 4 * power_letters + 4 * g.word.len() as u128,
            g: Some(g.word),
        })
    }

    /// The word of a candidate.
    fn three_cycle(&self, found: Candidate) -> ThreeCycle {
        let mut x = Word::identity();
        x.append_power(&found.w, found.k as i64, self.orders);
        let Some(g) = found.g else {
            return ThreeCycle {
                points: found.points,
                word: x,
                perm: found.perm,
            };
        };
        // [x, x^g], as `commutator_with_conjugate` multiplies.
        let mut x_g = Word::identity();
        x_g.append_conjugate(&x, &g, self.orders);
        let mut word = Word::identity();
        word.append_commutator(&x, &x_g, self.orders);
        ThreeCycle {
            points: found.points,
            word,
            perm: found.perm,
        }
    }

    /// The shortest walk prefix found (over a few walks) that maps `support` onto a set meeting
    /// `onto` in exactly one point, a wanted one.
    fn one_point_conjugator(
        &self,
        support: &[u32],
        onto: &[u32],
        wanted: impl Fn(u32) -> bool,
        rng: &mut ChaCha8Rng,
    ) -> Option<Walk> {
        let mut inside = vec![false; self.m];
        onto.iter().for_each(|&p| inside[p as usize] = true);
        let max_len = 2 * (usize::BITS - self.m.leading_zeros()) as usize + 4;
        let mut best: Option<Walk> = None;
        for _ in 0..CONJUGATOR_WALKS {
            let mut walk = self.start();
            for _ in 0..max_len {
                if best
                    .as_ref()
                    .is_some_and(|b| walk.word.len() >= b.word.len())
                {
                    break;
                }
                self.step(&mut walk, rng);
                let mut meets = support
                    .iter()
                    .map(|&p| walk.perm[p as usize])
                    .filter(|&q| inside[q as usize]);
                if let (Some(q), None) = (meets.next(), meets.next())
                    && wanted(q)
                {
                    best = Some(Walk {
                        perm: walk.perm.clone(),
                        word: walk.word.clone(),
                        last: None,
                    });
                    break;
                }
            }
        }
        best
    }
}

/// A 3-cycle fixing every other point, from two 3-cycles `x` and `y` on the same points (of
/// the walker's), each fixing one side of the other points and free on the other side (see
/// [`Role::Free`]): for a short word `g` mapping `y`'s 3-cycle onto points meeting `x`'s in
/// exactly one, `[x, y^g]` is a 3-cycle (two permutations whose supports meet in one point),
/// the identity on `x`'s fixed side (there `x` is) and on `y`'s (there `y^g` is: conjugation
/// maps each orbit onto itself). It costs `2|x| + 2|y| + 4|g|` letters where one power fixing
/// both sides must kill the cycles of both: on three orbits often several times that. `None`
/// when the walks find no `g`.
///
/// Complexity: `O(W · m)` for the walks looking for `g`, `O(m)` for the commutator.
pub(super) fn commutator_of_sides(
    walker: &Walker,
    x: &ThreeCycle,
    y: &ThreeCycle,
    rng: &mut ChaCha8Rng,
) -> Option<ThreeCycle> {
    let in_x = |p: u32| x.points.contains(&p);
    let g = walker.one_point_conjugator(&y.points, &x.points, in_x, rng)?;
    let perm = commutator(&x.perm, &conjugate(&y.perm, &g.perm));
    let support = moved(&perm);
    if support.len() != 3 {
        return None;
    }
    let orders = walker.orders;
    let mut y_g = Word::identity();
    y_g.append_conjugate(&y.word, &g.word, orders);
    let mut word = Word::identity();
    word.append_commutator(&x.word, &y_g, orders);
    Some(ThreeCycle {
        points: cycle_order(&perm, support[0]),
        word,
        perm,
    })
}

/// The free parts of [`Role::Free`]: one point of each, to follow the walk's permutation of
/// them.
#[derive(Default)]
struct FreeParts {
    /// `Role::Free(j)` of every point (`u32::MAX` for the others), and one point of part `j`.
    part_of: Vec<u32>,
    representative: Vec<u32>,
}

impl FreeParts {
    fn of(roles: &[Role]) -> FreeParts {
        let mut representative: Vec<u32> = Vec::new();
        let part_of = roles
            .iter()
            .enumerate()
            .map(|(x, role)| match *role {
                Role::Free(j) => {
                    if representative.len() <= j as usize {
                        representative.resize(j as usize + 1, u32::MAX);
                    }
                    if representative[j as usize] == u32::MAX {
                        representative[j as usize] = x as u32;
                    }
                    j
                }
                _ => u32::MAX,
            })
            .collect();
        FreeParts {
            part_of,
            representative,
        }
    }

    /// The cycle lengths of `t`'s permutation of the free parts (the walk's permutation maps
    /// parts onto parts: orbits, or the blocks of a block system), into `out`. (A part mapped
    /// elsewhere counts as fixed here; the candidates' check rejects such elements.)
    /// `scratch` is reused from call to call (the walk's hot loop allocates nothing).
    fn cycle_lengths_into(
        &self,
        t: &[u32],
        scratch: &mut (Vec<u32>, Vec<bool>),
        out: &mut Vec<usize>,
    ) {
        let (images, seen) = scratch;
        images.clear();
        images.extend((0..self.representative.len() as u32).map(|j| {
            let x = self.representative[j as usize];
            let image = t
                .get(x as usize)
                .map_or(u32::MAX, |&y| self.part_of[y as usize]);
            if image == u32::MAX { j } else { image }
        }));
        seen.resize(images.len(), false);
        cycle_lengths_into(images, seen, out);
    }
}

/// Whether `t` maps each free part of `roles` onto itself and is even on it (a cycle of length
/// `ℓ` is `ℓ - 1` transpositions).
fn even_on_free_parts(t: &[u32], roles: &[Role]) -> bool {
    let mut odd: Vec<bool> = Vec::new();
    let mut seen = vec![false; t.len()];
    for start in 0..t.len() {
        let Role::Free(part) = roles[start] else {
            continue;
        };
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut x = start;
        while !seen[x] {
            if roles[x] != Role::Free(part) {
                return false;
            }
            seen[x] = true;
            len += 1;
            x = t[x] as usize;
        }
        let part = part as usize;
        if odd.len() <= part {
            odd.resize(part + 1, false);
        }
        odd[part] ^= len % 2 == 0;
    }
    !odd.contains(&true)
}

/// `[p, p^t, p^{t²}]`.
fn cycle_order(t: &[u32], p: u32) -> [u32; 3] {
    let q = t[p as usize];
    [p, q, t[q as usize]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group::Perm;
    use crate::group::perm::invert;
    use rand::SeedableRng;
    use rand::seq::SliceRandom;

    /// Two random permutations of `sizes` consecutive orbits (points `0..Σ sizes`).
    fn random_product_pair(sizes: &[usize], rng: &mut ChaCha8Rng) -> Vec<Perm> {
        let n: usize = sizes.iter().sum();
        (0..2)
            .map(|_| {
                let mut images: Vec<u32> = (0..n as u32).collect();
                let mut start = 0;
                for &len in sizes {
                    for i in (1..len).rev() {
                        images.swap(start + i, start + rng.random_range(0..=i));
                    }
                    start += len;
                }
                Perm::from_images(images, "random").unwrap()
            })
            .collect()
    }

    fn edges(generators: &[Perm], orders: &GeneratorOrders) -> Vec<Edge> {
        generators
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let perm: Box<[u32]> = g.images().into();
                Edge {
                    inv: invert(&perm),
                    perm,
                    word: Word::letter(i as u32, 1, orders),
                }
            })
            .collect()
    }

    /// `word` multiplies out to the 3-cycle `points` of `0..n`.
    fn assert_three_cycle(word: &Word, points: [u32; 3], generators: &[Perm], n: usize) {
        assert_eq!(
            word.evaluate(generators, n).images(),
            &three_cycle_images(points, n)[..]
        );
    }

    /// The images of the 3-cycle `points` of `0..n`.
    fn three_cycle_images([p, q, r]: [u32; 3], n: usize) -> Vec<u32> {
        let mut images: Vec<u32> = (0..n as u32).collect();
        (images[p as usize], images[q as usize], images[r as usize]) = (q, r, p);
        images
    }

    /// The base element of `sizes` consecutive orbits of two random elements with these
    /// `roles`.
    fn found_for(sizes: &[usize], roles: &[Role], seed: u64) -> (ThreeCycle, Vec<Perm>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let generators = random_product_pair(sizes, &mut rng);
        let orders = GeneratorOrders::of(&generators);
        let edges = edges(&generators, &orders);
        let walker = Walker {
            generators: &edges,
            orders: &orders,
            m: roles.len(),
        };
        let found = short_three_cycle(
            &walker,
            Some(roles),
            WordEffort(1),
            &mut rng,
            &SolveContext::detached(),
            &|_| Ok(()),
        )
        .unwrap();
        (found, generators)
    }

    /// The word found multiplies out to the 3-cycle announced, in the orbit asked for and the
    /// identity elsewhere.
    #[test]
    fn base_elements_multiply_out_to_their_three_cycles() {
        for seed in 0..12u64 {
            let sizes: &[usize] = if seed % 2 == 0 { &[40] } else { &[30, 25] };
            let n: usize = sizes.iter().sum();
            // The product's second orbit (points 30..55), or the whole of Sym(40).
            let roles: Vec<Role> = (0..n)
                .map(|x| match sizes.len() == 1 || x >= 30 {
                    true => Role::Cycle,
                    false => Role::Fixed,
                })
                .collect();
            let (found, generators) = found_for(sizes, &roles, seed);
            assert_three_cycle(&found.word, found.points, &generators, n);
            assert_eq!(found.perm, three_cycle_images(found.points, n));
            assert!(
                found
                    .points
                    .iter()
                    .all(|&x| roles[x as usize] == Role::Cycle)
            );
        }
    }

    /// With a free orbit: the word multiplies out to the permutation announced, a 3-cycle on
    /// the orbit asked for, the identity on the fixed one and even on the free one (counted by
    /// its inversions).
    #[test]
    fn base_elements_with_a_free_orbit_are_even_there() {
        let sizes = [30, 25, 20];
        let n = 75;
        let roles: Vec<Role> = (0..n)
            .map(|x| match x {
                0..30 => Role::Fixed,
                30..55 => Role::Cycle,
                _ => Role::Free(0),
            })
            .collect();
        for seed in 0..8u64 {
            let (found, generators) = found_for(&sizes, &roles, seed);
            let product = found.word.evaluate(&generators, n);
            assert_eq!(product.images(), &found.perm[..]);
            let cycle = three_cycle_images(found.points, n);
            assert_eq!(&found.perm[..55], &cycle[..55]);
            assert!(found.points.iter().all(|&x| (30..55).contains(&x)));
            let free = &found.perm[55..];
            let inversions = (0..free.len())
                .flat_map(|i| (i + 1..free.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| free[i] > free[j])
                .count();
            assert_eq!(inversions % 2, 0, "seed {seed}: odd on the free orbit");
        }
    }

    /// With free blocks (the blocks of five points of a `Sym(5) wr Sym(4)` orbit beside a
    /// `Sym(30)` one, two random elements of the product): the word multiplies out to the
    /// permutation announced, a 3-cycle on the first orbit that maps each block onto itself and
    /// is even on each.
    #[test]
    fn base_elements_with_free_blocks_keep_them() {
        let n = 50;
        let roles: Vec<Role> = (0..n)
            .map(|x| match x {
                0..30 => Role::Cycle,
                _ => Role::Free(((x - 30) / 5) as u32),
            })
            .collect();
        for seed in 0..8u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let generators: Vec<Perm> = (0..2)
                .map(|_| {
                    let mut images: Vec<u32> = (0..n as u32).collect();
                    images[..30].shuffle(&mut rng);
                    let mut blocks: Vec<usize> = (0..4).collect();
                    blocks.shuffle(&mut rng);
                    for (from, &to) in blocks.iter().enumerate() {
                        let mut inside: Vec<u32> = (0..5).collect();
                        inside.shuffle(&mut rng);
                        for (i, &j) in inside.iter().enumerate() {
                            images[30 + 5 * from + i] = (30 + 5 * to) as u32 + j;
                        }
                    }
                    Perm::from_images(images, "random").unwrap()
                })
                .collect();
            let orders = GeneratorOrders::of(&generators);
            let edges = edges(&generators, &orders);
            let walker = Walker {
                generators: &edges,
                orders: &orders,
                m: n,
            };
            let found = short_three_cycle(
                &walker,
                Some(&roles),
                WordEffort(1),
                &mut rng,
                &SolveContext::detached(),
                &|_| Ok(()),
            )
            .unwrap();
            let product = found.word.evaluate(&generators, n);
            assert_eq!(product.images(), &found.perm[..]);
            assert_eq!(&found.perm[..30], &three_cycle_images(found.points, 30)[..]);
            for (b, block) in found.perm[30..].chunks(5).enumerate() {
                let first = 30 + 5 * b as u32;
                assert!(block.iter().all(|&y| (first..first + 5).contains(&y)));
                let inversions = (0..5)
                    .flat_map(|i| (i + 1..5).map(move |j| (i, j)))
                    .filter(|&(i, j)| block[i] > block[j])
                    .count();
                assert_eq!(inversions % 2, 0, "seed {seed}: odd on a block");
            }
        }
    }

    /// Commutators of powers that move more than three points: each one the walk offers is
    /// checked, and its word multiplies out to its 3-cycle.
    #[test]
    fn commutators_multiply_out_to_their_three_cycles() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 60;
        let generators = random_product_pair(&[n], &mut rng);
        let orders = GeneratorOrders::of(&generators);
        let edges = edges(&generators, &orders);
        let walker = Walker {
            generators: &edges,
            orders: &orders,
            m: n,
        };
        let max_support = ((2 * n) as f64).sqrt() as usize;
        let (mut seen, mut lengths) = (vec![false; n], Vec::new());
        let mut checked = 0;
        while checked < 20 {
            let mut walk = walker.start();
            for _ in 0..16 {
                walker.step(&mut walk, &mut rng);
                seen.fill(false);
                cycle_lengths_of_unseen(&walk.perm, &mut seen, &mut lengths);
                for (k, support) in small_support_powers(&lengths, max_support) {
                    if support == 3 || k > 5_000 {
                        continue;
                    }
                    let Some(found) = walker.candidate(&walk, k, max_support, None, &mut rng)
                    else {
                        continue;
                    };
                    assert!(found.g.is_some(), "a power moving {support} points");
                    let three_cycle = walker.three_cycle(found);
                    assert_three_cycle(&three_cycle.word, three_cycle.points, &generators, n);
                    checked += 1;
                }
            }
        }
    }
}
