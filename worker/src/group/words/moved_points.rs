//! [`MovedPoints`]: the points a group's generators move, numbered `0..m`, so that the words'
//! structures work on permutations of the moved points only.

use super::super::perm::Perm;
use super::super::perm_group::PermGroup;

const NONE: u32 = u32::MAX;

/// The moved points of a group, numbered in increasing order.
#[derive(Debug)]
pub(super) struct MovedPoints {
    /// The degree of the group's permutations.
    degree: usize,
    /// Moved point number of each point, `NONE` for points no generator moves.
    to_inner: Vec<u32>,
    /// The moved points, in order.
    moved: Vec<u32>,
}

impl MovedPoints {
    /// The points some generator of `group` moves. O(d · k).
    pub(super) fn of(group: &PermGroup) -> MovedPoints {
        let degree = group.degree();
        let mut to_inner = vec![NONE; degree];
        let mut moved = Vec::new();
        for x in 0..degree as u32 {
            if group.generators().iter().any(|g| g.image(x) != x) {
                to_inner[x as usize] = moved.len() as u32;
                moved.push(x);
            }
        }
        MovedPoints {
            degree,
            to_inner,
            moved,
        }
    }

    /// A set of points closed under the group (an orbit, or a union of orbits), numbered in
    /// increasing order like the moved points. O(d + |points|).
    pub(super) fn from_points(degree: usize, points: &[u32]) -> MovedPoints {
        let mut moved = points.to_vec();
        moved.sort_unstable();
        let mut to_inner = vec![NONE; degree];
        for (i, &x) in moved.iter().enumerate() {
            to_inner[x as usize] = i as u32;
        }
        MovedPoints {
            degree,
            to_inner,
            moved,
        }
    }

    /// The points, in increasing order (point number `i` is `points()[i]`).
    pub(super) fn points(&self) -> &[u32] {
        &self.moved
    }

    /// The number `m` of moved points.
    pub(super) fn len(&self) -> usize {
        self.moved.len()
    }

    /// The degree of the group's permutations.
    pub(super) fn degree(&self) -> usize {
        self.degree
    }

    /// The number of moved point `x` (`x` must be moved).
    pub(super) fn inner(&self, x: u32) -> u32 {
        self.to_inner[x as usize]
    }

    /// `g` as images of the moved points (numbered), or `None` when `g` has another degree,
    /// moves a point no generator moves, or maps a moved point outside them — then it is not a
    /// member. O(d).
    pub(super) fn restrict(&self, g: &Perm) -> Option<Vec<u32>> {
        if g.degree() != self.degree {
            return None;
        }
        for (x, &i) in self.to_inner.iter().enumerate() {
            if i == NONE && g.image(x as u32) != x as u32 {
                return None;
            }
        }
        self.restrict_action(g)
    }

    /// The action of `g` on the points (numbered), whatever it does elsewhere, or `None` when it
    /// maps one of them outside the set (or has another degree). O(|points|).
    pub(super) fn restrict_action(&self, g: &Perm) -> Option<Vec<u32>> {
        self.restrict_images(g.images())
    }

    /// The same for a permutation given by the `images` of all points.
    pub(super) fn restrict_images(&self, images: &[u32]) -> Option<Vec<u32>> {
        if images.len() != self.degree {
            return None;
        }
        let inner: Vec<u32> = self
            .moved
            .iter()
            .map(|&x| self.to_inner[images[x as usize] as usize])
            .collect();
        (!inner.contains(&NONE)).then_some(inner)
    }
}
