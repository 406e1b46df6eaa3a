//! [`PartSeries`]: a normal series with elementary abelian factors for a group `K` that maps
//! each of some small parts of the points onto itself, read off the groups of its restrictions
//! to the parts (`D_5^40`, the kernel of `D_5 wr Sym(40)` on its blocks: the reflections
//! `C_2^40` over the rotations `C_5^40`; `AGL(1,7)^50`), for [`KernelSeriesWords`] to write
//! `K` layer by layer when it is neither elementary abelian under its signs and rotations nor
//! easily cut into its parts.
//!
//! For each part `P` let `N_P` be the group of the restrictions to `P` of some sample elements
//! of `K`, and of their restrictions to the other parts of `P`'s orbit under the whole group
//! carried onto `P` by its elements (`K` is normal, so a conjugate's restriction is in `K`'s
//! restriction to `P` too), kept as a table of at most [`MAX_SERIES_GROUP`] elements. Its series
//! `N_P = A_0 > A_1 > ... > A_r` takes `A_{i+1} = A_i' · A_i^p`, `p` the smallest prime
//! dividing `|A_i : A_i'|`, until `A_r` is perfect (`A_r = 1` when `N_P` is solvable, its
//! solvable residual otherwise: `Alt(5)` in `Sym(5)`): a verbal subgroup, so characteristic, and the whole group's
//! permutations of the parts carry each part's series onto the others'. `A_i / A_{i+1}` is
//! elementary abelian of order `p^d`; `d` elements of `A_i` whose cosets form a basis give
//! coordinates `A_i → GF(p)^d`, a homomorphism with kernel `A_{i+1}`. Layer `(i, p)` maps an
//! element `x` of `K` to the coordinates of its restrictions at level `i` on the parts whose
//! level-`i` prime is `p`. Taken in the order of `(i, p)`, each layer is a homomorphism on the
//! elements that are 0 on every earlier layer (their restrictions are in `A_i` on every part),
//! and an element 0 on every layer has its restrictions in the residuals `A_r`: the identity on
//! every part of a solvable group. [`KernelSeriesWords`] writes what is left on the other parts
//! part by part.
//!
//! **Proof.** [`KernelSeriesWords`] bounds the order of the group `S` its elements generate by
//! the product of `p^rank` over the layers; its elements' restrictions are in the tables (an
//! element whose restriction is not declines the method), so the maps are homomorphisms on `S`'s
//! terms and the bound holds. When it reaches the proven `|K|`, `S = K` (and the samples' tables
//! held all of `K`'s restrictions), whatever the samples were (with residuals, the bound also
//! counts the product of what was found of them part by part). A part's group beyond the
//! table's limit makes no series (`None`).
//!
//! # Complexity
//! The samples' restrictions `O(s · d)` and their carriers `O(k · d)` (`k` movers); per orbit of
//! parts at most `log₂ t` tables of `O(t · log t · b)` to keep the restrictions that grow it;
//! per part of `b` points whose group has `t` elements: the table `O(t · log t · b)`, and per
//! level a few closures of `O(t · log t · b)`. A vector: `O(d)`.
//!
//! # Reference
//! Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §2.3 (verbal
//! subgroups; the derived and lower exponent-`p` series) and §7.8 (working down an elementary
//! abelian series); Dixon, Mortimer, *Permutation Groups* (1996), §2.6 (the base group of a
//! wreath product).

use crate::context::SolveContext;
use crate::counting::arith::factorize;
use crate::error::SolveError;
use crate::group::Perm;

#[cfg(doc)]
use super::kernel_series::KernelSeriesWords;
use super::local_table::{Local, LocalTable, inverse, restriction, then};

/// Largest group of a part kept as a table for its series (the order of `Sym(7)`: the affine
/// groups `AGL(1,p)` up to `p = 71`, `Sym(4) wr Sym(2)` on eight points; every part's table is
/// held at once, so each is kept small).
pub(super) const MAX_SERIES_GROUP: usize = 5_040;

/// Most points of a part (its layers' primes, which divide the order of a group on its points,
/// are kept as bytes).
const MAX_SERIES_POINTS: usize = 255;

/// One level of a part's series: `A_i / A_{i+1}` over `GF(prime)`.
#[derive(Debug)]
struct Level {
    prime: u32,
    /// The dimension `d`.
    dimension: usize,
    /// Whether each element of the part's table (element numbers as in the table) is in `A_i`.
    member: Vec<bool>,
    /// The `d` coordinates of each element of the table in `A_i`, one after another (zeros
    /// for the others).
    coordinates: Vec<u8>,
}

/// A part's group as a table, with its series.
#[derive(Debug)]
struct PartGroup {
    table: LocalTable,
    levels: Vec<Level>,
    /// The order of the last term, where the series stops: 1 for a solvable group, else its
    /// solvable residual (perfect: `Alt(5)` in `Sym(5)`).
    residual: usize,
}

/// The series of every part (see the module documentation).
#[derive(Debug)]
pub(super) struct PartSeries {
    groups: Vec<PartGroup>,
    /// The layers in order: `(level, prime)`.
    layers: Vec<(usize, u32)>,
}

impl PartSeries {
    /// The series of the groups of `samples`' restrictions to `parts` (`position[x]` is `(part,
    /// index in it)` for the parts' points), carried between the parts by `movers` (the whole
    /// group's generators; none, or ones that do not permute the parts, carry nothing: see
    /// [`part_steps`]), down to each group's solvable residual (see
    /// [`has_residual`](Self::has_residual)), or `None` when a part has more than 255 points
    /// or a group beyond [`MAX_SERIES_GROUP`], or when the tables would take more than
    /// `max_bytes`.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`] (checked part by part).
    ///
    /// Complexity: see the module documentation.
    pub(super) fn of(
        parts: &[Vec<u32>],
        position: &[Option<(u32, u32)>],
        samples: &[Perm],
        movers: &[Perm],
        ctx: &SolveContext,
        max_bytes: u64,
    ) -> Result<Option<PartSeries>, SolveError> {
        if parts.iter().any(|p| p.len() > MAX_SERIES_POINTS) {
            return Ok(None);
        }
        let Some(steps) = part_steps(parts, position, samples, movers, ctx)? else {
            return Ok(None);
        };
        let mut groups = Vec::with_capacity(parts.len());
        let mut bytes = 0u64;
        for (part, restrictions) in parts.iter().zip(steps) {
            ctx.check()?;
            let Some(group) = PartGroup::of(part.len(), restrictions) else {
                return Ok(None);
            };
            bytes = bytes.saturating_add(group.bytes());
            if bytes > max_bytes {
                return Ok(None);
            }
            groups.push(group);
        }
        let mut layers: Vec<(usize, u32)> = groups
            .iter()
            .flat_map(|g| g.levels.iter().enumerate().map(|(i, l)| (i, l.prime)))
            .collect();
        layers.sort_unstable();
        layers.dedup();
        Ok(Some(PartSeries { groups, layers }))
    }

    /// Whether some part's group is not solvable: its series stops at a perfect subgroup, so an
    /// element 0 on every layer is the identity on the solvable parts only, and what is left on
    /// the others (`Alt(5)` on the blocks of `Alt(5) wr Sym(65)`, beside `AGL(1,7) wr Sym(58)`
    /// whose blocks' groups go down the layers) is to be written part by part.
    pub(super) fn has_residual(&self) -> bool {
        self.groups.iter().any(|g| g.residual > 1)
    }

    /// The primes of the layers, in order (below 256: they divide the order of a group on at
    /// most 255 points).
    pub(super) fn primes(&self) -> impl Iterator<Item = u8> + '_ {
        self.layers.iter().map(|&(_, p)| p as u8)
    }

    /// The vector of `x` in layer `layer`, or `None` when a restriction of `x` is not in its
    /// part's table or not in the layer's term there. O(d).
    pub(super) fn vector(
        &self,
        layer: usize,
        x: &Perm,
        parts: &[Vec<u32>],
        position: &[Option<(u32, u32)>],
    ) -> Option<Vec<u8>> {
        let (level, prime) = self.layers[layer];
        let mut vector = Vec::new();
        for (group, part) in self.groups.iter().zip(parts) {
            let Some(at) = group.levels.get(level).filter(|l| l.prime == prime) else {
                continue;
            };
            let number = group.table.number(&restriction(x, part, position)?)?;
            if !at.member[number as usize] {
                return None;
            }
            let start = number as usize * at.dimension;
            vector.extend_from_slice(&at.coordinates[start..start + at.dimension]);
        }
        Some(vector)
    }

    /// Bytes held: the tables and coordinates.
    pub(super) fn bytes(&self) -> u64 {
        self.groups.iter().map(PartGroup::bytes).sum()
    }
}

/// The generators of each part's table: the restrictions of `samples` to the part, and, when
/// `movers` (elements of the whole group) permute the parts, those of every part in its orbit,
/// carried onto it (`K` is normal and the movers carry each part's group onto the others', so
/// the tables stay within `K`'s restrictions, and a part the samples barely touch gets its
/// group from the parts they do: in `D_5 wr Alt(60)`'s even reflections the seeds' conjugates
/// reflected a few dozen blocks of 60). `None` when a sample maps a part's point outside it
/// or a part's orbit's group passes [`MAX_SERIES_GROUP`].
///
/// # Errors
/// [`SolveError::Cancelled`] (checked part by part).
///
/// Complexity: `O(s · d)` restrictions, then per orbit of parts of `b` points at most
/// `log₂ MAX_SERIES_GROUP` tables of `O(t · log t · b)`.
fn part_steps(
    parts: &[Vec<u32>],
    position: &[Option<(u32, u32)>],
    samples: &[Perm],
    movers: &[Perm],
    ctx: &SolveContext,
) -> Result<Option<Vec<Vec<Local>>>, SolveError> {
    let mut steps = Vec::with_capacity(parts.len());
    for part in parts {
        ctx.check()?;
        let Some(restrictions) = samples
            .iter()
            .map(|x| restriction(x, part, position))
            .collect::<Option<Vec<Local>>>()
        else {
            return Ok(None);
        };
        steps.push(restrictions);
    }
    let Some(carriers) = carriers(parts, position, movers) else {
        return Ok(Some(steps));
    };
    // Each orbit's restrictions carried onto its first part, those outside the table of the
    // earlier ones only: each at least doubles it.
    let mut at_first: Vec<(Vec<Local>, Option<LocalTable>)> =
        (0..parts.len()).map(|_| (Vec::new(), None)).collect();
    for (j, restrictions) in steps.iter().enumerate() {
        ctx.check()?;
        let (first, carry) = &carriers[j];
        let back = inverse(carry);
        let (gens, table) = &mut at_first[*first];
        for r in restrictions {
            let carried = then(&then(carry, r), &back);
            let known = match table {
                Some(table) => table.number(&carried).is_some(),
                None => carried.iter().enumerate().all(|(a, &b)| a == b as usize),
            };
            if !known {
                gens.push(carried);
                let Some(grown) = LocalTable::generated(carry.len(), gens, MAX_SERIES_GROUP) else {
                    return Ok(None);
                };
                *table = Some(grown);
            }
        }
    }
    Ok(Some(
        carriers
            .iter()
            .map(|(first, carry)| {
                let back = inverse(carry);
                at_first[*first]
                    .0
                    .iter()
                    .map(|r| then(&then(&back, r), carry))
                    .collect()
            })
            .collect(),
    ))
}

/// For each part, the first part of its orbit under `movers` and a bijection `carry` from
/// that part's indices onto its own (`carry[a]`: the index of the image of the first part's
/// point `a` under a product of movers), found depth-first; `None` when there are no
/// movers or they do not permute the parts.
///
/// Complexity: `O(k · d)` for `k` movers.
fn carriers(
    parts: &[Vec<u32>],
    position: &[Option<(u32, u32)>],
    movers: &[Perm],
) -> Option<Vec<(usize, Local)>> {
    if movers.is_empty() {
        return None;
    }
    let mut carriers: Vec<Option<(usize, Local)>> = vec![None; parts.len()];
    for first in 0..parts.len() {
        if carriers[first].is_some() {
            continue;
        }
        carriers[first] = Some((first, (0..parts[first].len() as u16).collect()));
        let mut stack = vec![first];
        while let Some(j) = stack.pop() {
            for g in movers {
                let mut to = None;
                let mut step = Vec::with_capacity(parts[j].len());
                for &x in &parts[j] {
                    let (i, index) = position[g.image(x) as usize]?;
                    if *to.get_or_insert(i) != i {
                        return None;
                    }
                    step.push(index as u16);
                }
                let i = to? as usize;
                if parts[i].len() != parts[j].len() {
                    return None;
                }
                if carriers[i].is_none() {
                    let carry = then(&carriers[j].as_ref()?.1, &step);
                    carriers[i] = Some((first, carry));
                    stack.push(i);
                }
            }
        }
    }
    carriers.into_iter().collect()
}

/// `a` to the power `e`, by `e` products.
fn power(table: &LocalTable, a: u32, e: u32) -> u32 {
    (0..e).fold(0, |y, _| table.product(y, a))
}

/// The members of the subgroup of `table` generated by `generators` (element numbers), as a
/// mask.
fn closure(table: &LocalTable, generators: &[u32]) -> Vec<bool> {
    let mut member = vec![false; table.len()];
    member[0] = true;
    let mut queue = vec![0u32];
    while let Some(x) = queue.pop() {
        for &g in generators {
            let y = table.product(x, g);
            if !member[y as usize] {
                member[y as usize] = true;
                queue.push(y);
            }
        }
    }
    member
}

/// A subgroup of a [`LocalTable`]: generators and members.
struct Subgroup {
    generators: Vec<u32>,
    member: Vec<bool>,
}

impl Subgroup {
    fn trivial(table: &LocalTable) -> Subgroup {
        Subgroup {
            generators: Vec::new(),
            member: closure(table, &[]),
        }
    }

    fn order(&self) -> usize {
        self.member.iter().filter(|&&m| m).count()
    }

    /// Adds `x` as a generator unless it is a member already; whether it was added.
    fn add(&mut self, table: &LocalTable, x: u32) -> bool {
        if self.member[x as usize] {
            return false;
        }
        self.generators.push(x);
        self.member = closure(table, &self.generators);
        true
    }
}

impl PartGroup {
    /// Bytes held: the table (each element with its map slot) and the levels.
    fn bytes(&self) -> u64 {
        let levels: u64 = self
            .levels
            .iter()
            .map(|l| (l.coordinates.len() + l.member.len()) as u64 + 64)
            .sum();
        self.table.bytes() + levels
    }

    /// The table of the group generated by `restrictions` (on `b` points) and its series down to
    /// its solvable residual, `None` beyond the table's limit.
    fn of(b: usize, restrictions: Vec<Local>) -> Option<PartGroup> {
        let table = LocalTable::generated(b, &restrictions, MAX_SERIES_GROUP)?;
        let mut a = Subgroup::trivial(&table);
        for r in &restrictions {
            a.add(&table, table.number(r)?);
        }
        let mut levels = Vec::new();
        while a.order() > 1 {
            // The derived subgroup: the normal closure of the generators' commutators.
            let mut next = Subgroup::trivial(&table);
            for &g in &a.generators {
                for &h in &a.generators {
                    let gh = table.product(g, h);
                    let hg = table.product(h, g);
                    next.add(&table, table.product(table.inverse(hg), gh));
                }
            }
            let mut grown = true;
            while grown {
                grown = false;
                for s in next.generators.clone() {
                    for &g in &a.generators {
                        let conjugate = table.product(table.product(table.inverse(g), s), g);
                        grown |= next.add(&table, conjugate);
                    }
                }
            }
            let (order, derived) = (a.order(), next.order());
            if derived == order {
                break; // perfect: the solvable residual
            }
            let prime = factorize((order / derived) as u64)[0].0 as u32;
            // `A' · A^p`: normal, as the `p`-th powers are a union of conjugacy classes.
            for x in 0..table.len() as u32 {
                if a.member[x as usize] {
                    next.add(&table, power(&table, x, prime));
                }
            }
            // A basis of `A / next` among `A`'s generators, then every coset's coordinates.
            let mut span = Subgroup {
                generators: next.generators.clone(),
                member: next.member.clone(),
            };
            let basis: Vec<u32> = a
                .generators
                .iter()
                .copied()
                .filter(|&g| span.add(&table, g))
                .collect();
            let dimension = basis.len();
            let mut coordinates = vec![0u8; table.len() * dimension];
            let below: Vec<u32> = (0..table.len() as u32)
                .filter(|&x| next.member[x as usize])
                .collect();
            let mut exponents = vec![0u8; basis.len()];
            loop {
                let head = basis.iter().zip(&exponents).fold(0, |y, (&b, &e)| {
                    table.product(y, power(&table, b, e as u32))
                });
                for &x in &below {
                    let start = table.product(head, x) as usize * dimension;
                    coordinates[start..start + dimension].copy_from_slice(&exponents);
                }
                // The next exponent vector, the first coordinate fastest.
                let Some(k) = exponents.iter().position(|&e| u32::from(e) + 1 < prime) else {
                    break;
                };
                exponents[k] += 1;
                exponents[..k].fill(0);
            }
            levels.push(Level {
                prime,
                dimension,
                member: a.member.clone(),
                coordinates,
            });
            a = next;
        }
        let residual = a.order();
        Some(PartGroup {
            table,
            levels,
            residual,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::kernel_series::tests::closure_of;
    use super::*;

    /// Whether the group of `all` is solvable, by its derived series with every commutator of
    /// every pair (the oracle).
    fn solvable(all: &[Perm], b: usize) -> bool {
        let mut term = all.to_vec();
        while term.len() > 1 {
            let mut seen: HashSet<Vec<u32>> = HashSet::new();
            let commutators: Vec<Perm> = term
                .iter()
                .flat_map(|x| term.iter().map(move |y| x.commutator(y)))
                .filter(|c| seen.insert(c.images().to_vec()))
                .collect();
            let next = closure_of(&commutators, b);
            if next.len() == term.len() {
                return false;
            }
            term = next;
        }
        true
    }

    /// Whether the group `term` (all its elements) is perfect: its commutators generate it.
    fn perfect(term: &[Perm], b: usize) -> bool {
        let commutators: Vec<Perm> = term
            .iter()
            .flat_map(|x| term.iter().map(move |y| x.commutator(y)))
            .collect();
        closure_of(&commutators, b).len() == term.len()
    }

    /// For 300 random groups of degree 3 to 5 (from two random permutations, sometimes one of
    /// them a power of the other or a cycle): a residual exactly when the group is not
    /// solvable, the layers' orders `p^dim` times the residual's multiplying to the group's
    /// order, each layer's map a homomorphism on the elements 0 on every earlier layer, and
    /// below them only the identity, or for the others a perfect group (`Alt(5)`).
    #[test]
    fn series_of_small_groups_against_their_elements() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let (mut solvable_groups, mut others) = (0, 0);
        for round in 0..300 {
            let b = rng.random_range(3..=5usize);
            let random = |rng: &mut ChaCha8Rng| {
                let mut images: Vec<u32> = (0..b as u32).collect();
                images.shuffle(rng);
                Perm::from_images(images, "test").unwrap()
            };
            let first = random(&mut rng);
            let second = match round % 3 {
                0 => first.pow(2),
                1 => Perm::from_images((0..b as u32).map(|i| (i + 1) % b as u32).collect(), "c")
                    .unwrap(),
                _ => random(&mut rng),
            };
            let gens = vec![first, second];
            let all = closure_of(&gens, b);
            let parts = vec![(0..b as u32).collect::<Vec<u32>>()];
            let position: Vec<Option<(u32, u32)>> = (0..b as u32).map(|i| Some((0, i))).collect();
            let series = PartSeries::of(
                &parts,
                &position,
                &gens,
                &[],
                &SolveContext::detached(),
                u64::MAX,
            )
            .unwrap()
            .expect("a table");
            let is_solvable = solvable(&all, b);
            assert_eq!(series.has_residual(), !is_solvable, "round {round}");
            if is_solvable {
                solvable_groups += 1;
            } else {
                others += 1;
            }
            let vector = |layer: usize, x: &Perm| series.vector(layer, x, &parts, &position);
            let mut term = all.clone();
            let mut order = 1usize;
            for (layer, p) in series.primes().enumerate() {
                let dim = vector(layer, &term[0]).expect("in the term").len();
                order *= (p as usize).pow(dim as u32);
                for _ in 0..20 {
                    let x = &term[rng.random_range(0..term.len())];
                    let y = &term[rng.random_range(0..term.len())];
                    let (vx, vy) = (vector(layer, x).unwrap(), vector(layer, y).unwrap());
                    let sum: Vec<u8> = vx.iter().zip(&vy).map(|(a, c)| (a + c) % p).collect();
                    assert_eq!(vector(layer, &x.compose(y)), Some(sum), "round {round}");
                }
                term.retain(|x| vector(layer, x).unwrap().iter().all(|&v| v == 0));
            }
            assert_eq!(
                order * term.len(),
                all.len(),
                "round {round}: the layers' orders"
            );
            if is_solvable {
                assert_eq!(term.len(), 1, "round {round}: only the identity below");
            } else {
                // Below the layers, the solvable residual: perfect, and `Alt(5)` (the only
                // insoluble groups of degree 5 or less are `Alt(5)` and `Sym(5)`).
                assert_eq!(term.len(), 60, "round {round}: the residual");
                assert!(perfect(&term, b), "round {round}: the residual is perfect");
            }
        }
        assert!(
            solvable_groups >= 100 && others >= 20,
            "{solvable_groups} {others}"
        );
    }

    /// Two parts of five points that a mover swaps, point `i` with `9 - i` (reversed), the
    /// samples moving the first only: with the mover the second part's table is `D_5` too (its
    /// reflection has a coordinate in the first layer), without it or with a mover that does
    /// not keep the parts the second part's group is trivial.
    #[test]
    fn restrictions_carried_between_parts() {
        let d = 10;
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]];
        let position =
            crate::group::words::orbit_product::orbit_positions(d, parts.iter().map(Vec::as_slice));
        let perm = |text: &str| Perm::parse_cycles(text, d).unwrap();
        let samples = [perm("(1,2,3,4,5)"), perm("(2,5)(3,4)")];
        let swap = perm("(1,10)(2,9)(3,8)(4,7)(5,6)");
        let on_second = [perm("(6,7,8,9,10)"), perm("(6,7)(8,10)")];
        let series = |movers: &[Perm]| {
            PartSeries::of(
                &parts,
                &position,
                &samples,
                movers,
                &SolveContext::detached(),
                u64::MAX,
            )
            .unwrap()
            .expect("solvable")
        };
        let carried = series(std::slice::from_ref(&swap));
        assert_eq!(carried.primes().collect::<Vec<u8>>(), vec![2, 5]);
        assert_eq!(
            carried.vector(0, &on_second[0], &parts, &position),
            Some(vec![0, 0])
        );
        assert_eq!(
            carried.vector(0, &on_second[1], &parts, &position),
            Some(vec![0, 1])
        );
        // Alone, the second part's group is trivial: the layer has the first part's coordinate
        // only; so with a mover that does not keep the parts.
        let alone = series(&[]);
        assert_eq!(
            alone.vector(0, &on_second[1], &parts, &position),
            Some(vec![0])
        );
        let not_kept = series(&[perm("(1,6)")]);
        assert_eq!(
            not_kept.vector(0, &on_second[1], &parts, &position),
            Some(vec![0])
        );
    }

    /// Two parts with different groups (`Sym(3)` and `D_5`, whose second levels' primes differ)
    /// and a part of one point: the layers `(0, 2)`, `(1, 3)`, `(1, 5)`; a restriction outside
    /// the tables has no vector.
    #[test]
    fn parts_with_different_series() {
        let d = 9;
        let parts = vec![vec![0, 1, 2], vec![3, 4, 5, 6, 7], vec![8]];
        let position =
            crate::group::words::orbit_product::orbit_positions(d, parts.iter().map(Vec::as_slice));
        let perm = |text: &str| Perm::parse_cycles(text, d).unwrap();
        let samples = [perm("(1,2,3)(4,5,6,7,8)"), perm("(1,2)(5,8)(6,7)")];
        let series = PartSeries::of(
            &parts,
            &position,
            &samples,
            &[],
            &SolveContext::detached(),
            u64::MAX,
        )
        .unwrap()
        .expect("solvable");
        assert_eq!(series.primes().collect::<Vec<u8>>(), vec![2, 3, 5]);
        assert_eq!(
            series.vector(0, &perm("(1,2)"), &parts, &position),
            Some(vec![1, 0])
        );
        assert_eq!(series.vector(0, &perm("(4,5)"), &parts, &position), None);
        assert_eq!(
            series
                .vector(2, &perm("(4,5,6,7,8)"), &parts, &position)
                .map(|v| v.len()),
            Some(1)
        );
    }
}
