//! [`GroupWords`]: a word in the generators for every member of a group, by the method that
//! suits it: Minkwitz's tables ([`MinkwitzTables`]) in general, conjugates of one 3-cycle
//! ([`GiantWords`]) for symmetric and alternating groups of large degree, whose
//! tables would not fit in memory, one of these per orbit ([`OrbitProductWords`]) when every
//! generator moves the points of one orbit only (a direct product given factor by factor), and
//! per orbit with a parity correction ([`GiantProductWords`]) for a product of giants whose
//! generators move several orbits at once, and through an action on one orbit or on blocks
//! ([`ActionKernelWords`]) for other groups with a long base, whose kernel is elementary abelian;
//! through the blocks' orientations ([`AlternatingBlocksWords`]) for groups that contain their
//! blocks' alternating groups, and, with the orbits of other blocks on their points, where
//! that writes shorter than an action's long words (`through_actions`).
//! Orbits that copy others ([`OrbitCopies`]) are left out first: each of these methods writes
//! the group restricted to the orbits kept.

use super::action_kernel::ActionKernelWords;
use super::alternating_blocks::{AlternatingBlocksWords, OtherOrbits};
use super::giant::{GiantWords, giant_of_moved_points};
use super::giant_product::{GiantProductWords, giant_product_orbits};
use super::minkwitz::MinkwitzTables;
use super::orbit_copies::OrbitCopies;
use super::orbit_product::{OrbitProductWords, orbit_factors};
use super::word::{LetterBudget, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

/// How much work to spend on short words: a trade-off between set-up time and word length.
///
/// `effort` 0 fills the tables only (fastest set-up, longest words); each unit adds one round of
/// improvement of the tables and widens the search at query time (a ball of `96 · effort`
/// elements of the Cayley graph, multiplied on either side, is tried for each member). The
/// default is 5; at most [`WordEffort::MAX`]. Measured on Rubik's cube group (BENCHMARKS.md):
/// effort 0 sets up in 31 ms with words of 240 letters on average, 5 in 45 ms with 85 letters,
/// 30 in 0.13 s with 68, 100 in 0.27 s with 60 (53 words a second).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordEffort(pub u32);

impl WordEffort {
    /// The largest effort a job may ask for: beyond it the query-time search costs more than
    /// it gains.
    pub const MAX: u32 = 100;
}

impl Default for WordEffort {
    fn default() -> Self {
        WordEffort(5)
    }
}

/// Moved points from which a giant gets its words from conjugates of a 3-cycle rather than from Minkwitz's tables. Below it the tables' words are shorter (measured
/// on `Sym(m)` and `Alt(m)` from two random generators, BENCHMARKS.md); above it they also grow
/// as `m³` in memory.
pub const GIANT_WORDS_FROM_DEGREE: usize = 24;

/// Base length from which a group that is not a giant or a product of giants gets its words
/// through an action on an orbit or on blocks when its kernel there is elementary abelian
/// (`Sym(2) wr Sym(50)`, diagonal products), rather than from Minkwitz's tables, whose deep levels
/// hold residues of residues: from a few random generators their words grow with the depth and
/// the tables of such groups did not fill within minutes (base 50, BENCHMARKS.md).
pub const ACTION_WORDS_FROM_BASE: usize = 24;

/// The limits of a group's chain built for words within `bytes`: its chain and the job's memory
/// both bounded by them (the other limits as by default).
pub(super) fn chain_limits(bytes: u64) -> Limits {
    Limits {
        max_group_chain_bytes: bytes,
        max_job_memory: bytes,
        ..Limits::default()
    }
}

/// Words for every element of a permutation group: [`GroupWords::word_of`] gives a word for a
/// member and `None` for anything else. Every word is exact (the methods are Las Vegas: random
/// only in their running time).
#[derive(Debug)]
pub struct GroupWords {
    /// The orbits that copy others, when there are any: `method` writes the group restricted
    /// to the others, and a member's points on a copy follow its points on the copied orbit.
    copies: Option<Box<OrbitCopies>>,
    method: Method,
}

#[derive(Debug)]
enum Method {
    Minkwitz(MinkwitzTables),
    Giant(GiantWords),
    OrbitProduct(OrbitProductWords),
    GiantProduct(GiantProductWords),
    /// Boxed: its kernel's layers make it the largest by far.
    ActionKernel(Box<ActionKernelWords>),
    AlternatingBlocks(Box<AlternatingBlocksWords>),
}

/// Which method a [`GroupWords`] uses (for benchmarks and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordMethod {
    /// Minkwitz's tables of short words for the coset representatives of the stabiliser chain.
    Minkwitz,
    /// Conjugates of one 3-cycle of the moved points (and an odd generator for `Sym`).
    Giant,
    /// One of the others per orbit, for generators that each move one orbit only.
    OrbitProduct,
    /// Conjugates of a 3-cycle per orbit and a parity correction, for a product of giants on
    /// several orbits whose generators move several of them.
    GiantProduct,
    /// The words of the group's image under an action (on an orbit, on blocks, on invariant
    /// lines), times a kernel element's word down the kernel's series (signs, rotations, then
    /// elimination over `GF(p)`, a product over the parts, or conjugates of a 3-cycle for the
    /// alternating groups of large blocks).
    ActionKernel,
    /// The words of the group's image on its blocks' orientations, times conjugates of one
    /// 3-cycle of the group for the blocks' alternating groups (a transitive group containing
    /// them, such as `Sym(50) wr Sym(20)`).
    AlternatingBlocks,
}

impl GroupWords {
    /// Builds the words' structure for `group`.
    ///
    /// # Arguments
    /// * `group` — the group, whose base and basic orbit lengths (or giant proof) are proven.
    /// * `effort` — the set-up/length trade-off ([`WordEffort`]).
    /// * `ctx` — cancellation and progress.
    /// * `budget_bytes` — the memory the structure may take; `limit_name` names the limit that
    ///   set it in the error.
    ///
    /// # Returns
    /// The structure, [`SolveError::LimitExceeded`] naming `limit_name` when it would need more
    /// than `budget_bytes`, or [`SolveError::Cancelled`].
    ///
    /// # Complexity
    /// Minkwitz's tables: see `minkwitz.rs`; giants of degree `m >=`
    /// [`GIANT_WORDS_FROM_DEGREE`]: `O(S · m)` for a few thousand sampled words `S`; a product
    /// of groups on orbits: the factors' groups and words, each on its own orbit.
    ///
    /// # Example
    /// ```
    /// use orbit_worker::{Limits, SolveContext, group::{GroupWords, Perm, PermGroup, WordEffort}};
    /// let gens = vec![Perm::parse_cycles("(1,2,3,4)", 4).unwrap(), Perm::parse_cycles("(1,2)", 4).unwrap()];
    /// let g = PermGroup::new(4, gens.clone(), &SolveContext::detached(), &Limits::default()).unwrap();
    /// let words = GroupWords::new(&g, WordEffort::default(), &SolveContext::detached(), 1 << 20, "max_job_memory").unwrap();
    /// let x = Perm::parse_cycles("(1,3)", 4).unwrap();
    /// let w = words.word_of(&x).unwrap();
    /// assert_eq!(w.evaluate(&gens, 4), x);
    /// ```
    ///
    /// # Reference
    /// T. Minkwitz, "An algorithm for solving the factorization problem in permutation groups",
    /// *J. Symbolic Computation* 26 (1998) 89–95; Seress, *Permutation Group Algorithms*
    /// (2003), §10.2.
    pub fn new(
        group: &PermGroup,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GroupWords, SolveError> {
        if let Some(copies) = OrbitCopies::of(group, ctx)? {
            let left = budget_bytes.saturating_sub(copies.bytes());
            let restricted = copies.restricted_group(group, ctx, &chain_limits(left))?;
            let words = GroupWords::beside_chain(&restricted, effort, ctx, left, limit_name)?;
            debug_assert!(
                words.copies.is_none(),
                "the orbits kept copy none of the others"
            );
            return Ok(GroupWords {
                copies: Some(Box::new(copies)),
                method: words.method,
            });
        }
        if let Some(factors) = orbit_factors(group) {
            return Ok(GroupWords {
                copies: None,
                method: Method::OrbitProduct(OrbitProductWords::new(
                    group,
                    factors,
                    effort,
                    ctx,
                    budget_bytes,
                    limit_name,
                )?),
            });
        }
        if group.moved_points() >= GIANT_WORDS_FROM_DEGREE
            && let Some(orbits) = giant_product_orbits(group)
        {
            return Ok(GroupWords {
                copies: None,
                method: Method::GiantProduct(GiantProductWords::new(
                    group,
                    orbits,
                    effort,
                    ctx,
                    budget_bytes,
                    limit_name,
                )?),
            });
        }
        let method = match giant_of_moved_points(group) {
            Some(giant) if group.moved_points() >= GIANT_WORDS_FROM_DEGREE => Method::Giant(
                GiantWords::new(group, giant, effort, ctx, budget_bytes, limit_name)?,
            ),
            _ if group.base().len() >= ACTION_WORDS_FROM_BASE
                && let Some(words) = AlternatingBlocksWords::new(
                    group,
                    OtherOrbits::Decline,
                    effort,
                    ctx,
                    budget_bytes,
                    limit_name,
                )? =>
            {
                Method::AlternatingBlocks(Box::new(words))
            }
            _ if group.base().len() >= ACTION_WORDS_FROM_BASE
                && let Some(method) =
                    through_actions(group, effort, ctx, budget_bytes, limit_name)? =>
            {
                method
            }
            _ => Method::Minkwitz(MinkwitzTables::new(
                group,
                effort,
                ctx,
                budget_bytes,
                limit_name,
            )?),
        };
        Ok(GroupWords {
            copies: None,
            method,
        })
    }

    /// [`new`](Self::new) for a group built within `budget_bytes` by the caller, whose chain
    /// stays held while its words are built: the chain's bytes are charged first.
    pub(super) fn beside_chain(
        group: &PermGroup,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<GroupWords, SolveError> {
        let left = budget_bytes.saturating_sub(group.chain_bytes());
        GroupWords::new(group, effort, ctx, left, limit_name)
    }

    /// The word of `g`, or `None` when `g` is not a member (or has another degree).
    ///
    /// # Complexity
    /// Minkwitz: `O(B · k · m)` for the query ball of `B` elements; giants: `O(m · (|e| + c·t))`
    /// for the base element's word `e` and `c <= 3` tree paths of `t` letters per piece.
    pub fn word_of(&self, g: &Perm) -> Option<Word> {
        match self.word_of_at_most(g, u64::MAX) {
            Ok(w) => w,
            Err(_) => unreachable!("no word is longer than u64::MAX letters"),
        }
    }

    /// Like [`word_of`](Self::word_of), but stops as soon as the word is known to be longer than
    /// `max_letters`: `Err(letters)` with the letters reached, so no word beyond a job's cap is
    /// ever built in full.
    pub fn word_of_at_most(&self, g: &Perm, max_letters: u64) -> Result<Option<Word>, u64> {
        self.word_within(g, LetterBudget::letters(max_letters))
    }

    /// Like [`word_of_at_most`](Self::word_of_at_most), also stopping (with `Err(letters)`)
    /// within one piece of the word once `budget`'s job is cancelled: a word of millions of
    /// letters takes a fraction of a second, and a cancelled job is to free its worker within
    /// 100 ms.
    pub fn word_within(&self, g: &Perm, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
        let restricted;
        let g = match &self.copies {
            None => g,
            Some(copies) => match copies.restricted(g) {
                Some(r) => {
                    restricted = r;
                    &restricted
                }
                None => return Ok(None),
            },
        };
        match &self.method {
            Method::Minkwitz(tables) => match tables.word_of(g) {
                Some(w) => w.at_most(budget),
                None => Ok(None),
            },
            Method::Giant(giant) => giant.word_of(g, budget),
            Method::OrbitProduct(product) => product.word_of(g, budget),
            Method::GiantProduct(product) => product.word_of(g, budget),
            Method::ActionKernel(words) => words.word_of(g, budget),
            Method::AlternatingBlocks(words) => words.word_of(g, budget),
        }
    }

    /// Which method the words come from.
    pub fn method(&self) -> WordMethod {
        match self.method {
            Method::Minkwitz(_) => WordMethod::Minkwitz,
            Method::Giant(_) => WordMethod::Giant,
            Method::OrbitProduct(_) => WordMethod::OrbitProduct,
            Method::GiantProduct(_) => WordMethod::GiantProduct,
            Method::ActionKernel(_) => WordMethod::ActionKernel,
            Method::AlternatingBlocks(_) => WordMethod::AlternatingBlocks,
        }
    }

    /// Bytes held (permutations and words).
    pub fn bytes(&self) -> u64 {
        let copies = self.copies.as_ref().map_or(0, |c| c.bytes());
        copies
            + match &self.method {
                Method::Minkwitz(tables) => tables.bytes(),
                Method::Giant(giant) => giant.bytes(),
                Method::OrbitProduct(product) => product.bytes(),
                Method::GiantProduct(product) => product.bytes(),
                Method::ActionKernel(words) => words.bytes(),
                Method::AlternatingBlocks(words) => words.bytes(),
            }
    }

    /// Mean and largest word length of the table entries (Minkwitz), or the base element's word
    /// length twice (giants), for benchmarks.
    pub fn entry_lengths(&self) -> (f64, u64) {
        match &self.method {
            Method::Minkwitz(tables) => tables.entry_lengths(),
            Method::Giant(giant) => (giant.base_len() as f64, giant.base_len()),
            Method::OrbitProduct(product) => product.entry_lengths(),
            Method::GiantProduct(product) => product.entry_lengths(),
            Method::ActionKernel(words) => words.entry_lengths(),
            Method::AlternatingBlocks(words) => words.entry_lengths(),
        }
    }

    /// Words of elements of small order that the structure holds, for the kernel of an action
    /// whose image these words write to start from (see `ActionKernelWords::seeds`): the
    /// giants' base elements, a 3-cycle each. None for the other methods.
    pub(super) fn small_order_words(&self) -> Vec<&Word> {
        match &self.method {
            Method::Giant(giant) => vec![giant.base_word()],
            Method::GiantProduct(product) => product.base_words().collect(),
            Method::Minkwitz(_)
            | Method::OrbitProduct(_)
            | Method::ActionKernel(_)
            | Method::AlternatingBlocks(_) => Vec::new(),
        }
    }
}

/// Letters of the action's word for its sample member from which the blocks' orientations with
/// the other orbits on their points are built too and compared (see [`through_actions`]): below
/// it the second set-up would cost more than the words could gain (the words bench's
/// `sweep_2004_12`, 541,407 letters a word, is the shortest that gained: 248,515).
const COMPARED_FROM_LETTERS: u64 = 100_000;

/// Words through an action and its kernel ([`ActionKernelWords`]); where those write their
/// sample member in more than [`COMPARED_FROM_LETTERS`] letters (or over the default
/// `max_word_letters`, or there are none), also the blocks' orientations with the other orbits
/// on their points ([`OtherOrbits::OnTheirPoints`]: orbits of small blocks, or of blocks whose
/// groups are not alternating) when the group has that shape, kept when they write the same
/// member shorter and within the cap; `None` when neither applies (the caller's tables then).
///
/// Why compare: the orientations' group holds the other orbits whole, and where the action's
/// kernel takes them down its series it writes shorter (`Sym(4) wr Sym(20)` beside `Sym(8) wr
/// Sym(12)`: 21,159 to 23,177 letters a word, against 28,820 to 32,871; the words bench's
/// `sweep_2003_8`, about 0.2 million against 0.56 million), but where it writes the larger
/// blocks or giant orbits in long kernel elements the 3-cycles are far shorter (`sweep_2004_7`,
/// three wreath orbits: 5.7 million letters against 0.38 million; `Sym(72)` beside `Alt(5) wr
/// Sym(73)` beside `Alt(5) wr Sym(74)` beside `C_3 wr Sym(29)`: over 10 million against about 6.3
/// million). Both are built then, so the set-up is the two together.
///
/// # Errors
/// As [`GroupWords::new`].
fn through_actions(
    group: &PermGroup,
    effort: WordEffort,
    ctx: &SolveContext,
    budget_bytes: u64,
    limit_name: &'static str,
) -> Result<Option<Method>, SolveError> {
    let cap = Limits::default().max_word_letters;
    let through_action = ActionKernelWords::new(group, effort, ctx, budget_bytes, limit_name)?;
    // The action's sample member's letters, `None` over the cap.
    let letters = match &through_action {
        Some(words) => words.sample_letters(cap, ctx)?,
        None => None,
    };
    if letters.is_none_or(|l| l > COMPARED_FROM_LETTERS) {
        let left = budget_bytes.saturating_sub(through_action.as_ref().map_or(0, |w| w.bytes()));
        let others_on_points = match AlternatingBlocksWords::new(
            group,
            OtherOrbits::OnTheirPoints,
            effort,
            ctx,
            left,
            limit_name,
        ) {
            Err(SolveError::LimitExceeded { .. }) => None,
            built => built?,
        };
        if let Some(words) = others_on_points {
            // Kept where the action's words are none, or its sample member's word is shorter
            // here, and within the cap.
            let shorter = through_action.as_ref().is_none_or(|action| {
                let within = letters.map_or(cap, |l| l - 1);
                let sample = action.sample_member();
                matches!(
                    words.word_of(&sample, LetterBudget::new(within, ctx)),
                    Ok(Some(_))
                )
            });
            ctx.check()?;
            if shorter {
                return Ok(Some(Method::AlternatingBlocks(Box::new(words))));
            }
        }
    }
    Ok(through_action.map(|words| Method::ActionKernel(Box::new(words))))
}
