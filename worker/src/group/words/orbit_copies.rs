//! [`OrbitCopies`]: the orbits of a group that copy earlier ones, left out of its words.
//!
//! Two orbits `A` and `B` of a group `G` are copies of each other when some bijection
//! `φ: A → B` commutes with every generator (`φ(a^s) = φ(a)^s`), so with every member: the
//! action on `B` is the action on `A` relabelled, and a member's points on `B` are fixed by its
//! points on `A`. A group given on two copies of its points (a diagonal) is one; three random
//! elements of `C_3 wr Sym(47)` in the held-out `sweep_2004_5` generate another (three orbits of
//! 47 points, each meeting every block once: each a copy of the action on the blocks). Left in, the copies tie the orbits'
//! actions together, so the group is neither a product of its orbits' groups nor a product of
//! giants, and the kernel of the action on one orbit is tied across the copies.
//!
//! Restricted to the orbits kept (every orbit that copies no earlier one), the group acts
//! faithfully (a member trivial there is trivial on every copy) with the same generators, so a
//! word of the restriction is a word of the member. An element is a member when its points on
//! each copy follow its points on the copied orbit through `φ` and its restriction is a member
//! of the restricted group.
//!
//! The copies are the classes of linked orbits of the giant products' order proofs
//! ([`link_classes`]), which decides exactly whether such a bijection exists.
//!
//! # Complexity
//! Finding the copies: `O(d · k)` for the points' invariants, then `O(n · k)` per candidate
//! image of one point of an orbit of `n` points (those with its invariant). Restricting an
//! element: `O(d)`.
//!
//! # Reference
//! Dixon, Mortimer, *Permutation Groups* (1996), §1.6 (equivalent actions: a point stabiliser of
//! one orbit fixes a point of the other); Seress, *Permutation Group Algorithms* (2003), §5.1.

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm_group::{IntransitiveGenerators, link_classes};
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

/// A point left out of the restricted group that every member fixes (in no orbit of two points
/// or more): it has no copied point.
const NONE: u32 = u32::MAX;

/// The orbits kept, and for every point left out the point it copies (see the module
/// documentation).
#[derive(Debug)]
pub(super) struct OrbitCopies {
    /// The points of the orbits kept, in increasing order: the restricted group's point `i` is
    /// `kept[i]`.
    kept: Vec<u32>,
    /// `position[x]`: `x`'s index in `kept`, or [`NONE`] for a point left out.
    position: Vec<u32>,
    /// For a point `b` left out: `(a, copy)`, the kept point it copies (`b = φ(a)`) and the
    /// number of its orbit among the copies (so that a member maps each copy onto itself, not
    /// onto another copy of the same orbit); `(NONE, NONE)` for a point every member fixes.
    copied: Vec<(u32, u32)>,
}

impl OrbitCopies {
    /// The copies among `group`'s orbits, or `None` when no orbit copies another.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    pub(super) fn of(
        group: &PermGroup,
        ctx: &SolveContext,
    ) -> Result<Option<OrbitCopies>, SolveError> {
        let degree = group.degree();
        let orbits = group.orbits_ref();
        let compared: Vec<bool> = orbits.iter().map(|o| o.len() > 1).collect();
        if compared.iter().filter(|&&c| c).count() < 2 {
            return Ok(None);
        }
        let generators = IntransitiveGenerators {
            degree,
            generators: group.generators(),
            orbits,
        };
        let classes = link_classes(&generators, &compared, ctx)?;
        if classes.iter().all(|class| class.copies.len() == 1) {
            return Ok(None);
        }
        let mut copied = vec![(NONE, NONE); degree];
        let mut kept: Vec<u32> = Vec::new();
        let mut copy_number = 0u32;
        for class in &classes {
            let (first, copies) = class.copies.split_first().expect("a class has an orbit");
            kept.extend_from_slice(first);
            for copy in copies {
                for (&a, &b) in first.iter().zip(copy) {
                    copied[b as usize] = (a, copy_number);
                }
                copy_number += 1;
            }
        }
        kept.sort_unstable();
        let mut position = vec![NONE; degree];
        for (i, &x) in kept.iter().enumerate() {
            position[x as usize] = i as u32;
        }
        Ok(Some(OrbitCopies {
            kept,
            position,
            copied,
        }))
    }

    /// The group restricted to the orbits kept, on the points `0..kept.len()`, its generators
    /// those of `group` in the same order (so a word of the restriction is a word of `group`);
    /// its chain within `limits`.
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] from the chain; [`SolveError::Cancelled`].
    pub(super) fn restricted_group(
        &self,
        group: &PermGroup,
        ctx: &SolveContext,
        limits: &Limits,
    ) -> Result<PermGroup, SolveError> {
        let generators = group
            .generators()
            .iter()
            .map(|g| {
                self.restricted(g)
                    .expect("a generator maps the copies as the copied orbits")
            })
            .collect();
        PermGroup::new(self.kept.len(), generators, ctx, limits)
    }

    /// `g` restricted to the orbits kept, or `None` when `g` cannot be a member: another degree,
    /// a kept point mapped out of the kept orbits, a copy's point not where the copied point's
    /// image puts it, or a fixed point moved.
    ///
    /// Complexity: O(d).
    pub(super) fn restricted(&self, g: &Perm) -> Option<Perm> {
        if g.degree() != self.position.len() {
            return None;
        }
        for (x, &(a, copy)) in self.copied.iter().enumerate() {
            if self.position[x] != NONE {
                continue;
            }
            let y = g.image(x as u32);
            let follows = if a == NONE {
                y == x as u32
            } else {
                self.copied[y as usize] == (g.image(a), copy)
            };
            if !follows {
                return None;
            }
        }
        let images = self
            .kept
            .iter()
            .map(|&x| self.position[g.image(x) as usize])
            .collect::<Vec<u32>>();
        // Every point left out maps as it should, so the kept points map onto the kept points.
        Perm::from_images(images, "a restriction").ok()
    }

    /// Bytes held: the kept points, their positions and the copied points.
    pub(super) fn bytes(&self) -> u64 {
        (self.kept.len() as u64) * 4 + (self.position.len() as u64) * 12
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::action_kernel::tests::multiply_out;
    use super::super::group_words::{GroupWords, WordEffort};
    use super::super::kernel_series::tests::closure_of;
    use super::*;

    /// The brute-force oracle: whether some bijection from orbit `a` onto orbit `b` commutes
    /// with every generator, trying every bijection (orbits of at most 6 points).
    fn copies_by_every_bijection(a: &[u32], b: &[u32], gens: &[Perm]) -> bool {
        fn commutes(a: &[u32], b: &[u32], image: &[usize], gens: &[Perm]) -> bool {
            let phi = |x: u32| b[image[a.iter().position(|&y| y == x).unwrap()]];
            gens.iter()
                .all(|g| a.iter().all(|&x| phi(g.image(x)) == g.image(phi(x))))
        }
        fn every(image: &mut Vec<usize>, a: &[u32], b: &[u32], gens: &[Perm]) -> bool {
            if image.len() == a.len() {
                return commutes(a, b, image, gens);
            }
            for next in 0..b.len() {
                if !image.contains(&next) {
                    image.push(next);
                    if every(image, a, b, gens) {
                        return true;
                    }
                    image.pop();
                }
            }
            false
        }
        a.len() == b.len() && every(&mut Vec::new(), a, b, gens)
    }

    /// Two random permutations of `0..m` written onto `orbits` (each a list of `m` points) of a
    /// group of degree `d`: orbit `i` gets them relabelled by its list, so orbits with the
    /// same `source` are copies; a new source draws new permutations.
    fn on_orbits(d: usize, m: usize, sources: &[usize], rng: &mut ChaCha8Rng) -> Vec<Perm> {
        let mut points: Vec<u32> = (0..d as u32).collect();
        points.shuffle(rng);
        let drawn: Vec<Vec<Vec<usize>>> = (0..=*sources.iter().max().unwrap())
            .map(|_| {
                (0..2)
                    .map(|_| {
                        let mut p: Vec<usize> = (0..m).collect();
                        p.shuffle(rng);
                        p
                    })
                    .collect()
            })
            .collect();
        (0..2)
            .map(|j| {
                let mut images: Vec<u32> = (0..d as u32).collect();
                for (i, &source) in sources.iter().enumerate() {
                    let orbit = &points[i * m..(i + 1) * m];
                    for x in 0..m {
                        images[orbit[x] as usize] = orbit[drawn[source][j][x]];
                    }
                }
                Perm::from_images(images, "test").unwrap()
            })
            .collect()
    }

    #[test]
    fn the_copies_found_are_those_every_bijection_finds() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x0c0_9135);
        let ctx = SolveContext::detached();
        let mut found = 0;
        for _ in 0..300 {
            let m = rng.random_range(2..=6);
            let orbits = rng.random_range(2..=3);
            let sources: Vec<usize> = (0..orbits).map(|_| rng.random_range(0..2)).collect();
            let d = m * orbits + rng.random_range(0..2);
            let gens = on_orbits(d, m, &sources, &mut rng);
            let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
            // The group's own orbits (two random permutations need not be transitive).
            let orbits: Vec<&Vec<u32>> =
                group.orbits_ref().iter().filter(|o| o.len() > 1).collect();
            let mut kept: Vec<&Vec<u32>> = Vec::new();
            for &orbit in &orbits {
                if !kept
                    .iter()
                    .any(|earlier| copies_by_every_bijection(earlier, orbit, &gens))
                {
                    kept.push(orbit);
                }
            }
            let copies = OrbitCopies::of(&group, &ctx).unwrap();
            if kept.len() == orbits.len() {
                assert!(copies.is_none());
            } else {
                let copies = copies.expect("the oracle found a copy");
                let mut points: Vec<u32> = kept.into_iter().flatten().copied().collect();
                points.sort_unstable();
                assert_eq!(copies.kept, points);
                found += 1;
            }
        }
        assert!(found > 100, "only {found} groups with copies");
    }

    /// Every element of `<gens>` gets a word that multiplies out to it, letter by letter, and
    /// 50 random permutations outside it get none.
    fn assert_every_element_written(gens: &[Perm], rng: &mut ChaCha8Rng) {
        let d = gens[0].degree();
        let ctx = SolveContext::detached();
        let group = PermGroup::new(d, gens.to_vec(), &ctx, &Limits::default()).unwrap();
        let words = GroupWords::new(&group, WordEffort(1), &ctx, 1 << 30, "test").unwrap();
        let all = closure_of(gens, d);
        for x in &all {
            let w = words.word_of(x).expect("a member has a word");
            assert_eq!(multiply_out(&w, gens, d), x.images());
        }
        let members: HashSet<&[u32]> = all.iter().map(Perm::images).collect();
        for _ in 0..50 {
            let mut images: Vec<u32> = (0..d as u32).collect();
            images.shuffle(rng);
            if !members.contains(images.as_slice()) {
                let stranger = Perm::from_images(images, "test").unwrap();
                assert!(words.word_of(&stranger).is_none());
            }
        }
    }

    #[test]
    fn every_element_of_groups_on_copies_has_its_word() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x0c0_9136);
        for _ in 0..60 {
            let m = rng.random_range(3..=5);
            let sources: Vec<usize> = (0..rng.random_range(2..=3))
                .map(|_| rng.random_range(0..2))
                .collect();
            let d = m * sources.len() + rng.random_range(0..2);
            let gens = on_orbits(d, m, &sources, &mut rng);
            assert_every_element_written(&gens, &mut rng);
        }
    }

    /// `Sym(6)` on its points beside `Sym(6)` through an outer automorphism (each transposition
    /// a product of three): two orbits of six points, tied, but not copies (a transposition
    /// moves two points of one and all six of the other).
    #[test]
    fn an_outer_automorphism_of_sym6_is_no_copy() {
        let outer = [
            "(1,2)(3,4)(5,6)",
            "(1,3)(2,5)(4,6)",
            "(1,2)(3,6)(4,5)",
            "(1,3)(2,4)(5,6)",
            "(1,2)(3,5)(4,6)",
        ];
        let gens: Vec<Perm> = (0..5)
            .map(|i| {
                let inner = Perm::parse_cycles(&format!("({},{})", i + 1, i + 2), 6).unwrap();
                let other = Perm::parse_cycles(outer[i], 6).unwrap();
                let images: Vec<u32> = (0..12)
                    .map(|x| {
                        if x < 6 {
                            inner.image(x)
                        } else {
                            6 + other.image(x - 6)
                        }
                    })
                    .collect();
                Perm::from_images(images, "test").unwrap()
            })
            .collect();
        // Order 720: the group is `Sym(6)` on the first orbit, and its action on the second is
        // a one-to-one image of it (the map on the generators extends to an automorphism).
        assert_eq!(closure_of(&gens, 12).len(), 720);
        let ctx = SolveContext::detached();
        let group = PermGroup::new(12, gens.clone(), &ctx, &Limits::default()).unwrap();
        assert!(OrbitCopies::of(&group, &ctx).unwrap().is_none());
        assert_every_element_written(&gens, &mut ChaCha8Rng::seed_from_u64(6));
    }
}
