//! [`PowerTables`]: a walk in a Cayley graph kept as its steps (a generator and an exponent
//! each), with any one point's image under it in `O(steps)`, so that sifting the walk through a
//! stabiliser chain reads only the images of the base points until a table needs the whole
//! permutation (Minkwitz's fill sifts hundreds of thousands of walks, and nearly every one passes
//! through every level without changing a table: `AGL(9,2)` on 512 points, ten levels).
//!
//! Each generator's cycles are stored one after another; a point's image under the generator's
//! `e`-th power is `e` places on along its cycle.
//!
//! # Complexity
//! Set-up `O(k · m)` for `k` generators on `m` points; a point's image under a walk of `s` steps
//! `O(s)`; the whole permutation `O(s · m)`. Memory `16 · k · m` bytes.
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §4.1 (sifting; base images determine an
//! element of a group with a known base).

/// One step of a walk: a generator's number and its exponent.
pub(super) type Step = (u32, i64);

/// One generator's cycles, for the image of a point under any power.
#[derive(Debug)]
struct Cycles {
    /// The cycles, one after another.
    flat: Vec<u32>,
    /// Where each point stands in `flat`.
    position: Vec<u32>,
    /// Where each point's cycle starts in `flat`, and its length.
    start: Vec<u32>,
    length: Vec<u32>,
}

impl Cycles {
    fn of(images: &[u32]) -> Cycles {
        let m = images.len();
        let mut cycles = Cycles {
            flat: Vec::with_capacity(m),
            position: vec![0; m],
            start: vec![0; m],
            length: vec![0; m],
        };
        let mut seen = vec![false; m];
        for first in 0..m {
            if seen[first] {
                continue;
            }
            let start = cycles.flat.len() as u32;
            let mut x = first;
            while !seen[x] {
                seen[x] = true;
                cycles.position[x] = cycles.flat.len() as u32;
                cycles.flat.push(x as u32);
                x = images[x] as usize;
            }
            let length = cycles.flat.len() as u32 - start;
            for &y in &cycles.flat[start as usize..] {
                cycles.start[y as usize] = start;
                cycles.length[y as usize] = length;
            }
        }
        cycles
    }

    /// The image of `x` under the `e`-th power.
    fn image(&self, x: u32, e: i64) -> u32 {
        let x = x as usize;
        let (start, length) = (i64::from(self.start[x]), i64::from(self.length[x]));
        let along = (i64::from(self.position[x]) - start + e).rem_euclid(length);
        self.flat[(start + along) as usize]
    }
}

/// The cycles of every generator (see the module documentation).
#[derive(Debug)]
pub(super) struct PowerTables {
    generators: Vec<Cycles>,
    points: usize,
}

impl PowerTables {
    /// The tables of `generators`, each a permutation of the same `m` points as its images.
    pub(super) fn new(generators: &[Box<[u32]>]) -> PowerTables {
        PowerTables {
            points: generators.first().map_or(0, |g| g.len()),
            generators: generators.iter().map(|g| Cycles::of(g)).collect(),
        }
    }

    /// The image of `x` under the walk `steps` (the first step applied first).
    pub(super) fn image(&self, steps: &[Step], x: u32) -> u32 {
        steps
            .iter()
            .fold(x, |x, &(g, e)| self.generators[g as usize].image(x, e))
    }

    /// The walk `steps` as a permutation (its images).
    pub(super) fn permutation(&self, steps: &[Step]) -> Vec<u32> {
        (0..self.points as u32)
            .map(|x| self.image(steps, x))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Against the walk applied step by step, each power as repeated steps of the generator or
    /// of its inverse (random permutations of up to 30 points, random walks with exponents up
    /// to ±40).
    #[test]
    fn a_walk_maps_every_point_as_its_steps_one_by_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(4101);
        for _ in 0..200 {
            let m = rng.random_range(1..=30usize);
            let generators: Vec<Box<[u32]>> = (0..rng.random_range(1..=3))
                .map(|_| {
                    let mut images: Vec<u32> = (0..m as u32).collect();
                    images.shuffle(&mut rng);
                    images.into_boxed_slice()
                })
                .collect();
            let tables = PowerTables::new(&generators);
            let steps: Vec<Step> = (0..rng.random_range(0..12))
                .map(|_| {
                    let g = rng.random_range(0..generators.len() as u32);
                    (g, rng.random_range(-40..=40i64))
                })
                .collect();
            let mut expected: Vec<u32> = (0..m as u32).collect();
            for &(g, e) in &steps {
                let generator = &generators[g as usize];
                let mut inverse = vec![0u32; m];
                for (x, &y) in generator.iter().enumerate() {
                    inverse[y as usize] = x as u32;
                }
                let step: &[u32] = if e >= 0 { generator } else { &inverse };
                for _ in 0..e.unsigned_abs() {
                    expected.iter_mut().for_each(|x| *x = step[*x as usize]);
                }
            }
            assert_eq!(tables.permutation(&steps), expected, "{steps:?}");
        }
    }
}
