//! [`GiantWords`]: words for the members of a symmetric or alternating group of large degree,
//! built from one short 3-cycle and its conjugates.
//!
//! Minkwitz's tables ([`super::minkwitz`]) hold a permutation per coset of the stabiliser chain:
//! `m²/2` of them for `Sym(m)`, gigabytes at degree 1,000. A giant needs none of that. Every
//! even permutation is a product of 3-cycles, every 3-cycle `(a b c)` is a conjugate `e^u` of one
//! 3-cycle `e = (p q r)` by an element `u` with `p^u = a`, `q^u = b`, `r^u = c`, and an odd member
//! of `Sym(m)` is an odd generator times an even permutation. So:
//!
//! 1. **The base element.** A short word for a 3-cycle, from random words `w` of the Cayley
//!    graph ([`super::three_cycle`]): a power `w^K` that is a 3-cycle (one 3-cycle, every other
//!    cycle length prime to 3, `K` the lcm of the others), or the commutator of a power with a
//!    few moved points and its conjugate by a short word whose supports meet in one point.
//!    Among those found the one with the fewest letters is kept; the element is computed and
//!    checked, so it is certain (Las Vegas: random only in time).
//! 2. **Conjugators.** Schreier trees for the point stabiliser chain of `p, q, r`: breadth-first,
//!    so each coset representative is a shortest path over the level's generators; the
//!    generators of a level are Schreier generators of the level above, taken from its
//!    shallowest points and added until the level's group is transitive on the remaining points
//!    (it is: `Alt(m)` is `(m-2)`-transitive).
//! 3. **Factoring.** A member's cycles are written as transpositions `(a1 a2)(a1 a3)…(a1 ak)` and
//!    consecutive pairs become 3-cycles (`(a b)(a c)` is one, `(a b)(c d)` is
//!    `(a b)(b c)·(b c)(c d)`); each piece is `u⁻¹·e·u`.
//!
//! # Complexity
//! Set-up: `O(S · m)` for `S` sampled words (a few thousand) and `O(g · m · depth)` for the three
//! trees with `g` generators each. Memory `O(g · m)`. A word: at most `m/2 + 1` pieces, each
//! `|e| + 2|u|` letters before free reduction, so `O(m · |e|)` letters: about `3·10⁶` for
//! `Sym(1000)` from two random generators (`|e|` about 6,000), where Minkwitz's tables do not
//! fit in memory at all. (For scale: from two generators there are fewer than `4·3^(ℓ-1)` words
//! of length `ℓ`, so most members of `Alt(1000)` need at least 5,000 letters whatever the method.)
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §4.1 (Schreier trees and Schreier
//! generators) and §10.2 (giants: 3-cycles as powers of random elements, Jordan's theorem).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::super::perm::Perm;
use super::super::perm_group::PermGroup;
use super::group_words::WordEffort;
use super::moved_points::MovedPoints;
use super::three_cycle::{Role, Walker, commutator_of_sides, short_three_cycle};
use super::word::{GeneratorOrders, LETTER_BYTES, LetterBudget, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::giant_recognition::Giant;
use crate::group::perm::invert;

/// Seed of the random search (the base element depends on it, correctness does not).
const SEED: u64 = 0x6a17_3041;
const NONE: u32 = u32::MAX;
/// Schreier generators a level starts with (more are added until it is transitive): enough that
/// the level's Schreier graph has a small diameter.
const LEVEL_GENERATORS: usize = 8;

/// Where a [`GiantWords`] works: an orbit on which the group acts as `giant`, or the union of
/// `blocks` with `Alt` on each; `free`: the parts of other orbits (whole orbits or blocks, each
/// increasing) the base element may move, mapping each onto itself by an even permutation.
struct Shape<'a> {
    orbit: &'a [u32],
    giant: Giant,
    blocks: Option<&'a [Vec<u32>]>,
    free: &'a [Vec<u32>],
}

/// The points of `all` (inner numbering) outside `orbit` split into two sides of whole orbits
/// of `group`, about equal in points (each side's mask, `true` for its points), or `None` when
/// they lie in fewer than two orbits.
///
/// Complexity: `O(d)`.
fn two_sides(group: &PermGroup, orbit: &[u32], all: &MovedPoints) -> Option<[Vec<bool>; 2]> {
    let mut others: Vec<&Vec<u32>> = group
        .orbits_ref()
        .iter()
        .filter(|o| o.len() > 1 && orbit.binary_search(&o[0]).is_err())
        .collect();
    if others.len() < 2 {
        return None;
    }
    others.sort_by_key(|o| std::cmp::Reverse(o.len()));
    let mut sides = [vec![false; all.len()], vec![false; all.len()]];
    let mut sizes = [0usize; 2];
    for other in others {
        let side = usize::from(sizes[1] < sizes[0]);
        sizes[side] += other.len();
        other
            .iter()
            .for_each(|&x| sides[side][all.inner(x) as usize] = true);
    }
    Some(sides)
}

/// Whether a group is the symmetric or alternating group of the `m >= 5` points it moves.
///
/// The test is exact: transitive on its moved points with order `m!` or `m!/2` (the order is
/// proven).
pub(super) fn giant_of_moved_points(group: &PermGroup) -> Option<Giant> {
    let orbits = group.orbits_ref();
    let mut nontrivial = orbits.iter().filter(|o| o.len() > 1);
    let orbit = nontrivial.next()?;
    if nontrivial.next().is_some() || orbit.len() < 5 {
        return None;
    }
    Giant::of_order(&group.order(), orbit.len())
}

/// One generator of a tree level: the permutation (of the moved points, then of the free points
/// if any: see [`Rest`]), its inverse and its word in the job's generators.
#[derive(Debug)]
pub(super) struct Edge {
    pub(super) perm: Box<[u32]>,
    pub(super) inv: Box<[u32]>,
    pub(super) word: Word,
}

/// A Schreier tree of one level: the stabiliser of the earlier roots acting on the points, a
/// breadth-first tree from `root` over `edges` (each used forwards or backwards).
#[derive(Debug)]
struct TreeLevel {
    root: u32,
    edges: Vec<Edge>,
    /// The parent of each point in the tree (`NONE` outside the orbit; the root is its own).
    parent: Vec<u32>,
    /// The edge into each point: `2·i` for `edges[i]`, `2·i + 1` for its inverse.
    via: Vec<u32>,
    /// Distance from the root, for choosing shallow points.
    depth: Vec<u32>,
}

impl TreeLevel {
    /// The breadth-first tree of `edges` from `root` on the points `0..m`.
    fn new(root: u32, edges: Vec<Edge>, m: usize) -> TreeLevel {
        let mut parent = vec![NONE; m];
        let mut via = vec![NONE; m];
        let mut depth = vec![NONE; m];
        parent[root as usize] = root;
        depth[root as usize] = 0;
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(x) = queue.pop_front() {
            for (i, e) in edges.iter().enumerate() {
                for (dir, step) in [(0, &e.perm), (1, &e.inv)] {
                    let y = step[x as usize];
                    if parent[y as usize] == NONE {
                        parent[y as usize] = x;
                        via[y as usize] = 2 * i as u32 + dir;
                        depth[y as usize] = depth[x as usize] + 1;
                        queue.push_back(y);
                    }
                }
            }
        }
        TreeLevel {
            root,
            edges,
            parent,
            via,
            depth,
        }
    }

    fn orbit_len(&self) -> usize {
        self.parent.iter().filter(|&&p| p != NONE).count()
    }

    /// The edges (as in `via`) of the tree's path from the root to `p`, in order.
    fn steps_to(&self, p: u32) -> Vec<u32> {
        let mut steps = Vec::new();
        let mut x = p;
        while x != self.root {
            steps.push(self.via[x as usize]);
            x = self.parent[x as usize];
        }
        steps.reverse();
        steps
    }

    /// The word of the tree's representative for `p` (it sends the root to `p`).
    fn word_to(&self, p: u32, orders: &GeneratorOrders) -> Word {
        let mut w = Word::identity();
        for v in self.steps_to(p) {
            let e = &self.edges[(v / 2) as usize];
            if v.is_multiple_of(2) {
                w.append(&e.word, orders);
            } else {
                w.append_inverse(&e.word, orders);
            }
        }
        w
    }

    /// `a` under the tree's representative for `p`.
    fn apply_rep_of(&self, p: u32, a: u32) -> u32 {
        self.steps_to(p).into_iter().fold(a, |a, v| {
            let e = &self.edges[(v / 2) as usize];
            if v.is_multiple_of(2) {
                e.perm[a as usize]
            } else {
                e.inv[a as usize]
            }
        })
    }

    /// `a` under the inverse of the tree's representative for `p`.
    fn apply_inverse_of(&self, p: u32, mut a: u32) -> u32 {
        let mut x = p;
        while x != self.root {
            let v = self.via[x as usize];
            let e = &self.edges[(v / 2) as usize];
            // The representative ends with this edge; its inverse starts with the edge's inverse.
            a = if v.is_multiple_of(2) {
                e.inv[a as usize]
            } else {
                e.perm[a as usize]
            };
            x = self.parent[x as usize];
        }
        a
    }

    /// The tree's representative for `p`, as images of all `n` points its edges act on.
    fn perm_to(&self, p: u32, n: usize) -> Vec<u32> {
        let mut images: Vec<u32> = (0..n as u32).collect();
        self.apply_rep_to_all(p, &mut images, false);
        images
    }

    /// Maps every value of `images` by the tree's representative for `p` (or its inverse).
    fn apply_rep_to_all(&self, p: u32, images: &mut [u32], inverse: bool) {
        let mut steps = self.steps_to(p);
        if inverse {
            steps.reverse();
        }
        for v in steps {
            let e = &self.edges[(v / 2) as usize];
            let step = if v.is_multiple_of(2) != inverse {
                &e.perm
            } else {
                &e.inv
            };
            images.iter_mut().for_each(|y| *y = step[*y as usize]);
        }
    }
}

/// The free points of a [`GiantWords`] whose base element may move later orbits or blocks (see
/// [`GiantWords::on_orbit_before`]): the trees' edges act on them too (numbered after the
/// orbit's `m` points), so that each conjugate's action there is known.
#[derive(Debug)]
struct Rest {
    /// The free points, numbered in increasing order.
    points: MovedPoints,
    /// The base element on them, and its inverse (free numbers, from 0).
    base: Box<[u32]>,
    base_inv: Box<[u32]>,
}

/// Words for every member of `Sym(m)` or `Alt(m)` on the moved points (see the module
/// documentation).
#[derive(Debug)]
pub(crate) struct GiantWords {
    /// The moved points: the trees act on their numbers.
    points: MovedPoints,
    orders: GeneratorOrders,
    /// The word of the base element, and its points in cycle order (`p → q → r → p`).
    base_word: Word,
    base_points: [u32; 3],
    /// One tree per point `p, q, r` of the base 3-cycle (in its cycle order): level `j` belongs
    /// to the stabiliser of the first `j`, rooted at the next; only the first one or two on blocks
    /// of three or four points.
    levels: Vec<TreeLevel>,
    /// For `Sym`: an odd generator (inner images of its inverse, and its one-letter word); an odd
    /// member is that generator times an even permutation.
    odd: Option<(Box<[u32]>, Word)>,
    /// For the alternating groups of the blocks of a block system ([`GiantWords::on_blocks`]):
    /// each point's block. A member is then even on every block, and its 3-cycles stay in
    /// blocks.
    block_of: Option<Vec<u32>>,
    /// The later orbits or blocks the base element moves ([`GiantWords::on_orbit_before`],
    /// [`GiantWords::on_blocks_before`]).
    rest: Option<Rest>,
    bytes: u64,
}

impl GiantWords {
    /// The base element and the trees for a group that [`giant_of_moved_points`] recognised;
    /// `effort` scales the search for a short base element.
    ///
    /// # Returns
    /// The structure, [`SolveError::LimitExceeded`] naming `limit_name` beyond `budget_bytes`,
    /// or [`SolveError::Cancelled`].
    pub(crate) fn new(
        group: &PermGroup,
        giant: Giant,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantWords, SolveError> {
        let points = MovedPoints::of(group);
        let all = points.points().to_vec();
        GiantWords::on_orbit(group, &all, giant, effort, ctx, budget_bytes, limit_name)
    }

    /// The same for the group's action on one of its orbits, `orbit` (its points, increasing),
    /// on which the group acts as `giant` while its generators may move other orbits too (a
    /// product of giants): the base element is a word that is a 3-cycle on `orbit` *and the
    /// identity everywhere else*, so its conjugates are too. Such a word exists exactly when the
    /// group contains `Alt(orbit)` fixing every other point; the caller proves that (by the
    /// group's order) before asking, else the search would not end (it is cancellable).
    pub(crate) fn on_orbit(
        group: &PermGroup,
        orbit: &[u32],
        giant: Giant,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantWords, SolveError> {
        let shape = Shape {
            orbit,
            giant,
            blocks: None,
            free: &[],
        };
        GiantWords::build(group, shape, effort, ctx, budget_bytes, limit_name)
    }

    /// The same for `Alt(orbit)` in a product of giants, written before the orbits `later`
    /// (each point increasing): the base element is a 3-cycle on `orbit`, the identity off it
    /// and `later`, and any permutation even on each later orbit. It is the power of a random
    /// word that need not kill the cycles on `later`, so it is as short as for a giant of the
    /// orbit's degree alone, where fixing `later` too would cost a power killing their cycles
    /// as well. Each word then comes with its action on `later`
    /// ([`word_of_leading`](Self::word_of_leading)), which the later orbits' words undo. The
    /// caller proves that the group contains `Alt(orbit)` fixing every other point.
    pub(crate) fn on_orbit_before(
        group: &PermGroup,
        orbit: &[u32],
        later: &[Vec<u32>],
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantWords, SolveError> {
        let shape = Shape {
            orbit,
            giant: Giant::Alternating,
            blocks: None,
            free: later,
        };
        GiantWords::build(group, shape, effort, ctx, budget_bytes, limit_name)
    }

    /// Words for `Π Alt(B)` over the `blocks` of a block system of `group` on one of its orbits
    /// (disjoint, of one size `b >= 3`, together that orbit; the 3-cycles found fix every other
    /// point), a subgroup of `group`:
    /// the members even on every block that map each block onto itself (the bottom of the kernel
    /// of `Sym(100) wr Sym(2)` on its blocks). The base element is a 3-cycle of the group (every
    /// 3-cycle of a group preserving blocks of at least three points lies in one block), and the
    /// trees act on all moved points: the first maps the base element's first point anywhere,
    /// the next two stay in its block (on blocks of three or four points, see
    /// [`append_three_cycle`](Self::append_three_cycle)). The caller proves that the group
    /// contains every `Alt(B)` (by the kernel's order) before asking, else the search would not
    /// end (it is cancellable).
    pub(crate) fn on_blocks(
        group: &PermGroup,
        blocks: &[Vec<u32>],
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantWords, SolveError> {
        GiantWords::on_blocks_before(group, blocks, &[], effort, ctx, budget_bytes, limit_name)
    }

    /// The same, written before the alternating groups of the blocks `later` of other orbits (as
    /// [`on_orbit_before`](Self::on_orbit_before) is before later orbits): the base element
    /// may act on their points by any permutation that maps each of those blocks onto itself,
    /// even on each.
    pub(crate) fn on_blocks_before(
        group: &PermGroup,
        blocks: &[Vec<u32>],
        later: &[Vec<u32>],
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantWords, SolveError> {
        let mut orbit: Vec<u32> = blocks.concat();
        orbit.sort_unstable();
        let later: Vec<Vec<u32>> = later
            .iter()
            .map(|block| {
                let mut block = block.clone();
                block.sort_unstable();
                block
            })
            .collect();
        let shape = Shape {
            orbit: &orbit,
            giant: Giant::Alternating,
            blocks: Some(blocks),
            free: &later,
        };
        GiantWords::build(group, shape, effort, ctx, budget_bytes, limit_name)
    }

    /// The structure for `shape` (see [`GiantWords::on_orbit`] and [`GiantWords::on_blocks`]).
    fn build(
        group: &PermGroup,
        shape: Shape,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GiantWords, SolveError> {
        let Shape {
            orbit,
            giant,
            blocks,
            free,
        } = shape;
        debug_assert!(free.is_empty() || giant == Giant::Alternating);
        let all_moved = MovedPoints::of(group);
        let points = MovedPoints::from_points(group.degree(), orbit);
        let (degree, m) = (points.degree(), points.len());
        let rest_points =
            (!free.is_empty()).then(|| MovedPoints::from_points(degree, &free.concat()));
        // The trees' edges act on the orbit's points, then on the free points.
        let n = m + rest_points.as_ref().map_or(0, MovedPoints::len);
        let orders = GeneratorOrders::of(group.generators());
        let edges_on = |points: &MovedPoints, rest: Option<&MovedPoints>| -> Vec<Edge> {
            let action = |points: &MovedPoints, g: &Perm| {
                points
                    .restrict_action(g)
                    .expect("a generator permutes its group's orbits")
            };
            group
                .generators()
                .iter()
                .enumerate()
                .filter_map(|(i, g)| {
                    let mut perm = action(points, g);
                    let moves = perm.iter().enumerate().any(|(x, &y)| x as u32 != y);
                    if let Some(rest) = rest {
                        let after = points.len() as u32;
                        perm.extend(action(rest, g).into_iter().map(|y| after + y));
                    }
                    let perm = perm.into_boxed_slice();
                    moves.then(|| Edge {
                        inv: invert(&perm),
                        perm,
                        word: Word::letter(i as u32, 1, &orders),
                    })
                })
                .filter(|e| !e.word.is_identity())
                .collect()
        };
        let generators = edges_on(&points, rest_points.as_ref());
        // Sym: an odd generator exists (even ones generate a subgroup of Alt).
        let odd = match giant {
            Giant::Alternating => None,
            Giant::Symmetric => generators
                .iter()
                .find(|e| !is_even(&e.perm))
                .map(|e| (e.inv.clone(), e.word.clone())),
        };
        // The trees' generators: three levels of at most a few dozen permutations, two arrays
        // each (on the free points too), and three arrays of m per tree.
        // A walk over the other orbits too keeps every generator on all moved points.
        let fixed = 4 * (LEVEL_GENERATORS as u64 * 4 + generators.len() as u64) * 8 * n as u64
            + 3 * 12 * m as u64
            + 8 * (n - m) as u64
            + if all_moved.len() == m {
                0
            } else {
                group.generators().len() as u64 * 8 * all_moved.len() as u64
            };
        let charge = |bytes: u64| -> Result<(), SolveError> {
            if bytes > budget_bytes {
                return Err(SolveError::limit_shown(
                    format!("words of the giant of degree {degree} ({bytes} bytes)"),
                    limit_name,
                    budget_bytes,
                    format!("{budget_bytes} bytes ({limit_name})"),
                )
                .requested(bytes));
            }
            Ok(())
        };
        charge(fixed)?;
        let charge_letters = |letters: u128| {
            charge(
                fixed.saturating_add(
                    u64::try_from(letters)
                        .unwrap_or(u64::MAX)
                        .saturating_mul(LETTER_BYTES),
                ),
            )
        };
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let (support, base_word, rest) = if all_moved.len() == m {
            let walker = Walker {
                generators: &generators,
                orders: &orders,
                m,
            };
            let found = short_three_cycle(&walker, None, effort, &mut rng, ctx, &charge_letters)?;
            (found.points, found.word, None)
        } else {
            // The walk follows every moved point, so the power is known to fix the other orbits
            // (but the free ones).
            let walk_edges = edges_on(&all_moved, None);
            let roles: Vec<Role> = all_moved
                .points()
                .iter()
                .map(|x| {
                    let free_orbit = || free.iter().position(|o| o.binary_search(x).is_ok());
                    if orbit.binary_search(x).is_ok() {
                        Role::Cycle
                    } else if let Some(j) = free_orbit() {
                        Role::Free(j as u32)
                    } else {
                        Role::Fixed
                    }
                })
                .collect();
            let walker = Walker {
                generators: &walk_edges,
                orders: &orders,
                m: all_moved.len(),
            };
            let search = |roles: &[Role], rng: &mut ChaCha8Rng| {
                short_three_cycle(&walker, Some(roles), effort, rng, ctx, &charge_letters)
            };
            let mut found = search(&roles, &mut rng)?;
            // Fixing two or more other orbits: perhaps shorter as a commutator of two 3-cycles
            // each fixing one side of them (see `commutator_of_sides`).
            if free.is_empty()
                && let Some([one, other]) = two_sides(group, orbit, &all_moved)
            {
                // The other side's fixed points become free.
                let fixing = |side: &[bool]| -> Vec<Role> {
                    roles
                        .iter()
                        .zip(side)
                        .map(|(&role, &on_side)| match role {
                            Role::Fixed if !on_side => Role::Free(0),
                            role => role,
                        })
                        .collect()
                };
                let x = search(&fixing(&one), &mut rng)?;
                let y = search(&fixing(&other), &mut rng)?;
                if let Some(c) = commutator_of_sides(&walker, &x, &y, &mut rng)
                    && c.word.len() < found.word.len()
                {
                    found = c;
                }
            }
            let rest = rest_points.map(|rest_points| {
                let base: Box<[u32]> = rest_points
                    .points()
                    .iter()
                    .map(|&x| {
                        let y = found.perm[all_moved.inner(x) as usize];
                        rest_points.inner(all_moved.points()[y as usize])
                    })
                    .collect();
                Rest {
                    points: rest_points,
                    base_inv: invert(&base),
                    base,
                }
            });
            (
                found
                    .points
                    .map(|x| points.inner(all_moved.points()[x as usize])),
                found.word,
                rest,
            )
        };
        let bytes = fixed
            + base_word.letters().len() as u64 * LETTER_BYTES
            + blocks.map_or(0, |_| 4 * m as u64);
        charge(bytes)?;
        // The orbit each level's tree must reach: the point stabilisers of a giant are
        // transitive on the points left; on blocks, after the first point, on its block's.
        let block_of: Option<Vec<u32>> = blocks.map(|blocks| {
            let mut block_of = vec![NONE; m];
            for (i, block) in blocks.iter().enumerate() {
                block
                    .iter()
                    .for_each(|&x| block_of[points.inner(x) as usize] = i as u32);
            }
            block_of
        });
        let reach = |j: usize| match blocks {
            Some(blocks) if j > 0 => blocks[0].len() - j,
            _ => m - j,
        };
        // On blocks of three or four points one or two trees (see `append_three_cycle`).
        let trees = match blocks.map(|b| b[0].len()) {
            Some(3) => 1,
            Some(4) => 2,
            _ => 3,
        };
        // A level stops gathering Schreier generators once their orbit is the stabiliser's, but
        // they may generate less than the stabiliser (on blocks of ten points, a group whose
        // two-point stabiliser fixes the rest of the block): a level falling short sends the one
        // above back for more, until that one has all of its Schreier generators.
        let mut levels: Vec<TreeLevel> = Vec::with_capacity(trees);
        levels.push(TreeLevel::new(support[0], generators, m));
        let (mut at_least, mut complete) = ([LEVEL_GENERATORS; 3], [true; 3]);
        while levels.len() < trees {
            ctx.check()?;
            let j = levels.len();
            let (level, all) = stabiliser_level(
                &levels[j - 1],
                (support[j], reach(j)),
                at_least[j],
                (m, n),
                &orders,
                &mut rng,
            );
            if level.orbit_len() == reach(j) {
                levels.push(level);
                complete[j] = all;
                continue;
            }
            if complete[j - 1] {
                return Err(SolveError::Panicked(format!(
                    "the stabiliser of {j} points of a proven giant on {m} points has an orbit of {} points",
                    level.orbit_len()
                )));
            }
            at_least[j - 1] *= 4;
            charge(bytes + at_least[j - 1] as u64 * 16 * n as u64)?;
            levels.pop();
        }
        Ok(GiantWords {
            points,
            orders,
            base_word,
            base_points: support,
            levels,
            odd,
            block_of,
            rest,
            bytes,
        })
    }

    /// Bytes held (trees' generators and the base element's word).
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The length of the base element's word (for benchmarks).
    pub(crate) fn base_len(&self) -> u64 {
        self.base_word.len()
    }

    /// The base element's word: a 3-cycle of the moved points (or of the blocks' points), and
    /// even on the points it may move beside them.
    pub(crate) fn base_word(&self) -> &Word {
        &self.base_word
    }

    /// The word of `g`, `Ok(None)` when `g` is not a member, `Err(letters)` as soon as the word
    /// would be longer than `budget` allows.
    pub(crate) fn word_of(&self, g: &Perm, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
        let Some(inner) = self.points.restrict(g) else {
            return Ok(None);
        };
        let mut word = Word::identity();
        Ok(self
            .append_word_of_inner(inner, &mut word, budget)?
            .then_some(word))
    }

    /// Appends to `word` the word of the permutation `inner` of the orbit's points (numbered in
    /// increasing order, as [`MovedPoints`] numbers them), piece by piece, `budget` counting
    /// all of `word`: `Ok(false)` when it is not in the giant (odd for `Alt`; `word` is then to
    /// be dropped), `Err(letters)` as soon as `budget` stops the word.
    pub(crate) fn append_word_of_inner(
        &self,
        inner: Vec<u32>,
        word: &mut Word,
        budget: LetterBudget<'_>,
    ) -> Result<bool, u64> {
        debug_assert!(self.rest.is_none(), "the free points' action is dropped");
        Ok(self.append_word_and_rest(inner, word, budget)?.is_some())
    }

    /// Appends to `word` the word `w` of the action on the orbit's points of `z` (images of
    /// all points), when this structure is written before others
    /// ([`on_orbit_before`](Self::on_orbit_before), [`on_blocks_before`](Self::on_blocks_before)):
    /// `w` also moves their points, so `z` is replaced there by `w⁻¹ · z` (which maps `x^w` to
    /// `x^z`), what they are to write. Appended piece by piece, so that `budget` (for the whole
    /// `word`) is checked after each and no long part is copied again. `Ok(false)` when the
    /// action is not in the giant (`word` is then to be dropped), `Err(letters)` as soon as
    /// `budget` stops the word.
    pub(crate) fn append_word_of_leading(
        &self,
        z: &mut [u32],
        word: &mut Word,
        budget: LetterBudget<'_>,
    ) -> Result<bool, u64> {
        let Some(inner) = self.points.restrict_images(z) else {
            return Ok(false);
        };
        let Some(rest) = self.append_word_and_rest(inner, word, budget)? else {
            return Ok(false);
        };
        if let Some(r) = &self.rest {
            let later = r.points.points();
            let before: Vec<u32> = later.iter().map(|&x| z[x as usize]).collect();
            for (&image, z_of_x) in rest.iter().zip(before) {
                z[later[image as usize] as usize] = z_of_x;
            }
        }
        Ok(true)
    }

    /// Like [`append_word_of_inner`](Self::append_word_of_inner), returning the word's action
    /// on the free points (images of their numbers in increasing order; empty without them),
    /// `None` for a non-member.
    fn append_word_and_rest(
        &self,
        inner: Vec<u32>,
        w: &mut Word,
        budget: LetterBudget<'_>,
    ) -> Result<Option<Vec<u32>>, u64> {
        let m = self.points.len() as u32;
        // The free points' images, numbered after the orbit's as the trees' edges number them.
        let mut rest: Vec<u32> = match &self.rest {
            Some(r) => (m..m + r.points.len() as u32).collect(),
            None => Vec::new(),
        };
        let mut even = inner;
        if let Some((odd_inv, odd_word)) = &self.odd
            && !is_even(&even)
        {
            // g = s · (s⁻¹ g): first the odd generator, then an even permutation.
            w.append(odd_word, &self.orders);
            even = (0..even.len()).map(|x| even[odd_inv[x] as usize]).collect();
        }
        let mut transpositions = transpositions_of(&even);
        if let Some(block_of) = &self.block_of {
            // Block by block, so that each pair below lies in one block; an odd block, or a
            // transposition across two, and it is not a member.
            let block = |(a, _): (u32, u32)| block_of[a as usize];
            if transpositions
                .iter()
                .any(|&(a, b)| block_of[a as usize] != block_of[b as usize])
            {
                return Ok(None);
            }
            transpositions.sort_by_key(|&t| block(t));
            let odd_block = transpositions
                .chunk_by(|&s, &t| block(s) == block(t))
                .any(|run| run.len() % 2 == 1);
            if odd_block {
                return Ok(None);
            }
        }
        if transpositions.len() % 2 == 1 {
            return Ok(None);
        }
        let mut piece = |targets: [u32; 3]| -> Result<(), u64> {
            self.append_three_cycle(w, &mut rest, targets);
            budget.check(w.len())?;
            Ok(())
        };
        for pair in transpositions.chunks(2) {
            let ((a, b), (c, d)) = (pair[0], pair[1]);
            if a == c || a == d || b == c || b == d {
                piece(three_cycle((a, b), (c, d)))?;
            } else {
                piece(three_cycle((a, b), (b, c)))?;
                piece(three_cycle((b, c), (c, d)))?;
            }
        }
        rest.iter_mut().for_each(|y| *y -= m);
        Ok(Some(rest))
    }

    /// Appends to `w` a word of the 3-cycle `(a b c)`: conjugates `u⁻¹ e^{±1} u` of the base
    /// element `e = (p q r)` by words `u` from the trees. With three trees `u` maps `p, q, r`
    /// onto `a, b, c`. On blocks of three points (one tree) `u` maps `p` onto `a`, so `e^u` is
    /// `(a b c)` or its inverse. On blocks of four (two trees; the two-point stabiliser of
    /// `Alt(4)` is trivial) `u` maps `p, q` onto `a, x`, so `e^u = (a x y)` with `y` one of
    /// the other two points: `(a b c)` itself, or `(a c b)` inverted, or else both are
    /// `(a b d)` and `(a c d)` (`d` the block's fourth point) and `(a b c) = (a b d)·(a d c)`.
    /// With free points, `rest` (their images so far, numbered after the orbit's) is mapped by
    /// each conjugate too.
    fn append_three_cycle(&self, w: &mut Word, rest: &mut [u32], [a, b, c]: [u32; 3]) {
        let m = self.points.len() as u32;
        let mut conjugate = |w: &mut Word, chosen: &[u32], inverse: bool| {
            let u = self.conjugator_of(chosen);
            w.append_inverse(&u, &self.orders);
            if inverse {
                w.append_inverse(&self.base_word, &self.orders);
            } else {
                w.append(&self.base_word, &self.orders);
            }
            w.append(&u, &self.orders);
            if let Some(r) = &self.rest {
                // u = w_{c-1} ⋯ w_0 (see `conjugator_of`): u⁻¹ applies w_0⁻¹ first.
                let levels = || self.levels.iter().zip(chosen);
                levels().for_each(|(level, &p)| level.apply_rep_to_all(p, rest, true));
                let base = if inverse { &r.base_inv } else { &r.base };
                rest.iter_mut()
                    .for_each(|y| *y = m + base[(*y - m) as usize]);
                levels()
                    .rev()
                    .for_each(|(level, &p)| level.apply_rep_to_all(p, rest, false));
            }
        };
        let [_, q, r] = self.base_points;
        match self.levels.len() {
            1 => {
                let to_a = self.chosen(&[a]);
                conjugate(w, &to_a, self.image_under(&to_a, q) != b);
            }
            2 => {
                let (to_ab, to_ac) = (self.chosen(&[a, b]), self.chosen(&[a, c]));
                if self.image_under(&to_ab, r) == c {
                    conjugate(w, &to_ab, false);
                } else if self.image_under(&to_ac, r) == b {
                    conjugate(w, &to_ac, true);
                } else {
                    conjugate(w, &to_ab, false);
                    conjugate(w, &to_ac, true);
                }
            }
            _ => conjugate(w, &self.chosen(&[a, b, c]), false),
        }
    }

    /// The image of `x` under the element whose word [`conjugator_of`](Self::conjugator_of)
    /// writes for the trees' points `chosen`.
    fn image_under(&self, chosen: &[u32], x: u32) -> u32 {
        self.levels
            .iter()
            .zip(chosen)
            .rev()
            .fold(x, |x, (level, &p)| level.apply_rep_of(p, x))
    }

    /// The word of an element `u` with `support[j]^u = targets[j]` for every `j`, from the
    /// trees' points `chosen` for the targets ([`chosen`](Self::chosen)): `u = w_{c-1} ⋯ w_0`
    /// with `w_j` the representative of level `j` for `chosen[j]`.
    fn conjugator_of(&self, chosen: &[u32]) -> Word {
        let mut u = Word::identity();
        for (level, &p) in self.levels.iter().zip(chosen).rev() {
            u.append(&level.word_to(p, &self.orders), &self.orders);
        }
        u
    }

    /// The trees' points for `targets`: level `j`'s is the image of `targets[j]` under
    /// `(w_{j-1} ⋯ w_0)⁻¹`.
    fn chosen(&self, targets: &[u32]) -> Vec<u32> {
        let mut chosen: Vec<u32> = Vec::with_capacity(targets.len());
        for (j, &a) in targets.iter().enumerate() {
            let mut t = a;
            for (level, &p) in self.levels.iter().zip(&chosen) {
                t = level.apply_inverse_of(p, t);
            }
            debug_assert_ne!(self.levels[j].parent[t as usize], NONE);
            chosen.push(t);
        }
        chosen
    }
}

/// The tree of the stabiliser of `above.root` (within `above`'s group), rooted at `root`: its
/// generators are Schreier generators `u_p · s · u_{p^s}⁻¹` of `above`, from its shallowest
/// points first (shortest words), at least `at_least` of them, added until the tree reaches
/// `target` points (the orbit of `root` under the whole stabiliser). Also returns whether every
/// Schreier generator was taken: then the tree's group is the whole stabiliser (Schreier's
/// lemma), else it may be a smaller group with the same orbit. The trees work on `m` points, their
/// edges act on `n >= m` (the free points after them, see [`Rest`]).
fn stabiliser_level(
    above: &TreeLevel,
    (root, target): (u32, usize),
    at_least: usize,
    (m, n): (usize, usize),
    orders: &GeneratorOrders,
    rng: &mut ChaCha8Rng,
) -> (TreeLevel, bool) {
    let mut points: Vec<u32> = (0..m as u32)
        .filter(|&p| above.parent[p as usize] != NONE)
        .collect();
    // Shallow points first, in random order within a depth.
    points.shuffle(rng);
    points.sort_by_key(|&p| above.depth[p as usize]);
    let mut edges: Vec<Edge> = Vec::new();
    let mut level = TreeLevel::new(root, Vec::new(), m);
    let mut wanted = at_least;
    let mut all = true;
    'points: for &p in &points {
        let up: Vec<u32> = above.perm_to(p, n);
        for s in &above.edges {
            for dir in 0..2 {
                let step = if dir == 0 { &s.perm } else { &s.inv };
                let q = step[p as usize];
                if above.parent[q as usize] == NONE {
                    continue;
                }
                // u_p s u_q^-1 fixes the root of `above`.
                let uq = above.perm_to(q, n);
                let uq_inv = invert(&uq);
                let perm: Box<[u32]> = up
                    .iter()
                    .map(|&x| uq_inv[step[x as usize] as usize])
                    .collect();
                // The trees see only the first m points.
                if perm[..m].iter().enumerate().all(|(x, &y)| x as u32 == y)
                    || edges.iter().any(|e| e.perm[..m] == perm[..m])
                {
                    continue;
                }
                let mut word = above.word_to(p, orders);
                if dir == 0 {
                    word.append(&s.word, orders);
                } else {
                    word.append_inverse(&s.word, orders);
                }
                word.append_inverse(&above.word_to(q, orders), orders);
                edges.push(Edge {
                    inv: invert(&perm),
                    perm,
                    word,
                });
                if edges.len() >= wanted {
                    level = TreeLevel::new(root, std::mem::take(&mut edges), m);
                    if level.orbit_len() >= target {
                        all = false;
                        break 'points;
                    }
                    edges = std::mem::take(&mut level.edges);
                    wanted += LEVEL_GENERATORS;
                }
            }
        }
    }
    if !edges.is_empty() {
        level = TreeLevel::new(root, edges, m);
    }
    (level, all)
}

/// A permutation (images of `0..m`) as transpositions multiplied left to right: each cycle
/// `(a1 a2 … ak)` as `(a1 a2)(a1 a3)…(a1 ak)`.
fn transpositions_of(images: &[u32]) -> Vec<(u32, u32)> {
    let mut seen = vec![false; images.len()];
    let mut out = Vec::new();
    for start in 0..images.len() as u32 {
        if seen[start as usize] {
            continue;
        }
        seen[start as usize] = true;
        let mut x = images[start as usize];
        while x != start {
            seen[x as usize] = true;
            out.push((start, x));
            x = images[x as usize];
        }
    }
    out
}

/// The 3-cycle `(a b)(c d)` (left to right) of two transpositions sharing one point, as the
/// images `[x, x', x'']` of one of its points.
fn three_cycle(first: (u32, u32), second: (u32, u32)) -> [u32; 3] {
    let apply = |t: (u32, u32), x: u32| {
        if x == t.0 {
            t.1
        } else if x == t.1 {
            t.0
        } else {
            x
        }
    };
    let product = |x: u32| apply(second, apply(first, x));
    let x = first.0;
    let y = product(x);
    [x, y, product(y)]
}

/// Whether a permutation (images of `0..m`) is even: `m` minus its number of cycles is even.
fn is_even(p: &[u32]) -> bool {
    let mut seen = vec![false; p.len()];
    let mut cycles = 0;
    for start in 0..p.len() {
        if !seen[start] {
            cycles += 1;
            let mut x = start;
            while !seen[x] {
                seen[x] = true;
                x = p[x] as usize;
            }
        }
    }
    (p.len() - cycles).is_multiple_of(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpositions_multiply_back_to_the_cycles() {
        // (0 3 1)(2 4): 0->3, 3->1, 1->0, 2->4, 4->2.
        let images = [3u32, 0, 4, 1, 2];
        let ts = transpositions_of(&images);
        let mut x: Vec<u32> = (0..5).collect();
        for &(a, b) in &ts {
            for y in x.iter_mut() {
                if *y == a {
                    *y = b;
                } else if *y == b {
                    *y = a;
                }
            }
        }
        assert_eq!(x, images);
    }

    #[test]
    fn three_cycle_of_two_transpositions() {
        // (0 1)(0 2) left to right: 0 -> 1, 1 -> 0 -> 2, 2 -> 0.
        assert_eq!(three_cycle((0, 1), (0, 2)), [0, 1, 2]);
    }
}
