//! [`PartProductWords`]: words for a group `N` that is the direct product of small groups `N_P`,
//! one on each of some parts `P` of the points (`Alt(5)^40`, the bottom of the kernel of
//! `Sym(5) wr Sym(40)` on its blocks), from elements *supported on one part* (moving the points
//! of one part only), each with its word in some other group's generators.
//!
//! Each part keeps the supported elements found on it (those that enlarge its group, and a few
//! more, [`PART_STEPS`] in all, which shorten the paths) and a breadth-first table of the group
//! their restrictions generate (at most [`MAX_PART_GROUP`] elements): every element of it with
//! a shortest path over those elements and their inverses. A member `x` is the product of its
//! restrictions to the parts (they commute: their supports are disjoint), each the product along
//! its path, so `x`'s word is the paths' elements' words one after another; `x` is a member
//! exactly when every restriction is in its part's table.
//!
//! Supported elements come from elements `x` of `N` supported on several parts by a power: for
//! a prime `q`, if one part `P` has the largest power of `q` in the order of `x` restricted to
//! it, strictly, then `x^{L/q}` (`L` the lcm of the restrictions' orders) is supported on `P`
//! alone, of order `q` there ([`isolating_power`]).
//!
//! **Order.** The elements kept generate `Π_P ⟨N_P found⟩`, of order the product of the tables'
//! sizes; the caller compares it with the order it expects.
//!
//! **Alternating blocks.** When every part's group is the part's alternating group (of at least
//! nine points, so beyond a table), or trivial (below a series that wrote the solvable parts
//! beside them), and the parts are blocks of the whole group's orbits (the parts in an orbit
//! cover it), [`PartProductWords::finish`] writes the members with conjugates
//! of one 3-cycle of the whole group per orbit, in its own generators ([`GiantWords::on_blocks`]),
//! instead of each part's words in the part's elements, which are themselves long powers
//! (`Sym(100) wr Sym(2)`: about 190,000 letters instead of more than 10^7; `Sym(50) wr Sym(10)`
//! beside `Sym(25) wr Sym(20)`, the kernel of the action on both orbits' blocks, one 3-cycle for
//! each orbit, the first one free on the second orbit's blocks). A part that is a whole orbit of
//! the group with its alternating group there (`Sym(100)` beside `Sym(100) wr Sym(9)`, the kernel
//! of the action on the larger orbit) is written likewise on its own, with a 3-cycle of the group
//! that is the identity off that orbit ([`GiantWords::on_orbit`]).
//!
//! # Complexity
//! Inserting on a part of `b` points whose table has `t` elements over `s` elements: `O(t · s ·
//! b)` (the table rebuilt). A word: `O(d)` for the restrictions and the paths' words. Memory:
//! `O(t · b)` per part.
//!
//! # Reference
//! Dixon, Mortimer, *Permutation Groups* (1996), §2.6 (the base group of a wreath product, a
//! direct product over the blocks); Seress, *Permutation Group Algorithms* (2003), §4.1 (orbit
//! algorithms: the breadth-first Cayley table of a small group).

use num_bigint::BigUint;

use super::giant::GiantWords;
use super::giant_product::{in_writing_order, word_in_writing_order};
use super::group_words::{GroupWords, WordEffort};
use super::local_table::{Local, LocalTable, as_perm, inverse, is_identity, restriction};
use super::orbit_product::preserves_orbits;
use super::word::{GeneratorOrders, LetterBudget, Word};
use crate::context::SolveContext;
use crate::counting::arith::{factorize, gcd};
use crate::error::SolveError;
use crate::group::giant_recognition::Giant;
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

/// Largest group kept per part as a table (`Sym(8)`): every element with its path (about 4 MB
/// for `Sym(8)`, charged to the job like the rest). A larger one is kept as a permutation group
/// on the part's points, and gets its own [`GroupWords`] in the part's elements once the
/// kernel is complete ([`PartProductWords::finish`]).
pub(super) const MAX_PART_GROUP: usize = 40_320;

/// Elements kept per part as steps of its table (or generators of its group beyond a table), at
/// most: once a part's group is generated, the next elements found on it (as long as the others:
/// conjugates of the same few) are kept too, as the table's paths over more steps are shorter.
/// Each member's word is the parts' paths' elements one after another, so on `PSL(2,7) wr
/// Sym(100)` (two generating elements a part, paths of about 4.6 steps) six steps give words
/// 28 % shorter, ten 29 %; on `M24 wr Sym(40)` (the part's own words over six of its elements)
/// 33 % shorter.
const PART_STEPS: usize = 6;

/// Largest part group (in elements) whose table takes further steps: each step rebuilds it in
/// `O(t · s · b)` (`M11`, 7,920 elements, yes; `Sym(8)`, 40,320, no).
const PART_STEPS_UP_TO: usize = 10_000;

/// Fewest points of a part from which parts whose groups are alternating get their words from
/// 3-cycles of the whole group ([`PartProductWords::finish`]).
const BLOCK_GIANTS_FROM: usize = 9;

/// What [`PartProductWords::insert`] did.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum PartInserted {
    /// The element is supported on one part and its group there grew.
    New,
    /// Supported on one part, and already in its group there.
    Redundant,
    /// Not supported on a single part (or moving points outside the parts).
    NotSupported,
    /// Its part's group could not be kept (the chain of a large part's group over its limits).
    TooLarge,
}

/// A part whose group is beyond a table: the group on the part's points (generated by the
/// restrictions of the part's elements, in their order) and, once finished, its words.
#[derive(Debug)]
struct LargePart {
    group: PermGroup,
    words: Option<LargePartWords>,
}

impl LargePart {
    /// Whether its group is the alternating group of its `points` points, of at least
    /// [`BLOCK_GIANTS_FROM`] (then written with 3-cycles of the whole group).
    fn is_alternating(&self, points: usize) -> bool {
        points >= BLOCK_GIANTS_FROM
            && Giant::of_order(&self.group.order(), points) == Some(Giant::Alternating)
    }
}

/// How a large part's members are written.
#[derive(Debug)]
enum LargePartWords {
    /// In the part's elements (each letter then its element's word, often a long power).
    InElements(Box<GroupWords>),
    /// A part that is a whole orbit of the group, whose group there is the orbit's alternating
    /// group of at least [`BLOCK_GIANTS_FROM`] points (`Sym(100)` beside `Sym(100) wr Sym(9)`):
    /// conjugates of a 3-cycle of the whole group that is the identity off the orbit, in the
    /// group's own generators ([`GiantWords::on_orbit`]; at degree 1,000 the whole word of a
    /// member then has 7.6 million letters on average, against 37.8 million with this part's
    /// words in its elements).
    OnOrbit(Box<GiantWords>),
}

impl LargePartWords {
    fn bytes(&self) -> u64 {
        match self {
            LargePartWords::InElements(words) => words.bytes(),
            LargePartWords::OnOrbit(giant) => giant.bytes(),
        }
    }
}

/// One part's elements and table.
#[derive(Debug, Default)]
struct PartTable {
    /// The supported elements: their restrictions (images of the part's indices), themselves
    /// and their words.
    elements: Vec<(Local, Perm, Word)>,
    /// The group of the elements' restrictions, over the steps `2i` (element `i`) and `2i + 1`
    /// (its inverse); `None` before the first element and once the group outgrew a table
    /// ([`MAX_PART_GROUP`]).
    table: Option<LocalTable>,
    /// Set when the group outgrew a table.
    large: Option<LargePart>,
}

/// Words for a direct product over parts (see the module documentation).
#[derive(Debug)]
pub(super) struct PartProductWords {
    degree: usize,
    parts: Vec<Vec<u32>>,
    /// `position[x]`: `(part, index in it)`, or `None` for a point outside every part.
    position: Vec<Option<(u32, u32)>>,
    tables: Vec<PartTable>,
    /// Every element kept, in order: `(part, index in its table's elements)`.
    found: Vec<(usize, usize)>,
    /// Set by [`PartProductWords::finish`] when every part's group is the part's alternating
    /// group (or trivial, the others' not) and the parts are blocks of the whole group's
    /// orbits, covering each orbit they meet: per such orbit one set of 3-cycle conjugates in
    /// the whole group's generators writes every member's restriction to it (in writing order:
    /// each orbit's word also moves the later orbits), instead of each part's words in the
    /// part's elements (whose own words are long powers). Empty for most products.
    block_giants: Vec<GiantWords>,
}

impl PartProductWords {
    /// An empty structure (the trivial group) for `parts` (disjoint, each sorted, each of at
    /// most 65,535 points) with `position` as from `orbit_positions`.
    pub(super) fn new(
        degree: usize,
        parts: Vec<Vec<u32>>,
        position: Vec<Option<(u32, u32)>>,
    ) -> PartProductWords {
        let tables = parts.iter().map(|_| PartTable::default()).collect();
        PartProductWords {
            degree,
            parts,
            position,
            tables,
            found: Vec::new(),
            block_giants: Vec::new(),
        }
    }

    /// The number of elements kept.
    pub(super) fn found_len(&self) -> usize {
        self.found.len()
    }

    /// Element `i` kept, with its word.
    pub(super) fn found(&self, i: usize) -> (&Perm, &Word) {
        let (part, j) = self.found[i];
        let (_, perm, word) = &self.tables[part].elements[j];
        (perm, word)
    }

    /// The order of the group generated: the product of the tables' sizes.
    pub(super) fn order(&self) -> BigUint {
        self.tables
            .iter()
            .map(|t| match &t.large {
                Some(large) => large.group.order(),
                None => BigUint::from(t.table.as_ref().map_or(1, LocalTable::len)),
            })
            .product()
    }

    /// Whether some part's group, beyond a table and not written with 3-cycles of the whole
    /// group, gets words in the part's own elements ([`PartProductWords::finish`]): each letter
    /// then one of those elements' words, often a long power.
    pub(super) fn writes_in_elements(&self) -> bool {
        self.tables.iter().any(|t| {
            t.large
                .as_ref()
                .is_some_and(|l| matches!(l.words, Some(LargePartWords::InElements(_))))
        })
    }

    /// Whether `x` is in the group generated: every restriction in its part's group (the
    /// identity where a part has none). `O(d)`, and a sift per part beyond a table.
    pub(super) fn contains(&self, x: &Perm) -> bool {
        if x.degree() != self.degree || !preserves_orbits(x, &self.position) {
            return false;
        }
        self.parts.iter().zip(&self.tables).all(|(part, table)| {
            let Some(at) = restriction(x, part, &self.position) else {
                return false;
            };
            match (&table.large, &table.table) {
                (Some(large), _) => large.group.contains(&as_perm(&at)),
                (None, Some(table)) => table.number(&at).is_some(),
                (None, None) => is_identity(&at),
            }
        })
    }

    /// Adds `x` (with its `word`) when it is supported on a single part and new there.
    pub(super) fn insert(&mut self, x: &Perm, word: Word) -> PartInserted {
        let Some(part) = self.single_support(x) else {
            return PartInserted::NotSupported;
        };
        let Some(restriction) = restriction(x, &self.parts[part], &self.position) else {
            return PartInserted::NotSupported;
        };
        let table = &mut self.tables[part];
        if let Some(large) = &mut table.large {
            if large.group.contains(&as_perm(&restriction)) {
                // Kept all the same as a further generator of the part's group, whose words
                // (in the part's elements, made by `finish`) are shorter over more of them.
                if table.elements.len() < PART_STEPS && large.words.is_none() {
                    table.elements.push((restriction, x.clone(), word));
                    match part_group(&table.elements) {
                        Ok(group) => large.group = group,
                        Err(_) => drop(table.elements.pop()),
                    }
                }
                return PartInserted::Redundant;
            }
        } else if table
            .table
            .as_ref()
            .is_some_and(|t| t.number(&restriction).is_some())
        {
            // Kept all the same as a further step of the table while it has few: the paths
            // over more steps are shorter (see `PART_STEPS`).
            if table.elements.len() < PART_STEPS
                && table
                    .table
                    .as_ref()
                    .is_some_and(|t| t.len() <= PART_STEPS_UP_TO)
            {
                table.elements.push((restriction, x.clone(), word));
                table.table = closure(&table.elements);
            }
            return PartInserted::Redundant;
        }
        table.elements.push((restriction, x.clone(), word));
        if table.large.is_none()
            && let Some(grown) = closure(&table.elements)
        {
            table.table = Some(grown);
            self.found.push((part, table.elements.len() - 1));
            return PartInserted::New;
        }
        match part_group(&table.elements) {
            Ok(group) => {
                table.table = None;
                table.large = Some(LargePart { group, words: None });
                self.found.push((part, table.elements.len() - 1));
                PartInserted::New
            }
            Err(_) => {
                table.elements.pop();
                PartInserted::TooLarge
            }
        }
    }

    /// Builds the words of every part whose group is beyond a table (call once the elements
    /// found generate the whole product): when every part's group is its alternating group of
    /// at least [`BLOCK_GIANTS_FROM`] points and the parts are blocks of the orbits of `group`
    /// (whose kernel this product is the bottom of), covering each orbit they meet, per orbit
    /// conjugates of a 3-cycle of `group` in its own generators ([`GiantWords::on_blocks`]; each
    /// orbit but the last with a 3-cycle free on the later orbits' blocks,
    /// [`GiantWords::on_blocks_before`], in the order of [`in_writing_order`]; a part that is a
    /// whole orbit is one block there when the parts lie in several orbits, so its 3-cycle may
    /// be free on the later ones rather than fix them all);
    /// else, for a lone part that is a whole orbit of `group`
    /// with its alternating group there (of as many points), conjugates of a 3-cycle of `group`
    /// that is the identity off that orbit ([`GiantWords::on_orbit`]), and for any other part its
    /// words in the part's elements.
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] naming `limit_name` beyond `budget_bytes`;
    /// [`SolveError::Cancelled`].
    pub(super) fn finish(
        &mut self,
        group: &PermGroup,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<(), SolveError> {
        if self.block_giants.is_empty()
            && let Some(orbits) = self.alternating_blocks_by_orbit(group)
        {
            // One orbit after another, each but the last with a 3-cycle free on the later
            // orbits' blocks (see `in_writing_order`).
            let (_, giants, _) = in_writing_order(
                orbits,
                |blocks| blocks.len() * blocks[0].len(),
                ctx,
                budget_bytes.saturating_sub(self.bytes()),
                |blocks, left| GiantWords::on_blocks(group, blocks, effort, ctx, left, limit_name),
                |blocks, later, left| {
                    let later = later.concat();
                    GiantWords::on_blocks_before(
                        group, blocks, &later, effort, ctx, left, limit_name,
                    )
                },
            )?;
            self.block_giants = giants;
            return Ok(());
        }
        let alternating_orbit = |part: &[u32], large: &LargePart| {
            let orbit = group.orbits_ref().iter().find(|o| o.contains(&part[0]));
            orbit.is_some_and(|o| o.len() == part.len()) && large.is_alternating(part.len())
        };
        let mut held = self.bytes();
        for (table, part) in self.tables.iter_mut().zip(&self.parts) {
            if let Some(large) = &mut table.large
                && large.words.is_none()
            {
                let left = budget_bytes.saturating_sub(held);
                let words = if alternating_orbit(part, large) {
                    // The part's elements prove the group contains Alt(part), the identity off it.
                    let giant = Giant::Alternating;
                    let words =
                        GiantWords::on_orbit(group, part, giant, effort, ctx, left, limit_name)?;
                    LargePartWords::OnOrbit(Box::new(words))
                } else {
                    let words = GroupWords::new(&large.group, effort, ctx, left, limit_name)?;
                    LargePartWords::InElements(Box::new(words))
                };
                held = held.saturating_add(words.bytes());
                large.words = Some(words);
            }
        }
        Ok(())
    }

    /// The word of `x` (the paths' words, part by part), `Ok(None)` when it is not in the
    /// group generated, `Err(letters)` once the word is known to be longer than `budget` allows.
    pub(super) fn word_of(
        &self,
        x: &Perm,
        orders: &GeneratorOrders,
        budget: LetterBudget<'_>,
    ) -> Result<Option<Word>, u64> {
        if x.degree() != self.degree || !preserves_orbits(x, &self.position) {
            return Ok(None);
        }
        if !self.block_giants.is_empty() {
            // The parts whose groups are trivial are left to the giants' words as they are.
            for (part, table) in self.parts.iter().zip(&self.tables) {
                if table.elements.is_empty()
                    && !restriction(x, part, &self.position).is_some_and(|r| is_identity(&r))
                {
                    return Ok(None);
                }
            }
            let z = x.images().to_vec();
            return word_in_writing_order(&self.block_giants, z, budget);
        }
        let mut word = Word::identity();
        for part in 0..self.parts.len() {
            let Some(at) = restriction(x, &self.parts[part], &self.position) else {
                return Ok(None);
            };
            let table = &self.tables[part];
            if let Some(large) = &table.large {
                let left = budget.less(word.len());
                let words = match &large.words {
                    None => return Ok(None),
                    Some(LargePartWords::OnOrbit(giant)) => {
                        // The part is sorted, as the giant numbers the orbit's points.
                        let inner = at.iter().map(|&i| u32::from(i)).collect();
                        if !giant.append_word_of_inner(inner, &mut word, budget)? {
                            return Ok(None);
                        }
                        continue;
                    }
                    Some(LargePartWords::InElements(words)) => words,
                };
                let Some(in_elements) = words.word_within(&as_perm(&at), left)? else {
                    return Ok(None);
                };
                for letter in in_elements.letters() {
                    let w = &table.elements[letter.generator as usize].2;
                    word.append_power(w, letter.exponent, orders);
                    budget.check(word.len())?;
                }
                continue;
            }
            let path = match table
                .table
                .as_ref()
                .and_then(|t| Some(t.path(t.number(&at)?)))
            {
                Some(path) => path,
                None if is_identity(&at) => continue,
                None => return Ok(None),
            };
            for step in path {
                let w = &table.elements[step as usize / 2].2;
                word.append_power(w, if step % 2 == 1 { -1 } else { 1 }, orders);
            }
            budget.check(word.len())?;
        }
        Ok(Some(word))
    }

    /// Bytes held: the tables (each entry its key, its predecessor and the map's slot) and the
    /// elements' words.
    pub(super) fn bytes(&self) -> u64 {
        let tables: u64 = self
            .tables
            .iter()
            .zip(&self.parts)
            .map(|(t, p)| {
                let words: u64 = t
                    .elements
                    .iter()
                    .map(|(_, _, w)| {
                        16 * w.letters().len() as u64 + p.len() as u64 + 4 * self.degree as u64 + 72
                    })
                    .sum();
                let large = t.large.as_ref().map_or(0, |l| {
                    l.group.chain_bytes() + l.words.as_ref().map_or(0, LargePartWords::bytes)
                });
                words + t.table.as_ref().map_or(0, LocalTable::bytes) + large
            })
            .sum();
        let giants: u64 = self.block_giants.iter().map(GiantWords::bytes).sum();
        tables + giants + 8 * self.degree as u64 + 16 * self.found.len() as u64
    }

    /// The parts grouped by the orbit of `group` they lie in, when every part's group is the
    /// alternating group of the part (of at least [`BLOCK_GIANTS_FROM`] points) or trivial
    /// (the solvable parts below a series of the kernel: `AGL(1,7)`'s blocks beside `Sym(9)
    /// wr Sym(54)`'s), not all trivial, and the parts with alternating groups in each orbit,
    /// two or more (or one, a whole orbit, when the parts lie in several orbits), cover it (so
    /// they are blocks of it: `group` maps each part onto a part); `None` otherwise.
    fn alternating_blocks_by_orbit(&self, group: &PermGroup) -> Option<Vec<Vec<Vec<u32>>>> {
        let alternating = |part: &[u32], table: &PartTable| {
            table
                .large
                .as_ref()
                .is_some_and(|large| large.is_alternating(part.len()))
        };
        let mut kept = self
            .parts
            .iter()
            .zip(&self.tables)
            .filter(|(_, t)| !t.elements.is_empty())
            .peekable();
        kept.peek()?;
        let mut by_orbit: Vec<(usize, Vec<Vec<u32>>)> = Vec::new();
        for (part, table) in kept {
            if !alternating(part, table) {
                return None;
            }
            let orbit = group
                .orbits_ref()
                .iter()
                .position(|o| o.contains(&part[0]))?;
            match by_orbit.iter_mut().find(|(o, _)| *o == orbit) {
                Some((_, blocks)) => blocks.push(part.clone()),
                None => by_orbit.push((orbit, vec![part.clone()])),
            }
        }
        // A lone part that is a whole orbit is written on its own (see `finish`); several
        // orbits, whole or in blocks, one after another.
        let several = by_orbit.len() >= 2;
        let covers = |(orbit, blocks): &(usize, Vec<Vec<u32>>)| {
            let size = blocks[0].len();
            (several || blocks.len() >= 2)
                && blocks.iter().all(|b| b.len() == size)
                && size * blocks.len() == group.orbits_ref()[*orbit].len()
        };
        by_orbit
            .iter()
            .all(covers)
            .then(|| by_orbit.into_iter().map(|(_, blocks)| blocks).collect())
    }

    /// The one part `x` moves points of, if it moves points of exactly one part (and none
    /// outside the parts).
    fn single_support(&self, x: &Perm) -> Option<usize> {
        let mut part = None;
        for y in 0..x.degree() as u32 {
            if x.image(y) != y {
                let (p, _) = self.position[y as usize]?;
                match part {
                    None => part = Some(p as usize),
                    Some(q) if q != p as usize => return None,
                    Some(_) => {}
                }
            }
        }
        part
    }
}

/// The group of the elements' restrictions, on the part's points, generated in their order (a
/// part's points: milliseconds for a small part; for a part of hundreds of points a few
/// generators' chain, not timed on its own).
fn part_group(elements: &[(Local, Perm, Word)]) -> Result<PermGroup, SolveError> {
    let generators = elements.iter().map(|(r, _, _)| as_perm(r)).collect();
    let degree = elements[0].0.len();
    PermGroup::new(
        degree,
        generators,
        &SolveContext::detached(),
        &Limits::default(),
    )
}

/// The breadth-first table of the group the elements generate (shortest paths over them and
/// their inverses), or `None` beyond [`MAX_PART_GROUP`] elements.
fn closure(elements: &[(Local, Perm, Word)]) -> Option<LocalTable> {
    let steps: Vec<Local> = elements
        .iter()
        .flat_map(|(r, _, _)| [r.clone(), inverse(r)])
        .collect();
    LocalTable::generated(elements[0].0.len(), &steps, MAX_PART_GROUP)
}

/// The power `e` of `x` (supported on some of `parts`, each mapped onto itself) that is
/// supported on a single part with a restriction of prime order `q` there, choosing the largest
/// prime `q` that works: `e = L / q` for `L` the lcm of the restrictions' orders, when one part's
/// order holds a strictly larger power of `q` than every other part's. `None` when no prime
/// works (or `L` overflows).
///
/// Complexity: O(d + parts · log L).
pub(super) fn isolating_power(
    x: &Perm,
    parts: &[Vec<u32>],
    position: &[Option<(u32, u32)>],
) -> Option<u64> {
    let orders: Vec<u64> = parts
        .iter()
        .map(|part| restriction_order(x, part, position))
        .collect::<Option<Vec<u64>>>()?;
    let lcm = orders.iter().try_fold(1u64, |l, &o| {
        let g = gcd(l, o);
        (l / g).checked_mul(o)
    })?;
    let mut primes: Vec<u64> = factorize(lcm).into_iter().map(|(p, _)| p).collect();
    primes.sort_unstable_by(|a, b| b.cmp(a));
    for q in primes {
        let valuation = |mut n: u64| {
            let mut v = 0;
            while n.is_multiple_of(q) {
                n /= q;
                v += 1;
            }
            v
        };
        let valuations: Vec<u32> = orders.iter().map(|&o| valuation(o)).collect();
        let top = *valuations.iter().max()?;
        if top > 0 && valuations.iter().filter(|&&v| v == top).count() == 1 {
            return Some(lcm / q);
        }
    }
    None
}

/// The order of `x` on `part` (the lcm of its cycle lengths there).
fn restriction_order(x: &Perm, part: &[u32], position: &[Option<(u32, u32)>]) -> Option<u64> {
    let mut seen = vec![false; part.len()];
    let mut order = 1u64;
    for start in 0..part.len() {
        if seen[start] {
            continue;
        }
        let mut length = 0u64;
        let mut j = start;
        while !seen[j] {
            seen[j] = true;
            length += 1;
            j = position[x.image(part[j]) as usize]?.1 as usize;
        }
        order = (order / gcd(order, length)).checked_mul(length)?;
    }
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::super::kernel_series::tests::closure_of;
    use super::super::orbit_product::orbit_positions;
    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).unwrap()
    }

    /// `Alt(5) × Sym(3)` on two parts from supported elements: 360 elements, each one's word
    /// multiplies out to it; an element moving a point outside the parts, and one mixing the
    /// parts, get none.
    #[test]
    fn alt5_times_sym3_from_supported_elements() {
        let gens = [
            perm("(1,2,3,4,5)", 9),
            perm("(1,2,3)", 9),
            perm("(6,7,8)", 9),
            perm("(6,7)", 9),
        ];
        let orders = GeneratorOrders::of(&gens);
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7]];
        let position = orbit_positions(9, parts.iter().map(Vec::as_slice));
        let mut n = PartProductWords::new(9, parts, position);
        for (i, g) in gens.iter().enumerate() {
            assert_eq!(
                n.insert(g, Word::letter(i as u32, 1, &orders)),
                PartInserted::New
            );
        }
        // Redundant, and kept as a step (with its word: the first two generators' product).
        let mut product = Word::letter(0, 1, &orders);
        product.push(1, 1, &orders);
        assert_eq!(
            n.insert(&gens[0].compose(&gens[1]), product),
            PartInserted::Redundant
        );
        assert_eq!(
            n.insert(&perm("(1,2,3)(6,7,8)", 9), Word::identity()),
            PartInserted::NotSupported
        );
        assert_eq!(n.order(), BigUint::from(360u32));
        // Every element, by closure (the test's oracle).
        let all = closure_of(&gens, 9);
        assert_eq!(all.len(), 360);
        for x in &all {
            let w = n
                .word_of(x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member");
            assert_eq!(w.evaluate(&gens, 9), *x);
        }
        assert_eq!(
            n.word_of(&perm("(1,2)", 9), &orders, LetterBudget::letters(u64::MAX)),
            Ok(None)
        );
        assert_eq!(
            n.word_of(&perm("(8,9)", 9), &orders, LetterBudget::letters(u64::MAX)),
            Ok(None)
        );
        assert_eq!(
            n.word_of(&perm("(1,6)", 9), &orders, LetterBudget::letters(u64::MAX)),
            Ok(None)
        );
    }

    /// A redundant element is kept as a further step of its part's table (up to [`PART_STEPS`])
    /// and shortens the paths through it: `(1,3,5,2,4)` is two steps `g0 g0` over the first
    /// generator, one step once it is inserted with the word of a third generator; every
    /// element's word still multiplies out to it.
    #[test]
    fn redundant_elements_become_further_steps_of_a_part() {
        let gens = [
            perm("(1,2,3,4,5)", 5),
            perm("(1,2,3)", 5),
            perm("(1,3,5,2,4)", 5),
        ];
        let orders = GeneratorOrders::of(&gens);
        let parts = vec![vec![0, 1, 2, 3, 4]];
        let position = orbit_positions(5, parts.iter().map(Vec::as_slice));
        let mut n = PartProductWords::new(5, parts, position);
        for i in 0..2 {
            let w = Word::letter(i, 1, &orders);
            assert_eq!(n.insert(&gens[i as usize], w), PartInserted::New);
        }
        let square = &gens[2];
        assert_eq!(
            n.word_of(square, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .unwrap()
                .len(),
            2
        );
        let third = Word::letter(2, 1, &orders);
        assert_eq!(n.insert(square, third.clone()), PartInserted::Redundant);
        assert_eq!(
            n.word_of(square, &orders, LetterBudget::letters(u64::MAX)),
            Ok(Some(third))
        );
        assert_eq!(n.order(), BigUint::from(60u32));
        for x in &closure_of(&gens, 5) {
            let w = n
                .word_of(x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member");
            assert_eq!(w.evaluate(&gens, 5), *x);
        }
        // Up to PART_STEPS elements: further ones are dropped.
        for _ in 0..PART_STEPS {
            n.insert(square, Word::letter(2, 1, &orders));
        }
        assert_eq!(n.tables[0].elements.len(), PART_STEPS);
        assert_eq!(n.found_len(), 2);
    }

    /// A part whose group is beyond a table: `Sym(9)` on the first part (362,880 elements) and
    /// `Sym(3)` on the second; after `finish`, random members' words (products of the
    /// generators, seeded) multiply out to them, and a permutation mixing the parts gets none.
    #[test]
    fn a_part_beyond_a_table_gets_its_own_words() {
        use rand::{Rng, SeedableRng};
        let gens = [
            perm("(1,2,3,4,5,6,7,8,9)", 12),
            perm("(1,2)", 12),
            perm("(10,11,12)", 12),
            perm("(10,11)", 12),
        ];
        let orders = GeneratorOrders::of(&gens);
        let parts = vec![(0..9).collect(), vec![9, 10, 11]];
        let position = orbit_positions(12, parts.iter().map(Vec::as_slice));
        let mut n = PartProductWords::new(12, parts, position);
        for (i, g) in gens.iter().enumerate() {
            assert_eq!(
                n.insert(g, Word::letter(i as u32, 1, &orders)),
                PartInserted::New
            );
        }
        assert_eq!(n.order(), BigUint::from(362_880u64 * 6));
        // A redundant element on the large part, with its word: kept as a further generator.
        let mut product = Word::letter(0, 1, &orders);
        product.push(1, 1, &orders);
        assert_eq!(
            n.insert(&gens[0].compose(&gens[1]), product),
            PartInserted::Redundant
        );
        assert_eq!(n.tables[0].elements.len(), 3);
        assert_eq!(
            n.tables[0].large.as_ref().unwrap().group.generators().len(),
            3
        );
        assert_eq!(n.order(), BigUint::from(362_880u64 * 6));
        // Intransitive: each part's words in its own elements.
        let ctx = SolveContext::detached();
        let group = PermGroup::new(12, gens.to_vec(), &ctx, &Limits::default()).unwrap();
        n.finish(&group, WordEffort(1), &ctx, 1 << 28, "test")
            .unwrap();
        assert!(n.block_giants.is_empty());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..50 {
            let mut x = Perm::identity(12);
            for _ in 0..40 {
                x = x.compose(&gens[rng.random_range(0..gens.len())]);
            }
            let w = n
                .word_of(&x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member");
            assert_eq!(w.evaluate(&gens, 12), x);
        }
        assert_eq!(
            n.word_of(
                &perm("(1,10)", 12),
                &orders,
                LetterBudget::letters(u64::MAX)
            ),
            Ok(None)
        );
    }

    /// Alternating parts permuted transitively: `Alt(9) wr C_2` from `(1,2,3)`, a 9-cycle and
    /// the swap of the parts; the parts' elements (the two 3-cycles and 9-cycles, the second
    /// pair as conjugates by the swap) are inserted, then `finish` takes 3-cycles of the whole
    /// group, and random members' words, in the whole group's generators, multiply out to
    /// them; an odd member of a part, or a mix of the parts, gets none.
    #[test]
    fn alternating_parts_get_words_from_three_cycles_of_the_group() {
        use rand::{Rng, SeedableRng};
        let gens = [
            perm("(1,2,3)", 18),
            perm("(1,2,3,4,5,6,7,8,9)", 18),
            perm("(1,10)(2,11)(3,12)(4,13)(5,14)(6,15)(7,16)(8,17)(9,18)", 18),
        ];
        let orders = GeneratorOrders::of(&gens);
        let parts: Vec<Vec<u32>> = vec![(0..9).collect(), (9..18).collect()];
        let position = orbit_positions(18, parts.iter().map(Vec::as_slice));
        let mut n = PartProductWords::new(18, parts, position);
        let mut elements = Vec::new();
        for i in 0..2u32 {
            let letter = Word::letter(i, 1, &orders);
            let mut conjugate = Word::letter(2, 1, &orders);
            conjugate.append(&letter, &orders);
            conjugate.push(2, 1, &orders);
            let x = gens[i as usize].clone();
            elements.push((gens[2].compose(&x).compose(&gens[2]), conjugate));
            elements.push((x, letter));
        }
        for (x, w) in &elements {
            assert_eq!(n.insert(x, w.clone()), PartInserted::New);
        }
        assert_eq!(n.order(), BigUint::from(181_440u64).pow(2));
        let ctx = SolveContext::detached();
        let group = PermGroup::new(18, gens.to_vec(), &ctx, &Limits::default()).unwrap();
        n.finish(&group, WordEffort(1), &ctx, 1 << 28, "test")
            .unwrap();
        assert!(!n.block_giants.is_empty());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..50 {
            let mut x = Perm::identity(18);
            for _ in 0..60 {
                x = x.compose(&elements[rng.random_range(0..elements.len())].0);
            }
            let w = n
                .word_of(&x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member");
            assert_eq!(w.evaluate(&gens, 18), x);
        }
        for outside in [
            "(1,2)",
            "(1,2)(10,11,12)",
            "(1,10,2)",
            "(1,2,3,4,5,6,7,8,9,10)",
        ] {
            let x = perm(outside, 18);
            assert_eq!(
                n.word_of(&x, &orders, LetterBudget::letters(u64::MAX)),
                Ok(None),
                "{outside}"
            );
        }
    }

    /// The isolating power: `(1,2,3,4,5)(6,7,8)` to the 3rd is the 5-cycle's power alone;
    /// `(1,2,3)(4,5,6)` has no prime held by one part alone.
    #[test]
    fn isolating_powers() {
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7]];
        let position = orbit_positions(8, parts.iter().map(Vec::as_slice));
        let x = perm("(1,2,3,4,5)(6,7,8)", 8);
        assert_eq!(isolating_power(&x, &parts, &position), Some(3));
        let parts = vec![vec![0, 1, 2], vec![3, 4, 5]];
        let position = orbit_positions(6, parts.iter().map(Vec::as_slice));
        let x = perm("(1,2,3)(4,5,6)", 6);
        assert_eq!(isolating_power(&x, &parts, &position), None);
        // (1,2)(4,5,6,7) on parts {1,2,3} and {4..7}: 2 is held strictly more by the 4-cycle;
        // the power 4/2 = 2 leaves (4,6)(5,7) alone.
        let parts = vec![vec![0, 1, 2], vec![3, 4, 5, 6]];
        let position = orbit_positions(7, parts.iter().map(Vec::as_slice));
        let x = perm("(1,2)(4,5,6,7)", 7);
        assert_eq!(isolating_power(&x, &parts, &position), Some(2));
    }
}
