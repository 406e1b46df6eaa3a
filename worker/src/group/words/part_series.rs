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
//! restriction to `P` too), kept as a table of at most [`MAX_SERIES_GROUP`] elements, or beyond
//! that when it is the part's whole alternating or symmetric group (`Sym(9)` on the blocks of
//! `Sym(9) wr Sym(54)`, proven by its order) as a giant, whose series is its sign then its
//! residual `Alt(b)`: the solvable parts beside it (`AGL(1,7) wr Sym(16)`'s blocks) go down
//! their layers as ever. Its series
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
//! counts the product of what was found of them part by part). A giant part's restrictions are
//! all in its group but for an odd one where the samples gave `Alt(b)`: such an element has
//! no coordinate there, and is taken with the residual (it is 0 on the layers; the bound counts
//! what the bottom found of each part, whichever group that is). A part's group beyond the
//! table's limit that is not a giant makes no series (`None`).
//!
//! # Complexity
//! The samples' restrictions `O(s · d)` and their carriers `O(k · d)` (`k` movers); per orbit of
//! parts at most `log₂ t` tables of `O(t · log t · b)` to keep the restrictions that grow it;
//! per part of `b` points whose group has `t` elements: the table `O(t · log t · b)`, and per
//! level a few closures of `O(t · log t · b)`; a giant's order by Schreier–Sims on its `b`
//! points, once per growth of its orbit's group. A vector: `O(d)`.
//!
//! # Reference
//! Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005), §2.3 (verbal
//! subgroups; the derived and lower exponent-`p` series) and §7.8 (working down an elementary
//! abelian series); Dixon, Mortimer, *Permutation Groups* (1996), §2.6 (the base group of a
//! wreath product).

use crate::context::SolveContext;
use crate::counting::arith::factorize;
use crate::error::SolveError;
use crate::group::giant_recognition::Giant;
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

#[cfg(doc)]
use super::kernel_series::KernelSeriesWords;
use super::local_table::{Local, LocalTable, as_perm, inverse, is_identity, restriction, then};

/// Largest group of a part kept as a table for its series (the order of `Sym(7)`: the affine
/// groups `AGL(1,p)` up to `p = 71`, `Sym(4) wr Sym(2)` on eight points; every part's table is
/// held at once, so each is kept small).
pub(super) const MAX_SERIES_GROUP: usize = 5_040;

/// Most points of a part (its layers' primes, which divide the order of a group on its points,
/// are kept as bytes).
const MAX_SERIES_POINTS: usize = 255;

/// The layer of signs, `(level, prime)`: the one a giant part has (see [`PartGroup::Giant`]).
const SIGNS: (usize, u32) = (0, 2);

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

/// A part's group, with its series.
#[derive(Debug)]
enum PartGroup {
    /// At most [`MAX_SERIES_GROUP`] elements, as a table.
    Small {
        table: LocalTable,
        levels: Vec<Level>,
        /// The order of the last term, where the series stops: 1 for a solvable group, else
        /// its solvable residual (perfect: `Alt(5)` in `Sym(5)`).
        residual: usize,
    },
    /// Beyond a table, the part's whole alternating or symmetric group (`Sym(9)` on the blocks
    /// of `Sym(9) wr Sym(54)`; of eight points or more, as `Sym(7)` fits a table): its series
    /// stops at once at `Alt(b)`, perfect, after one level of signs for `Sym(b)` (`odd`),
    /// none for `Alt(b)`. Neither table nor coordinates: an element's level-0 coordinate is
    /// the sign of its restriction.
    Giant { odd: bool },
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
    /// [`part_groups`]), down to each group's solvable residual (see
    /// [`has_residual`](Self::has_residual)), or `None` when a part has more than 255 points
    /// or a group beyond [`MAX_SERIES_GROUP`] that is not its alternating or symmetric group
    /// (or is, on a part that every mover maps onto itself), or when the tables would take
    /// more than `max_bytes`.
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
        let Some(groups) = part_groups(parts, position, samples, movers, ctx, max_bytes)? else {
            return Ok(None);
        };
        let mut layers: Vec<(usize, u32)> = groups.iter().flat_map(PartGroup::layers).collect();
        layers.sort_unstable();
        layers.dedup();
        Ok(Some(PartSeries { groups, layers }))
    }

    /// Whether some part's group is not solvable: its series stops at a perfect subgroup, so an
    /// element 0 on every layer is the identity on the solvable parts only, and what is left on
    /// the others (`Alt(5)` on the blocks of `Alt(5) wr Sym(65)`, beside `AGL(1,7) wr Sym(58)`
    /// whose blocks' groups go down the layers) is to be written part by part.
    pub(super) fn has_residual(&self) -> bool {
        self.groups.iter().any(|g| match g {
            PartGroup::Small { residual, .. } => *residual > 1,
            PartGroup::Giant { .. } => true,
        })
    }

    /// Whether some part's group is a giant beyond a table ([`PartGroup::Giant`]) and some
    /// other part's is solvable and not trivial (`Sym(9)` and `AGL(1,7)` on the blocks of two
    /// wreath products).
    pub(super) fn has_giants_beside_solvable_parts(&self) -> bool {
        let giant = |g: &PartGroup| matches!(g, PartGroup::Giant { .. });
        let solvable = |g: &PartGroup| match g {
            PartGroup::Small {
                levels,
                residual: 1,
                ..
            } => !levels.is_empty(),
            _ => false,
        };
        self.groups.iter().any(giant) && self.groups.iter().any(solvable)
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
            match group {
                PartGroup::Small { table, levels, .. } => {
                    let Some(at) = levels.get(level).filter(|l| l.prime == prime) else {
                        continue;
                    };
                    let number = table.number(&restriction(x, part, position)?)?;
                    if !at.member[number as usize] {
                        return None;
                    }
                    let start = number as usize * at.dimension;
                    vector.extend_from_slice(&at.coordinates[start..start + at.dimension]);
                }
                PartGroup::Giant { odd: true } if (level, prime) == SIGNS => {
                    vector.push(u8::from(
                        !as_perm(&restriction(x, part, position)?).is_even(),
                    ));
                }
                PartGroup::Giant { .. } => {}
            }
        }
        Some(vector)
    }

    /// Bytes held: the tables and coordinates.
    pub(super) fn bytes(&self) -> u64 {
        self.groups.iter().map(PartGroup::bytes).sum()
    }
}

/// The group of each part with its series ([`PartGroup`]), generated by the restrictions of
/// `samples` to the part and, when `movers` (elements of the whole group) permute the parts, by
/// those of every part in its orbit, carried onto it (`K` is normal and the movers carry each
/// part's group onto the others', so the groups stay within `K`'s restrictions, and a part the
/// samples barely touch gets its group from the parts they do: in `D_5 wr Alt(60)`'s even
/// reflections the seeds' conjugates reflected a few dozen blocks of 60). The parts of an orbit
/// have conjugate groups: whether theirs is a table, a giant (and which) or neither is decided
/// once, at the orbit's first part. A giant does not stand for the group of a part that every
/// mover maps onto itself, a whole orbit of the group (through one orbit, the others are the
/// parts): it is left to the product over the parts, which writes it with the group's own
/// 3-cycles and is searched first, and its series would only search again, from the same seeds,
/// what the product did not find (`C_3 wr Sym(62)` beside `Sym(92)`: 1.8 billion point images
/// more, for nothing). `None` when a sample maps a part's point outside it, a part's group is
/// beyond a table and not a giant (or a giant not allowed), or the groups would take more than
/// `max_bytes`.
///
/// # Errors
/// [`SolveError::Cancelled`] (checked part by part).
///
/// Complexity: `O(s · d)` restrictions, then per orbit of parts of `b` points at most
/// `log₂ MAX_SERIES_GROUP` tables of `O(t · log t · b)`, and beyond a table at most `log₂ b!`
/// Schreier–Sims runs on `b` points (each restriction kept at least doubles the group); then
/// each part's table and series ([`PartGroup::small`]).
fn part_groups(
    parts: &[Vec<u32>],
    position: &[Option<(u32, u32)>],
    samples: &[Perm],
    movers: &[Perm],
    ctx: &SolveContext,
    max_bytes: u64,
) -> Result<Option<Vec<PartGroup>>, SolveError> {
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
    let mut groups = HeldGroups::new(parts.len(), max_bytes);
    let Some(carriers) = carriers(parts, position, movers) else {
        for (part, restrictions) in parts.iter().zip(steps) {
            ctx.check()?;
            let Some(group) = PartGroup::of(part.len(), restrictions, ctx)? else {
                return Ok(None);
            };
            if !groups.push(group) {
                return Ok(None);
            }
        }
        return Ok(Some(groups.groups));
    };
    let mut orbit_sizes = vec![0usize; parts.len()];
    for (first, _) in &carriers {
        orbit_sizes[*first] += 1;
    }
    // Each orbit's restrictions carried onto its first part, those outside the group of the
    // earlier ones only: each at least doubles it.
    let mut at_first: Vec<(Vec<Local>, CarriedGroup)> = (0..parts.len())
        .map(|_| (Vec::new(), CarriedGroup::Trivial))
        .collect();
    for (j, restrictions) in steps.iter().enumerate() {
        ctx.check()?;
        let (first, carry) = &carriers[j];
        let back = inverse(carry);
        let giant = orbit_sizes[*first] > 1;
        let (gens, group) = &mut at_first[*first];
        for r in restrictions {
            let carried = then(&then(carry, r), &back);
            if !group.contains(&carried) {
                gens.push(carried);
                let Some(grown) = CarriedGroup::generated(carry.len(), gens, giant, ctx)? else {
                    return Ok(None);
                };
                *group = grown;
            }
        }
    }
    // Beyond a table, the orbit's verdict: a giant or no series.
    let giants: Vec<Option<Giant>> = at_first
        .iter()
        .zip(parts)
        .map(|((_, group), part)| match group {
            CarriedGroup::Large(group) => Giant::of_order(&group.order(), part.len()),
            _ => None,
        })
        .collect();
    for (first, carry) in &carriers {
        ctx.check()?;
        let group = match (&at_first[*first].1, giants[*first]) {
            (CarriedGroup::Large(_), Some(giant)) => PartGroup::Giant {
                odd: giant == Giant::Symmetric,
            },
            (CarriedGroup::Large(_), None) => return Ok(None),
            (CarriedGroup::Trivial | CarriedGroup::Table(_), _) => {
                let back = inverse(carry);
                let restrictions: Vec<Local> = at_first[*first]
                    .0
                    .iter()
                    .map(|r| then(&then(&back, r), carry))
                    .collect();
                // Conjugate to the first part's group, so within a table as that is.
                let Some(table) =
                    LocalTable::generated(carry.len(), &restrictions, MAX_SERIES_GROUP)
                else {
                    return Ok(None);
                };
                let Some(group) = PartGroup::small(table, &restrictions) else {
                    return Ok(None);
                };
                group
            }
        };
        if !groups.push(group) {
            return Ok(None);
        }
    }
    Ok(Some(groups.groups))
}

/// The parts' groups made so far and the bytes they hold, within a bound.
struct HeldGroups {
    groups: Vec<PartGroup>,
    bytes: u64,
    max_bytes: u64,
}

impl HeldGroups {
    fn new(parts: usize, max_bytes: u64) -> HeldGroups {
        HeldGroups {
            groups: Vec::with_capacity(parts),
            bytes: 0,
            max_bytes,
        }
    }

    /// Keeps `group`; whether all held are still within the bound.
    fn push(&mut self, group: PartGroup) -> bool {
        self.bytes = self.bytes.saturating_add(group.bytes());
        self.groups.push(group);
        self.bytes <= self.max_bytes
    }
}

/// The group of the restrictions carried onto the first part of an orbit of parts so far, to
/// keep only those that grow it (see [`part_groups`]).
enum CarriedGroup {
    Trivial,
    Table(LocalTable),
    /// Beyond a table: a permutation group on the part's points.
    Large(Box<PermGroup>),
}

impl CarriedGroup {
    /// The group of `gens`, permutations of `b` points; beyond a table only when `large`
    /// allows (else `None`).
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    fn generated(
        b: usize,
        gens: &[Local],
        large: bool,
        ctx: &SolveContext,
    ) -> Result<Option<CarriedGroup>, SolveError> {
        if let Some(table) = LocalTable::generated(b, gens, MAX_SERIES_GROUP) {
            return Ok(Some(CarriedGroup::Table(table)));
        }
        if !large {
            return Ok(None);
        }
        let generators = gens.iter().map(|g| as_perm(g)).collect();
        let group = PermGroup::new(b, generators, ctx, &Limits::default())?;
        Ok(Some(CarriedGroup::Large(Box::new(group))))
    }

    fn contains(&self, x: &[u16]) -> bool {
        match self {
            CarriedGroup::Trivial => is_identity(x),
            CarriedGroup::Table(table) => table.number(x).is_some(),
            CarriedGroup::Large(group) => group.contains(&as_perm(x)),
        }
    }
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
        match self {
            PartGroup::Small { table, levels, .. } => {
                let levels: u64 = levels
                    .iter()
                    .map(|l| (l.coordinates.len() + l.member.len()) as u64 + 64)
                    .sum();
                table.bytes() + levels
            }
            PartGroup::Giant { .. } => 64,
        }
    }

    /// The layers `(level, prime)` the group has a level in.
    fn layers(&self) -> Vec<(usize, u32)> {
        match self {
            PartGroup::Small { levels, .. } => levels
                .iter()
                .enumerate()
                .map(|(i, l)| (i, l.prime))
                .collect(),
            PartGroup::Giant { odd } => odd.then_some(SIGNS).into_iter().collect(),
        }
    }

    /// The group generated by `restrictions` (on `b` points) with its series down to its
    /// solvable residual: as a table, or beyond the table's limit a giant, proven by its order
    /// (Schreier–Sims on the part's points); `None` for any other group beyond the limit.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    fn of(
        b: usize,
        restrictions: Vec<Local>,
        ctx: &SolveContext,
    ) -> Result<Option<PartGroup>, SolveError> {
        if let Some(table) = LocalTable::generated(b, &restrictions, MAX_SERIES_GROUP) {
            return Ok(PartGroup::small(table, &restrictions));
        }
        let generators = restrictions.iter().map(|r| as_perm(r)).collect();
        let group = PermGroup::new(b, generators, ctx, &Limits::default())?;
        Ok(
            Giant::of_order(&group.order(), b).map(|giant| PartGroup::Giant {
                odd: giant == Giant::Symmetric,
            }),
        )
    }

    /// The series of the group of `table`, generated by `restrictions`.
    fn small(table: LocalTable, restrictions: &[Local]) -> Option<PartGroup> {
        let mut a = Subgroup::trivial(&table);
        for r in restrictions {
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
        Some(PartGroup::Small {
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

    /// A part of nine points whose group is `Sym(9)` (beyond a table) beside a part of seven
    /// whose group is `AGL(1,7)`: the layers `(0, 2)` (the giant's sign, then the affine
    /// part's coordinate), `(1, 3)`, `(2, 7)`, each a homomorphism on random elements of the
    /// product that are 0 on the earlier ones (the oracle: the sign by the cycle count, the
    /// affine maps' multipliers' classes mod squares and cubes), with a residual (`Alt(9)`);
    /// with `Alt(9)` there, no level on that part; with `Sym(7) × Sym(2)` on the nine points, a
    /// group beyond a table that is not a giant, no series.
    #[test]
    fn a_giant_part_beyond_a_table() {
        let d = 16;
        let parts = vec![(0..9).collect::<Vec<u32>>(), (9..16).collect()];
        let position =
            crate::group::words::orbit_product::orbit_positions(d, parts.iter().map(Vec::as_slice));
        let perm = |text: &str| Perm::parse_cycles(text, d).unwrap();
        // `x ↦ 3x` and `x ↦ x + 1` on the affine part's points 10..16 (`x = 0..6`).
        let affine = [perm("(11,13,12,16,14,15)"), perm("(10,11,12,13,14,15,16)")];
        let giant = [perm("(1,2,3,4,5,6,7,8,9)"), perm("(1,2)")];
        let samples: Vec<Perm> = vec![giant[0].compose(&affine[0]), giant[1].compose(&affine[1])];
        let ctx = SolveContext::detached();
        let series = PartSeries::of(&parts, &position, &samples, &[], &ctx, u64::MAX)
            .unwrap()
            .expect("a giant and a small group");
        assert!(series.has_residual());
        assert_eq!(series.primes().collect::<Vec<u8>>(), vec![2, 3, 7]);
        // The oracle: `x ↦ a x + c` on the affine part read off the images of 0 and 1; its
        // multiplier `a = 3^k` (3 generates the units mod 7); the level-0 coordinate is `k mod
        // 2`, the level-1 one `k mod 3` up to a unit, so only zeros are compared there.
        let multiplier_exponent = |x: &Perm| {
            let (zero, one) = (x.image(9) - 9, x.image(10) - 9);
            let a = (one + 7 - zero) % 7;
            (0..6u32).find(|&k| 3u32.pow(k) % 7 == a).unwrap()
        };
        let sign = |x: &Perm| {
            let on_giant: Vec<u32> = (0..9).map(|i| x.image(i)).collect();
            u8::from(!Perm::from_images(on_giant, "test").unwrap().is_even())
        };
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let random = |rng: &mut ChaCha8Rng| {
            let mut x = Perm::identity(d);
            for _ in 0..30 {
                x = x.compose(&[&giant[..], &affine[..]].concat()[rng.random_range(0..4)]);
            }
            x
        };
        for _ in 0..100 {
            let (x, y) = (random(&mut rng), random(&mut rng));
            for z in [&x, &y, &x.compose(&y)] {
                let v = series.vector(0, z, &parts, &position).unwrap();
                assert_eq!(v, vec![sign(z), (multiplier_exponent(z) % 2) as u8]);
            }
            // On the elements even on both parts, layer 1 is a homomorphism with kernel the
            // multipliers `3^k`, `k` divisible by 6.
            let (x2, y2) = (x.pow(2), y.pow(2));
            let layer1 = |z: &Perm| series.vector(1, z, &parts, &position).unwrap();
            let sum: Vec<u8> = layer1(&x2)
                .iter()
                .zip(layer1(&y2))
                .map(|(a, b)| (a + b) % 3)
                .collect();
            assert_eq!(layer1(&x2.compose(&y2)), sum);
            assert_eq!(
                layer1(&x2).iter().all(|&v| v == 0),
                multiplier_exponent(&x2) % 6 == 0
            );
        }
        let alternating = [perm("(1,2,3)"), perm("(1,2,3,4,5,6,7,8,9)")];
        let series = PartSeries::of(&parts, &position, &alternating, &[], &ctx, u64::MAX)
            .unwrap()
            .expect("a giant");
        assert!(series.has_residual());
        assert_eq!(series.primes().count(), 0);
        let not_giant = [perm("(1,2,3,4,5,6,7)"), perm("(1,2)"), perm("(8,9)")];
        assert!(
            PartSeries::of(&parts, &position, &not_giant, &[], &ctx, u64::MAX)
                .unwrap()
                .is_none()
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
