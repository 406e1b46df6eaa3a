//! The points a group's generators move, renumbered `0..m`, so that [`PermGroup`](super::PermGroup)
//! works on those points only.

use crate::group::perm::Perm;
use crate::group::schreier_sims::NONE;

/// The points moved by some generator, renumbered `0..m`.
#[derive(Debug)]
pub(super) struct Support {
    /// Outer point -> inner point, or [`NONE`] for a point every generator fixes.
    pub(super) to_inner: Vec<u32>,
    /// Inner point -> outer point.
    pub(super) to_outer: Vec<u32>,
}

impl Support {
    /// `None` when every point is moved (nothing to gain).
    pub(super) fn of(degree: usize, generators: &[Perm]) -> Option<Support> {
        let mut moved = vec![false; degree];
        for g in generators {
            for (x, &y) in g.images().iter().enumerate() {
                if x as u32 != y {
                    moved[x] = true;
                }
            }
        }
        let to_outer: Vec<u32> = (0..degree as u32).filter(|&x| moved[x as usize]).collect();
        if to_outer.len() == degree {
            return None;
        }
        let mut to_inner = vec![NONE; degree];
        for (i, &x) in to_outer.iter().enumerate() {
            to_inner[x as usize] = i as u32;
        }
        Some(Support { to_inner, to_outer })
    }

    /// The restriction of a permutation that fixes every unmoved point.
    pub(super) fn restrict(&self, p: &Perm) -> Perm {
        let img = self
            .to_outer
            .iter()
            .map(|&x| self.to_inner[p.images()[x as usize] as usize]);
        Perm::from_images_unchecked(img.collect())
    }

    /// Writes the restriction of `p` into `out`; `false` if `p` moves an unmoved point (then it
    /// is not in the group).
    pub(super) fn restrict_into(&self, p: &[u32], out: &mut Vec<u32>) -> bool {
        for (x, &inner) in self.to_inner.iter().enumerate() {
            if inner == NONE && p[x] != x as u32 {
                return false;
            }
        }
        out.clear();
        out.extend(
            self.to_outer
                .iter()
                .map(|&x| self.to_inner[p[x as usize] as usize]),
        );
        true
    }

    /// The permutation of all `degree` points acting as `q` on the moved points.
    pub(super) fn expand(&self, q: &Perm, degree: usize) -> Perm {
        let mut img: Vec<u32> = (0..degree as u32).collect();
        for (i, &y) in q.images().iter().enumerate() {
            img[self.to_outer[i] as usize] = self.to_outer[y as usize];
        }
        Perm::from_images_unchecked(img.into_boxed_slice())
    }
}

/// The generators' restrictions to `orbit` (which each maps onto itself), its points numbered in
/// the orbit's order; `local` is scratch of the generators' degree (its entries for the orbit's
/// points are overwritten).
///
/// Complexity: `O(|orbit| · k)` for `k` generators.
pub(crate) fn restrictions_to_orbit(
    orbit: &[u32],
    generators: &[Perm],
    local: &mut [u32],
) -> Vec<Perm> {
    for (i, &x) in orbit.iter().enumerate() {
        local[x as usize] = i as u32;
    }
    generators
        .iter()
        .map(|g| {
            let images = orbit.iter().map(|&x| local[g.image(x) as usize]);
            Perm::from_images_unchecked(images.collect())
        })
        .collect()
}
