//! [`KernelSeriesWords`]: words for a group `K` that maps each of some parts of the points onto
//! itself (the kernel of an action on blocks, or on one orbit), down a normal series whose
//! factors are elementary abelian: `C_2^50` (all of it signs), `Sym(3)^50` (signs `C_2^50`, then
//! rotations `C_3^50`), `Sym(4)^40` (signs `C_2^40`, rotations of the pairings `C_3^40`, then
//! `V_4^40`), `C_5^40`.
//!
//! Two homomorphisms onto vectors over `GF(p)`, one coordinate per part, cut `K` into layers:
//! - the **signs** `σ: K → GF(2)^parts`, the sign of an element on each part; its kernel `K_1`
//!   holds the elements even on every part;
//! - the **rotations** `ρ: K_1 → GF(3)^parts`: on a part of three points an even permutation is
//!   a rotation `i ↦ i + e` of its points (sorted); on a part of four, an even permutation
//!   permutes the part's three pairings (`{0,1}|{2,3}`, `{0,2}|{1,3}`, `{0,3}|{1,2}`, numbered
//!   by the partner of point 0) by a rotation `j ↦ j + e` (`Alt(4) → Alt(3)`, with kernel
//!   `V_4`); on other parts 0. Its kernel `K_2` holds the elements trivial on parts of two and
//!   three points and in `V_4` on parts of four.
//! - when `K_2` is taken part by part (below), a third: the **Klein** layer, each part of four
//!   points' element of `V_4` over `GF(2)^2`, so that those parts are trivial below it.
//!
//! Instead of these, the layers can be the parts' own series ([`PartSeries`]: `D_5^40`,
//! reflections `C_2^40` over rotations `C_5^40`), for small groups on the parts; then `K_2` is
//! trivial, or for insoluble part groups their residuals, taken part by part.
//!
//! `K_1` and `K_2` are normal (in the whole group, too, which permutes the parts), and `K_2` is
//! written by elimination over its prime when it is elementary abelian
//! ([`ElementaryAbelianWords`]), or part by part when it is the direct product of its
//! restrictions to the parts ([`PartProductWords`]: `Alt(5)^40` in `Sym(5) wr Sym(40)`, from
//! elements moving one part each; an element of `K_2` moving several parts is replaced by a power
//! of it that moves one, waiting its turn by its length). Elements are inserted as they are found: one whose signs are
//! outside the span of the earlier ones is kept in the first layer (a [`PrimeSpace`] holds the
//! span in echelon form, each basis vector with the exponents of the layer's elements whose
//! product has it); any other, `x`, is multiplied by the inverse of the product `y` of the
//! layer's elements with its signs, and `x · y⁻¹ ∈ K_1` goes on to the rotations the same way,
//! then to `K_2`. A member `k` is written the same way: `k = k_2 · y_1 · y_0`, the words of
//! `k_2 ∈ K_2`, of the product `y_1` for its rotations and of `y_0` for its signs.
//!
//! **Order.** With `s` elements kept for the signs, `t` for the rotations and `K_2`'s part of
//! order `p^r` (or `Π |N_P|` part by part), the group `S` the elements found generate has order
//! at least `2^s · 3^t · p^r` (its image under `σ` has `2^s` elements at least, `ρ(S ∩ K_1)`
//! at least `3^t`, and `S ∩ K_2` holds the `p^r` found); the caller stops when that reaches the proven order of
//! `K`, so then `S = K`, each layer's span is all of its image, and every member sifts down.
//! Part by part, `K_2` may be more than the product `N` of its intersections with the parts (a
//! character of the parts' groups that ties two of them: no element outside `N` has a power
//! on one part that is not in `N`); elements of `K_2` in `c` distinct right cosets of `N`
//! besides `N` itself show `|S ∩ K_2| ≥ (c + 1) · |N|`, and a member's residue in `K_2` is
//! written as its product with the inverse of its coset's element, then that element.
//!
//! # Complexity
//! Inserting: `O(d)` for a layer's vector, `O(r · (parts + r))` to solve it (`r` the layer's
//! rank), `O(r · d)` for the product, then `K_2`'s insertion. Memory: the elements kept, the two
//! echelon bases and `K_2`'s part.
//!
//! # Reference
//! Dixon, Mortimer, *Permutation Groups* (1996), §2.6 (wreath products: the base group and its
//! sign homomorphisms); Holt, Eick, O'Brien, *Handbook of Computational Group Theory* (2005),
//! §7.8 (working down an elementary abelian series; `Sym(4) ⊳ Alt(4) ⊳ V_4 ⊳ 1`).

use num_bigint::BigUint;

use super::elementary_abelian::{ElementaryAbelianWords, Inserted};
use super::group_words::WordEffort;
use super::orbit_product::{orbit_positions, preserves_orbits};
use super::parity_space::is_even_on;
use super::part_product::{PartInserted, PartProductWords, isolating_power};
use super::part_series::PartSeries;
use super::prime_space::PrimeSpace;
use super::word::{GeneratorOrders, LETTER_BYTES, LetterBudget, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{Perm, PermGroup};

/// The most letters an isolating power's word may have. A part's element of a million letters
/// would make every word through it longer than that, and writing such powers out took most of
/// the set-up where they came up (11 s of 11.2 for `Sym(30) wr Sym(4)` beside `Sym(20) wr
/// Sym(5)`, whose parts are written by their 3-cycles anyway); other elements bring the parts.
const MAX_ISOLATING_POWER_LETTERS: u64 = 1 << 20;

/// Most right cosets of the product over the parts that the bottom holds beside it (see
/// `KernelSeriesWords::cosets`): the index of the product in `K_2` where a character ties
/// parts (two sign-like characters of four wreath products gave 4), and each member's word
/// tries its residue against each coset, `O(d)` and a sift per large part a try.
const MAX_BOTTOM_COSETS: usize = 16;

/// A homomorphism from a term of the series onto `GF(p)^parts` (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LayerMap {
    /// The sign on each part, over `GF(2)`: defined on all of `K`.
    Signs,
    /// The rotation on each part of three or four points, over `GF(3)`: defined on `K_1`.
    Rotations,
    /// On each part of four points, the element of the Klein four-group `V_4` (the pairings
    /// fixed) as a vector over `GF(2)^2`: defined where the signs and rotations are trivial.
    /// Only when `K_2` is taken part by part (beside larger parts), where the four-point parts
    /// end here instead: an element of `V_4` on one part is a power of a kernel element only
    /// when that element has odd order on every other part, which beside `Alt(8)` parts
    /// (`Sym(4) wr Sym(11)` beside `Sym(8) wr Sym(80)`) no short one had.
    Klein,
    /// Layer `.0` of the parts' own series ([`PartSeries`]), which replaces the two above
    /// when it is used.
    Series(usize),
}

/// One layer of the series: its map, the span of its elements' vectors, and the elements.
#[derive(Debug)]
struct Layer {
    map: LayerMap,
    space: PrimeSpace,
    elements: Vec<(Perm, Word)>,
}

impl Layer {
    fn new(map: LayerMap, p: u8) -> Layer {
        Layer {
            map,
            space: PrimeSpace::new(p),
            elements: Vec::new(),
        }
    }

    /// The vector of `x` (in the layer's term of the series), `None` when `x` is not in the
    /// domain of the parts' `series` (see [`PartSeries::vector`]). O(d).
    fn vector(
        &self,
        x: &Perm,
        parts: &[Vec<u32>],
        position: &[Option<(u32, u32)>],
        series: Option<&PartSeries>,
    ) -> Option<Vec<u8>> {
        match self.map {
            LayerMap::Signs => Some(
                parts
                    .iter()
                    .map(|part| u8::from(!is_even_on(x, part, position)))
                    .collect(),
            ),
            LayerMap::Rotations => Some(
                parts
                    .iter()
                    .map(|part| rotation_on(x, part, position))
                    .collect(),
            ),
            LayerMap::Klein => Some(
                parts
                    .iter()
                    .flat_map(|part| {
                        let k = klein_on(x, part, position);
                        [k & 1, k >> 1]
                    })
                    .collect(),
            ),
            LayerMap::Series(layer) => series?.vector(layer, x, parts, position),
        }
    }

    /// The product `Π e_j^{λ_j}` of the layer's elements (exponents `λ_j` taken in
    /// `(-p/2, p/2]`), its permutation alone: `O(d)` per element, where the word can take
    /// millions of letters (500 elements of a few thousand letters each for the signs of
    /// `Sym(2) wr Sym(500)`), wasted on a candidate the product cancels.
    fn product_perm(&self, exponents: &[u8], degree: usize) -> Perm {
        let mut y = Perm::identity(degree);
        for ((perm, _), e) in self.elements.iter().zip(self.signed(exponents)) {
            if e != 0 {
                y = y.compose(&perm.pow(e));
            }
        }
        y
    }

    /// The word of that product; `Err(letters)` as soon as the word written so far passes
    /// `budget` (or its job is cancelled): a hundred elements of a million letters each make
    /// a word that takes seconds to write.
    fn product_word(
        &self,
        exponents: &[u8],
        orders: &GeneratorOrders,
        budget: LetterBudget<'_>,
    ) -> Result<Word, u64> {
        let mut word = Word::identity();
        for ((_, w), e) in self.elements.iter().zip(self.signed(exponents)) {
            if e != 0 {
                word.append_power(w, e, orders);
                budget.check(word.len())?;
            }
        }
        Ok(word)
    }

    /// The exponents taken in `(-p/2, p/2]`.
    fn signed<'a>(&self, exponents: &'a [u8]) -> impl Iterator<Item = i64> + 'a {
        let p = self.space.prime() as i64;
        exponents.iter().map(move |&e| {
            if 2 * e as i64 > p {
                e as i64 - p
            } else {
                e as i64
            }
        })
    }
}

/// The rotation `e` of `x`, even on `part`: on three points `i ↦ i + e`, on four points the
/// pairings `j ↦ j + e` (see the module documentation); 0 on other parts.
fn rotation_on(x: &Perm, part: &[u32], position: &[Option<(u32, u32)>]) -> u8 {
    let index = |k: usize| position[x.image(part[k]) as usize].map_or(0, |(_, i)| i as usize);
    match part.len() {
        3 => index(0) as u8,
        4 => {
            // The pairing {0,1}|{2,3} goes to the one in which 0 pairs with `partner`.
            let (i0, i1) = (index(0), index(1));
            let partner = match (i0, i1) {
                (0, i) | (i, 0) => i,
                // {i0, i1} misses 0: the other pair is 0 and the index left, 6 - i0 - i1.
                _ => 6 - i0 - i1,
            };
            (partner - 1) as u8
        }
        _ => 0,
    }
}

/// The element of `V_4` that `x` (trivial on `part`'s pairings) is on a part of four points, as
/// the index its point 0 goes to (`V_4` is regular on the four points, so this is an
/// isomorphism onto `GF(2)^2` in binary); 0 on other parts.
fn klein_on(x: &Perm, part: &[u32], position: &[Option<(u32, u32)>]) -> u8 {
    if part.len() != 4 {
        return 0;
    }
    position[x.image(part[0]) as usize].map_or(0, |(_, i)| i as u8)
}

/// The bottom of the series, `K_2`: elementary abelian, or a direct product over the parts.
#[derive(Debug)]
enum Bottom {
    Abelian(ElementaryAbelianWords),
    Parts(PartProductWords),
}

/// Where an element kept lives.
#[derive(Debug, Clone, Copy)]
enum Kept {
    /// Element `.1` of layer `.0`.
    Layer(usize, usize),
    /// Element `.0` of `K_2`'s part.
    Bottom(usize),
}

/// Words for a kernel down its series of signs, rotations and an elementary abelian bottom (see
/// the module documentation).
#[derive(Debug)]
pub(super) struct KernelSeriesWords {
    degree: usize,
    parts: Vec<Vec<u32>>,
    position: Vec<Option<(u32, u32)>>,
    /// The signs, then the rotations; or the parts' series' layers.
    layers: Vec<Layer>,
    /// The parts' own series, when its layers are used.
    series: Option<PartSeries>,
    bottom: Bottom,
    /// Elements of `K_2` in distinct right cosets `N t` of the product over the parts `N`
    /// (none in `N` itself), when the bottom is taken part by part: where `K_2` is not the
    /// direct product of its intersections with the parts, because a character of the parts'
    /// groups ties two parts (the sum over the blocks of the reflections' signs of `D_5 wr
    /// Sym(49)` on one orbit with that of the blocks' signs of `Sym(10) wr Sym(34)` on
    /// another, in the kernel of the action on a third), no element's power is supported on
    /// one part outside `N`, and `N` stops short of `K_2` by a small index. These cosets cover
    /// the rest: `K_2 ∩ S` holds `N t` for each, so the order bound counts `|N|` times one
    /// more than their number. Taken only once the bound is within [`MAX_BOTTOM_COSETS`] of
    /// the kernel's order (earlier, most would fall into `N` as it grows), and pruned when `N`
    /// grows.
    cosets: Vec<(Perm, Word)>,
    /// Every element kept, in order.
    kept: Vec<Kept>,
    /// The longest word an isolating power may have: a power of a long word can have billions
    /// of letters (the exponent is a product of cycle lengths), more than the budget holds.
    max_power_letters: u64,
    /// Letters of the words that insertions wrote: the products of a layer's elements (also for
    /// an element that proves redundant) and the powers. With long elements one insertion can
    /// write hundreds of millions (a product of a hundred words of two million letters each),
    /// far more than the candidates' own words; a search's work counts them.
    written: u64,
}

impl KernelSeriesWords {
    /// An empty structure (the trivial group) for permutations of degree `degree` mapping each
    /// of `parts` (disjoint point sets, each sorted) onto itself and fixing every other point.
    ///
    /// With `by_parts`, `K_2` is taken as the direct product of its restrictions to the parts
    /// ([`PartProductWords`]; for a non-abelian `K_2` such as `Alt(5)^40`), else as elementary
    /// abelian. An isolating power whose word would take more than `max_power_bytes`, or more
    /// than [`MAX_ISOLATING_POWER_LETTERS`] letters, is not used.
    pub(super) fn new(
        degree: usize,
        parts: Vec<Vec<u32>>,
        by_parts: bool,
        max_power_bytes: u64,
    ) -> KernelSeriesWords {
        let position = orbit_positions(degree, parts.iter().map(Vec::as_slice));
        let bottom = if by_parts {
            Bottom::Parts(PartProductWords::new(
                degree,
                parts.clone(),
                position.clone(),
            ))
        } else {
            Bottom::Abelian(ElementaryAbelianWords::new(degree))
        };
        let mut layers = vec![
            Layer::new(LayerMap::Signs, 2),
            Layer::new(LayerMap::Rotations, 3),
        ];
        if by_parts && parts.iter().any(|p| p.len() == 4) {
            layers.push(Layer::new(LayerMap::Klein, 2));
        }
        KernelSeriesWords {
            degree,
            parts,
            position,
            layers,
            series: None,
            bottom,
            cosets: Vec::new(),
            kept: Vec::new(),
            max_power_letters: (max_power_bytes / LETTER_BYTES).min(MAX_ISOLATING_POWER_LETTERS),
            written: 0,
        }
    }

    /// An empty structure as [`new`](Self::new)'s, written down the parts' own `series`
    /// instead. Below its last layer an element is the identity on every part whose group is
    /// solvable; when some part's is not ([`PartSeries::has_residual`]), what is left on those
    /// parts is taken part by part (as `new`'s with `by_parts`, isolating powers of at most
    /// `max_power_bytes`), else the bottom stays empty.
    pub(super) fn with_series(
        degree: usize,
        parts: Vec<Vec<u32>>,
        series: PartSeries,
        max_power_bytes: u64,
    ) -> KernelSeriesWords {
        let layers = series
            .primes()
            .enumerate()
            .map(|(i, p)| Layer::new(LayerMap::Series(i), p))
            .collect();
        let by_parts = series.has_residual();
        KernelSeriesWords {
            layers,
            series: Some(series),
            ..KernelSeriesWords::new(degree, parts, by_parts, max_power_bytes)
        }
    }

    /// The position of each point in its part (`(part, index)`), for [`PartSeries::of`].
    pub(super) fn positions(&self) -> &[Option<(u32, u32)>] {
        &self.position
    }

    /// The parts.
    pub(super) fn parts(&self) -> &[Vec<u32>] {
        &self.parts
    }

    /// Letters written by insertions so far (see the field).
    pub(super) fn written(&self) -> u64 {
        self.written
    }

    /// Whether `K_2`, taken part by part, writes a part's members in the part's own elements
    /// (see [`PartProductWords::writes_in_elements`]).
    pub(super) fn writes_parts_in_elements(&self) -> bool {
        matches!(&self.bottom, Bottom::Parts(bottom) if bottom.writes_in_elements())
    }

    /// Whether `K_2` could be taken part by part: every part has at most 65,535 points and some
    /// part five or more (below five points `K_2` is elementary abelian).
    pub(super) fn parts_may_hold_a_product(&self) -> bool {
        self.parts.iter().all(|p| p.len() <= usize::from(u16::MAX))
            && self.parts.iter().any(|p| p.len() >= 5)
    }

    /// A lower bound on the order of the group the elements found generate, `2^s · 3^t · p^r`
    /// (see the module documentation), with `|N|` times the cosets' count for a bottom taken
    /// part by part (see [`cosets`](Self::cosets)).
    pub(super) fn order_at_least(&self) -> BigUint {
        let order = layers_order(&self.layers);
        match &self.bottom {
            Bottom::Abelian(bottom) => match bottom.prime() {
                Some(p) => order * BigUint::from(p).pow(bottom.rank() as u32),
                None => order,
            },
            Bottom::Parts(bottom) => order * bottom.order() * (self.cosets.len() + 1),
        }
    }

    /// The number of elements kept.
    pub(super) fn found_len(&self) -> usize {
        self.kept.len()
    }

    /// Element `i` kept, with its word.
    pub(super) fn found(&self, i: usize) -> (&Perm, &Word) {
        match self.kept[i] {
            Kept::Layer(l, j) => {
                let (perm, word) = &self.layers[l].elements[j];
                (perm, word)
            }
            Kept::Bottom(j) => match &self.bottom {
                Bottom::Abelian(bottom) => bottom.found(j),
                Bottom::Parts(bottom) => bottom.found(j),
            },
        }
    }

    /// Builds what the bottom needs once the elements found generate the kernel: the words of
    /// the parts' groups too large for a table ([`PartProductWords::finish`]).
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
        match &mut self.bottom {
            Bottom::Abelian(_) => Ok(()),
            Bottom::Parts(bottom) => bottom.finish(group, effort, ctx, budget_bytes, limit_name),
        }
    }

    /// The prime of the layer that element `i` kept belongs to, `None` for `K_2`'s elements.
    pub(super) fn found_prime(&self, i: usize) -> Option<u32> {
        match self.kept[i] {
            Kept::Layer(l, _) => Some(self.layers[l].space.prime() as u32),
            Kept::Bottom(_) => None,
        }
    }

    /// Adds `x`, an element of the group (with its `word`), if it is new, reducing it at once
    /// (the words' search lets reduced elements wait their turn instead).
    #[cfg(test)]
    fn insert(
        &mut self,
        x: &Perm,
        word: Word,
        orders: &GeneratorOrders,
        kernel_order: &BigUint,
    ) -> Inserted {
        let mut next = (x.clone(), word);
        // Each reduction moves the element at least one layer down, or (at a bottom taken part
        // by part) to a power supported on one part: at most three rounds.
        for _ in 0..4 {
            match self.insert_or_reduce(next.0, next.1, orders, kernel_order) {
                Ok(inserted) => return inserted,
                Err(reduced) => next = reduced,
            }
        }
        Inserted::Redundant
    }

    /// Adds `x` (with its `word`) if it is new in the first layer where it is not 0; when it is
    /// 0 there only after multiplying it by a product `y` of that layer's elements (its word
    /// longer), returns an element one layer down instead, for the caller to insert when its
    /// turn comes (see `KernelCandidates`): `Err((x · y⁻¹, word))`, or `x^p` (`p` the layer's
    /// prime: its quotient has exponent `p`) when its `p` times the letters are fewer and it is
    /// not the identity. The power is the shorter where the layer holds many long elements (a
    /// commutator of powers past a full layer of signs: its square, against its product with a
    /// dozen others). At a bottom taken part by part, an element supported on several parts
    /// in a new coset of the product is kept as one of its [`cosets`](Self::cosets) once the
    /// bound is within [`MAX_BOTTOM_COSETS`] of `kernel_order`, the proven order of `K`.
    pub(super) fn insert_or_reduce(
        &mut self,
        mut x: Perm,
        mut word: Word,
        orders: &GeneratorOrders,
        kernel_order: &BigUint,
    ) -> Result<Inserted, (Perm, Word)> {
        if x.degree() != self.degree || !preserves_orbits(&x, &self.position) {
            return Ok(Inserted::NotElementary);
        }
        for (l, layer) in self.layers.iter_mut().enumerate() {
            let Some(vector) = layer.vector(&x, &self.parts, &self.position, self.series.as_ref())
            else {
                return Ok(Inserted::NotElementary);
            };
            if vector.iter().all(|&v| v == 0) {
                continue;
            }
            let Some(exponents) = layer.space.solve(&vector) else {
                let j = layer.elements.len();
                layer.space.insert(vector, j);
                layer.elements.push((x, word));
                self.kept.push(Kept::Layer(l, j));
                return Ok(Inserted::New);
            };
            let p = i64::from(layer.space.prime());
            let Ok(product_word) =
                layer.product_word(&exponents, orders, LetterBudget::letters(u64::MAX))
            else {
                unreachable!("no word is longer than u64::MAX letters")
            };
            self.written = self.written.saturating_add(product_word.len());
            if (p as u64).saturating_mul(word.len()) < word.len() + product_word.len() {
                let power = x.pow(p);
                // Of order `p`, the power tells nothing; the product may.
                if !power.is_identity() {
                    let mut power_word = Word::identity();
                    power_word.append_power(&word, p, orders);
                    self.written = self.written.saturating_add(power_word.len());
                    return Err((power, power_word));
                }
            }
            let y = layer.product_perm(&exponents, self.degree);
            x = x.compose(&y.inverse());
            if x.is_identity() {
                return Ok(Inserted::Redundant);
            }
            word.append_inverse(&product_word, orders);
            return Err((x, word));
        }
        let (inserted, found_len) = match &mut self.bottom {
            Bottom::Abelian(bottom) => (bottom.insert(&x, word), bottom.found_len()),
            Bottom::Parts(bottom) => match bottom.insert(&x, word.clone()) {
                PartInserted::New => {
                    prune_cosets(bottom, &mut self.cosets);
                    (Inserted::New, bottom.found_len())
                }
                PartInserted::Redundant => (Inserted::Redundant, 0),
                PartInserted::TooLarge => (Inserted::NotElementary, 0),
                // Supported on several parts: kept as a coset when it is a new one and the
                // product is near enough `K_2`; and a power supported on one part, waiting its
                // turn by its length; neither, and the element is of no use.
                PartInserted::NotSupported => {
                    // The cheap test first: the bound's product is over every part.
                    let coset = self.cosets.len() + 1 < MAX_BOTTOM_COSETS
                        && layers_order(&self.layers) * bottom.order() * MAX_BOTTOM_COSETS
                            >= *kernel_order
                        && coset_of(bottom, &self.cosets, &x).is_none();
                    let without_power = if coset {
                        self.cosets.push((x.clone(), word.clone()));
                        Inserted::New
                    } else {
                        Inserted::Redundant
                    };
                    let Some(e) = isolating_power(&x, &self.parts, &self.position) else {
                        return Ok(without_power);
                    };
                    if u128::from(e) * u128::from(word.len()) > u128::from(self.max_power_letters) {
                        return Ok(without_power); // its word would not fit
                    }
                    let y = x.pow(e as i64);
                    if y.is_identity() {
                        return Ok(without_power);
                    }
                    let mut power = Word::identity();
                    power.append_power(&word, e as i64, orders);
                    self.written = self.written.saturating_add(power.len());
                    return Err((y, power));
                }
            },
        };
        if inserted == Inserted::New {
            self.kept.push(Kept::Bottom(found_len - 1));
        }
        Ok(inserted)
    }

    /// The word of `k`, `Ok(None)` when it is not in the group generated, `Err(letters)` once
    /// the word is known to be longer than `budget` allows.
    pub(super) fn word_of(
        &self,
        k: &Perm,
        orders: &GeneratorOrders,
        budget: LetterBudget<'_>,
    ) -> Result<Option<Word>, u64> {
        if k.degree() != self.degree || !preserves_orbits(k, &self.position) {
            return Ok(None);
        }
        let mut x = k.clone();
        let mut products: Vec<Word> = Vec::new();
        let mut letters = 0u64;
        for layer in &self.layers {
            let Some(vector) = layer.vector(&x, &self.parts, &self.position, self.series.as_ref())
            else {
                return Ok(None);
            };
            let Some(exponents) = layer.space.solve(&vector) else {
                return Ok(None);
            };
            let y_word = layer
                .product_word(&exponents, orders, budget.less(letters))
                .map_err(|product| product.saturating_add(letters))?;
            x = x.compose(&layer.product_perm(&exponents, self.degree).inverse());
            letters = letters.saturating_add(y_word.len());
            products.push(y_word);
        }
        let left = budget.less(letters);
        let bottom_word = match &self.bottom {
            Bottom::Abelian(bottom) => bottom.word_of(&x, orders, left),
            Bottom::Parts(bottom) => match coset_of(bottom, &self.cosets, &x) {
                None => return Ok(None),
                Some(Coset::Product) => bottom.word_of(&x, orders, left),
                Some(Coset::Kept(i)) => {
                    // `x = (x · t⁻¹) · t`.
                    let (t, t_word) = &self.cosets[i];
                    let in_product = x.compose(&t.inverse());
                    match bottom.word_of(&in_product, orders, left.less(t_word.len())) {
                        Ok(Some(mut word)) => {
                            word.append(t_word, orders);
                            Ok(Some(word))
                        }
                        Ok(None) => Ok(None),
                        Err(letters) => Err(letters.saturating_add(t_word.len())),
                    }
                }
            },
        };
        let Some(mut word) = bottom_word.map_err(|bottom| bottom.saturating_add(letters))? else {
            return Ok(None);
        };
        for y_word in products.iter().rev() {
            word.append(y_word, orders);
        }
        word.at_most(budget)
    }

    /// Bytes held: the layers' elements and spaces, `K_2`'s part and the part tables.
    pub(super) fn bytes(&self) -> u64 {
        let layers: u64 = self
            .layers
            .iter()
            .map(|layer| {
                let elements: u64 = layer
                    .elements
                    .iter()
                    .map(|(_, w)| element_bytes(self.degree, w))
                    .sum();
                elements + layer.space.bytes()
            })
            .sum();
        let parts: u64 = self.parts.iter().map(|p| 4 * p.len() as u64 + 24).sum();
        let bottom = match &self.bottom {
            Bottom::Abelian(bottom) => bottom.bytes(),
            Bottom::Parts(bottom) => bottom.bytes(),
        };
        let series = self.series.as_ref().map_or(0, PartSeries::bytes);
        let cosets: u64 = self
            .cosets
            .iter()
            .map(|(_, w)| element_bytes(self.degree, w))
            .sum();
        layers
            + parts
            + series
            + cosets
            + 12 * self.degree as u64
            + bottom
            + 16 * self.kept.len() as u64
    }
}

/// Bytes held by an element kept (its images) with its `word`.
fn element_bytes(degree: usize, word: &Word) -> u64 {
    4 * degree as u64 + 16 * word.letters().len() as u64 + 64
}

/// The layers' part of [`KernelSeriesWords::order_at_least`]: `2^s · 3^t`, or the product of
/// `p^rank` over the parts' series' layers.
fn layers_order(layers: &[Layer]) -> BigUint {
    layers
        .iter()
        .map(|layer| BigUint::from(layer.space.prime()).pow(layer.space.rank() as u32))
        .product()
}

/// A right coset of the product over the parts `N` at the bottom (see
/// `KernelSeriesWords::cosets`).
enum Coset {
    /// `N` itself.
    Product,
    /// `N t`, `t` the cosets' element of this index.
    Kept(usize),
}

/// Which of `N` and the right cosets of `cosets`' elements `x` is in, `None` for none of them
/// (`N` the product `bottom`).
fn coset_of(bottom: &PartProductWords, cosets: &[(Perm, Word)], x: &Perm) -> Option<Coset> {
    if bottom.contains(x) {
        return Some(Coset::Product);
    }
    cosets
        .iter()
        .position(|(t, _)| bottom.contains(&x.compose(&t.inverse())))
        .map(Coset::Kept)
}

/// Drops the cosets that the product's growth made `N` itself or equal to an earlier one, so
/// that those left are distinct (see `KernelSeriesWords::cosets`). `O(c²)` tries of
/// [`coset_of`]'s for `c` cosets.
fn prune_cosets(bottom: &PartProductWords, cosets: &mut Vec<(Perm, Word)>) {
    let mut distinct: Vec<(Perm, Word)> = Vec::with_capacity(cosets.len());
    for (t, word) in cosets.drain(..) {
        if coset_of(bottom, &distinct, &t).is_none() {
            distinct.push((t, word));
        }
    }
    *cosets = distinct;
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::HashSet;

    use super::*;

    fn perm(text: &str, d: usize) -> Perm {
        Perm::parse_cycles(text, d).unwrap()
    }

    /// Every element of `<gens>`, by breadth-first closure (the words tests' oracle).
    pub(in crate::group::words) fn closure_of(gens: &[Perm], d: usize) -> Vec<Perm> {
        let mut all = vec![Perm::identity(d)];
        let mut seen: HashSet<Vec<u32>> = HashSet::from([all[0].images().to_vec()]);
        let mut i = 0;
        while i < all.len() {
            for g in gens {
                let y = all[i].compose(g);
                if seen.insert(y.images().to_vec()) {
                    all.push(y);
                }
            }
            i += 1;
        }
        all
    }

    /// Inserts `gens` as the elements found (each its own letter), then checks the order bound
    /// against the closure's size and that every element's word multiplies out to it.
    fn check_every_element(gens: &[Perm], d: usize, parts: Vec<Vec<u32>>, order: usize) {
        check_every_element_by(gens, d, parts, false, order);
    }

    /// [`check_every_element`] with `K_2` taken part by part or not (`by_parts`).
    fn check_every_element_by(
        gens: &[Perm],
        d: usize,
        parts: Vec<Vec<u32>>,
        by_parts: bool,
        order: usize,
    ) {
        let orders = GeneratorOrders::of(gens);
        let mut k = KernelSeriesWords::new(d, parts, by_parts, u64::MAX);
        let all = closure_of(gens, d);
        assert_eq!(all.len(), order);
        // The generators, then products of pairs, until the bound reaches the order.
        let mut tries: Vec<(Perm, Word)> = (0..gens.len())
            .map(|i| (gens[i].clone(), Word::letter(i as u32, 1, &orders)))
            .collect();
        for i in 0..gens.len() {
            for j in 0..gens.len() {
                let mut w = Word::letter(i as u32, 1, &orders);
                w.push(j as u32, -1, &orders);
                tries.push((gens[i].compose(&gens[j].inverse()), w));
                let mut w = Word::letter(i as u32, -1, &orders);
                w.append(&Word::letter(j as u32, -1, &orders), &orders);
                w.push(i as u32, 1, &orders);
                w.push(j as u32, 1, &orders);
                let commutator = gens[i]
                    .inverse()
                    .compose(&gens[j].inverse())
                    .compose(&gens[i])
                    .compose(&gens[j]);
                tries.push((commutator, w));
            }
        }
        let kernel_order = BigUint::from(order);
        for (x, w) in tries {
            assert_ne!(
                k.insert(&x, w, &orders, &kernel_order),
                Inserted::NotElementary
            );
        }
        assert_eq!(k.order_at_least(), BigUint::from(order));
        for x in &all {
            let w = k
                .word_of(x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member");
            assert_eq!(w.evaluate(gens, d), *x);
        }
    }

    /// `Sym(3) × Sym(3)` on two parts: two odd elements, and the even part `C_3 × C_3`; every
    /// element's word multiplies out to it (36 elements).
    #[test]
    fn sym3_squared_by_signs_and_threes() {
        let gens = [
            perm("(1,2)(4,5)", 6),
            perm("(4,5)", 6),
            perm("(1,2,3)", 6),
            perm("(4,5,6)", 6),
        ];
        let orders = GeneratorOrders::of(&gens);
        let mut k = KernelSeriesWords::new(6, vec![vec![0, 1, 2], vec![3, 4, 5]], false, u64::MAX);
        let order = BigUint::from(36u32);
        for (i, g) in gens.iter().enumerate() {
            assert_eq!(
                k.insert(g, Word::letter(i as u32, 1, &orders), &orders, &order),
                Inserted::New
            );
        }
        assert_eq!(k.order_at_least(), BigUint::from(36u32));
        let all = closure_of(&gens, 6);
        assert_eq!(all.len(), 36);
        for x in &all {
            let w = k
                .word_of(x, &orders, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member");
            assert_eq!(w.evaluate(&gens, 6), *x);
        }
        assert_eq!(
            k.word_of(&perm("(1,4)", 6), &orders, LetterBudget::letters(u64::MAX)),
            Ok(None)
        );
    }

    /// `Sym(4) × Sym(3)` on two parts (144 elements): signs `C_2^2`, rotations `C_3^2` (of the
    /// pairings on the first part), then `V_4`; every element's word multiplies out to it.
    #[test]
    fn sym4_and_sym3_down_the_series() {
        let gens = [
            perm("(1,2,3,4)", 7),
            perm("(1,2)(5,6)", 7),
            perm("(5,6,7)", 7),
        ];
        check_every_element(&gens, 7, vec![vec![0, 1, 2, 3], vec![4, 5, 6]], 144);
        // Alt(4) alone on four points, relabelled: rotations C_3 over V_4 (12 elements).
        let gens = [perm("(1,3,2)", 4), perm("(1,4)(2,3)", 4)];
        check_every_element(&gens, 4, vec![vec![0, 1, 2, 3]], 12);
        // Sym(4) on two parts at once, and V_4 on the first alone: a subdirect product of order
        // 24 · 4 = 96 whose signs and rotations are diagonal.
        let gens = [
            perm("(1,2,3,4)(5,6,7,8)", 8),
            perm("(1,2)(5,6)", 8),
            perm("(1,2)(3,4)", 8),
        ];
        check_every_element(&gens, 8, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]], 96);
    }

    /// `K_2` part by part with a part of four points beside one of five: the `V_4` elements
    /// (the last two generators) come with involutions on the other part, so no power of
    /// theirs moves one part; they go to the Klein layer. A subdirect product of `Sym(4)` and
    /// `Sym(5)` with equal signs, of order `24 · 120 / 2`; every element's word multiplies out
    /// to it (without the Klein layer the bound stops at 720).
    #[test]
    fn klein_four_parts_beside_a_product_part() {
        let gens = [
            perm("(1,2)(5,6)", 9),
            perm("(1,2,3)(5,6,7)", 9),
            perm("(5,6,7,8,9)", 9),
            perm("(5,6,7)", 9),
            perm("(1,2)(3,4)(5,6)(7,8)", 9),
            perm("(1,3)(2,4)(5,6)(8,9)", 9),
        ];
        let parts = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7, 8]];
        check_every_element_by(&gens, 9, parts, true, 1440);
    }

    /// `K_2` part by part where a character ties the parts: `D_5` on each of two parts of five
    /// points (every element even, so no signs), with their reflections together only (order
    /// 50). No element outside the rotations `C_5 × C_5` has a power supported on one part, so
    /// the product over the parts stops at 25 and the reflections' coset completes it; every
    /// element's word multiplies out to it. Again with the reflections tied to an odd element
    /// on a third part (signs `C_2`, then the same tie below them: order 100).
    #[test]
    fn a_character_tying_two_parts_is_a_coset_of_the_product() {
        let gens = [
            perm("(1,2,3,4,5)", 10),
            perm("(6,7,8,9,10)", 10),
            perm("(2,5)(3,4)(7,10)(8,9)", 10),
        ];
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]];
        check_every_element_by(&gens, 10, parts, true, 50);
        let gens = [
            perm("(1,2,3,4,5)", 12),
            perm("(6,7,8,9,10)", 12),
            perm("(2,5)(3,4)(7,10)(8,9)", 12),
            perm("(2,5)(3,4)(11,12)", 12),
        ];
        let parts = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9], vec![10, 11]];
        check_every_element_by(&gens, 12, parts, true, 100);
    }
}
