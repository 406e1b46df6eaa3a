//! [`PrimeSpace`]: Gaussian elimination over `GF(p)` on the images of group elements under a
//! homomorphism onto `GF(p)^k` (the signs of a kernel's elements on its parts, their rotations
//! of three pairings), each basis vector with the coefficients of the elements whose product
//! has it.
//!
//! # Complexity
//! Inserting or solving: `O(r · (k + w))` for a basis of `r` vectors of `k` coordinates and
//! combinations over `w` elements. Memory: `O(r · (k + w))` bytes.
//!
//! # Example
//! Over `GF(3)`, with `(1, 2)` from element 0 and `(0, 1)` from element 1, the target `(2, 1)` is
//! `2 · (1, 2) + 0 · (0, 1)`: element 0 twice.
//!
//! # Reference
//! Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §2.4 (elementary abelian
//! groups as vector spaces over `GF(p)`).

/// The span of some elements' vectors over `GF(p)`, in reduced echelon form (see the module
/// documentation).
#[derive(Debug)]
pub(super) struct PrimeSpace {
    p: u8,
    /// `(pivot, vector, combination)`: `vector` is 1 at `pivot` and 0 at every other pivot;
    /// `combination[j]` is the exponent of element `j` in the product that has `vector`.
    basis: Vec<(usize, Vec<u8>, Vec<u8>)>,
}

impl PrimeSpace {
    /// An empty space over `GF(p)`, `p` a prime below 256.
    pub(super) fn new(p: u8) -> PrimeSpace {
        PrimeSpace {
            p,
            basis: Vec::new(),
        }
    }

    /// The prime.
    pub(super) fn prime(&self) -> u8 {
        self.p
    }

    /// The dimension of the span.
    pub(super) fn rank(&self) -> usize {
        self.basis.len()
    }

    /// Adds the vector of a new element, number `element` (numbered from 0 in the order they are
    /// added), when it is outside the span, and returns whether it was.
    pub(super) fn insert(&mut self, mut vector: Vec<u8>, element: usize) -> bool {
        let mut combination = vec![0u8; element + 1];
        combination[element] = 1;
        self.reduce(&mut vector, &mut combination);
        let Some(pivot) = vector.iter().position(|&v| v != 0) else {
            return false;
        };
        // Scale the pivot to 1, then clear it from the other basis vectors.
        let scale = self.inverse(vector[pivot]);
        self.scale(&mut vector, scale);
        self.scale(&mut combination, scale);
        for (_, v, c) in &mut self.basis {
            let times = v[pivot];
            if times != 0 {
                let minus = self.p - times;
                add_multiple(v, &vector, minus, self.p);
                c.resize(c.len().max(combination.len()), 0);
                add_multiple(c, &combination, minus, self.p);
            }
        }
        self.basis.push((pivot, vector, combination));
        true
    }

    /// The exponents `e_j` (one per element added, some possibly missing at the end: 0) with
    /// `Σ e_j v_j = target`, or `None` when `target` is outside the span.
    pub(super) fn solve(&self, target: &[u8]) -> Option<Vec<u8>> {
        let mut rest = target.to_vec();
        let width = self
            .basis
            .iter()
            .map(|(_, _, c)| c.len())
            .max()
            .unwrap_or(0);
        let mut exponents = vec![0u8; width];
        for (pivot, v, c) in &self.basis {
            let times = rest[*pivot];
            if times != 0 {
                add_multiple(&mut rest, v, self.p - times, self.p);
                add_multiple(&mut exponents, c, times, self.p);
            }
        }
        rest.iter().all(|&x| x == 0).then_some(exponents)
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> u64 {
        self.basis
            .iter()
            .map(|(_, v, c)| (v.len() + c.len()) as u64 + 56)
            .sum()
    }

    /// Subtracts from `vector` its pivots' basis vectors (and from `combination` theirs).
    fn reduce(&self, vector: &mut [u8], combination: &mut Vec<u8>) {
        for (pivot, v, c) in &self.basis {
            let times = vector[*pivot];
            if times != 0 {
                let minus = self.p - times;
                add_multiple(vector, v, minus, self.p);
                if combination.len() < c.len() {
                    combination.resize(c.len(), 0);
                }
                add_multiple(combination, c, minus, self.p);
            }
        }
    }

    fn scale(&self, vector: &mut [u8], by: u8) {
        let p = self.p as u16;
        vector
            .iter_mut()
            .for_each(|x| *x = (*x as u16 * by as u16 % p) as u8);
    }

    /// The inverse of `a ≠ 0` modulo `p` (Fermat: `a^(p-2)`).
    fn inverse(&self, a: u8) -> u8 {
        let p = self.p as u32;
        let mut result = 1u32;
        let (mut base, mut e) = (a as u32, p - 2);
        while e > 0 {
            if e & 1 == 1 {
                result = result * base % p;
            }
            base = base * base % p;
            e >>= 1;
        }
        result as u8
    }
}

/// `target += times · source` over `GF(p)`, on `source`'s length (`target` at least as long).
fn add_multiple(target: &mut [u8], source: &[u8], times: u8, p: u8) {
    let (times, p) = (times as u16, p as u16);
    for (t, &s) in target.iter_mut().zip(source) {
        *t = ((*t as u16 + times * s as u16) % p) as u8;
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// The example of the module documentation.
    #[test]
    fn solves_the_example() {
        let mut space = PrimeSpace::new(3);
        assert!(space.insert(vec![1, 2], 0));
        assert!(space.insert(vec![0, 1], 1));
        assert!(!space.insert(vec![2, 1], 2));
        assert_eq!(space.rank(), 2);
        assert_eq!(space.solve(&[2, 1]), Some(vec![2, 0]));
        assert_eq!(space.solve(&[0, 0]), Some(vec![0, 0]));
    }

    /// Random vectors over `GF(2)`, `GF(3)`, `GF(5)`, `GF(7)`: every solution recombines to its
    /// target, the rank is the number of inserts that reported a new vector, and a vector is
    /// solvable exactly when inserting it would not raise the rank (checked on a copy by brute
    /// force over all combinations for small ranks).
    #[test]
    fn solutions_recombine_to_their_targets() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for round in 0..400 {
            let p = [2u8, 3, 5, 7][round % 4];
            let k = rng.random_range(1..=4usize);
            let mut space = PrimeSpace::new(p);
            let mut vectors: Vec<Vec<u8>> = Vec::new();
            for _ in 0..rng.random_range(0..=3) {
                let v: Vec<u8> = (0..k).map(|_| rng.random_range(0..p)).collect();
                space.insert(v.clone(), vectors.len());
                vectors.push(v);
            }
            // Brute force: every combination of the vectors added.
            let mut span = std::collections::HashSet::new();
            let combinations = (p as usize).pow(vectors.len() as u32);
            for mut code in 0..combinations {
                let mut sum = vec![0u8; k];
                for v in &vectors {
                    let e = (code % p as usize) as u8;
                    code /= p as usize;
                    add_multiple(&mut sum, v, e, p);
                }
                span.insert(sum);
            }
            assert_eq!(span.len(), (p as usize).pow(space.rank() as u32));
            for _ in 0..8 {
                let target: Vec<u8> = (0..k).map(|_| rng.random_range(0..p)).collect();
                match space.solve(&target) {
                    Some(exponents) => {
                        let mut sum = vec![0u8; k];
                        for (v, &e) in vectors.iter().zip(&exponents) {
                            add_multiple(&mut sum, v, e, p);
                        }
                        assert_eq!(sum, target);
                    }
                    None => assert!(!span.contains(&target)),
                }
            }
        }
    }
}
