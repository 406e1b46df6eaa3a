//! Counting colourings under any permutation group given by generators.
//!
//! The group is built by the group engine ([`PermGroup`]). A proven `Sym(d)` or `Alt(d)` is
//! counted by closed formulas (and its cycle index, when asked for, by the partitions of `d`);
//! any other group is enumerated element by element through its stabiliser chain — never stored
//! as a set — by a depth-first search over the levels that composes coset representatives
//! incrementally and tallies the elements by number of cycles (or by full cycle type when the
//! cycle index or a prescribed content is wanted). The big-integer sum over the tally is formed
//! once at the end.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use num_bigint::BigUint;
use num_traits::One;

use super::arith::{
    BurnsideSum, binomial, burnside_memory_estimate, divisors_memory_estimate, divisors_with_phi,
    factorial, factorize,
};
use super::cycle_index::{
    CycleIndex, CycleType, check_content, cycle_index_term_bytes, multinomial_bits_bound,
};
use super::dihedral::is_natural_dihedral;
use super::necklace::{bracelet_count, bracelet_cycle_index};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{GroupKind, Perm, PermGroup, chain_budget, perm_group_memory_estimate};
use crate::limits::Limits;
use crate::memory::{MemoryBudget, SMALL_ALLOCATIONS, bigint_work_bytes, grown_vec_bytes};

/// How the elements of an enumerated group were tallied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementTally {
    /// Number of elements enumerated (the group order).
    pub elements: u64,
    /// `by_cycles[c]` = number of elements with exactly `c` cycles (fixed points included).
    pub by_cycles: Vec<u64>,
    /// Elements per cycle type, when requested.
    pub by_type: Option<Vec<(CycleType, u64)>>,
}

/// A point index small enough for the enumeration's image arrays (`u8` up to degree 256, then
/// `u16`, then `u32`): smaller entries keep the working set in L1.
trait Point: Copy + Default {
    fn from_u32(x: u32) -> Self;
    fn ix(self) -> usize;
}

impl Point for u8 {
    #[inline]
    fn from_u32(x: u32) -> Self {
        x as u8
    }
    #[inline]
    fn ix(self) -> usize {
        usize::from(self)
    }
}

impl Point for u16 {
    #[inline]
    fn from_u32(x: u32) -> Self {
        x as u16
    }
    #[inline]
    fn ix(self) -> usize {
        usize::from(self)
    }
}

impl Point for u32 {
    #[inline]
    fn from_u32(x: u32) -> Self {
        x
    }
    #[inline]
    fn ix(self) -> usize {
        self as usize
    }
}

/// Exact encoding of a cycle type as one `u128` for small degrees: each cycle of length `l` adds
/// `weight[l]`, with `weight[l] = prod_{j < l} (floor(d/j) + 1)` (mixed radix: at most
/// `floor(d/l)` cycles of length `l` exist, so digits never carry). Fits for `d <= 64`
/// (the product is below 2^114 there) and somewhat beyond.
struct TypeCode {
    weight: Vec<u128>,
}

impl TypeCode {
    fn new(d: usize) -> Option<Self> {
        let mut weight = vec![0u128; d + 2];
        let mut w: u128 = 1;
        for (l, slot) in weight.iter_mut().enumerate().skip(1) {
            *slot = w;
            if l <= d {
                w = w.checked_mul((d / l) as u128 + 1)?;
            }
        }
        Some(Self { weight })
    }

    fn decode(&self, d: usize, code: u128) -> CycleType {
        CycleType::new((1..=d).map(|l| {
            let radix = (d / l) as u128 + 1;
            (l as u64, ((code / self.weight[l]) % radix) as u64)
        }))
    }
}

/// A fast hasher for the `u128` type codes (one multiply; SipHash would dominate the leaf).
#[derive(Default)]
struct CodeHasher(u64);

impl Hasher for CodeHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u128(&mut self, x: u128) {
        let h =
            ((x as u64) ^ ((x >> 64) as u64).rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

/// What the leaf of the search records.
enum Tally {
    Cycles(Vec<u64>),
    Codes(HashMap<u128, u64, BuildHasherDefault<CodeHasher>>),
    Types(HashMap<Vec<u64>, u64>),
}

struct Enumerator<'a, P: Point> {
    d: usize,
    /// Levels in application order (`levels[0]` applied first); the largest is last.
    levels: Vec<Vec<Vec<P>>>,
    /// Partial products per depth: `partial[l]` = product of the choices at levels `< l`.
    partial: Vec<Vec<P>>,
    leaf: Vec<P>,
    seen: Vec<bool>,
    lengths: Vec<u64>,
    code: Option<TypeCode>,
    tally: Tally,
    elements: u64,
    work: u64,
    total: f64,
    ctx: &'a SolveContext,
    /// Charged for every cycle type the tally meets for the first time.
    budget: &'a mut MemoryBudget,
}

/// Bytes charged per entry of a tally's hash map: a slot of at most 32 bytes and its control
/// byte, at 8/7 load and doubled for growth, with the old table alive during a resize.
const TALLY_ENTRY_BYTES: u64 = 160;

/// Charges a new tally entry whose key owns `key_bytes` more bytes.
fn charge_new_type(budget: &mut MemoryBudget, key_bytes: u64) -> Result<(), SolveError> {
    budget.charge(TALLY_ENTRY_BYTES + key_bytes, || {
        "the cycle types of the enumerated group".to_string()
    })
}

impl<P: Point> Enumerator<'_, P> {
    fn dfs(&mut self, level: usize) -> Result<(), SolveError> {
        let last = self.levels.len() - 1;
        if level == last {
            return self.leaves();
        }
        for r in 0..self.levels[level].len() {
            // partial[level + 1][x] = rep[partial[level][x]] (first the partial, then rep).
            let (lo, hi) = self.partial.split_at_mut(level + 1);
            let src = &lo[level];
            let dst = &mut hi[0];
            let rep = &self.levels[level][r];
            for (o, &x) in dst.iter_mut().zip(src.iter()) {
                *o = rep[x.ix()];
            }
            self.dfs(level + 1)?;
        }
        Ok(())
    }

    /// All products `partial * rep` for `rep` in the last level.
    fn leaves(&mut self) -> Result<(), SolveError> {
        let last = self.levels.len() - 1;
        let d = self.d;
        // Cancellation and progress by work done (points visited), not by calls: about every
        // 2^22 point steps, a few milliseconds.
        self.work += (self.levels[last].len() * d) as u64;
        if self.work >= WORK_PER_CHECK {
            self.work = 0;
            self.ctx.check()?;
            self.ctx.progress(self.elements as f64 / self.total);
        }
        let big_batches = self.levels[last].len() * d >= WORK_PER_CHECK as usize;
        let partial = &self.partial[last];
        let reps = &self.levels[last];
        let mut rest: &[Vec<P>] = reps;
        // Degree <= 64 (cycle counts or type codes): batches of WALKERS leaves walked in lockstep.
        let fast = d <= 64 && !matches!(self.tally, Tally::Types(_));
        if fast {
            // The last, short batch is padded with copies of its first leaf whose results are
            // dropped.
            for chunk in reps.chunks(WALKERS) {
                let mut qs = [[0u8; 64]; WALKERS];
                for (q, rep) in qs.iter_mut().zip(chunk) {
                    for (o, &x) in q.iter_mut().zip(partial.iter()) {
                        *o = rep[x.ix()].ix() as u8;
                    }
                }
                for w in chunk.len()..WALKERS {
                    qs[w] = qs[0];
                }
                let used = chunk.len();
                match (&mut self.tally, &self.code) {
                    (Tally::Cycles(by), _) => {
                        for &c in &walk_cycles(&qs, d)[..used] {
                            by[c as usize] += 1;
                        }
                    }
                    (Tally::Codes(map), Some(tc)) => {
                        for &code in &walk_codes(&qs, d, &tc.weight)[..used] {
                            match map.get_mut(&code) {
                                Some(n) => *n += 1,
                                None => {
                                    charge_new_type(self.budget, 0)?;
                                    map.insert(code, 1);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            rest = &[];
        }
        for rep in rest {
            if big_batches {
                self.ctx.check()?;
            }
            for (o, &x) in self.leaf.iter_mut().zip(partial.iter()) {
                *o = rep[x.ix()];
            }
            let q = &self.leaf;
            match &mut self.tally {
                Tally::Cycles(by) => {
                    let c = if d <= 64 {
                        count_cycles_mask(q)
                    } else {
                        count_cycles(q, &mut self.seen)
                    };
                    by[c] += 1;
                }
                Tally::Codes(map) => {
                    let code = self
                        .code
                        .as_ref()
                        .map_or(0, |tc| code_of(q, &mut self.seen, tc));
                    match map.get_mut(&code) {
                        Some(n) => *n += 1,
                        None => {
                            charge_new_type(self.budget, 0)?;
                            map.insert(code, 1);
                        }
                    }
                }
                Tally::Types(map) => {
                    self.lengths.clear();
                    cycle_lengths(q, &mut self.seen, &mut self.lengths);
                    self.lengths.sort_unstable();
                    match map.get_mut(&self.lengths) {
                        Some(c) => *c += 1,
                        None => {
                            charge_new_type(self.budget, 8 * self.lengths.len() as u64)?;
                            map.insert(self.lengths.clone(), 1);
                        }
                    }
                }
            }
        }
        self.elements += self.levels[last].len() as u64;
        Ok(())
    }
}

/// Point steps of enumeration between two cancellation checks.
const WORK_PER_CHECK: u64 = 1 << 22;

/// Leaves walked together by [`walk_cycles`] and [`walk_codes`].
const WALKERS: usize = 4;

/// Cycle counts of `WALKERS` permutations of `0..d` (`d <= 64`, entries beyond `d` unused),
/// walked in lockstep so that their dependent loads overlap.
///
/// Each walker starts at point 0 and makes exactly `d` steps: a step either moves to a new point
/// or closes the current cycle and jumps to the lowest unvisited point (which it marks), so all
/// walkers finish together and the loop body is branch-free.
#[inline]
fn walk_cycles(qs: &[[u8; 64]; WALKERS], d: usize) -> [u32; WALKERS] {
    let full: u64 = if d >= 64 { u64::MAX } else { (1u64 << d) - 1 };
    let mut mask = [full & !1; WALKERS];
    let mut start = [0u32; WALKERS];
    let mut at = [0u32; WALKERS];
    let mut cycles = [0u32; WALKERS];
    for _ in 0..d {
        for w in 0..WALKERS {
            let y = u32::from(qs[w][(at[w] & 63) as usize]);
            let closed = y == start[w];
            let lowest = mask[w].trailing_zeros();
            let next = if closed { lowest } else { y };
            mask[w] &= !(1u64 << (next & 63));
            start[w] = if closed { lowest } else { start[w] };
            at[w] = next & 63;
            cycles[w] += u32::from(closed);
        }
    }
    cycles
}

/// Like [`walk_cycles`], but returns each permutation's [`TypeCode`] (the sum of `weight[len]`
/// over its cycles).
#[inline]
fn walk_codes(qs: &[[u8; 64]; WALKERS], d: usize, weight: &[u128]) -> [u128; WALKERS] {
    let full: u64 = if d >= 64 { u64::MAX } else { (1u64 << d) - 1 };
    let mut mask = [full & !1; WALKERS];
    let mut start = [0u32; WALKERS];
    let mut at = [0u32; WALKERS];
    let mut len = [0usize; WALKERS];
    let mut code = [0u128; WALKERS];
    for _ in 0..d {
        for w in 0..WALKERS {
            let y = u32::from(qs[w][(at[w] & 63) as usize]);
            let closed = y == start[w];
            let lowest = mask[w].trailing_zeros();
            let next = if closed { lowest } else { y };
            mask[w] &= !(1u64 << (next & 63));
            start[w] = if closed { lowest } else { start[w] };
            at[w] = next & 63;
            len[w] += 1;
            code[w] += if closed { weight[len[w]] } else { 0 };
            len[w] = if closed { 0 } else { len[w] };
        }
    }
    code
}

/// Number of cycles of `q` (degree at most 64), walking cycles with a bitmask of unvisited
/// points.
#[inline]
fn count_cycles_mask<P: Point>(q: &[P]) -> usize {
    let mut unseen: u64 = if q.len() == 64 {
        u64::MAX
    } else {
        (1u64 << q.len()) - 1
    };
    let mut cycles = 0;
    while unseen != 0 {
        let s = unseen.trailing_zeros() as usize;
        let mut x = s;
        loop {
            unseen &= !(1u64 << x);
            x = q[x].ix();
            if x == s {
                break;
            }
        }
        cycles += 1;
    }
    cycles
}

/// Number of cycles of `q` for any degree (`seen` is all false on entry and on exit).
fn count_cycles<P: Point>(q: &[P], seen: &mut [bool]) -> usize {
    let mut cycles = 0;
    for s in 0..q.len() {
        if seen[s] {
            continue;
        }
        cycles += 1;
        let mut x = s;
        while !seen[x] {
            seen[x] = true;
            x = q[x].ix();
        }
    }
    seen.iter_mut().for_each(|b| *b = false);
    cycles
}

/// Appends the cycle lengths of `q` to `out` (`seen` all false on entry and on exit).
fn cycle_lengths<P: Point>(q: &[P], seen: &mut [bool], out: &mut Vec<u64>) {
    for s in 0..q.len() {
        if seen[s] {
            continue;
        }
        let mut len = 0u64;
        let mut x = s;
        while !seen[x] {
            seen[x] = true;
            len += 1;
            x = q[x].ix();
        }
        out.push(len);
    }
    seen.iter_mut().for_each(|b| *b = false);
}

/// The [`TypeCode`] of `q`'s cycle type.
#[inline]
fn code_of<P: Point>(q: &[P], seen: &mut [bool], tc: &TypeCode) -> u128 {
    let mut code = 0u128;
    for s in 0..q.len() {
        if seen[s] {
            continue;
        }
        let mut len = 0usize;
        let mut x = s;
        while !seen[x] {
            seen[x] = true;
            len += 1;
            x = q[x].ix();
        }
        code += tc.weight[len];
    }
    seen.iter_mut().for_each(|b| *b = false);
    code
}

/// Enumerates the group whose elements are exactly the products `r_0 * r_1 * ... * r_{L-1}`
/// ("first `r_0`, then `r_1`, ..."; as image arrays `g[x] = r_{L-1}[...r_0[x]...]`) with `r_i`
/// ranging over `levels[i]`, each product occurring once, and tallies the elements by number of
/// cycles and, if `want_types`, by cycle type.
///
/// Arguments: `degree` points; `levels` the coset representatives as image arrays, in
/// application order; `want_types` whether to tally full cycle types; `ctx` checked about every
/// thousand leaf batches (well under 100 ms), with progress as the fraction of elements done.
///
/// Returns the tally; `Cancelled` if the job was cancelled.
///
/// The levels are first rotated cyclically so that the largest is applied last: a cyclic
/// rotation of the factors conjugates the product (`ab` and `ba` are conjugate), so the cycle
/// type of every element is preserved and the tuples still run over the group once each. The
/// last level is then the innermost loop, so the `O(d)` incremental products of the inner levels
/// are amortised over as many leaves as possible.
///
/// Complexity: O(|G| d) time (one `d`-entry gather and one cycle walk per element), O(d · L)
/// memory besides the levels.
///
/// ```
/// use orbit_worker::SolveContext;
/// use orbit_worker::counting::enumerate_levels;
/// // C_2 x C_2 on 4 points: (1,2) and (3,4) as two levels.
/// let levels = vec![vec![vec![0, 1, 2, 3], vec![1, 0, 2, 3]], vec![vec![0, 1, 2, 3], vec![0, 1, 3, 2]]];
/// let t = enumerate_levels(4, &levels, false, &SolveContext::detached()).unwrap();
/// assert_eq!(t.elements, 4);
/// assert_eq!(t.by_cycles, vec![0, 0, 1, 2, 1]); // one with 2 cycles, two with 3, identity 4
/// ```
///
/// Reference: Seress, *Permutation Group Algorithms* (2003), §4.1 (every element is a unique
/// product of transversal elements).
pub fn enumerate_levels(
    degree: usize,
    levels: &[Vec<Vec<u32>>],
    want_types: bool,
    ctx: &SolveContext,
) -> Result<ElementTally, SolveError> {
    let mut unlimited = MemoryBudget::new(u64::MAX);
    enumerate_levels_within(degree, levels, want_types, ctx, &mut unlimited)
}

/// Bytes per point of the enumeration's image arrays: `u8` up to degree 256, then `u16`, then
/// `u32`.
fn point_bytes(degree: usize) -> u64 {
    if degree <= 256 {
        1
    } else if degree <= 65536 {
        2
    } else {
        4
    }
}

/// Upper bound on what [`enumerate_levels`] allocates for levels of the given lengths, before
/// its tally: the levels re-encoded in the narrow point type (one vector per representative), the
/// identity, one partial product per level, the leaf, the cycle walk's scratch (`seen`, the
/// lengths of one element) and the counts by number of cycles (twice: tallied, then summed from
/// the types).
fn enumeration_bytes(degree: usize, lengths: &[u64]) -> u64 {
    let d = degree as u64;
    let image = point_bytes(degree).saturating_mul(d).saturating_add(24);
    let reps: u64 = lengths.iter().filter(|&&l| l > 1).sum();
    let levels = lengths.len() as u64 + 1;
    reps.saturating_mul(image)
        .saturating_add(levels.saturating_mul(image + 48))
        .saturating_add(image)
        .saturating_add(d)
        .saturating_add(grown_vec_bytes(d, 8))
        .saturating_add((d + 1).saturating_mul(16))
}

/// [`enumerate_levels`], charging `budget` for every cycle type tallied (the levels' own copies
/// are charged by the caller, see [`enumeration_bytes`]).
fn enumerate_levels_within(
    degree: usize,
    levels: &[Vec<Vec<u32>>],
    want_types: bool,
    ctx: &SolveContext,
    budget: &mut MemoryBudget,
) -> Result<ElementTally, SolveError> {
    if degree <= 256 {
        enumerate_with::<u8>(degree, levels, want_types, ctx, budget)
    } else if degree <= 65536 {
        enumerate_with::<u16>(degree, levels, want_types, ctx, budget)
    } else {
        enumerate_with::<u32>(degree, levels, want_types, ctx, budget)
    }
}

fn enumerate_with<P: Point>(
    degree: usize,
    levels: &[Vec<Vec<u32>>],
    want_types: bool,
    ctx: &SolveContext,
    budget: &mut MemoryBudget,
) -> Result<ElementTally, SolveError> {
    let identity: Vec<P> = (0..degree as u32).map(P::from_u32).collect();
    let mut levels: Vec<Vec<Vec<P>>> = levels
        .iter()
        .filter(|l| l.len() > 1)
        .map(|l| {
            l.iter()
                .map(|r| r.iter().map(|&x| P::from_u32(x)).collect())
                .collect()
        })
        .collect();
    if levels.is_empty() {
        levels.push(vec![identity.clone()]);
    }
    if let Some((biggest, _)) = levels.iter().enumerate().max_by_key(|(i, l)| (l.len(), *i)) {
        let len = levels.len();
        levels.rotate_left((biggest + 1) % len);
    }
    let total: f64 = levels.iter().map(|l| l.len() as f64).product();
    let code = if want_types {
        TypeCode::new(degree)
    } else {
        None
    };
    let tally = match (want_types, &code) {
        (false, _) => Tally::Cycles(vec![0; degree + 1]),
        (true, Some(_)) => Tally::Codes(HashMap::default()),
        (true, None) => Tally::Types(HashMap::new()),
    };
    let depth = levels.len();
    let mut e = Enumerator {
        d: degree,
        levels,
        partial: vec![identity.clone(); depth],
        leaf: identity,
        seen: vec![false; degree],
        lengths: Vec::new(),
        code,
        tally,
        elements: 0,
        work: 0,
        total,
        ctx,
        budget,
    };
    e.dfs(0)?;
    let elements = e.elements;
    let (by_cycles, by_type) = match e.tally {
        Tally::Cycles(by) => (by, None),
        Tally::Codes(map) => {
            let tc = e.code.as_ref();
            let types: Vec<(CycleType, u64)> = map
                .into_iter()
                .filter_map(|(code, n)| tc.map(|tc| (tc.decode(degree, code), n)))
                .collect();
            (cycles_from_types(degree, &types), Some(types))
        }
        Tally::Types(map) => {
            let types: Vec<(CycleType, u64)> = map
                .into_iter()
                .map(|(lengths, n)| (CycleType::new(lengths.into_iter().map(|l| (l, 1))), n))
                .collect();
            (cycles_from_types(degree, &types), Some(types))
        }
    };
    Ok(ElementTally {
        elements,
        by_cycles,
        by_type,
    })
}

fn cycles_from_types(degree: usize, types: &[(CycleType, u64)]) -> Vec<u64> {
    let mut by = vec![0u64; degree + 1];
    for (t, n) in types {
        by[t.cycles() as usize] += n;
    }
    by
}

/// The cycle index of `Sym(d)` (or of `Alt(d)` when `alternating`) by the partitions of `d`: the
/// class of cycle type `λ` has `d!/z_λ` elements, `z_λ = prod_i i^{m_i} m_i!`; `Alt(d)` keeps
/// the even classes (for `d >= 2`).
///
/// Arguments: `d` points; `alternating`; `max_types` bounds the number of partitions visited
/// (`LimitExceeded` naming `max_group_elements` beyond it); `ctx` checked every 4096 partitions.
///
/// Complexity: O(p(d) · d) big-integer operations on numbers of `O(d log d)` bits.
///
/// ```
/// use orbit_worker::{SolveContext, counting::giant_cycle_index};
/// let z = giant_cycle_index(3, false, 1000, &SolveContext::detached()).unwrap();
/// assert_eq!(z.to_string(), "(x1^3 + 3*x1*x2 + 2*x3)/6");
/// ```
///
/// Reference: R. P. Stanley, *Enumerative Combinatorics* vol. 2 (1999), Prop. 7.7.3.
pub fn giant_cycle_index(
    d: u64,
    alternating: bool,
    max_types: u64,
    ctx: &SolveContext,
) -> Result<CycleIndex, SolveError> {
    match super::graphs::partition_count(d) {
        Some(p) if p <= u128::from(max_types) => {}
        _ => {
            return Err(SolveError::limit(
                format!("cycle types of the degree-{d} giant (partitions of {d})"),
                format!("{max_types} (max_group_elements)"),
            ));
        }
    }
    let full = factorial(d);
    let mut out: Vec<(CycleType, BigUint)> = Vec::new();
    let mut parts: Vec<(u64, u64)> = Vec::new();
    let mut visited = 0u64;
    partitions(d, d, &mut parts, &mut |parts| {
        visited += 1;
        if visited & 0xfff == 0 {
            ctx.check()?;
        }
        let t = CycleType::new(parts.iter().copied());
        if alternating && d >= 2 && !t.is_even() {
            return Ok(());
        }
        let mut z = BigUint::one();
        for &(l, m) in t.parts() {
            z *= num_traits::Pow::pow(BigUint::from(l), m);
            z *= factorial(m);
        }
        out.push((t, &full / z));
        Ok(())
    })?;
    Ok(CycleIndex::from_counts(d, out))
}

/// A callback receiving one partition as `(part, multiplicity)` pairs.
type PartitionVisitor<'a> = dyn FnMut(&[(u64, u64)]) -> Result<(), SolveError> + 'a;

/// Calls `f` on every partition of `n` into parts at most `max`, as `(part, multiplicity)`
/// pairs.
fn partitions(
    n: u64,
    max: u64,
    parts: &mut Vec<(u64, u64)>,
    f: &mut PartitionVisitor<'_>,
) -> Result<(), SolveError> {
    if n == 0 {
        return f(parts);
    }
    for p in (1..=max.min(n)).rev() {
        for m in 1..=n / p {
            parts.push((p, m));
            partitions(n - p * m, p - 1, parts, f)?;
            parts.pop();
        }
    }
    Ok(())
}

/// Word operations the incremental binomial of [`giant_count`] may take (about a quarter of a
/// second).
const MAX_BINOMIAL_WORK: f64 = (1u64 << 28) as f64;

/// Orbits of `k`-colourings of `d` points under `Sym(d)` (multisets of size `d` from `k`
/// colours: `C(d + k - 1, d)`) or `Alt(d)`: an `Sym(d)`-orbit splits in two exactly when its
/// colouring's stabiliser `prod S_{n_j}` lies in `Alt(d)`, i.e. when no colour repeats, adding
/// `C(k, d)` for `d >= 2`.
///
/// Returns `LimitExceeded` when the binomial, computed exactly with `min(d, k - 1)` small steps on
/// a growing number, would take more than [`MAX_BINOMIAL_WORK`] word operations (huge `d` and
/// `k` together; a modulus does not help, the value is computed exactly).
pub(crate) fn giant_count(d: u64, k: u64, alternating: bool) -> Result<BigUint, SolveError> {
    let steps = d.min(k - 1) as f64;
    let bits = steps * ((d as f64) + (k as f64)).log2();
    if steps * (bits / 64.0 + 1.0) > MAX_BINOMIAL_WORK {
        return Err(SolveError::limit(
            format!(
                "the exact Sym/Alt count C(d + k - 1, d) for d = {d}, k = {k} (about {} bits)",
                bits.ceil()
            ),
            format!("{MAX_BINOMIAL_WORK} word operations"),
        ));
    }
    let mut c = binomial(u128::from(d) + u128::from(k) - 1, u128::from(d));
    if alternating && d >= 2 {
        c += binomial(u128::from(k), u128::from(d));
    }
    Ok(c)
}

/// Orbits of colourings with content `content` under `Sym(d)` (one) or `Alt(d)` (two when every
/// colour is used at most once and `d >= 2`, else one).
pub(crate) fn giant_count_with_content(d: u64, content: &[u64], alternating: bool) -> BigUint {
    if alternating && d >= 2 && content.iter().all(|&c| c <= 1) {
        BigUint::from(2u32)
    } else {
        BigUint::one()
    }
}

/// What [`count_group`] computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupCount {
    /// The number of orbits (or its residue).
    pub count: BigUint,
    /// `|G|`.
    pub group_order: BigUint,
    /// What the engine proved the group to be; `None` when the group is cyclic (one generator)
    /// and was counted by divisors without building a stabiliser chain; `General` for a proven
    /// dihedral group (`d >= 4`: neither trivial nor a giant; no chain is built either).
    pub kind: Option<GroupKind>,
    /// Elements enumerated one by one (0 for a giant, a cyclic or a dihedral group).
    pub enumerated: u64,
    /// For a cyclic group counted by divisors: the number of divisors of its order summed over.
    pub cyclic_divisors: Option<u64>,
    /// For a group proven to be the natural dihedral group `D_d` and counted by the divisors of
    /// `d` (the bracelet cycle index): the number of divisors of `d` summed over.
    pub dihedral_divisors: Option<u64>,
    /// The cycle index, when asked for.
    pub cycle_index: Option<CycleIndex>,
}

/// Upper bound on the bytes [`count_group`] allocates for a group of degree `degree` from
/// `generators` permutations besides what is only known while it runs (the stabiliser chain, the
/// enumeration and its tally, the cycle index, the pattern inventory's tables), which is charged
/// against the chain budget (see [`count_group_memory_estimate`]):
/// * the copy of the generators the job hands over (`k (4d + 16)`) and the group's construction
///   ([`perm_group_memory_estimate`]);
/// * the shortcuts: a generator's cycle type and prime powers (`d` plus a few words per distinct
///   cycle length), the dihedral test (its product-replacement slots, up to 16 inverses and
///   products: `4d (max(10, k) + 22)`) and the divisors of `d`;
/// * the enumeration's fixed scratch, the counts by number of cycles (`40d`);
/// * big integers: the Burnside sums (numbers below `|G| k^d`, or `|G| M` with a modulus; `|G|`
///   has at most `d log2 d` bits), `Sym`/`Alt`'s binomial `C(d + k - 1, d)`, and with a content
///   the products of multinomial-sized counts by class sizes.
fn count_group_fixed_memory(
    degree: u64,
    generators: u64,
    k: u64,
    content: Option<&[u64]>,
    modulus_bits: Option<u64>,
) -> u64 {
    let (d, gens) = (degree, generators);
    let order_bits = crate::group::order_bits_bound(d);
    let colours = content.map_or(k, |c| c.len() as u64).max(1);
    let lengths = (2 * d).isqrt() + 2;
    let shortcuts = d
        .saturating_add(lengths.saturating_mul(256))
        .saturating_add(d.saturating_mul(4).saturating_mul(gens.max(10) + 22))
        .saturating_add(divisors_memory_estimate(d));
    let binomial_bits =
        (d.min(k.saturating_sub(1)) as f64 * ((d as f64) + (k as f64)).log2()).ceil() as u64 + 64;
    let content_bits = content.map_or(0, |c| {
        multinomial_bits_bound(c)
            .saturating_add(order_bits)
            .saturating_add(64)
    });
    gens.saturating_mul(4 * d + 16 + 24)
        .saturating_add(perm_group_memory_estimate(d, gens))
        .saturating_add(shortcuts)
        .saturating_add(d.saturating_mul(40))
        .saturating_add(burnside_memory_estimate(
            colours,
            d,
            order_bits,
            modulus_bits,
        ))
        .saturating_add(bigint_work_bytes(binomial_bits, 2))
        .saturating_add(if content.is_some() {
            bigint_work_bytes(content_bits, 3)
        } else {
            0
        })
        .saturating_add(SMALL_ALLOCATIONS)
}

/// Upper bound on the bytes [`count_group`] allocates (the answer included) for a group of degree
/// `degree` from `generators` permutations, `k` colours or a `content`, and a modulus of
/// `modulus_bits` bits if any: the fixed part (see the derivation on `count_group_fixed_memory`)
/// plus the budget — [`chain_budget`] — that everything only known while running is charged
/// against before it is allocated: the stabiliser chain, then the transversals and their copies
/// for the enumeration, the tally's cycle types, the cycle index, each pattern-inventory table.
///
/// ```
/// use orbit_worker::Limits;
/// use orbit_worker::counting::count_group_memory_estimate;
/// let limits = Limits { max_job_memory: 64 << 20, ..Limits::default() };
/// // Small groups get the rest of the job's limit as their budget.
/// assert_eq!(count_group_memory_estimate(6, 2, 2, None, None, &limits), 64 << 20);
/// ```
pub fn count_group_memory_estimate(
    degree: u64,
    generators: u64,
    k: u64,
    content: Option<&[u64]>,
    modulus_bits: Option<u64>,
    limits: &Limits,
) -> u64 {
    let fixed = count_group_fixed_memory(degree, generators, k, content, modulus_bits);
    fixed.saturating_add(chain_budget(limits, fixed))
}

/// Counts the orbits of colourings of `0..degree` under the group generated by `generators`.
///
/// Arguments: `degree`, `generators` (each of that degree); `k` colours; `content` — if given,
/// colour `j` must be used exactly `content[j]` times (Pólya's pattern inventory) and `k` is
/// ignored; `modulus`;
/// `want_cycle_index`; `ctx`; `limits` (`max_group_elements` bounds the elements enumerated, or
/// the partitions visited for a giant's cycle index).
///
/// Before building anything, a group with one non-identity generator is counted by the divisors
/// of its order, and a group proven (from its generators, see [`is_natural_dihedral`]) to be the
/// dihedral group `D_d` in its natural action on all `d >= 4` points by the divisors of `d`
/// (the bracelet cycle index, whatever the labels of the points).
///
/// Returns a [`GroupCount`], or `LimitExceeded` naming `max_group_elements` when the group is not
/// a recognised giant, cyclic or dihedral group and has more elements than the limit; errors of
/// the group engine pass through.
///
/// Complexity: for a recognised dihedral group O(s^2 · d) for the proof (`s` generators) and one
/// big power per divisor of `d`; otherwise building the group (see [`PermGroup::new`]); then for
/// a giant O(d) big-integer operations (O(p(d)) for its cycle index), otherwise O(|G| · d) for
/// the enumeration plus one big power per distinct number of cycles (or one pattern-inventory
/// table per cycle type).
///
/// ```
/// use orbit_worker::{Limits, SolveContext};
/// use orbit_worker::counting::{bracelet_count, count_group};
/// use orbit_worker::group::Perm;
/// let d = 100_000u32;
/// let c = Perm::from_images((0..d).map(|i| (i + 1) % d).collect(), "c").unwrap();
/// let r = Perm::from_images((0..d).map(|i| (d - i) % d).collect(), "r").unwrap();
/// let (ctx, limits) = (SolveContext::detached(), Limits::default());
/// let g = count_group(d as usize, vec![c, r], 2, None, None, false, &ctx, &limits).unwrap();
/// assert_eq!(g.count, bracelet_count(100_000, 2, None, &ctx).unwrap());
/// assert_eq!(g.group_order, 200_000u32.into());
/// ```
///
/// Reference: W. Burnside, *Theory of Groups of Finite Order* (1897), §145; G. Pólya (1937).
#[allow(clippy::too_many_arguments)]
pub fn count_group(
    degree: usize,
    generators: Vec<Perm>,
    k: u64,
    content: Option<&[u64]>,
    modulus: Option<&BigUint>,
    want_cycle_index: bool,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GroupCount, SolveError> {
    count_group_with(
        degree,
        generators,
        k,
        content,
        modulus,
        want_cycle_index,
        ctx,
        limits,
        true,
    )
}

/// [`count_group`] without the divisor shortcuts: the cyclic and dihedral groups are built and
/// enumerated like any other group (a proven `Sym`/`Alt` still uses its closed forms). This is
/// the independent path the tests and benchmarks compare the shortcuts against.
///
/// Arguments, returns: as [`count_group`] (`cyclic_divisors` and `dihedral_divisors` are `None`).
///
/// Complexity: building the group, then O(|G| · d).
///
/// ```
/// use orbit_worker::{Limits, SolveContext};
/// use orbit_worker::counting::count_group_enumerated;
/// use orbit_worker::group::Perm;
/// let c = Perm::from_images(vec![1, 2, 3, 4, 0], "c").unwrap();
/// let r = Perm::from_images(vec![0, 4, 3, 2, 1], "r").unwrap();
/// let (ctx, limits) = (SolveContext::detached(), Limits::default());
/// let g = count_group_enumerated(5, vec![c, r], 2, None, None, false, &ctx, &limits).unwrap();
/// assert_eq!((g.count, g.enumerated), (8u32.into(), 10)); // OEIS A000029
/// ```
///
/// Reference: W. Burnside (1897), §145.
#[allow(clippy::too_many_arguments)]
pub fn count_group_enumerated(
    degree: usize,
    generators: Vec<Perm>,
    k: u64,
    content: Option<&[u64]>,
    modulus: Option<&BigUint>,
    want_cycle_index: bool,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<GroupCount, SolveError> {
    count_group_with(
        degree,
        generators,
        k,
        content,
        modulus,
        want_cycle_index,
        ctx,
        limits,
        false,
    )
}

/// [`count_group`], with the cyclic and dihedral shortcuts only when `shortcuts`.
#[allow(clippy::too_many_arguments)]
fn count_group_with(
    degree: usize,
    generators: Vec<Perm>,
    k: u64,
    content: Option<&[u64]>,
    modulus: Option<&BigUint>,
    want_cycle_index: bool,
    ctx: &SolveContext,
    limits: &Limits,
    shortcuts: bool,
) -> Result<GroupCount, SolveError> {
    if let Some(c) = content {
        check_content(c, degree as u64)?;
    }
    let fixed = count_group_fixed_memory(
        degree as u64,
        generators.len() as u64,
        k,
        content,
        modulus.map(BigUint::bits),
    );
    let mut budget = MemoryBudget::new(chain_budget(limits, fixed));
    if shortcuts {
        let moving: Vec<&Perm> = generators.iter().filter(|g| !g.is_identity()).collect();
        if let [g] = moving.as_slice()
            && let Some(found) = count_cyclic(
                g,
                k,
                content,
                modulus,
                want_cycle_index,
                ctx,
                limits,
                &mut budget,
            )?
        {
            return Ok(found);
        }
        if is_natural_dihedral(degree, &generators, ctx)? {
            return count_dihedral(
                degree as u64,
                k,
                content,
                modulus,
                want_cycle_index,
                ctx,
                &mut budget,
            );
        }
    }
    let chain_limits = Limits {
        max_group_chain_bytes: budget.remaining(),
        ..limits.clone()
    };
    let group = PermGroup::new(degree, generators, ctx, &chain_limits)?;
    budget.charge(group.chain_bytes(), || "the stabiliser chain".to_string())?;
    let order = group.order();
    let kind = group.kind();
    let d = degree as u64;
    let reduce = |x: BigUint| match modulus {
        Some(m) => x % m,
        None => x,
    };
    if matches!(kind, GroupKind::Symmetric | GroupKind::Alternating) {
        let alternating = kind == GroupKind::Alternating;
        let count = match content {
            Some(c) => giant_count_with_content(d, c, alternating),
            None => giant_count(d, k, alternating)?,
        };
        let cycle_index = if want_cycle_index {
            // Charge the terms before building them (when their number is within the limit;
            // otherwise `giant_cycle_index` refuses, stating it).
            if let Some(types) = super::graphs::partition_count(d)
                .filter(|&p| p <= u128::from(limits.max_group_elements))
            {
                let max_parts = ((8 * d + 1).isqrt() - 1) / 2;
                let term = cycle_index_term_bytes(max_parts, crate::group::order_bits_bound(d));
                budget.charge((types as u64).saturating_mul(term), || {
                    format!("the cycle index of the degree-{d} giant ({types} terms)")
                })?;
            }
            Some(giant_cycle_index(
                d,
                alternating,
                limits.max_group_elements,
                ctx,
            )?)
        } else {
            None
        };
        return Ok(GroupCount {
            count: reduce(count),
            group_order: order,
            kind: Some(kind),
            enumerated: 0,
            cyclic_divisors: None,
            dihedral_divisors: None,
            cycle_index,
        });
    }
    if order > BigUint::from(limits.max_group_elements) {
        return Err(SolveError::limit(
            format!("group elements to enumerate (order {order})"),
            format!("{} (max_group_elements)", limits.max_group_elements),
        ));
    }
    // Charge the transversals and their copies before building them: the engine's (on the moved
    // points, then expanded to all of them), the `u32` image arrays and the enumeration's own.
    let lengths = group.transversal_lengths();
    let (d_bytes, m_bytes) = (4 * d, 4 * group.moved_points() as u64);
    let reps: u64 = lengths.iter().sum();
    let level_vecs = 48 * (lengths.len() as u64 + 1);
    let engine = reps
        .saturating_mul(m_bytes + 16 + if m_bytes < d_bytes { d_bytes + 16 } else { 0 })
        .saturating_add(m_bytes)
        .saturating_add(level_vecs);
    let copies = reps.saturating_mul(d_bytes + 24).saturating_add(level_vecs);
    let enumeration = enumeration_bytes(degree, &lengths);
    let what = || format!("the transversals of the group of order {order} to enumerate");
    budget.charge(engine.saturating_add(copies), what)?;
    let transversals = group.transversals()?;
    // The engine's elements are u_{L-1} * ... * u_0 ("first u_{L-1}"): application order is the
    // reverse of its level order.
    let levels: Vec<Vec<Vec<u32>>> = transversals
        .iter()
        .rev()
        .map(|level| level.iter().map(|p| p.images().to_vec()).collect())
        .collect();
    drop(transversals);
    budget.release(engine);
    budget.charge(enumeration, what)?;
    let want_types = want_cycle_index || content.is_some();
    let tally = enumerate_levels_within(degree, &levels, want_types, ctx, &mut budget)?;
    drop(levels);
    budget.release(copies.saturating_add(enumeration));
    debug_assert_eq!(BigUint::from(tally.elements), order);
    if let Some(types) = &tally.by_type {
        let parts = types.iter().map(|(t, _)| t.parts().len() as u64);
        let bytes = parts
            .map(|p| cycle_index_term_bytes(p, order.bits()))
            .fold(0u64, u64::saturating_add);
        budget.charge(bytes, || {
            format!("the cycle index ({} cycle types)", types.len())
        })?;
    }
    let cycle_index = tally.by_type.as_ref().map(|types| {
        CycleIndex::from_counts(d, types.iter().map(|(t, n)| (t.clone(), BigUint::from(*n))))
    });
    let count = match (content, &cycle_index) {
        (Some(c), Some(z)) => z.count_with_content_within(c, modulus, ctx, &mut budget)?,
        _ => {
            let mut sum = BurnsideSum::new(k, order.clone(), modulus);
            for (c, &n) in tally.by_cycles.iter().enumerate() {
                if n != 0 {
                    sum.add_small(n, c as u64);
                }
            }
            sum.finish()
        }
    };
    Ok(GroupCount {
        count,
        group_order: order,
        kind: Some(kind),
        enumerated: tally.elements,
        cyclic_divisors: None,
        dihedral_divisors: None,
        cycle_index: if want_cycle_index { cycle_index } else { None },
    })
}

/// Most `divisors x distinct cycle lengths x primes` steps [`count_cyclic`] takes before leaving
/// the group to the general path.
const MAX_CYCLIC_WORK: u128 = 1 << 31;

/// Counts under the cyclic group `<g>` by the divisors of its order, without enumerating it.
///
/// With `N = lcm` of the cycle lengths of `g`, the element `g^i` depends (up to its cycle type)
/// only on `t = gcd(i, N)`, which occurs for `phi(N/t)` exponents `i`; a cycle of length `L`
/// splits under `g^t` into `gcd(t, L)` cycles of length `L / gcd(t, L)`. So
/// `Z(<g>) = (1/N) sum over t | N of phi(N/t) prod_L x_{L/gcd(t,L)}^{m_L gcd(t,L)}`.
///
/// Returns `None` (the caller then builds the group) when the divisor sum would take more than
/// [`MAX_CYCLIC_WORK`] steps or more divisors than `limits.max_group_elements`.
///
/// Complexity: O(tau(N) * distinct lengths * primes of N), plus one big power per divisor.
#[allow(clippy::too_many_arguments)]
fn count_cyclic(
    g: &Perm,
    k: u64,
    content: Option<&[u64]>,
    modulus: Option<&BigUint>,
    want_cycle_index: bool,
    ctx: &SolveContext,
    limits: &Limits,
    budget: &mut MemoryBudget,
) -> Result<Option<GroupCount>, SolveError> {
    let degree = g.degree() as u64;
    let shape = CycleType::of_images(g.images());
    let lengths = shape.parts();
    // Factorisation of N = lcm of the lengths: the largest exponent of each prime.
    let mut primes: Vec<(u64, u32)> = Vec::new();
    for &(l, _) in lengths {
        for (p, e) in factorize(l) {
            match primes.iter_mut().find(|(q, _)| *q == p) {
                Some((_, f)) => *f = (*f).max(e),
                None => primes.push((p, e)),
            }
        }
    }
    primes.sort_unstable();
    let divisors: u128 = primes
        .iter()
        .try_fold(1u128, |acc, &(_, e)| acc.checked_mul(u128::from(e) + 1))
        .unwrap_or(u128::MAX);
    let work = divisors
        .saturating_mul(lengths.len() as u128)
        .saturating_mul(primes.len().max(1) as u128);
    if divisors > u128::from(limits.max_group_elements) || work > MAX_CYCLIC_WORK {
        return Ok(None);
    }
    // v_p(L) for every distinct length and prime.
    let vals: Vec<Vec<u32>> = lengths
        .iter()
        .map(|&(l, _)| {
            primes
                .iter()
                .map(|&(p, _)| {
                    let (mut x, mut v) = (l, 0);
                    while x.is_multiple_of(p) {
                        x /= p;
                        v += 1;
                    }
                    v
                })
                .collect()
        })
        .collect();
    let order: BigUint = primes
        .iter()
        .map(|&(p, e)| num_traits::Pow::pow(BigUint::from(p), e))
        .product();
    let want_types = want_cycle_index || content.is_some();
    if want_types {
        let term = cycle_index_term_bytes(lengths.len() as u64, order.bits());
        budget.charge((divisors as u64).saturating_mul(term), || {
            format!("the cycle index of the cyclic group ({divisors} terms)")
        })?;
    }
    let mut sum = BurnsideSum::new(k, order.clone(), modulus);
    let mut types: Vec<(CycleType, BigUint)> = Vec::new();
    // Odometer over the exponent vectors a of t = prod p^a_p.
    let mut a = vec![0u32; primes.len()];
    let mut visited = 0u64;
    loop {
        visited += 1;
        if visited & 0x3ff == 0 {
            ctx.check()?;
        }
        // phi(N / t) = prod over p with e_p > a_p of p^(e_p - a_p - 1) (p - 1).
        let mut phi = BigUint::one();
        for (&(p, e), &ap) in primes.iter().zip(&a) {
            if e > ap {
                phi *= num_traits::Pow::pow(BigUint::from(p), e - ap - 1) * (p - 1);
            }
        }
        let mut cycles = 0u64;
        let mut parts: Vec<(u64, u64)> = Vec::new();
        for (&(l, m), v) in lengths.iter().zip(&vals) {
            let mut gcd = 1u64;
            for ((&(p, _), &ap), &vp) in primes.iter().zip(&a).zip(v) {
                gcd *= p.pow(ap.min(vp));
            }
            cycles += m * gcd;
            if want_types {
                parts.push((l / gcd, m * gcd));
            }
        }
        if want_types {
            types.push((CycleType::new(parts), phi));
        } else {
            sum.add(&phi, cycles);
        }
        // Next exponent vector.
        let mut i = 0;
        while i < a.len() && a[i] == primes[i].1 {
            a[i] = 0;
            i += 1;
        }
        if i == a.len() {
            break;
        }
        a[i] += 1;
    }
    let cycle_index = want_types.then(|| CycleIndex::from_counts(degree, types));
    let count = match (&cycle_index, content) {
        (Some(z), Some(c)) => z.count_with_content_within(c, modulus, ctx, budget)?,
        (Some(z), None) => z.count(k, modulus),
        (None, _) => sum.finish(),
    };
    Ok(Some(GroupCount {
        count,
        group_order: order,
        kind: None,
        enumerated: 0,
        cyclic_divisors: Some(divisors as u64),
        dihedral_divisors: None,
        cycle_index: if want_cycle_index { cycle_index } else { None },
    }))
}

/// Counts under the natural dihedral group `D_d` (already proven by
/// [`is_natural_dihedral`]) by the divisors of `d`: the bracelet cycle index
/// `(1/2d) (sum over e | d of phi(e) x_e^(d/e) + reflections)`, the reflections contributing
/// `d x_1 x_2^((d-1)/2)` for odd `d` and `(d/2)(x_1^2 x_2^(d/2-1) + x_2^(d/2))` for even `d`.
/// The group was given on arbitrary labels; relabelling the points along its `d`-cycle makes it
/// the bracelet group, and relabelling changes neither the count nor the cycle index.
///
/// Complexity: as [`bracelet_count`] (one big power per divisor of `d`), plus
/// [`CycleIndex::count_with_content`] for a content.
fn count_dihedral(
    d: u64,
    k: u64,
    content: Option<&[u64]>,
    modulus: Option<&BigUint>,
    want_cycle_index: bool,
    ctx: &SolveContext,
    budget: &mut MemoryBudget,
) -> Result<GroupCount, SolveError> {
    let divisors = divisors_with_phi(d).len() as u64;
    if want_cycle_index || content.is_some() {
        let term = cycle_index_term_bytes(2, u64::from(64 - d.saturating_mul(2).leading_zeros()));
        budget.charge((divisors + 2).saturating_mul(term), || {
            format!("the cycle index of the dihedral group of degree {d}")
        })?;
    }
    let cycle_index = (want_cycle_index || content.is_some()).then(|| bracelet_cycle_index(d));
    let count = match (content, &cycle_index) {
        (Some(c), Some(z)) => z.count_with_content_within(c, modulus, ctx, budget)?,
        _ => bracelet_count(d, k, modulus, ctx)?,
    };
    Ok(GroupCount {
        count,
        group_order: BigUint::from(d) * 2u32,
        kind: Some(GroupKind::General),
        enumerated: 0,
        cyclic_divisors: None,
        dihedral_divisors: Some(divisors),
        cycle_index: if want_cycle_index { cycle_index } else { None },
    })
}
