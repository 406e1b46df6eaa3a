//! Cycle types, the cycle index of a permutation group as a polynomial, and Pólya's pattern
//! inventory with a prescribed content.
//!
//! The cycle index of a group `G` acting on `d` points is
//! `Z(G) = (1/|G|) * sum over g of x_1^{c_1(g)} x_2^{c_2(g)} ... x_d^{c_d(g)}`, where `c_i(g)` is the
//! number of `i`-cycles of `g`. Substituting `x_i = k` counts the orbits of `k`-colourings
//! (Burnside); substituting `x_i = y_1^i + ... + y_k^i` and taking the coefficient of
//! `y_1^{n_1} ... y_k^{n_k}` counts the orbits of colourings that use colour `j` exactly `n_j`
//! times (Pólya).

use std::collections::HashMap;
use std::fmt;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, Zero};

use super::arith::{BurnsideSum, binomial};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::memory::{MemoryBudget, bigint_bytes};

/// Largest dynamic-programming table (product of `multiplicity + 1` over a cycle type) that the
/// pattern inventory builds for one cycle type.
pub const MAX_CONTENT_STATES: u64 = 1 << 22;

/// The cycle type of a permutation: `(length, multiplicity)` pairs in increasing order of length,
/// every multiplicity positive.
///
/// ```
/// use orbit_worker::counting::CycleType;
/// let t = CycleType::of_images(&[1, 0, 2, 4, 5, 3]);
/// assert_eq!(t.parts(), &[(1, 1), (2, 1), (3, 1)]);
/// assert_eq!(t.cycles(), 3);
/// assert_eq!(t.to_string(), "x1*x2*x3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CycleType {
    parts: Vec<(u64, u64)>,
}

impl CycleType {
    /// Builds a cycle type from `(length, multiplicity)` pairs in any order; equal lengths are
    /// merged and zero multiplicities dropped.
    ///
    /// Complexity: O(p log p) for p pairs.
    pub fn new(parts: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut v: Vec<(u64, u64)> = parts.into_iter().filter(|&(l, m)| l > 0 && m > 0).collect();
        v.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
        for (l, m) in v {
            match out.last_mut() {
                Some((last, mult)) if *last == l => *mult += m,
                _ => out.push((l, m)),
            }
        }
        Self { parts: out }
    }

    /// The cycle type of the permutation `x -> images[x]` (which must be a permutation).
    ///
    /// Complexity: O(d).
    pub fn of_images(images: &[u32]) -> Self {
        let mut seen = vec![false; images.len()];
        let mut counts: HashMap<u64, u64> = HashMap::new();
        for s in 0..images.len() {
            if seen[s] {
                continue;
            }
            let mut len = 0u64;
            let mut x = s;
            while !seen[x] {
                seen[x] = true;
                len += 1;
                x = images[x] as usize;
            }
            *counts.entry(len).or_default() += 1;
        }
        Self::new(counts)
    }

    /// The `(length, multiplicity)` pairs, increasing in length.
    pub fn parts(&self) -> &[(u64, u64)] {
        &self.parts
    }

    /// The total number of cycles (fixed points included).
    pub fn cycles(&self) -> u64 {
        self.parts.iter().map(|&(_, m)| m).sum()
    }

    /// The number of points moved or fixed: `sum of length * multiplicity`.
    pub fn degree(&self) -> u64 {
        self.parts.iter().map(|&(l, m)| l * m).sum()
    }

    /// Whether a permutation of this type is even (`degree - cycles` even).
    pub fn is_even(&self) -> bool {
        (self.degree() - self.cycles()).is_multiple_of(2)
    }
}

impl fmt::Display for CycleType {
    /// The monomial, e.g. `x1^2*x4` (the identity on no points prints `1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.parts.is_empty() {
            return write!(f, "1");
        }
        for (i, &(l, m)) in self.parts.iter().enumerate() {
            if i > 0 {
                write!(f, "*")?;
            }
            if m == 1 {
                write!(f, "x{l}")?;
            } else {
                write!(f, "x{l}^{m}")?;
            }
        }
        Ok(())
    }
}

/// A non-negative rational number in lowest terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rational {
    /// Numerator.
    pub numerator: BigUint,
    /// Denominator, positive.
    pub denominator: BigUint,
}

impl Rational {
    /// `numerator / denominator` reduced to lowest terms (`denominator` must be positive).
    pub fn new(numerator: BigUint, denominator: BigUint) -> Self {
        let g = numerator.gcd(&denominator);
        if g.is_zero() || g.is_one() {
            return Self {
                numerator,
                denominator,
            };
        }
        Self {
            numerator: numerator / &g,
            denominator: denominator / &g,
        }
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.denominator.is_one() {
            write!(f, "{}", self.numerator)
        } else {
            write!(f, "{}/{}", self.numerator, self.denominator)
        }
    }
}

/// Upper bound on the bytes one term of a cycle index costs from the tally to the answer: its
/// cycle type (`16` bytes per part), its element count while tallied (a `(type, count)` slot in
/// a grown vector, `96`), in [`CycleIndex::from_counts`]'s merge map (`168`: a 48-byte slot, 8/7
/// load factor, old and new tables during a resize) and as a [`CycleIndexTerm`] (`96`), its three
/// big integers of at most `order_bits` bits (count, coefficient numerator and denominator) and
/// its decimal form in the answer (`order_bits` bytes covers two numbers of `0.31 · order_bits`
/// digits; `32` bytes per part).
pub(crate) fn cycle_index_term_bytes(parts: u64, order_bits: u64) -> u64 {
    parts
        .saturating_mul(16 + 16 + 32)
        .saturating_add(24 + 96 + 168 + 96 + 3 * 24)
        .saturating_add(bigint_bytes(order_bits).saturating_mul(3))
        .saturating_add(order_bits)
        .saturating_add(64)
}

/// One monomial of a cycle index: `coefficient * cycle_type`, where `coefficient = elements / |G|`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleIndexTerm {
    /// `elements / |G|` in lowest terms.
    pub coefficient: Rational,
    /// The number of group elements of this cycle type.
    pub elements: BigUint,
    /// The cycle type (the monomial).
    pub cycle_type: CycleType,
}

/// The cycle index `Z(G)` of a permutation group acting on `degree` points: one term per cycle
/// type that occurs, sorted by decreasing number of cycles (the identity first), then by type.
///
/// ```
/// use num_bigint::BigUint;
/// use orbit_worker::counting::{CycleIndex, CycleType};
/// // The cyclic group of order 3 on 3 points: (x1^3 + 2 x3) / 3.
/// let z = CycleIndex::from_counts(
///     3,
///     [(CycleType::new([(1, 3)]), BigUint::from(1u32)), (CycleType::new([(3, 1)]), BigUint::from(2u32))],
/// );
/// assert_eq!(z.to_string(), "(x1^3 + 2*x3)/3");
/// assert_eq!(z.count(2, None), BigUint::from(4u32)); // 000, 001, 011, 111
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleIndex {
    /// Number of points the group acts on.
    pub degree: u64,
    /// `|G|`, the sum of the terms' element counts.
    pub group_order: BigUint,
    /// The monomials.
    pub terms: Vec<CycleIndexTerm>,
}

impl CycleIndex {
    /// Builds the cycle index from element counts per cycle type (repeated types are merged; the
    /// group order is the total count).
    ///
    /// Complexity: O(t log t) for t types.
    pub fn from_counts(
        degree: u64,
        counts: impl IntoIterator<Item = (CycleType, BigUint)>,
    ) -> Self {
        let mut merged: HashMap<CycleType, BigUint> = HashMap::new();
        for (t, c) in counts {
            if !c.is_zero() {
                *merged.entry(t).or_default() += c;
            }
        }
        let order: BigUint = merged.values().sum();
        let mut terms: Vec<CycleIndexTerm> = merged
            .into_iter()
            .map(|(cycle_type, elements)| CycleIndexTerm {
                coefficient: Rational::new(elements.clone(), order.clone()),
                elements,
                cycle_type,
            })
            .collect();
        terms.sort_by(|a, b| {
            b.cycle_type
                .cycles()
                .cmp(&a.cycle_type.cycles())
                .then_with(|| a.cycle_type.parts().cmp(b.cycle_type.parts()))
        });
        Self {
            degree,
            group_order: order,
            terms,
        }
    }

    /// The number of orbits of colourings with `k` colours: `Z(G)` at `x_i = k`, exactly or
    /// modulo `modulus` (see [`solve_count`](super::solve_count) for how residues stay exact).
    ///
    /// Complexity: one big power per term.
    pub fn count(&self, k: u64, modulus: Option<&BigUint>) -> BigUint {
        let mut sum = BurnsideSum::new(k, self.group_order.clone(), modulus);
        for t in &self.terms {
            sum.add(&t.elements, t.cycle_type.cycles());
        }
        sum.finish()
    }

    /// Pólya's pattern inventory: the number of orbits of colourings in which colour `j` is used
    /// exactly `content[j]` times (the contents must add up to [`degree`](Self::degree)).
    ///
    /// Arguments: `content` — one count per colour; `modulus` — optional, as for
    /// [`count`](Self::count); `ctx` — checked between terms.
    ///
    /// Returns the number of orbits, or `InvalidArgument` (field `count.content`) when the
    /// contents do not add up to the degree, or `LimitExceeded` when one cycle type needs a table
    /// larger than [`MAX_CONTENT_STATES`].
    ///
    /// Complexity: per cycle type with multiplicities `m_i`, a table of `prod (m_i + 1)` states
    /// swept once per colour.
    ///
    /// Reference: G. Pólya, "Kombinatorische Anzahlbestimmungen für Gruppen, Graphen und chemische
    /// Verbindungen", Acta Math. 68 (1937); F. Harary and E. Palmer, *Graphical Enumeration*
    /// (1973), §2.4.
    pub fn count_with_content(
        &self,
        content: &[u64],
        modulus: Option<&BigUint>,
        ctx: &SolveContext,
    ) -> Result<BigUint, SolveError> {
        let mut unlimited = MemoryBudget::new(u64::MAX);
        self.count_with_content_within(content, modulus, ctx, &mut unlimited)
    }

    /// [`count_with_content`](Self::count_with_content), charging each cycle type's tables
    /// against `budget` before building them (see [`content_table_bytes`]) and giving them back
    /// after.
    ///
    /// # Errors
    /// As [`count_with_content`](Self::count_with_content), and `LimitExceeded` when a table does
    /// not fit what is left of the budget.
    pub(crate) fn count_with_content_within(
        &self,
        content: &[u64],
        modulus: Option<&BigUint>,
        ctx: &SolveContext,
        budget: &mut MemoryBudget,
    ) -> Result<BigUint, SolveError> {
        check_content(content, self.degree)?;
        let value_bits = multinomial_bits_bound(content);
        let mut sum = BurnsideSum::new(1, self.group_order.clone(), modulus);
        for t in &self.terms {
            ctx.check()?;
            let bytes = content_table_bytes(&t.cycle_type, value_bits);
            budget.charge(bytes, || {
                format!(
                    "the pattern inventory table for cycle type {}",
                    t.cycle_type
                )
            })?;
            let fixed = fixed_with_content(&t.cycle_type, content);
            budget.release(bytes);
            sum.add_value(&(fixed? * &t.elements));
        }
        Ok(sum.finish())
    }
}

impl fmt::Display for CycleIndex {
    /// `(x1^6 + 3*x1^2*x2^2 + ...)/24`: integer multiples of monomials over the group order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(")?;
        for (i, t) in self.terms.iter().enumerate() {
            if i > 0 {
                write!(f, " + ")?;
            }
            if t.elements.is_one() {
                write!(f, "{}", t.cycle_type)?;
            } else {
                write!(f, "{}*{}", t.elements, t.cycle_type)?;
            }
        }
        write!(f, ")/{}", self.group_order)
    }
}

/// Checks that `content` adds up to `degree` (field `count.content`).
pub(crate) fn check_content(content: &[u64], degree: u64) -> Result<(), SolveError> {
    let mut total: u64 = 0;
    for &c in content {
        total = total.checked_add(c).ok_or_else(|| {
            SolveError::invalid("count.content", "the counts overflow a 64-bit sum")
        })?;
    }
    if total != degree {
        return Err(SolveError::invalid(
            "count.content",
            format!("the counts add up to {total}, not to the {degree} points"),
        ));
    }
    Ok(())
}

/// Upper bound on the bits of the multinomial coefficient `d! / prod content[j]!` (`d` the sum),
/// which bounds every count of colourings with this content: `log2 d! <= d log2 d` and
/// `log2 c! >= c log2 (c / e)` (Stirling), so the bound costs one logarithm per colour.
pub(crate) fn multinomial_bits_bound(content: &[u64]) -> u64 {
    let d = content.iter().fold(0u64, |acc, &c| acc.saturating_add(c)) as f64;
    let upper = |n: f64| if n < 2.0 { 0.0 } else { n * n.log2() };
    let lower = |n: f64| {
        if n < 2.0 {
            0.0
        } else {
            n * (n.log2() - std::f64::consts::LOG2_E)
        }
    };
    let bits = upper(d) - content.iter().map(|&c| lower(c as f64)).sum::<f64>();
    bits.max(0.0).ceil() as u64 + 2
}

/// Upper bound on the bytes [`fixed_with_content`] allocates for cycle type `t` when every value
/// has at most `value_bits` bits: two tables of `prod (m_i + 1)` big integers (a 24-byte header
/// and the digits each), one weight per part along the recursion, and its small vectors.
pub(crate) fn content_table_bytes(t: &CycleType, value_bits: u64) -> u64 {
    let states = t
        .parts()
        .iter()
        .fold(1u64, |acc, &(_, m)| acc.saturating_mul(m.saturating_add(1)))
        .min(MAX_CONTENT_STATES + 1);
    let value = bigint_bytes(value_bits).saturating_add(32);
    let parts = t.parts().len() as u64;
    states
        .saturating_mul(2)
        .saturating_mul(value)
        .saturating_add(parts.saturating_mul(value + 32))
        .saturating_add(1024)
}

/// The number of colourings fixed by one permutation of cycle type `t` that use colour `j`
/// exactly `content[j]` times: the ways to hand each cycle a colour so that colour `j` receives
/// cycles of total length `content[j]`. The caller has checked that `content` adds up to the
/// degree of `t`.
///
/// Dynamic programming over colours; the state is the vector of cycles not yet coloured
/// (mixed radix, `m_i + 1` values for length `i`). The last colour takes whatever is left.
pub(crate) fn fixed_with_content(t: &CycleType, content: &[u64]) -> Result<BigUint, SolveError> {
    let parts = t.parts();
    let mut states: u64 = 1;
    let mut strides = Vec::with_capacity(parts.len());
    for &(_, m) in parts {
        strides.push(states);
        states = states.saturating_mul(m + 1);
        if states > MAX_CONTENT_STATES {
            return Err(SolveError::limit_shown(
                format!("the pattern inventory table for cycle type {t}"),
                "pattern_inventory_states",
                MAX_CONTENT_STATES,
                format!("{MAX_CONTENT_STATES} states"),
            )
            .requested(states));
        }
    }
    let states = states as usize;
    // Colours that take nothing change nothing; the last non-empty colour takes the rest.
    let used: Vec<u64> = content.iter().copied().filter(|&c| c > 0).collect();
    let Some((_, head)) = used.split_last() else {
        // No points at all: exactly one (empty) colouring.
        return Ok(BigUint::one());
    };
    let full: usize = parts
        .iter()
        .zip(&strides)
        .map(|(&(_, m), &s)| (m * s) as usize)
        .sum();
    let mut dp: Vec<BigUint> = vec![BigUint::zero(); states];
    dp[full] = BigUint::one();
    let mut rem = vec![0u64; parts.len()];
    for &target in head {
        let mut next: Vec<BigUint> = vec![BigUint::zero(); states];
        for (s, value) in dp.iter().enumerate() {
            if value.is_zero() {
                continue;
            }
            let mut x = s as u64;
            for (i, &(_, m)) in parts.iter().enumerate() {
                rem[i] = x % (m + 1);
                x /= m + 1;
            }
            ColourStep {
                parts,
                strides: &strides,
                rem: &rem,
                next: &mut next,
            }
            .distribute(0, target, s, value.clone());
        }
        dp = next;
    }
    Ok(dp.into_iter().sum())
}

/// One colour's step of [`fixed_with_content`] from one state: the cycle lengths and their
/// strides in the state numbering, the cycles of each length not yet coloured in that state, and
/// the next colour's table being filled.
struct ColourStep<'a> {
    /// `(length, multiplicity)` of the cycle type, as [`CycleType::parts`].
    parts: &'a [(u64, u64)],
    /// The mixed-radix stride of each length in the state numbering.
    strides: &'a [u64],
    /// Per length: the cycles not yet coloured in the current state.
    rem: &'a [u64],
    next: &'a mut [BigUint],
}

impl ColourStep<'_> {
    /// Adds `weight * prod C(rem_i, c_i)` to `next[state - sum c_i * stride_i]` for every choice
    /// of `c_i <= rem_i` (cycles of length `parts[i].0` given the current colour) with
    /// `sum c_i * length_i = target`, recursing over `i`.
    fn distribute(&mut self, i: usize, target: u64, state: usize, weight: BigUint) {
        if target == 0 {
            self.next[state] += weight;
            return;
        }
        if i == self.parts.len() {
            return;
        }
        let len = self.parts[i].0;
        let rem = self.rem[i];
        let max_c = rem.min(target / len);
        for c in 0..=max_c {
            let w = if c == 0 {
                weight.clone()
            } else {
                &weight * binomial(u128::from(rem), u128::from(c))
            };
            let s = state - (c * self.strides[i]) as usize;
            self.distribute(i + 1, target - c * len, s, w);
        }
    }
}
