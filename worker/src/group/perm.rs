//! Permutations of the points `0..degree`, stored as image arrays.
//!
//! Convention (the one GAP uses): permutations act on the **right**, and a product `p * q` means
//! "first `p`, then `q`", so the image of a point `x` under `p * q` is `q[p[x]]`. Every product in
//! this module, in [`PermGroup`](super::PermGroup) and in its transversals follows that rule.

use crate::error::SolveError;

/// A permutation of `0..degree`: `images[x]` is the image of the point `x` (0-based).
///
/// Invariant: `images` is a bijection of `0..images.len()`; every constructor checks it (or builds
/// it from two permutations).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Perm {
    images: Box<[u32]>,
}

impl std::fmt::Debug for Perm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Perm[{}]{}", self.images.len(), self)
    }
}

impl Perm {
    /// The identity permutation of `0..degree`.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// assert!(Perm::identity(5).is_identity());
    /// ```
    ///
    /// Reference: Seress, *Permutation Group Algorithms* (2003), §1.2.
    pub fn identity(degree: usize) -> Perm {
        Perm {
            images: (0..degree as u32).collect(),
        }
    }

    /// Builds a permutation from its image array (0-based), checking that it is a permutation.
    ///
    /// Arguments: `images[x]` is the image of point `x`; `field` names the array in error
    /// messages (e.g. `group.generators[2]`).
    ///
    /// Returns the permutation, or [`SolveError::InvalidArgument`] whose field is
    /// `field[position]` when an image is outside `0..len` or repeats an earlier image.
    ///
    /// Complexity: O(len) time, O(len) bits of scratch memory.
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::from_images(vec![1, 2, 0], "g").unwrap();
    /// assert_eq!(p.to_string(), "(1,2,3)");
    /// let err = Perm::from_images(vec![1, 1, 0], "g").unwrap_err();
    /// assert_eq!(err.to_string(), "g[1]: image 1 repeats the image of position 0");
    /// ```
    ///
    /// Reference: Seress (2003), §1.2 (permutations as image lists).
    pub fn from_images(images: Vec<u32>, field: &str) -> Result<Perm, SolveError> {
        let n = images.len();
        if n > u32::MAX as usize {
            return Err(SolveError::invalid(field, "more than 2^32-1 points"));
        }
        // For each image, the position that first produced it, so the error can name both.
        let mut first_at = vec![u32::MAX; n];
        for (pos, &img) in images.iter().enumerate() {
            let slot = first_at.get_mut(img as usize).ok_or_else(|| {
                SolveError::invalid(
                    format!("{field}[{pos}]"),
                    format!("image {img} outside 0..{}", n.saturating_sub(1)),
                )
            })?;
            if *slot != u32::MAX {
                return Err(SolveError::invalid(
                    format!("{field}[{pos}]"),
                    format!("image {img} repeats the image of position {}", *slot),
                ));
            }
            *slot = pos as u32;
        }
        Ok(Perm {
            images: images.into_boxed_slice(),
        })
    }

    /// Builds a permutation from an image array the caller knows to be a bijection (internal
    /// constructions: products, inverses, synthesised coset representatives).
    pub(crate) fn from_images_unchecked(images: Box<[u32]>) -> Perm {
        debug_assert!(is_bijection(&images), "not a permutation");
        Perm { images }
    }

    /// Builds a permutation of `0..degree` from disjoint cycles of 0-based points.
    ///
    /// Returns [`SolveError::InvalidArgument`] (field `field`) when a point is outside
    /// `0..degree` or appears twice.
    ///
    /// Complexity: O(degree + total cycle length).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::from_cycles(4, &[vec![0, 1], vec![2, 3]], "p").unwrap();
    /// assert_eq!(p.images(), &[1, 0, 3, 2]);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn from_cycles(
        degree: usize,
        cycles: &[Vec<u32>],
        field: &str,
    ) -> Result<Perm, SolveError> {
        let mut images: Vec<u32> = (0..degree as u32).collect();
        let mut seen = vec![false; degree];
        for (ci, cycle) in cycles.iter().enumerate() {
            for (k, &x) in cycle.iter().enumerate() {
                let xi = x as usize;
                if xi >= degree {
                    return Err(SolveError::invalid(
                        format!("{field}.cycles[{ci}][{k}]"),
                        format!("point {x} outside 0..{}", degree.saturating_sub(1)),
                    ));
                }
                if seen[xi] {
                    return Err(SolveError::invalid(
                        format!("{field}.cycles[{ci}][{k}]"),
                        format!("point {x} repeated"),
                    ));
                }
                seen[xi] = true;
                images[xi] = cycle[(k + 1) % cycle.len()];
            }
        }
        Ok(Perm {
            images: images.into_boxed_slice(),
        })
    }

    /// The number of points, `d` for a permutation of `0..d`.
    ///
    /// Complexity: O(1). Example: `assert_eq!(orbit_worker::group::Perm::identity(3).degree(), 3);`
    ///
    /// Reference: Seress (2003), §1.2.
    #[inline]
    pub fn degree(&self) -> usize {
        self.images.len()
    }

    /// The image array: `images()[x]` is the image of `x`.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// assert_eq!(Perm::identity(2).images(), &[0, 1]);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    #[inline]
    pub fn images(&self) -> &[u32] {
        &self.images
    }

    /// The image of point `x` (0-based). Panics if `x >= degree`.
    ///
    /// Complexity: O(1).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::from_images(vec![2, 0, 1], "p").unwrap();
    /// assert_eq!(p.image(0), 2);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    #[inline]
    pub fn image(&self, x: u32) -> u32 {
        self.images[x as usize]
    }

    /// Whether this is the identity.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// assert!(!Perm::from_images(vec![1, 0], "p").unwrap().is_identity());
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn is_identity(&self) -> bool {
        self.images.iter().enumerate().all(|(i, &x)| i as u32 == x)
    }

    /// The product "first `self`, then `other`" (GAP's `self * other`): `x -> other[self[x]]`.
    ///
    /// Both must have the same degree (panics otherwise).
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let a = Perm::parse_cycles("(1,2)", 3).unwrap();
    /// let b = Perm::parse_cycles("(2,3)", 3).unwrap();
    /// assert_eq!(a.compose(&b).to_string(), "(1,3,2)"); // as GAP: (1,2)*(2,3) = (1,3,2)
    /// ```
    ///
    /// Reference: Seress (2003), §1.2 (right actions); GAP reference manual, "Permutations".
    pub fn compose(&self, other: &Perm) -> Perm {
        assert_eq!(
            self.degree(),
            other.degree(),
            "composing permutations of different degrees"
        );
        let o = &other.images;
        Perm {
            images: self.images.iter().map(|&x| o[x as usize]).collect(),
        }
    }

    /// Overwrites `self` with `a * b` (first `a`, then `b`) without allocating.
    pub(crate) fn set_product(&mut self, a: &Perm, b: &Perm) {
        debug_assert!(self.degree() == a.degree() && a.degree() == b.degree());
        let bi = &b.images;
        for (out, &x) in self.images.iter_mut().zip(a.images.iter()) {
            *out = bi[x as usize];
        }
    }

    /// Sets `self` to the inverse of `a` (of the same degree), without allocating.
    ///
    /// Complexity: O(degree).
    pub(crate) fn set_inverse(&mut self, a: &Perm) {
        debug_assert!(self.degree() == a.degree());
        for (i, &x) in a.images.iter().enumerate() {
            self.images[x as usize] = i as u32;
        }
    }

    /// The inverse permutation.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::parse_cycles("(1,2,3)", 3).unwrap();
    /// assert!(p.compose(&p.inverse()).is_identity());
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn inverse(&self) -> Perm {
        let mut inv = vec![0u32; self.degree()].into_boxed_slice();
        for (i, &x) in self.images.iter().enumerate() {
            inv[x as usize] = i as u32;
        }
        Perm { images: inv }
    }

    /// `self` raised to the power `e` (any integer; negative powers invert), by repeated squaring.
    ///
    /// Complexity: O(degree · log |e|).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::parse_cycles("(1,2,3,4)", 4).unwrap();
    /// assert_eq!(p.pow(2).to_string(), "(1,3)(2,4)");
    /// assert_eq!(p.pow(-1), p.inverse());
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn pow(&self, e: i64) -> Perm {
        let mut base = if e < 0 { self.inverse() } else { self.clone() };
        let mut e = e.unsigned_abs();
        let mut acc = Perm::identity(self.degree());
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.compose(&base);
            }
            e >>= 1;
            if e > 0 {
                base = base.compose(&base);
            }
        }
        acc
    }

    /// The commutator `[self, other] = self⁻¹ · other⁻¹ · self · other` (products left to right,
    /// as GAP's `Comm`), in one pass over the points.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let a = Perm::parse_cycles("(1,2)", 3).unwrap();
    /// let b = Perm::parse_cycles("(2,3)", 3).unwrap();
    /// let product = a.inverse().compose(&b.inverse()).compose(&a).compose(&b);
    /// assert_eq!(a.commutator(&b), product);
    /// assert_eq!(a.commutator(&b).to_string(), "(1,2,3)"); // GAP: Comm((1,2),(2,3))
    /// ```
    ///
    /// Reference: Seress (2003), §1.2; GAP reference manual, `Comm`.
    pub fn commutator(&self, other: &Perm) -> Perm {
        assert_eq!(
            self.degree(),
            other.degree(),
            "the commutator of permutations of different degrees"
        );
        Perm {
            images: commutator(&self.images, &other.images).into_boxed_slice(),
        }
    }

    /// The non-trivial cycles (length >= 2), each starting at its smallest point, ordered by that
    /// point; 0-based.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::from_images(vec![1, 0, 2, 4, 5, 3], "p").unwrap();
    /// assert_eq!(p.cycles(), vec![vec![0, 1], vec![3, 4, 5]]);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn cycles(&self) -> Vec<Vec<u32>> {
        let n = self.degree();
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for start in 0..n {
            if seen[start] || self.images[start] as usize == start {
                continue;
            }
            let mut cycle = Vec::new();
            let mut x = start;
            while !seen[x] {
                seen[x] = true;
                cycle.push(x as u32);
                x = self.images[x] as usize;
            }
            out.push(cycle);
        }
        out
    }

    /// The lengths of all cycles, fixed points included (so they sum to the degree), in the order
    /// of their smallest points.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::parse_cycles("(1,2)(4,5,6)", 6).unwrap();
    /// assert_eq!(p.cycle_lengths(), vec![2, 1, 3]);
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn cycle_lengths(&self) -> Vec<usize> {
        let mut out = Vec::new();
        cycle_lengths_into(&self.images, &mut vec![false; self.degree()], &mut out);
        out
    }

    /// The order of the permutation: the lcm of its cycle lengths.
    ///
    /// Complexity: O(degree) plus the lcm of the distinct lengths.
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// let p = Perm::parse_cycles("(1,2)(4,5,6)", 6).unwrap();
    /// assert_eq!(p.order(), num_bigint::BigUint::from(6u32));
    /// ```
    pub fn order(&self) -> num_bigint::BigUint {
        let mut lengths = self.cycle_lengths();
        lengths.sort_unstable();
        lengths.dedup();
        lengths
            .into_iter()
            .fold(num_bigint::BigUint::from(1u32), |acc, len| {
                num_integer::Integer::lcm(&acc, &num_bigint::BigUint::from(len))
            })
    }

    /// Whether the permutation is even (a product of an even number of transpositions).
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// assert!(Perm::parse_cycles("(1,2,3)", 3).unwrap().is_even());
    /// assert!(!Perm::parse_cycles("(1,2)", 3).unwrap().is_even());
    /// ```
    ///
    /// Reference: Seress (2003), §1.2.
    pub fn is_even(&self) -> bool {
        let n = self.degree();
        (n - self.cycle_lengths().len()).is_multiple_of(2)
    }

    /// The smallest point this permutation moves, or `None` for the identity.
    ///
    /// Complexity: O(degree).
    ///
    /// ```
    /// use orbit_worker::group::Perm;
    /// assert_eq!(Perm::parse_cycles("(3,4)", 5).unwrap().first_moved_point(), Some(2));
    /// ```
    ///
    /// Reference: Seress (2003), §4.2 (choosing base points).
    pub fn first_moved_point(&self) -> Option<u32> {
        self.images
            .iter()
            .enumerate()
            .find(|&(i, &x)| i as u32 != x)
            .map(|(i, _)| i as u32)
    }
}

/// Whether `images` is a bijection of `0..images.len()`.
pub(crate) fn is_bijection(images: &[u32]) -> bool {
    let mut seen = vec![false; images.len()];
    for &x in images {
        match seen.get_mut(x as usize) {
            Some(s) if !*s => *s = true,
            _ => return false,
        }
    }
    true
}

impl std::ops::Mul for &Perm {
    type Output = Perm;

    /// GAP's product: `a * b` is "first `a`, then `b`" (see [`Perm::compose`]).
    fn mul(self, rhs: &Perm) -> Perm {
        self.compose(rhs)
    }
}

/// The cycle lengths (fixed points included, cycles by their least point) of the permutation
/// with these `images`, into `out`; `seen` (of the same length) is scratch space, so that a hot
/// loop allocates nothing.
///
/// Complexity: O(d).
pub(crate) fn cycle_lengths_into(images: &[u32], seen: &mut [bool], out: &mut Vec<usize>) {
    seen.fill(false);
    cycle_lengths_of_unseen(images, seen, out);
}

/// The lengths of the cycles of the permutation with these `images` through the points not yet
/// marked in `seen` (which ends all marked), into `out`: with a union of cycles marked, the
/// cycle lengths on the other points.
///
/// Complexity: O(d).
pub(crate) fn cycle_lengths_of_unseen(images: &[u32], seen: &mut [bool], out: &mut Vec<usize>) {
    out.clear();
    for start in 0..images.len() {
        if seen[start] {
            continue;
        }
        let mut len = 0;
        let mut x = start;
        while !seen[x] {
            seen[x] = true;
            len += 1;
            x = images[x] as usize;
        }
        out.push(len);
    }
}

/// The inverse of a permutation given by its images (of any points `0..n`, without the checks
/// of a [`Perm`]).
///
/// Complexity: `O(n)`.
pub(crate) fn invert(p: &[u32]) -> Box<[u32]> {
    let mut inv = vec![0u32; p.len()].into_boxed_slice();
    for (x, &y) in p.iter().enumerate() {
        inv[y as usize] = x as u32;
    }
    inv
}

/// `[x, y] = x⁻¹y⁻¹xy` of two permutations given by their images (of the same points `0..n`),
/// as images (products left to right). Two permutations whose supports meet in exactly one
/// point have a 3-cycle as their commutator.
///
/// Complexity: `O(n)`.
pub(crate) fn commutator(x: &[u32], y: &[u32]) -> Vec<u32> {
    let (x_inv, y_inv) = (invert(x), invert(y));
    (0..x.len())
        .map(|p| y[x[y_inv[x_inv[p] as usize] as usize] as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_matches_gap_convention() {
        let a = Perm::from_images(vec![1, 0, 2], "a").expect("valid");
        let b = Perm::from_images(vec![0, 2, 1], "b").expect("valid");
        // GAP: (1,2)*(2,3) = (1,3,2): 1->2->3, 3->3->2, 2->1->1.
        assert_eq!((&a * &b).images(), &[2, 0, 1]);
    }

    #[test]
    fn from_images_errors_name_position() {
        let e = Perm::from_images(vec![0, 5, 1], "group.generators[2]").unwrap_err();
        assert_eq!(
            e,
            SolveError::invalid("group.generators[2][1]", "image 5 outside 0..2")
        );
        let e = Perm::from_images(vec![2, 0, 2], "g").unwrap_err();
        assert_eq!(
            e,
            SolveError::invalid("g[2]", "image 2 repeats the image of position 0")
        );
    }

    #[test]
    fn parity_and_pow() {
        let p = Perm::from_cycles(6, &[vec![0, 1, 2, 3], vec![4, 5]], "p").expect("valid");
        assert!(p.is_even());
        assert!(p.pow(4).is_identity());
        assert_eq!(p.pow(3), p.inverse());
    }
}
