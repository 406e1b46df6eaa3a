//! [`ParitySpace`]: `GF(2)` elimination on the sign vectors of permutations on several orbits
//! (bit `i` set: odd on orbit `i`), each basis vector with the set of elements whose product has
//! it; and [`parity_vector`], a permutation's sign vector.
//!
//! # Complexity
//! Inserting or solving: `O(r · (k + w) / 64)` for a basis of `r` vectors of `k` coordinates and
//! combinations over `w` elements; a sign vector `O(d)`.
//!
//! # Reference
//! Gaussian elimination over `GF(2)` on bit sets; the sign of a permutation from its number of
//! cycles (Dixon, Mortimer, *Permutation Groups* (1996), §1.2).

use crate::group::{Perm, PermGroup};

/// Bit sets of `GF(2)` vectors, 64 coordinates a word.
pub(super) type Bits = Vec<u64>;

pub(super) fn flip(bits: &mut Bits, i: usize) {
    bits[i / 64] ^= 1 << (i % 64);
}

fn get(bits: &Bits, i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

fn xor_into(target: &mut Bits, source: &Bits) {
    target.iter_mut().zip(source).for_each(|(t, s)| *t ^= s);
}

/// The sign of `g` on each orbit, as a bit set (bit `i` set: odd on orbit `i`).
pub(super) fn parity_vector(
    g: &Perm,
    orbits: &[Vec<u32>],
    position: &[Option<(u32, u32)>],
) -> Bits {
    let mut signs = vec![0u64; orbits.len().div_ceil(64)];
    for (i, orbit) in orbits.iter().enumerate() {
        if !is_even_on(g, orbit, position) {
            flip(&mut signs, i);
        }
    }
    signs
}

/// Whether `g` (mapping `orbit` onto itself) is even on `orbit`: its length minus its number of
/// cycles there is even.
pub(super) fn is_even_on(g: &Perm, orbit: &[u32], position: &[Option<(u32, u32)>]) -> bool {
    let mut seen = vec![false; orbit.len()];
    let mut cycles = 0;
    for start in 0..orbit.len() {
        if seen[start] {
            continue;
        }
        cycles += 1;
        let mut j = start;
        while !seen[j] {
            seen[j] = true;
            j = position[g.image(orbit[j]) as usize].map_or(start, |(_, k)| k as usize);
        }
    }
    (orbit.len() - cycles).is_multiple_of(2)
}

/// The span of the generators' parity vectors, in echelon form, each basis vector with the set of
/// generators whose product has it.
#[derive(Debug)]
pub(super) struct ParitySpace {
    /// `(pivot, vector, generators)`: `vector` has bit `pivot` and no other basis pivot.
    basis: Vec<(usize, Bits, Bits)>,
}

impl ParitySpace {
    /// The span of the parity vectors of `group`'s generators on `orbits` (`position` from
    /// `orbit_positions`).
    pub(super) fn of(
        group: &PermGroup,
        orbits: &[Vec<u32>],
        position: &[Option<(u32, u32)>],
    ) -> ParitySpace {
        let generator_words = group.generators().len().div_ceil(64);
        let mut space = ParitySpace { basis: Vec::new() };
        for (j, g) in group.generators().iter().enumerate() {
            let vector = parity_vector(g, orbits, position);
            let mut combination = vec![0u64; generator_words];
            flip(&mut combination, j);
            space.insert(vector, combination);
        }
        space
    }

    /// Adds a vector (with the generators whose product has it) if it is not in the span yet.
    pub(super) fn insert(&mut self, mut vector: Bits, mut combination: Bits) {
        for (pivot, v, c) in &self.basis {
            if get(&vector, *pivot) {
                xor_into(&mut vector, v);
                xor_into(&mut combination, c);
            }
        }
        let Some(pivot) = (0..vector.len() * 64).find(|&i| get(&vector, i)) else {
            return;
        };
        // Keep the basis reduced: no other vector has this pivot.
        for (_, v, c) in &mut self.basis {
            if get(v, pivot) {
                xor_into(v, &vector);
                xor_into(c, &combination);
            }
        }
        self.basis.push((pivot, vector, combination));
    }

    /// The dimension of the span.
    pub(super) fn rank(&self) -> usize {
        self.basis.len()
    }

    /// Generators (indices, increasing) whose product has the parity vector `target`, or `None`
    /// when no element of the group has it.
    pub(super) fn solve(&self, target: &Bits) -> Option<Vec<u32>> {
        let mut rest = target.clone();
        let mut chosen: Bits = self
            .basis
            .first()
            .map_or_else(Vec::new, |(_, _, c)| vec![0u64; c.len()]);
        for (pivot, v, c) in &self.basis {
            if get(&rest, *pivot) {
                xor_into(&mut rest, v);
                xor_into(&mut chosen, c);
            }
        }
        if rest.iter().any(|&w| w != 0) {
            return None;
        }
        Some(
            (0..chosen.len() * 64)
                .filter(|&j| get(&chosen, j))
                .map(|j| j as u32)
                .collect(),
        )
    }

    pub(super) fn bytes(&self) -> u64 {
        self.basis
            .iter()
            .map(|(_, v, c)| 8 * (v.len() + c.len()) as u64 + 8)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parity_space_solves_only_spanned_vectors() {
        // Generators with parity vectors 110, 011 over three orbits: 101 spanned, 100 not.
        let mut space = ParitySpace { basis: Vec::new() };
        space.insert(vec![0b011], vec![0b01]);
        space.insert(vec![0b110], vec![0b10]);
        space.insert(vec![0b101], vec![0b00]); // dependent: ignored
        assert_eq!(space.rank(), 2);
        assert_eq!(space.solve(&vec![0b101]), Some(vec![0, 1]));
        assert_eq!(space.solve(&vec![0b110]), Some(vec![1]));
        assert_eq!(space.solve(&vec![0b000]), Some(vec![]));
        assert_eq!(space.solve(&vec![0b100]), None);
    }
}
