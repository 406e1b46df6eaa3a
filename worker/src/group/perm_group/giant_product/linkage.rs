//! Linkage of the giant orbits (step 2 of the [module documentation](super)): which giant orbits
//! carry one diagonal `Alt(n)`, decided exactly from the generators by searching for a bijection
//! that conjugates every generator's restriction to one orbit into its restriction to the other.

use std::collections::HashMap;

use super::{GiantClass, IntransitiveGenerators};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::perm::Perm;
use crate::group::schreier_sims::NONE;

/// Groups the giant orbits into linkage classes (module documentation, step 2); `giant` flags the
/// orbits compared. The test itself holds for any orbits: two are linked when one bijection
/// between them conjugates every generator's restriction to the one into its restriction to the
/// other (so the group's action on the second is a copy of its action on the first; the orbit
/// constituents and the words' orbit copies use it so).
///
/// Complexity: O(d · k) for the invariants and the generators each orbit's points are moved by,
/// plus O(n · k) per candidate bijection; each orbit is compared with one representative per
/// class of its size that its generators also move.
pub(crate) fn link_classes(
    group: &IntransitiveGenerators<'_>,
    giant: &[bool],
    ctx: &SolveContext,
) -> Result<Vec<GiantClass>, SolveError> {
    let &IntransitiveGenerators {
        degree,
        generators,
        orbits,
    } = group;
    let mut orbit_of = vec![NONE; degree];
    for (o, orbit) in orbits.iter().enumerate() {
        if giant[o] {
            for &x in orbit {
                orbit_of[x as usize] = o as u32;
            }
        }
    }
    // The generators moving each giant orbit: linked orbits are moved by the same ones.
    let mut active: Vec<Vec<u32>> = vec![Vec::new(); orbits.len()];
    // An invariant of every point that a linking bijection preserves: the lengths of the cycles
    // through it, generator by generator, hashed.
    let mut invariant = vec![0u64; degree];
    let mut length = vec![0u32; degree];
    for (i, g) in generators.iter().enumerate() {
        ctx.check()?;
        let img = g.images();
        for (x, &y) in img.iter().enumerate() {
            let o = orbit_of[x];
            if y as usize != x && o != NONE && active[o as usize].last() != Some(&(i as u32)) {
                active[o as usize].push(i as u32);
            }
        }
        length.fill(0);
        for start in 0..degree {
            if length[start] != 0 || orbit_of[start] == NONE {
                continue;
            }
            let mut len = 0u32;
            let mut x = start;
            loop {
                len += 1;
                x = img[x] as usize;
                if x == start {
                    break;
                }
            }
            loop {
                length[x] = len;
                x = img[x] as usize;
                if x == start {
                    break;
                }
            }
        }
        for (h, &l) in invariant.iter_mut().zip(&length) {
            *h = (*h ^ u64::from(l))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29);
        }
    }
    drop(length);
    // Per giant orbit, the multiset of its points' invariants (hashed): equal for linked orbits.
    let mut signature = vec![0u64; orbits.len()];
    let mut sorted: Vec<u64> = Vec::new();
    for (o, orbit) in orbits.iter().enumerate() {
        if giant[o] {
            sorted.clear();
            sorted.extend(orbit.iter().map(|&x| invariant[x as usize]));
            sorted.sort_unstable();
            signature[o] = sorted.iter().fold(orbit.len() as u64, |h, &v| {
                (h ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(31)
            });
        }
    }
    drop(sorted);
    let mut classes: Vec<GiantClass> = Vec::new();
    // Per class: its representative orbit and the anchor point `a` whose invariant is rarest in
    // it, so that few images `φ(a)` are tried.
    let mut reps: Vec<(usize, u32)> = Vec::new();
    let mut search = LinkSearch {
        generators,
        invariant: &invariant,
        phi: vec![NONE; degree],
        inverse: vec![NONE; degree],
        queue: Vec::new(),
    };
    for (o, orbit) in orbits.iter().enumerate() {
        if !giant[o] {
            continue;
        }
        let mut linked = None;
        for (c, &(r, anchor)) in reps.iter().enumerate() {
            if orbits[r].len() != orbit.len()
                || signature[r] != signature[o]
                || active[r] != active[o]
            {
                continue;
            }
            ctx.check()?;
            let link = search.find_link(&orbits[r], anchor, orbit, &active[o], ctx)?;
            if let Some(copy) = link {
                linked = Some((c, copy));
                break;
            }
        }
        match linked {
            Some((c, copy)) => classes[c].copies.push(copy),
            None => {
                let mut count: HashMap<u64, u32> = HashMap::new();
                for &x in orbit {
                    *count.entry(invariant[x as usize]).or_default() += 1;
                }
                let anchor = *orbit
                    .iter()
                    .min_by_key(|&&x| count[&invariant[x as usize]])
                    .expect("an orbit is not empty");
                reps.push((o, anchor));
                classes.push(GiantClass {
                    copies: vec![orbit.clone()],
                });
            }
        }
    }
    Ok(classes)
}

/// The search for linking bijections between giant orbits of the same size: the generators, the
/// invariant of every point (which a linking bijection preserves) and the search's buffers,
/// reused from one pair of orbits to the next.
struct LinkSearch<'a> {
    generators: &'a [Perm],
    /// Per point: the hashed lengths of the cycles through it, generator by generator.
    invariant: &'a [u64],
    /// The bijection `φ` being extended, [`NONE`] where undefined (all [`NONE`] between searches).
    phi: Vec<u32>,
    /// `φ⁻¹`, [`NONE`] where undefined (all [`NONE`] between searches).
    inverse: Vec<u32>,
    /// The points of `rep` reached, in breadth-first order.
    queue: Vec<u32>,
}

impl LinkSearch<'_> {
    /// A bijection `φ: rep → other` with `φ(x^g) = φ(x)^g` for every generator in `active` (the
    /// others fix both orbits pointwise), as `copy[t] = φ(rep[t])`, or `None` if there is none.
    /// Every point `b` of `other` with the invariant of `anchor` (a point of `rep`) is tried as
    /// `φ(anchor)`. The buffers `phi`, `inverse` (all [`NONE`]) and `queue` are restored before
    /// returning.
    ///
    /// Complexity: O(n · |active|) per candidate image of `anchor`, at most `n` candidates.
    fn find_link(
        &mut self,
        rep: &[u32],
        anchor: u32,
        other: &[u32],
        active: &[u32],
        ctx: &SolveContext,
    ) -> Result<Option<Vec<u32>>, SolveError> {
        let &mut LinkSearch {
            generators,
            invariant,
            ref mut phi,
            ref mut inverse,
            ref mut queue,
        } = self;
        let (phi, inverse) = (phi.as_mut_slice(), inverse.as_mut_slice());
        let a = anchor;
        let mut tried = 0usize;
        for &b in other {
            if invariant[b as usize] != invariant[a as usize] {
                continue;
            }
            tried += 1;
            if tried.is_multiple_of(64) {
                ctx.check()?;
            }
            queue.clear();
            phi[a as usize] = b;
            inverse[b as usize] = a;
            queue.push(a);
            let mut head = 0;
            let mut ok = true;
            'bfs: while head < queue.len() {
                let x = queue[head] as usize;
                head += 1;
                let y = phi[x] as usize;
                for &gi in active {
                    let img = generators[gi as usize].images();
                    let (x2, y2) = (img[x], img[y]);
                    let mapped = phi[x2 as usize];
                    if mapped == NONE {
                        if inverse[y2 as usize] != NONE {
                            ok = false;
                            break 'bfs;
                        }
                        phi[x2 as usize] = y2;
                        inverse[y2 as usize] = x2;
                        queue.push(x2);
                    } else if mapped != y2 {
                        ok = false;
                        break 'bfs;
                    }
                }
            }
            // Consistent and injective on the orbit `rep` (the search reaches all of it): a linking
            // bijection onto the orbit `other`.
            let found = ok && queue.len() == rep.len();
            let copy = found.then(|| rep.iter().map(|&x| phi[x as usize]).collect());
            for &x in queue.iter() {
                inverse[phi[x as usize] as usize] = NONE;
                phi[x as usize] = NONE;
            }
            if copy.is_some() {
                return Ok(copy);
            }
        }
        Ok(None)
    }
}
