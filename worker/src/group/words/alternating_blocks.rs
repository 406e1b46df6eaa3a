//! [`AlternatingBlocksWords`]: words for a group that contains the alternating groups of its
//! minimal blocks, such as `Sym(50) wr Sym(20)` given by three random elements, or `Alt(5) wr
//! Sym(60)` beside `Alt(5) wr Sym(50)`, each generator moving both orbits.
//!
//! On several orbits a primitive one counts as a single block, so `Sym(100) wr Sym(9)` beside
//! `Sym(100)` is one too (the giant orbit's alternating group is then in the kernel). An orbit
//! whose blocks have fewer than five points declines the group, or, asked for
//! ([`OtherOrbits::OnTheirPoints`]), is taken on its points, as is then an orbit whose own group
//! shows no 3-cycle (its blocks' groups are not alternating): blocks of one point, each one
//! point of `Ĝ`, so `Ĝ` holds that orbit as it is (`Sym(72)` beside
//! `Alt(5) wr Sym(73)` beside `Alt(5) wr Sym(74)` beside `C_3 wr Sym(29)`; `AGL(1,7) wr Sym(16)`
//! beside `Sym(149)` beside `Alt(5) wr Sym(18)` beside `D_5 wr Sym(70)`).
//!
//! Such a group `G` maps onto `Ĝ`, its action on the blocks' orientations (a group of degree
//! `2b` for `b` blocks, and one point more for each block of one point), with kernel `A = Π
//! Alt(B_i)` (see `crate::group::alternating_blocks`, which proves the structure for a
//! transitive group; on several orbits the order tells, as
//! `|G| = |Ĝ| · Π |B_i|!/2` exactly when `A` is in `G`). A member `g` is written as `g = z · y`:
//! `y` the product of the word `u` of `g`'s image in `Ĝ` (the images of the same generators,
//! so `u` is a word of `G` too), and `z = g · y⁻¹`, which fixes every oriented block and so lies
//! in `A`, written by the giants' method on the blocks ([`GiantWords::on_blocks`]: conjugates of
//! one 3-cycle of the group, found as a power or a commutator of powers of random words; on
//! several orbits one per orbit, in [`in_writing_order`]). A permutation that does not map
//! blocks onto blocks, or whose image is not in `Ĝ`, is not a member. When no member flips
//! some blocks' orientations, `Ĝ` acts on two copies of them, and its words leave one out (as
//! every group's words do with orbits that copy others: `OrbitCopies`); dropping it leaves a
//! faithful action of half the degree, a giant or a product of giants for a group on several
//! orbits (`Alt(5) wr Sym(60)`, whose `Ĝ` is `Sym(60)` on two copies of the blocks), where the
//! copies were neither.
//!
//! Why several orbits: through the action on the blocks (`ActionKernelWords`) each block's
//! alternating group is a table over elements that move that block only, powers of words in the
//! generators; for blocks of five to eight points those are long, as the primes of the blocks'
//! element orders divide most other cycles' lengths (`Alt(5) wr Sym(60)` beside `Alt(5) wr
//! Sym(50)`: about 10 million letters a word; `Sym(5) wr Sym(100)` beside `Sym(5) wr Sym(80)`:
//! no answer within 15 minutes), while one 3-cycle per orbit and its conjugates serve every
//! block (about 600,000 and 2.9 million letters, in 1.2 and 3.3 s). With a primitive orbit:
//! `Sym(100) wr Sym(9)` beside `Sym(100)` up to 10.8 million letters after 11.9 s of set-up
//! through the action, 6.0 million after 1.2 s here.
//!
//! # Complexity
//! Set-up: the recognition (`O(n²)` for the minimal blocks, random elements for the 3-cycle;
//! on several orbits `O(n²)` for each orbit's blocks), `Ĝ`'s group and words, and one giants'
//! set-up on all points per orbit. A word: `O(d)` for the image,
//! `Ĝ`'s word, `O(|u| · d)` to evaluate it, then the giants' word of `z`.
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §10.2 (giants); J. D. Dixon, B. Mortimer,
//! *Permutation Groups* (1996), §1.5 (blocks).

use super::giant::GiantWords;
use super::giant_product::{in_writing_order, word_in_writing_order};
use super::group_words::{GroupWords, WordEffort, chain_limits};
use super::word::{GeneratorOrders, LetterBudget, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::alternating_blocks::{AlternatingBlocks, recognise_alternating_blocks};
use crate::group::minimal_blocks::minimal_blocks;
use crate::group::perm_group::restrictions_to_orbit;
use crate::group::{Perm, PermGroup};

/// Seed of the recognition's random elements (the words never depend on it).
const SEED: u64 = 0x0a17_b10c;
/// Fewest points of a block for a group on several orbits: smaller blocks' alternating groups
/// are solvable, and the kernel of the action on the blocks goes down its series of signs,
/// rotations and an elementary abelian bottom (`ActionKernelWords`), with shorter words (or
/// `Ĝ` takes their orbits on their points, [`OtherOrbits::OnTheirPoints`]).
const MIN_BLOCK_ON_SEVERAL_ORBITS: usize = 5;

/// What becomes of an orbit of a group on several orbits whose minimal blocks have fewer than
/// [`MIN_BLOCK_ON_SEVERAL_ORBITS`] points (or whose blocks' groups are not alternating).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OtherOrbits {
    /// The method declines a group with small blocks (a group whose blocks' groups are not
    /// alternating its order declines).
    Decline,
    /// Such an orbit is taken on its points (blocks of one point, in the orientations' group as
    /// it is), beside at least one orbit of larger blocks: an orbit with small blocks, and one
    /// whose own group, the generators restricted to it, shows no 3-cycle
    /// ([`recognise_alternating_blocks`]; its blocks' groups are then not alternating, or none
    /// turned up, and either way the orbit on its points is right). The method declines a group
    /// with no such orbit (it would be the same as with [`OtherOrbits::Decline`]).
    OnTheirPoints,
}

/// Words through the blocks' orientations and their alternating groups (see the module
/// documentation).
#[derive(Debug)]
pub(super) struct AlternatingBlocksWords {
    blocks: AlternatingBlocks,
    /// Words of `Ĝ` in the images of the same generators.
    image: Box<GroupWords>,
    /// The blocks' alternating groups, one orbit's blocks each, in writing order
    /// ([`in_writing_order`]: each orbit's words may move the later orbits' points).
    bottom: Vec<GiantWords>,
    generators: Vec<Perm>,
    inverses: Vec<Perm>,
    orders: GeneratorOrders,
    bytes: u64,
}

impl AlternatingBlocksWords {
    /// Builds the words for `group`, or returns `Ok(None)` when it does not contain the
    /// alternating groups of its minimal blocks (then another method applies): on one orbit as
    /// recognised by a 3-cycle, on several (each with minimal blocks of at least
    /// [`MIN_BLOCK_ON_SEVERAL_ORBITS`] points, a primitive orbit being one block; the orbits of
    /// smaller blocks as `other_orbits` says) as its order tells.
    ///
    /// # Arguments
    /// As [`GroupWords::new`]: `Ĝ`'s chain and words and the giants' share `budget_bytes`.
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] naming `limit_name` beyond `budget_bytes`;
    /// [`SolveError::Cancelled`].
    ///
    /// # Complexity
    /// See the module documentation.
    pub(super) fn new(
        group: &PermGroup,
        other_orbits: OtherOrbits,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<Option<AlternatingBlocksWords>, SolveError> {
        let mut moved: Vec<Vec<u32>> = group
            .orbits_ref()
            .iter()
            .filter(|o| o.len() > 1)
            .cloned()
            .collect();
        if moved.is_empty() {
            return Ok(None);
        }
        moved.iter_mut().for_each(|o| o.sort_unstable());
        let degree = group.degree();
        let generators = group.generators().to_vec();
        let found = if let [orbit] = moved.as_slice() {
            if other_orbits == OtherOrbits::OnTheirPoints {
                return Ok(None); // one orbit, no other: as declined before
            }
            recognise_alternating_blocks(degree, orbit, &generators, SEED, ctx)?.map(|blocks| {
                let by_orbit = vec![blocks.blocks().to_vec()];
                (blocks, by_orbit)
            })
        } else {
            blocks_of_orbits(degree, &moved, &generators, other_orbits, ctx)?
        };
        let Some((mut blocks, by_orbit)) = found else {
            return Ok(None);
        };
        let over_budget = |what: &str, bytes: u64| {
            SolveError::limit_shown(
                format!("words of the group of degree {degree} ({what}, {bytes} bytes)"),
                limit_name,
                budget_bytes,
                format!("{budget_bytes} bytes ({limit_name})"),
            )
            .requested(bytes)
        };
        // The block tables and the generators with their inverses.
        let mut held = 16 * degree as u64 * (generators.len() as u64 + 2);
        if held > budget_bytes {
            return Err(over_budget("the block tables", held));
        }
        let images = std::mem::take(&mut blocks.orientations);
        let left = budget_bytes - held;
        let limits = chain_limits(left);
        let image_group = match PermGroup::new(images[0].degree(), images, ctx, &limits) {
            Err(SolveError::LimitExceeded { .. }) => {
                return Err(over_budget(
                    "the orientations' chain",
                    left.saturating_add(1),
                ));
            }
            image_group => image_group?,
        };
        // On several orbits the order proves the kernel is the blocks' alternating groups' product
        // (on one, the recognition did).
        if blocks.group_order(&image_group.order()) != group.order() {
            return Ok(None);
        }
        let image = GroupWords::beside_chain(&image_group, effort, ctx, left, limit_name)?;
        drop(image_group);
        held = held.saturating_add(image.bytes());
        let (_, bottom, bottom_bytes) = in_writing_order(
            by_orbit,
            |blocks| blocks.len() * blocks[0].len(),
            ctx,
            budget_bytes.saturating_sub(held),
            |blocks, left| GiantWords::on_blocks(group, blocks, effort, ctx, left, limit_name),
            |blocks, later, left| {
                let later = later.concat();
                GiantWords::on_blocks_before(group, blocks, &later, effort, ctx, left, limit_name)
            },
        )?;
        held = held.saturating_add(bottom_bytes);
        Ok(Some(AlternatingBlocksWords {
            blocks,
            image: Box::new(image),
            bottom,
            orders: GeneratorOrders::of(&generators),
            inverses: generators.iter().map(Perm::inverse).collect(),
            generators,
            bytes: held,
        }))
    }

    /// The word of `g`, `Ok(None)` for a non-member, `Err(letters)` as soon as the word is known
    /// to be longer than `budget` allows.
    ///
    /// Complexity: see the module documentation.
    pub(super) fn word_of(&self, g: &Perm, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
        let Some(image) = self.blocks.orientation_of(g) else {
            return Ok(None);
        };
        let Some(u) = self.image.word_within(&image, budget)? else {
            return Ok(None);
        };
        // `z` fixes every oriented block: it is in `Π Alt(B)`.
        let z = u.taken_off(g, &self.generators, &self.inverses, budget)?;
        let left = budget.less(u.len());
        let Some(mut word) = word_in_writing_order(&self.bottom, z.images().to_vec(), left)
            .map_err(|letters| letters.saturating_add(u.len()))?
        else {
            return Ok(None); // z fixes every oriented block, so this is never reached
        };
        word.append(&u, &self.orders);
        word.at_most(budget)
    }

    /// Bytes held: `Ĝ`'s words, the giants' trees and base element, the tables.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The giants' base elements' length (mean and largest), for benchmarks.
    pub(super) fn entry_lengths(&self) -> (f64, u64) {
        let lengths: Vec<u64> = self.bottom.iter().map(GiantWords::base_len).collect();
        let mean = lengths.iter().sum::<u64>() as f64 / lengths.len().max(1) as f64;
        (mean, lengths.into_iter().max().unwrap_or(0))
    }
}

/// The blocks with their orientations' action, and the blocks again grouped by orbit (each
/// orbit's blocks, for [`in_writing_order`]; the orbits on their points left out).
type BlocksByOrbit = (AlternatingBlocks, Vec<Vec<Vec<u32>>>);

/// The minimal blocks of each of `orbits` (each increasing; a primitive orbit is one block),
/// grouped by orbit, with the generators' action on all their orientations; the orbits whose
/// blocks have fewer than [`MIN_BLOCK_ON_SEVERAL_ORBITS`] points or whose blocks' groups are
/// not alternating as `other_orbits` says ([`OtherOrbits`]; on their points: blocks of one
/// point, in the orientations' group as they are). `None` when no orbit short of primitive is
/// left to its blocks. Whether the group contains their alternating groups is for its order to
/// tell.
///
/// Why other orbits on their points: their blocks' groups are not written by 3-cycles, and the
/// orientations' group writes them as a group of its own (solvable blocks down its series of
/// signs, rotations and an elementary abelian bottom), while the larger blocks beside them
/// still get the 3-cycles (`Sym(72)` beside `Alt(5) wr Sym(73)` beside `Alt(5) wr Sym(74)`
/// beside `C_3 wr Sym(29)`: through the action on one orbit, words over 10 million letters,
/// the giants' parts written in long kernel elements).
///
/// # Errors
/// [`SolveError::Cancelled`].
///
/// # Complexity
/// `O(n² · k)` for each orbit's minimal blocks (`n` its points, `k` generators), then `O(d · k)`;
/// with [`OtherOrbits::OnTheirPoints`] also the recognition of each imprimitive orbit's own
/// group ([`holds_alternating_blocks`]).
fn blocks_of_orbits(
    degree: usize,
    orbits: &[Vec<u32>],
    generators: &[Perm],
    other_orbits: OtherOrbits,
    ctx: &SolveContext,
) -> Result<Option<BlocksByOrbit>, SolveError> {
    let mut by_orbit = Vec::with_capacity(orbits.len());
    let mut on_points: Vec<Vec<u32>> = Vec::new();
    let mut imprimitive = 0;
    for orbit in orbits {
        // A primitive orbit is one block: its alternating group in the group makes it a giant
        // there, written by the same 3-cycles (`Sym(100) wr Sym(9)` beside `Sym(100)`).
        let local = minimal_blocks(degree, orbit, generators, ctx)?;
        let count = local
            .as_ref()
            .map_or(1, |l| l.iter().max().map_or(0, |&b| b as usize + 1));
        // On its points, asked for: blocks too small, or, where that is the question, blocks
        // whose groups are not alternating (the orbit's own group has no 3-cycle).
        let other = orbit.len() / count < MIN_BLOCK_ON_SEVERAL_ORBITS
            || (other_orbits == OtherOrbits::OnTheirPoints
                && local.is_some()
                && !holds_alternating_blocks(orbit, generators, ctx)?);
        if other {
            if other_orbits == OtherOrbits::Decline {
                return Ok(None);
            }
            on_points.extend(orbit.iter().map(|&x| vec![x]));
            continue;
        }
        let mut blocks: Vec<Vec<u32>> = vec![Vec::new(); count];
        for (i, &x) in orbit.iter().enumerate() {
            let b = local.as_ref().map_or(0, |l| l[i]);
            blocks[b as usize].push(x); // increasing: the orbit is
        }
        imprimitive += usize::from(local.is_some());
        by_orbit.push(blocks);
    }
    if imprimitive == 0 || (other_orbits == OtherOrbits::OnTheirPoints && on_points.is_empty()) {
        // A product of giants, if anything: its own method, or below `GIANT_WORDS_FROM_DEGREE`
        // moved points Minkwitz's tables, write it shorter; or no block of that many points;
        // or, with no orbit on its points, the blocks as `OtherOrbits::Decline` took them.
        return Ok(None);
    }
    let mut members = by_orbit.concat();
    members.append(&mut on_points);
    Ok(AlternatingBlocks::of_blocks(degree, members, generators).map(|blocks| (blocks, by_orbit)))
}

/// Whether the group's action on `orbit` (increasing) is proven to contain the alternating
/// groups of its minimal blocks ([`recognise_alternating_blocks`] on the generators restricted
/// to the orbit: a 3-cycle found at random; `false` may also mean none turned up).
///
/// # Errors
/// [`SolveError::Cancelled`].
///
/// # Complexity
/// As [`recognise_alternating_blocks`] at degree `|orbit|`, plus `O(|orbit| · k)`.
fn holds_alternating_blocks(
    orbit: &[u32],
    generators: &[Perm],
    ctx: &SolveContext,
) -> Result<bool, SolveError> {
    let mut local = vec![0u32; generators[0].degree()];
    let restricted = restrictions_to_orbit(orbit, generators, &mut local);
    let points: Vec<u32> = (0..orbit.len() as u32).collect();
    Ok(recognise_alternating_blocks(orbit.len(), &points, &restricted, SEED, ctx)?.is_some())
}

#[cfg(test)]
mod tests {
    use rand::seq::{IndexedRandom, SliceRandom};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::action_kernel::tests::{
        multiply_out, random_wreath_element, random_wreath_element_of,
    };
    use super::*;
    use crate::limits::Limits;

    /// Random groups on two or three orbits, each of 2 or 3 random elements of a product of
    /// wreath products (relabelled), `Sym(b) wr Sym(m)` with `b` five or six on one orbit, and
    /// on the others `Sym(b) wr Sym(m)` with `b` two to four or `D_5 wr Sym(m)`, whose blocks'
    /// groups are not alternating: declined as they are ([`OtherOrbits::Decline`]); with the
    /// other orbits on their points the method applies where the group's order says it holds
    /// the larger blocks' alternating groups (most of them), and then random members (products
    /// of 30 random generators) get words that multiply out to them, and random elements of the
    /// product of wreath products get one exactly when the group's stabiliser chain (the
    /// oracle) says they are members.
    #[test]
    fn other_orbits_on_their_points_beside_larger_blocks() {
        // `(b, m)`; `b = 0` for `D_5 wr Sym(m)`.
        let shapes: [&[(usize, usize)]; 5] = [
            &[(5, 4), (3, 5)],
            &[(6, 3), (4, 4)],
            &[(2, 6), (5, 3), (3, 3)],
            &[(5, 3), (0, 4)],
            &[(6, 2), (0, 3), (2, 5)],
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(0x5a11_b10c);
        let ctx = SolveContext::detached();
        let (mut applied, mut strangers) = (0, 0);
        for round in 0..30 {
            let shape = shapes[round % shapes.len()];
            let points = |(b, m): (usize, usize)| if b == 0 { 5 * m } else { b * m };
            let d: usize = shape.iter().map(|&s| points(s)).sum();
            let mut relabel: Vec<u32> = (0..d as u32).collect();
            relabel.shuffle(&mut rng);
            let element = |rng: &mut ChaCha8Rng| {
                let mut images = vec![0u32; d];
                let mut offset = 0;
                for &(b, m) in shape {
                    if b == 0 {
                        // `D_5` as `x ↦ ±x + c` mod 5.
                        random_wreath_element_of(
                            (5, m),
                            offset,
                            &relabel,
                            &mut images,
                            rng,
                            |rng| {
                                let (sign, shift) =
                                    (rng.random_range(0..2), rng.random_range(0..5));
                                (0..5).map(|x| ([x, 5 - x][sign] + shift) % 5).collect()
                            },
                        );
                    } else {
                        random_wreath_element((b, m), offset, &relabel, &mut images, rng);
                    }
                    offset += points((b, m));
                }
                Perm::from_images(images, "test").unwrap()
            };
            let count = rng.random_range(2..=3);
            let gens: Vec<Perm> = (0..count).map(|_| element(&mut rng)).collect();
            let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
            let build = |small| {
                AlternatingBlocksWords::new(&group, small, WordEffort(1), &ctx, 1 << 28, "test")
                    .unwrap()
            };
            assert!(build(OtherOrbits::Decline).is_none(), "round {round}");
            let Some(words) = build(OtherOrbits::OnTheirPoints) else {
                continue;
            };
            applied += 1;
            let budget = || LetterBudget::letters(u64::MAX);
            for _ in 0..10 {
                let mut x = Perm::identity(d);
                for _ in 0..30 {
                    x = x.compose(gens.choose(&mut rng).unwrap());
                }
                let w = words.word_of(&x, budget()).unwrap().expect("a member");
                assert_eq!(multiply_out(&w, &gens, d), x.images(), "round {round}");
            }
            for _ in 0..10 {
                let x = element(&mut rng);
                let w = words.word_of(&x, budget()).unwrap();
                assert_eq!(w.is_some(), group.contains(&x), "round {round}");
                if let Some(w) = w {
                    assert_eq!(multiply_out(&w, &gens, d), x.images(), "round {round}");
                }
                strangers += usize::from(!group.contains(&x));
            }
        }
        assert!(applied >= 20, "{applied} of 30");
        assert!(strangers >= 10, "{strangers} non-members");
    }
}
