//! Counting by enumeration: every element of a group is visited once through its stabiliser
//! chain — never stored as a set — by a depth-first search over the levels that composes coset
//! representatives incrementally, and the elements are tallied by number of cycles (or by full
//! cycle type when the cycle index or a prescribed content is wanted), the input of Burnside's
//! lemma.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::context::SolveContext;
use crate::counting::cycle_index::CycleType;
use crate::error::SolveError;
use crate::memory::{MemoryBudget, grown_vec_bytes};

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
pub(super) fn enumeration_bytes(degree: usize, lengths: &[u64]) -> u64 {
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
pub(super) fn enumerate_levels_within(
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
