//! The actions a group's words are written through ([`super::action_kernel`]): a member's
//! image under an [`Action`] (on one orbit, on the blocks of a block system, or on invariant
//! lines), and which actions to try for a group, in which order ([`choose_actions`],
//! [`OrbitBlocks`]).
//!
//! # Complexity
//! A member's image: `O(d)` (`O(d log d)` on lines). Choosing: the minimal blocks, `O(n² k)` per
//! orbit of `n` points, and the image groups of the orbits tried.
//!
//! # Reference
//! Seress, *Permutation Group Algorithms* (2003), §5.5 (block systems) and §6.1 (working with
//! homomorphisms: images and kernels).

use std::collections::HashMap;

use num_bigint::BigUint;

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::giant_recognition::Giant;
use crate::group::invariant_lines::action_on_lines;
use crate::group::minimal_blocks::minimal_blocks;
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

/// Outside the orbit, the blocks or the lines.
const NONE: u32 = u32::MAX;
/// Seed of the search for invariant lines (the lines found depend on it, their correctness does
/// not; the value the words' figures were measured with).
const LINES_SEED: u64 = 0x0b1d_4e55;
/// Largest orbit whose minimal blocks are searched: the search takes `O(n² k)` time (0.1 s or
/// so at this size), and words are promised up to degree 1,000.
const MAX_BLOCK_SEARCH_POINTS: usize = 4_096;
/// Orbits of an intransitive group whose actions are tried, largest first.
const ORBITS_TRIED: usize = 4;

/// The action: how a member's image is computed.
#[derive(Debug)]
pub(super) enum Action {
    /// On one orbit: `slot[x]` is the number of point `x` in it (`NONE` outside).
    Orbit { points: Vec<u32>, slot: Vec<u32> },
    /// On the blocks of a block system: `block_of[x]` (`NONE` outside the orbit), and one
    /// point of each block.
    Blocks {
        block_of: Vec<u32>,
        representatives: Vec<u32>,
    },
    /// On invariant lines (sorted point sets), each with its number.
    Lines {
        lines: Vec<Vec<u32>>,
        number: HashMap<Vec<u32>, u32>,
    },
}

impl Action {
    /// The number of points `H` acts on.
    pub(super) fn degree(&self) -> usize {
        match self {
            Action::Orbit { points, .. } => points.len(),
            Action::Blocks {
                representatives, ..
            } => representatives.len(),
            Action::Lines { lines, .. } => lines.len(),
        }
    }

    /// Bytes held (the lines twice: in the list and as the map's keys, with the map's slots).
    pub(super) fn bytes(&self) -> u64 {
        match self {
            Action::Orbit { points, slot } => 4 * (points.len() + slot.len()) as u64,
            Action::Blocks {
                block_of,
                representatives,
            } => 4 * (block_of.len() + representatives.len()) as u64,
            Action::Lines { lines, .. } => lines
                .iter()
                .map(|l| 2 * (4 * l.len() as u64 + 24) + 16)
                .sum(),
        }
    }

    /// The image of `g`, or `None` when `g` does not act on the orbit or the blocks (it is not a
    /// member). O(d).
    pub(super) fn image(&self, g: &Perm) -> Option<Perm> {
        let images = match self {
            Action::Orbit { points, slot } => points
                .iter()
                .map(|&x| slot[g.image(x) as usize])
                .collect::<Vec<u32>>(),
            Action::Blocks {
                block_of,
                representatives,
            } => representatives
                .iter()
                .map(|&x| block_of[g.image(x) as usize])
                .collect(),
            Action::Lines { lines, number } => {
                let mut image = Vec::new();
                lines
                    .iter()
                    .map(|line| {
                        image.clear();
                        image.extend(line.iter().map(|&x| g.image(x)));
                        image.sort_unstable();
                        number.get(&image).copied().unwrap_or(NONE)
                    })
                    .collect()
            }
        };
        if images.contains(&NONE) {
            return None;
        }
        Perm::from_images(images, "an image").ok()
    }
}

/// An action, the parts its kernel maps onto themselves (the blocks, or the other orbits), and
/// its image group.
pub(super) type ChosenAction = (Action, Vec<Vec<u32>>, PermGroup);

/// An action to try: built with its image group, or on an orbit whose image group is built
/// when it is tried (at most one image held at a time).
pub(super) enum Candidate {
    Built(Box<ChosenAction>),
    Orbit(Action, Vec<Vec<u32>>),
}

impl Candidate {
    pub(super) fn build(
        self,
        generators: &[Perm],
        ctx: &SolveContext,
        limits: &Limits,
    ) -> Result<ChosenAction, SolveError> {
        Ok(match self {
            Candidate::Built(chosen) => *chosen,
            Candidate::Orbit(action, parts) => {
                let image = image_group(&action, generators, ctx, limits)?;
                (action, parts, image)
            }
        })
    }
}

/// The actions to write words through, in the order to try them, each with the parts its
/// kernel maps onto themselves: for a transitive group its action on minimal blocks (or, for a
/// primitive one, on invariant lines; none when it has neither); for an intransitive one its
/// actions on its [`ORBITS_TRIED`] largest orbits (only the first whose image is the whole
/// group: its kernel is trivial), giant images last, the others the largest image first.
/// Through a giant the kernel is the rest of the group, which the series may not take
/// (`AGL(6,3) × Sym(200)`, each generator moving both orbits: through `Sym(200)` the kernel is
/// `AGL(6,3)`, not solvable; through `AGL(6,3)` it is `Sym(200)`, a part with its alternating
/// group); any kernel may be declined, so the others follow.
pub(super) fn choose_actions(
    group: &PermGroup,
    generators: &[Perm],
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<Vec<Candidate>, SolveError> {
    let degree = group.degree();
    let mut orbits: Vec<&Vec<u32>> = group.orbits_ref().iter().filter(|o| o.len() > 1).collect();
    if orbits.len() == 1 {
        let orbit = orbits[0];
        if orbit.len() > MAX_BLOCK_SEARCH_POINTS {
            return Ok(Vec::new());
        }
        let Some(blocks) = minimal_blocks(degree, orbit, generators, ctx)? else {
            // Primitive: a faithful action on fewer lines, if the group moves every point.
            if orbit.len() != degree {
                return Ok(Vec::new());
            }
            let Some(found) = action_on_lines(degree, generators, LINES_SEED, ctx)? else {
                return Ok(Vec::new());
            };
            let number = found
                .lines
                .iter()
                .enumerate()
                .map(|(i, line)| (line.clone(), i as u32))
                .collect();
            let action = Action::Lines {
                lines: found.lines,
                number,
            };
            let image = PermGroup::new(action.degree(), found.images, ctx, limits)?;
            return Ok(vec![Candidate::Built(Box::new((
                action,
                Vec::new(),
                image,
            )))]);
        };
        let mut block_of = vec![NONE; degree];
        let mut representatives = Vec::new();
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for (&x, &b) in orbit.iter().zip(&blocks) {
            block_of[x as usize] = b;
            if b as usize == representatives.len() {
                representatives.push(x);
                parts.push(Vec::new());
            }
            parts[b as usize].push(x);
        }
        parts.iter_mut().for_each(|p| p.sort_unstable());
        let action = Action::Blocks {
            block_of,
            representatives,
        };
        let image = image_group(&action, generators, ctx, limits)?;
        return Ok(vec![Candidate::Built(Box::new((action, parts, image)))]);
    }
    orbits.sort_by_key(|o| std::cmp::Reverse(o.len()));
    let on_orbit = |orbit: &[u32]| {
        let mut points = orbit.to_vec();
        points.sort_unstable();
        let mut slot = vec![NONE; degree];
        for (i, &x) in points.iter().enumerate() {
            slot[x as usize] = i as u32;
        }
        Action::Orbit { points, slot }
    };
    // The images' orders and whether each is a giant (each image dropped once its order is
    // known).
    let mut orders: Vec<(bool, BigUint, usize)> = Vec::new();
    for (i, orbit) in orbits.iter().take(ORBITS_TRIED).enumerate() {
        let order = image_group(&on_orbit(orbit), generators, ctx, limits)?.order();
        if order == group.order() {
            orders = vec![(false, order, i)];
            break;
        }
        let giant = orbit.len() >= 5 && Giant::of_order(&order, orbit.len()).is_some();
        orders.push((giant, order, i));
    }
    // Giant images last: through the other orbits the kernel holds the giant's alternating
    // group, a part written by the giants' 3-cycles, while through the giant the kernel is the
    // rest, whatever it is (`Sym(4) wr Sym(40)` beside `Sym(100)`: through `Sym(100)` the
    // kernel is the wreath product, its words in long kernel elements). Then the largest image
    // first; ties in the order of the orbits (largest first).
    orders.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    // The kernel acts on the other orbits: their signs first.
    Ok(orders
        .into_iter()
        .map(|(_, _, chosen)| {
            let parts = orbits
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != chosen)
                .map(|(_, o)| {
                    let mut part = o.to_vec();
                    part.sort_unstable();
                    part
                })
                .collect();
            Candidate::Orbit(on_orbit(orbits[chosen]), parts)
        })
        .collect())
}

/// The minimal blocks of every orbit of an intransitive group, searched once for the actions
/// on them ([`OrbitBlocks::action`]).
pub(super) struct OrbitBlocks<'g> {
    degree: usize,
    /// Each orbit of two or more points, with its minimal blocks (`None`: primitive, or beyond
    /// [`MAX_BLOCK_SEARCH_POINTS`]).
    orbits: Vec<(&'g [u32], Option<Vec<u32>>)>,
}

impl<'g> OrbitBlocks<'g> {
    /// The minimal blocks of each orbit of `group`; `None` when it is transitive.
    ///
    /// Complexity: `O(n² k)` per orbit of `n` points.
    pub(super) fn of(
        group: &'g PermGroup,
        generators: &[Perm],
        ctx: &SolveContext,
    ) -> Result<Option<OrbitBlocks<'g>>, SolveError> {
        let degree = group.degree();
        let orbits: Vec<&[u32]> = group
            .orbits_ref()
            .iter()
            .filter(|o| o.len() > 1)
            .map(|o| o.as_slice())
            .collect();
        if orbits.len() < 2 {
            return Ok(None);
        }
        let orbits = orbits
            .into_iter()
            .map(|orbit| {
                let blocks = if orbit.len() <= MAX_BLOCK_SEARCH_POINTS {
                    minimal_blocks(degree, orbit, generators, ctx)?
                } else {
                    None
                };
                Ok((orbit, blocks))
            })
            .collect::<Result<_, SolveError>>()?;
        Ok(Some(OrbitBlocks { degree, orbits }))
    }

    /// Whether every orbit has blocks of two or more points (none is primitive).
    pub(super) fn every_orbit(&self) -> bool {
        self.orbits.iter().all(|(_, blocks)| blocks.is_some())
    }

    /// Whether the orbit of `x` has blocks of two or more points.
    pub(super) fn has_blocks(&self, x: u32) -> bool {
        self.orbits
            .iter()
            .any(|(orbit, blocks)| blocks.is_some() && orbit.contains(&x))
    }

    /// The action on the blocks of all the orbits at once: the minimal blocks on each
    /// imprimitive orbit, the points themselves on the others and on the orbit that holds the
    /// point `on_points`, if one is given; with its kernel's parts, the blocks of two or more
    /// points (the kernel maps each onto itself). `None` when no orbit is taken by its blocks
    /// (the action would be faithful).
    ///
    /// Why one orbit on its points: through one orbit the kernel's parts are the other orbits,
    /// and a part whose group is beyond a table gets words in its own elements, each a long
    /// power (`PSL(2,7) wr Sym(23)` beside `Sym(136)` beside `PSL(2,7) wr Sym(73)`, through the
    /// last: 6,636 letters of elements of 4,968 letters each); on that orbit's points and the
    /// others' blocks, the kernel is the product over those blocks, of small groups.
    ///
    /// Complexity: `O(d)`.
    pub(super) fn action(&self, on_points: Option<u32>) -> Option<(Action, Vec<Vec<u32>>)> {
        let mut block_of = vec![NONE; self.degree];
        let mut representatives: Vec<u32> = Vec::new();
        let mut parts: Vec<Vec<u32>> = Vec::new();
        for (orbit, blocks) in &self.orbits {
            let first = representatives.len() as u32;
            let blocks = blocks
                .as_ref()
                .filter(|_| !on_points.is_some_and(|x| orbit.contains(&x)));
            let Some(blocks) = blocks else {
                for (i, &x) in orbit.iter().enumerate() {
                    block_of[x as usize] = first + i as u32;
                    representatives.push(x);
                }
                continue;
            };
            let first_part = parts.len();
            for (&x, &b) in orbit.iter().zip(blocks) {
                block_of[x as usize] = first + b;
                if (first + b) as usize == representatives.len() {
                    representatives.push(x);
                    parts.push(Vec::new());
                }
                parts[first_part + b as usize].push(x);
            }
        }
        if parts.is_empty() {
            return None;
        }
        parts.iter_mut().for_each(|p| p.sort_unstable());
        let action = Action::Blocks {
            block_of,
            representatives,
        };
        Some((action, parts))
    }
}

pub(super) fn image_group(
    action: &Action,
    generators: &[Perm],
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<PermGroup, SolveError> {
    let images = generators
        .iter()
        .map(|g| action.image(g).expect("a generator acts"))
        .collect();
    PermGroup::new(action.degree(), images, ctx, limits)
}
