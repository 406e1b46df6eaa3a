//! [`ActionKernelWords`]: words for a group through one of its actions whose kernel has a
//! series of signs, rotations and a bottom that is elementary abelian or a product over the
//! parts ([`KernelSeriesWords`]): on one orbit (a diagonal product such as `Sym(50)` acting on
//! two copies of its points, faithfully on each), on a system of minimal blocks (`Sym(2) wr
//! Sym(50)`, whose kernel on its 50 blocks is `C_2^50`; `Sym(4) wr Sym(40)`, kernel
//! `Sym(4)^40`; `Sym(5) wr Sym(40)`), for an intransitive group on the blocks of all its orbits
//! at once (`Sym(4) wr Sym(100)` beside `Sym(3) wr Sym(100)`, each generator moving both: kernel
//! in `Sym(4)^100 × Sym(3)^100`) or on one orbit's points and the other orbits' blocks
//! (`PSL(2,7) wr Sym(23)` beside `Sym(136)` beside `PSL(2,7) wr Sym(73)`, on the last's points:
//! kernel `PSL(2,7)^23`), or, for a primitive group, faithfully on invariant lines
//! (`Sym(45)` on the 990 2-sets acts on its 45 stars as `Sym(45)` on points; see
//! `invariant_lines`).
//!
//! Minkwitz's tables hold, at level `i`, residues of residues of `i` sifts: on a group with a long
//! base from a few random generators (`Sym(2) wr Sym(50)`: 50 base points) their words grow
//! with the depth and the deep levels never fill. Here a member `x` is written in two parts. Let
//! `φ: G → H` be the action (the generators' images generate `H`, on fewer points, and `H` gets
//! its own [`GroupWords`] in the images of the same generators, so its words are words in `G`'s
//! generators), and `K = ker φ`. Then `u`, the word of `φ(x)`, evaluated in `G` is some `y` with
//! `φ(y) = φ(x)`, so `k = x · y⁻¹ ∈ K`, and `x = k · y`: the word of `x` is the word of `k`
//! followed by `u`. `k` is written down the kernel's series (signs on the parts, rotations of
//! parts of three and four points, then elimination over `GF(p)`) in elements of `K` found as
//! words in the generators: powers `s^o` of short words (`o` the order of `φ(s)`), commutators
//! of such powers each trivial on one orbit of `H` when `H` has several (see `Seed`), powers of
//! somewhat longer words whose cycles leave them moving one part only (`isolated_powers`), their
//! conjugates by the generators (two letters longer each), and `t · u_t⁻¹` for short random
//! words `t`.
//!
//! **Proof.** `|H|` and `|G|` are proven orders, so `|K| = |G| / |H|`; the elements found are in
//! `K` by construction (`t · u_t⁻¹` with `φ(t) = φ(u_t)`, a power `t^o` with `φ(t)^o = 1`, a
//! commutator of elements trivial on different orbits of `H`, a power moving one part only,
//! a conjugate of one of them) and checked to act trivially, and the group they generate has
//! order at least the bound [`KernelSeriesWords`] proves (the bottom's elements checked of
//! prime order `p` and to commute); the search stops when that reaches `|K|`. A member's word
//! is checked by the sift (the residue must be the identity), so a non-member gets none. Random
//! only in the running time (Las Vegas). A bottom that is not elementary abelian is tried again
//! down the parts' own series when their groups are small and solvable ([`PartSeries`]: `D_5
//! wr Sym(40)`, kernel `D_5^40`, in place of the signs and rotations; the parts' tables made
//! again with any element found outside them), then as a product over
//! the parts (`Sym(5) wr Sym(40)`: `Alt(5)^40`); when it is none of these (a diagonal of
//! non-abelian groups over several parts, `PSL(2,7)^100` whose parts' elements are never
//! isolated), or no action is found, the caller uses another method.
//!
//! # Complexity
//! Set-up: the minimal blocks `O(n² k)`, the image group and its words, and `O(r)` kernel
//! elements of `O(r · d)` each (`r` the kernel's rank). A word: the image's word, its evaluation
//! `O(|u| · d)`, and the kernel's word, at most `r (p/2)` kernel words of `|t| + |u_t|` letters.
//!
//! # Reference
//! Seress, *Permutation Group Algorithms* (2003), §5.5 (block systems) and §6.1 (working with
//! homomorphisms: images and kernels); Holt, Eick, O'Brien, *Handbook of Computational Group
//! Theory* (2005), §3.3 (the kernel of an action).

use num_bigint::BigUint;
use num_traits::{One, ToPrimitive};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::actions::{Action, ChosenAction, OrbitBlocks, choose_actions, image_group};
use super::elementary_abelian::Inserted;
use super::group_words::{GroupWords, WordEffort, chain_limits};
use super::isolated_powers::{IsolatingSearch, isolated_power_seeds};
use super::kernel_candidates::{KernelCandidates, Seed};
use super::kernel_series::KernelSeriesWords;
use super::part_series::PartSeries;
use super::word::{GeneratorOrders, LetterBudget, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

/// Seed of the random words (the words depend on it, their correctness does not).
const SEED: u64 = 0x0b1d_4e55;
/// Letters of the short words whose powers are tried as kernel elements, at most.
const SHORT_WORD_LETTERS: usize = 3;
/// Short words tried, at most (the shortest first): with many generators, words of one or two
/// letters.
const SHORT_WORDS: usize = 512;
/// Longest power `t^o` of a short word taken as a kernel element.
const MAX_POWER_LETTERS: u64 = 1 << 16;
/// Conjugates of an image's element of small order by short words made into kernel seeds (see
/// [`ActionKernelWords::seeds`]).
const SMALL_ORDER_CONJUGATES: usize = 16;
/// Words tried per unit of [`WordEffort`] in the search for powers of short words that move
/// one part only ([`isolating_search`]), the default effort's count at the least: at the
/// default 24,000 (with three generators every word of up to six letters, 23,436: on
/// `PSL(2,7) wr Sym(100)` the best power has 1,540 letters from five letters, 1,152 from six).
const ISOLATING_WORDS_PER_EFFORT: usize = 4_800;
/// Powers acting trivially on one orbit of the image kept per orbit, the shortest, for the
/// commutator seeds: their combinations are tried, one power per orbit.
const FACTORS_PER_ORBIT: usize = 6;
/// Most orbits of the image for which commutator seeds are made (an iterated commutator of `k`
/// powers has `2^(k-1)` times their letters, and [`FACTORS_PER_ORBIT`]`^k` are made). With
/// four, short powers killing the whole image are rare (`C_3 wr Sym(39)` beside `Sym(3) wr
/// Sym(10)` beside `Sym(3) wr Sym(70)` beside `C_3 wr Sym(48)`: 10.4 million letters a word
/// from them, 1.8 million with the commutators, set-up 14.7 s → 1.9 s).
const MAX_COMMUTATOR_ORBITS: usize = 4;
/// Random words tried per missing kernel dimension before the method gives up.
const TRIES_PER_DIMENSION: usize = 64;
/// Kernel elements added to those found to make the parts' tables for their series: the
/// restrictions of a few random elements generate a small group (the found ones may all lie in
/// a subgroup, as the elementary abelian search keeps only commuting ones).
const SERIES_SAMPLES: usize = 16;
/// Letters of the random words behind those samples, at most.
const SERIES_WALK: usize = 8;
/// Times the parts' series are made again with an element whose restrictions fell outside its
/// tables (the samples missed part of a part's group), at most, in one search down the series
/// (the insoluble residual's is another).
const SERIES_REBUILDS: usize = 8;
/// Work of one route's kernel search ([`Work`]: point images of the random kernel elements,
/// each `t · u⁻¹` costing its image word's letters times the degree, and letters of the
/// words its insertions write), beyond which the search declines: about 2^35,
/// half a minute or so. Where random elements are needed at all they are the search's last
/// resort, and with image words of a million letters each, thousands of them (the tries allowed
/// per missing dimension) would take hours (three wreath orbits of blocks of four to eight
/// points, degree 840); the words bench's cases spend a few seconds at most.
const MAX_WORK: u64 = 1 << 35;

/// The same bound for the second route tried ([`ActionKernelWords::new`]), a second or so: the
/// first route has words already.
const SECOND_ROUTE_WORK: u64 = 1 << 31;

/// The same bound for the route through the first route's orbit on its points and every other
/// orbit's blocks ([`ActionKernelWords::new`]), tried where the first writes a part of its
/// kernel in the part's own elements and the word kept for the compared member (the first's or
/// the second route's) is longer than a job's default cap on its words' letters (10 million:
/// such words are refused). On the words bench's `sweep_2004_2` and `sweep_2003_11` it
/// completes in 6 to 9 s with words 4.5 and 9.5 times shorter; with 2^31 or 2^32 it declines
/// there (the share of the search down the parts' series, [`SERIES_FIRST_SHARE`], too small
/// for it). Where it declines it costs that much:
/// the bound counts letters written, and with image words of 250,000 letters (`sweep_2003_12`)
/// its whole bound took 72 s. Tried wherever a part is written in its elements, it made
/// `sweep_2003_3` three times shorter (1.4 million letters to 0.46) but cost four others, of 5
/// to 9 million letters, 7 to 30 s of set-up for nothing (`sweep_2005_4`, 9.2 million, from 34
/// s to over 60).
const POINTS_AND_BLOCKS_WORK: u64 = 1 << 33;

/// The share of a route's bound ([`Work`]) given to the search down the residual's series when
/// it goes before the product over the parts (see [`ActionKernelWords::through`]): where the
/// series has giant parts beside solvable ones it completes within a small part of it
/// (`AGL(1,7)^16 × Sym(9)^54`: 10 million point images of 34 billion), and where it declines
/// (`PSL(2,7)`, `D_5`, `AGL(1,7)` and `Sym(10)` on the blocks of four wreath products) the
/// product after it keeps the time it had.
const SERIES_FIRST_SHARE: u64 = 16;

/// Parts of the kernel through one orbit (the other orbits) from which the action on all
/// orbits' blocks is tried too: two parts nest their words already (the words bench's
/// `sweep_2003_2`, `Sym(10)` beside `D_5 wr Sym(47)` beside `D_5 wr Sym(45)`: 28 million
/// letters a word through one orbit, 0.19 million through the blocks). The search through the
/// blocks counts the letters its insertions write ([`Work`]), and the comparison stops at
/// [`MAX_COMPARED_LETTERS`]: where the image's words are long (the words bench's `Sym(2) wr
/// Sym(100)` beside `Sym(2) wr Sym(100)` beside `Sym(300)`) trying it takes the set-up from
/// 1.6 s to 9.0 s (to 27 s without either bound; another draw of its generators, over 90 s).
const NESTED_PARTS: usize = 2;

/// Random generators and inverses multiplied into the member on whose word two routes are
/// compared.
const SAMPLE_LETTERS: usize = 64;
/// The first bound on the letters of the compared words (see `or_shorter`).
const COMPARED_LETTERS: u64 = 1 << 16;
/// The last: where both routes' words for a random member are longer, the first route is
/// kept unless the second's is shorter within this bound. Each comparison writes both words,
/// and words of tens of millions of letters take seconds each (the words bench's `Sym(2) wr
/// Sym(100)` beside `Sym(2) wr Sym(100)` beside `Sym(300)`: 18 s to find the route through
/// the blocks, about 83 million letters a word, the shorter); a job's words pass its default
/// cap, 10 million letters in all, either way.
const MAX_COMPARED_LETTERS: u64 = 1 << 23;

/// The work a search of the kernel has done, and its bound: a search that finds no short
/// kernel elements could run for hours on random ones.
struct Work {
    /// Point images of its random kernel elements, and letters of the words its insertions
    /// wrote (products of a layer's elements, reduced elements' words).
    spent: u64,
    bound: u64,
}

impl Work {
    fn new(bound: u64) -> Work {
        Work { spent: 0, bound }
    }

    fn add(&mut self, units: u64) {
        self.spent = self.spent.saturating_add(units);
    }

    fn exhausted(&self) -> bool {
        self.spent > self.bound
    }
}

/// Where the kernel elements come from that the parts' series are made with, beside those found
/// ([`ActionKernelWords::part_series`]).
#[derive(Clone, Copy)]
enum SeriesSamples<'a> {
    /// Conjugates of the shortest seeds' elements (given, at least one) by random members: the
    /// kernel is normal, so they are in it, and each costs a few products. Random kernel
    /// elements cost the image's word of a random member: through the blocks of `Sym(110)`
    /// beside `Sym(104)` beside `D_5 wr Sym(79)` beside `C_3 wr Sym(8)` (the giants' points
    /// as they are) sixteen of them spent most of the search's bound before it began.
    Conjugates(&'a [Perm]),
    /// Random kernel elements `t · u⁻¹`: their restrictions reach every part's group where
    /// the seeds' conjugates may not (for the insoluble residual, and when there are no seeds).
    Random,
}

impl SeriesSamples<'_> {
    /// Conjugates of the `shortest` seeds' elements, or random elements when there are none.
    fn of(shortest: &[Perm]) -> SeriesSamples<'_> {
        if shortest.is_empty() {
            SeriesSamples::Random
        } else {
            SeriesSamples::Conjugates(shortest)
        }
    }
}

/// How a search of the kernel ([`ActionKernelWords::find_kernel`]) ended.
enum KernelSearch {
    /// The elements found generate the kernel.
    Complete,
    /// The random words stopped bringing new elements (or, impossibly for proven orders, an
    /// element was outside the kernel or the bound passed its order).
    Declined,
    /// An element that the series cannot take: the bottom is not elementary abelian, or, down
    /// the parts' own series, a restriction of it is outside its part's table.
    NotElementary(Perm),
}

/// How a search down the parts' series ([`ActionKernelWords::down_series`]) ended.
enum DownSeries {
    /// The elements found generate the kernel.
    Complete,
    /// A series with an insoluble residual, not searched.
    Residual,
    /// The series could not be made, or its search declined or was made again too often.
    Declined,
}

/// Words through an action down its kernel's series (see the module documentation).
#[derive(Debug)]
pub(super) struct ActionKernelWords {
    action: Action,
    /// Words of the image group, in the images of the same generators.
    image: Box<GroupWords>,
    kernel: KernelSeriesWords,
    generators: Vec<Perm>,
    inverses: Vec<Perm>,
    orders: GeneratorOrders,
    bytes: u64,
}

impl ActionKernelWords {
    /// Builds the words for `group` through an action on one of its orbits or on minimal
    /// blocks, or returns `Ok(None)` when it has no such action whose kernel goes down the
    /// series of [`KernelSeriesWords`] (then another method applies).
    ///
    /// # Arguments
    /// As [`GroupWords::new`]: the image's chain and words and the kernel's elements share
    /// `budget_bytes`.
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] naming `limit_name` beyond `budget_bytes`;
    /// [`SolveError::Cancelled`].
    ///
    /// # Complexity
    /// See the module documentation.
    pub(super) fn new(
        group: &PermGroup,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
    ) -> Result<Option<ActionKernelWords>, SolveError> {
        let generators = group.generators();
        let limits = chain_limits(budget_bytes.saturating_sub(generators_bytes(group)));
        // An intransitive group acts on one orbit with a kernel that acts on the others as they
        // are, or on every orbit's blocks at once with a kernel in the product of the blocks'
        // symmetric groups. When every orbit has blocks the second kernel is the smaller
        // (`Sym(4) wr Sym(100)` beside `Sym(3) wr Sym(100)`: through the first orbit the kernel
        // holds `Alt(100)` on the second's blocks, through both orbits' blocks it is solvable);
        // when one orbit is primitive (a giant) the first often is (that orbit is a part of it,
        // written by its own giant's words), so it is built first, and the second is then
        // tried too, within a smaller search: with several orbits left as parts of the kernel
        // their words nest, and through all the blocks they can be far shorter (`Sym(97)`
        // beside `Alt(5) wr Sym(15)` beside `Sym(26)` beside `C_3 wr Sym(30)`: 0.7 million
        // letters against 5 million), or the search finds no short kernel elements; so it is
        // tried when the first route's kernel has [`NESTED_PARTS`] parts or more. The one
        // whose word for a random member is shorter is kept. The other is tried when the first
        // declines (orbits that are copies of each other have a diagonal as the second kernel).
        // Last, where the first writes a kernel's part in that part's own elements and the
        // words kept are over the default cap, the first's orbit on its points and every other
        // orbit's blocks (see `OrbitBlocks::action`).
        let orbit_blocks = OrbitBlocks::of(group, generators, ctx)?;
        let blocks_first = orbit_blocks.as_ref().is_some_and(|b| b.every_orbit());
        let mut blocks = orbit_blocks.as_ref().and_then(|b| b.action(None));
        if blocks_first
            && let Some(words) = ActionKernelWords::through_blocks(
                group,
                blocks.take(),
                effort,
                ctx,
                budget_bytes,
                limit_name,
                MAX_WORK,
            )?
        {
            return Ok(Some(words));
        }
        let mut through_orbit = None;
        for chosen in choose_actions(group, generators, ctx, &limits)? {
            let chosen = chosen.build(generators, ctx, &limits)?;
            let words = ActionKernelWords::through(
                group,
                chosen,
                effort,
                ctx,
                budget_bytes,
                limit_name,
                MAX_WORK,
            )?;
            if words.is_some() {
                through_orbit = words;
                break;
            }
        }
        let Some(first) = through_orbit else {
            return ActionKernelWords::through_blocks(
                group,
                blocks,
                effort,
                ctx,
                budget_bytes,
                limit_name,
                MAX_WORK,
            );
        };
        // The orbit's points and the other orbits' blocks, for below.
        let on_points = match &first.action {
            Action::Orbit { points, .. } if first.kernel.writes_parts_in_elements() => {
                Some(points[0])
            }
            _ => None,
        };
        let blocks_tried = first.kernel.parts().len() >= NESTED_PARTS;
        let kept = if !blocks_tried {
            first
        } else {
            first.or_through_blocks(
                group,
                blocks,
                effort,
                ctx,
                (budget_bytes, limit_name),
                (SECOND_ROUTE_WORK, 0),
            )?
        };
        // Where the first writes a part of its kernel in the part's own elements (a wreath
        // orbit beyond a table) and the words kept are over the default cap, through its
        // orbit's points and the other orbits' blocks (see `OrbitBlocks::action`); on a primitive
        // orbit's points that is the action on every orbit's blocks, not tried twice.
        let Some(on_points) = on_points else {
            return Ok(Some(kept));
        };
        let cap = Limits::default().max_word_letters;
        if !kept.writes_longer_than(cap, ctx)? {
            return Ok(Some(kept));
        }
        let mixed = orbit_blocks
            .filter(|b| !blocks_tried || b.has_blocks(on_points))
            .and_then(|b| b.action(Some(on_points)));
        let kept = kept.or_through_blocks(
            group,
            mixed,
            effort,
            ctx,
            (budget_bytes, limit_name),
            (POINTS_AND_BLOCKS_WORK, cap),
        )?;
        Ok(Some(kept))
    }

    /// `self` or the words through `blocks` (an action on blocks and its kernel's parts, when
    /// there is one, its search bounded by `max_work`), whichever is shorter ([`or_shorter`](
    /// Self::or_shorter), `longer_than` passed on); `self` when the other route declines or what
    /// is left of `budget_bytes` (`budget.0`) does not hold both. Errors as for
    /// [`new`](Self::new) (`budget.1` the limit's name).
    fn or_through_blocks(
        self,
        group: &PermGroup,
        blocks: Option<(Action, Vec<Vec<u32>>)>,
        effort: WordEffort,
        ctx: &SolveContext,
        (budget_bytes, limit_name): (u64, &'static str),
        (max_work, longer_than): (u64, u64),
    ) -> Result<ActionKernelWords, SolveError> {
        let left = budget_bytes.saturating_sub(self.bytes());
        match ActionKernelWords::through_blocks(
            group, blocks, effort, ctx, left, limit_name, max_work,
        ) {
            Ok(Some(other)) => self.or_shorter(other, longer_than, ctx),
            Ok(None) | Err(SolveError::LimitExceeded { .. }) => Ok(self),
            Err(e) => Err(e),
        }
    }

    /// `self` or `other` (words for the same group), whichever writes a random member (a product
    /// of [`SAMPLE_LETTERS`] random generators and inverses) in fewer letters; `self` on a tie
    /// or when both are longer than [`MAX_COMPARED_LETTERS`]. `self`'s word is known to be longer
    /// than `longer_than` letters (0 where nothing is known), and not written within that.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    fn or_shorter(
        self,
        other: ActionKernelWords,
        longer_than: u64,
        ctx: &SolveContext,
    ) -> Result<ActionKernelWords, SolveError> {
        let sample = self.sample_member();
        // Both written within a bound that grows fourfold, so that the comparison costs about
        // the shorter word's letters, not the longer's (`Sym(2) wr Sym(100)` beside `Sym(2) wr
        // Sym(100)` beside `Sym(300)`: 439 million letters through one orbit, 55 million
        // through the blocks).
        let mut max = COMPARED_LETTERS;
        loop {
            let mine = if max <= longer_than {
                Err(max)
            } else {
                self.word_of(&sample, LetterBudget::new(max, ctx))
            };
            ctx.check()?;
            let theirs = other.word_of(&sample, LetterBudget::new(max, ctx));
            ctx.check()?;
            match (mine, theirs) {
                (Ok(Some(mine)), Ok(Some(theirs))) if theirs.len() < mine.len() => {
                    return Ok(other);
                }
                (Err(_), Ok(Some(_))) => return Ok(other),
                (Err(_), Err(_)) if max < MAX_COMPARED_LETTERS => {
                    max = max.saturating_mul(4).min(MAX_COMPARED_LETTERS);
                }
                // Shorter or as long, both longer than the last bound, or (impossibly: a
                // member has a word) none.
                _ => return Ok(self),
            }
        }
    }

    /// [`through`](Self::through) the action on every orbit's blocks, when there is one, its
    /// image's chain within `limits`.
    fn through_blocks(
        group: &PermGroup,
        blocks: Option<(Action, Vec<Vec<u32>>)>,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
        max_work: u64,
    ) -> Result<Option<ActionKernelWords>, SolveError> {
        let Some((action, parts)) = blocks else {
            return Ok(None);
        };
        let limits = chain_limits(budget_bytes.saturating_sub(generators_bytes(group)));
        let image = image_group(&action, group.generators(), ctx, &limits)?;
        ActionKernelWords::through(
            group,
            (action, parts, image),
            effort,
            ctx,
            budget_bytes,
            limit_name,
            max_work,
        )
    }

    /// The words through one `chosen` action, or `Ok(None)` when its kernel does not go down
    /// the series of [`KernelSeriesWords`]. Arguments and errors as for [`new`](Self::new), and
    /// `max_work`, the bound of the kernel's searches ([`Work`]): one for the first search with
    /// the series' and the product's after it, one for the residual series' search.
    fn through(
        group: &PermGroup,
        (action, parts, image_group): ChosenAction,
        effort: WordEffort,
        ctx: &SolveContext,
        budget_bytes: u64,
        limit_name: &'static str,
        max_work: u64,
    ) -> Result<Option<ActionKernelWords>, SolveError> {
        let degree = group.degree();
        let generators = group.generators().to_vec();
        let inverses: Vec<Perm> = generators.iter().map(Perm::inverse).collect();
        let orders = GeneratorOrders::of(&generators);
        let kernel_order = group.order() / image_group.order();
        let image_orbits: Vec<Vec<u32>> = image_group
            .orbits_ref()
            .iter()
            .filter(|o| o.len() > 1)
            .cloned()
            .collect();
        let mut held = generators_bytes(group).saturating_add(action.bytes());
        let left = budget_bytes.saturating_sub(held);
        let image = GroupWords::beside_chain(&image_group, effort, ctx, left, limit_name)?;
        drop(image_group);
        held = held.saturating_add(image.bytes());
        let mut words = ActionKernelWords {
            action,
            image: Box::new(image),
            kernel: KernelSeriesWords::new(degree, parts.clone(), false, budget_bytes / 8),
            generators,
            inverses,
            orders,
            bytes: held,
        };
        // No seeds for a trivial kernel (a faithful action): nothing to search.
        let seeds = if kernel_order.is_one() {
            Vec::new()
        } else {
            words.seeds(&image_orbits, effort, ctx)?
        };
        // One bound for the first search, the series' and the product's; the residual series
        // gets one of its own (the product's search may have spent it).
        let mut work = Work::new(max_work);
        let inputs = KernelSearchInputs {
            kernel_order: &kernel_order,
            seeds: &seeds,
            ctx,
            budget_bytes,
            limit_name,
        };
        let first = if kernel_order.is_one() {
            KernelSearch::Complete
        } else {
            words.find_kernel(&inputs, &mut work)?
        };
        if !matches!(first, KernelSearch::Complete) {
            // A bottom that is not elementary abelian: down the parts' own series when their
            // groups are small and solvable (`D_5^40`), else perhaps a product over the parts
            // below their signs (`Alt(5)^40`, `Sym(4)^11 × Sym(8)^80`), else down the series as
            // far as they are solvable and the insoluble parts' residuals part by part
            // (`AGL(1,7)^58 × Alt(5)^65`, whose affine parts' `C_3` the product gets only from
            // powers moving one part, each of which also moves `Alt(5)` parts: 0.7 million
            // letters a word, against 30,000 down the series; but `Sym(5)^10` beside `C_3^50`
            // and `Sym(4)^40` gets 0.3 million in the product, 8 million down the series). Where
            // the residual's series has giant parts beside solvable ones it goes first: the
            // product would have to isolate the solvable parts' primes, which divide most
            // giants' elements' orders too (`AGL(1,7)^16 × Sym(9)^54`: the product spent its
            // whole bound, 20 s, and missed the affine parts' `C_3^16`; the series took 0.03 %
            // of it), within a share of the bound ([`SERIES_FIRST_SHARE`]), the product after.
            // The series' tables come from samples; an element outside them makes them again
            // with it (the random samples can miss a part's group entirely: in `D_5 wr C_2 wr
            // C_2 wr Sym(20)` a short random word's image word gives it back). The element the
            // first search stopped at is a sample already.
            let mut outside: Vec<Perm> = match first {
                KernelSearch::NotElementary(x) => vec![x],
                _ => Vec::new(),
            };
            // The series' tables from the seeds' conjugates first; an element outside them makes
            // them again (see `SeriesSamples`).
            let shortest: Vec<Perm> = seeds
                .iter()
                .take(SERIES_SAMPLES)
                .map(|seed| seed.perm(&words.generators))
                .collect();
            let samples = SeriesSamples::of(&shortest);
            let mut down = words.down_series(None, &mut outside, samples, &mut work, &inputs)?;
            // The residual's series from random kernel elements, made from the elements found
            // so far (the product's search below finds others): from the seeds' conjugates
            // the words bench's `sweep_2004_1` got words of over 10 million letters, against
            // 1.2 million.
            let mut residual = match down {
                DownSeries::Residual => words
                    .part_series(
                        &outside,
                        SeriesSamples::Random,
                        &mut work,
                        ctx,
                        budget_bytes / 8,
                    )?
                    .filter(PartSeries::has_residual),
                _ => None,
            };
            if residual
                .as_ref()
                .is_some_and(PartSeries::has_giants_beside_solvable_parts)
            {
                down = words.down_series(
                    residual.take(),
                    &mut outside,
                    SeriesSamples::Random,
                    &mut Work::new(max_work / SERIES_FIRST_SHARE),
                    &inputs,
                )?;
            }
            if !matches!(down, DownSeries::Complete) && words.kernel.parts_may_hold_a_product() {
                words.kernel =
                    KernelSeriesWords::new(degree, parts.clone(), true, budget_bytes / 8);
                if matches!(
                    words.find_kernel(&inputs, &mut work)?,
                    KernelSearch::Complete
                ) {
                    down = DownSeries::Complete;
                }
            }
            if !matches!(down, DownSeries::Complete)
                && let Some(series) = residual
            {
                let mut work = Work::new(max_work);
                down = words.down_series(
                    Some(series),
                    &mut outside,
                    SeriesSamples::Random,
                    &mut work,
                    &inputs,
                )?;
            }
            if !matches!(down, DownSeries::Complete) {
                return Ok(None);
            }
        }
        let left = budget_bytes.saturating_sub(held.saturating_add(words.kernel.bytes()));
        words.kernel.finish(group, effort, ctx, left, limit_name)?;
        words.bytes = held.saturating_add(words.kernel.bytes());
        Ok(Some(words))
    }

    /// Searches the kernel down the parts' series ([`PartSeries`]), its tables made from
    /// `samples`, the elements found and those `outside` earlier tables; an element outside
    /// them is added to `outside` and the tables are made again, up to [`SERIES_REBUILDS`]
    /// times. A series with an insoluble residual is searched only when it is `given` (the
    /// first, then made again like the others); otherwise the search stops there, for the
    /// product over the parts to be tried first (see [`through`](Self::through)).
    fn down_series(
        &mut self,
        mut given: Option<PartSeries>,
        outside: &mut Vec<Perm>,
        samples: SeriesSamples<'_>,
        work: &mut Work,
        inputs: &KernelSearchInputs<'_>,
    ) -> Result<DownSeries, SolveError> {
        let &KernelSearchInputs {
            ctx, budget_bytes, ..
        } = inputs;
        let residual_searched = given.is_some();
        let degree = self.generators[0].degree();
        let parts = self.kernel.parts().to_vec();
        for _ in 0..=SERIES_REBUILDS {
            let series = match given.take() {
                Some(series) => series,
                None => match self.part_series(outside, samples, work, ctx, budget_bytes / 8)? {
                    Some(series) => series,
                    None => return Ok(DownSeries::Declined),
                },
            };
            if series.has_residual() && !residual_searched {
                return Ok(DownSeries::Residual);
            }
            self.kernel =
                KernelSeriesWords::with_series(degree, parts.clone(), series, budget_bytes / 8);
            match self.find_kernel(inputs, work)? {
                KernelSearch::Complete => return Ok(DownSeries::Complete),
                KernelSearch::NotElementary(x) => outside.push(x),
                KernelSearch::Declined => return Ok(DownSeries::Declined),
            }
        }
        Ok(DownSeries::Declined)
    }

    /// The word of `g`: its kernel part's, then its image's; `Ok(None)` for a non-member,
    /// `Err(letters)` once the word is known to be longer than `budget` allows.
    ///
    /// Complexity: see the module documentation.
    pub(super) fn word_of(&self, g: &Perm, budget: LetterBudget<'_>) -> Result<Option<Word>, u64> {
        if g.degree() != self.generators[0].degree() {
            return Ok(None);
        }
        let Some(image) = self.action.image(g) else {
            return Ok(None);
        };
        let Some(u) = self.image.word_within(&image, budget)? else {
            return Ok(None);
        };
        let k = u.taken_off(g, &self.generators, &self.inverses, budget)?;
        let left = budget.less(u.len());
        let Some(mut word) = self
            .kernel
            .word_of(&k, &self.orders, left)
            .map_err(|letters| letters.saturating_add(u.len()))?
        else {
            return Ok(None);
        };
        word.append(&u, &self.orders);
        word.at_most(budget)
    }

    /// Bytes held: the image's words, the kernel's elements and the generators.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The image's mean and largest entry length, for benchmarks.
    pub(super) fn entry_lengths(&self) -> (f64, u64) {
        self.image.entry_lengths()
    }

    /// The kernel elements to start from ([`Seed`]), made from short words: their powers that
    /// kill the image, conjugates of the image's own elements of small order (a giant image's
    /// 3-cycle) times the inverse of their image's words, commutators of powers each trivial on
    /// one orbit of the image (when it has two to [`MAX_COMMUTATOR_ORBITS`]), and powers of
    /// somewhat longer words that move one part only ([`isolated_power_seeds`]); shortest
    /// first. Made once: every search of the kernel starts from them.
    fn seeds(
        &self,
        image_orbits: &[Vec<u32>],
        effort: WordEffort,
        ctx: &SolveContext,
    ) -> Result<Vec<Seed>, SolveError> {
        let k = self.generators.len();
        let degree = self.generators[0].degree();
        let shorts = short_words(k as u32, SHORT_WORD_LETTERS, SHORT_WORDS, &self.orders);
        let mut seeds: Vec<Seed> = Vec::new();
        // Per orbit of the image, `(letters, short word, o)` for the powers `t^o` trivial on it.
        let commutators = (2..=MAX_COMMUTATOR_ORBITS).contains(&image_orbits.len());
        let mut trivial_on: Vec<Vec<(u64, usize, u64)>> = vec![Vec::new(); image_orbits.len()];
        for (index, t) in shorts.iter().enumerate() {
            ctx.check()?;
            let x = t.evaluate(&self.generators, degree);
            let image = self.action.image(&x).expect("a member acts");
            if let Some(o) = image.order().to_u64()
                && o.saturating_mul(t.len()) <= MAX_POWER_LETTERS
            {
                seeds.push(Seed::power(t.clone(), o));
            }
            if commutators {
                for (orbit, powers) in image_orbits.iter().zip(&mut trivial_on) {
                    if let Some(o) = order_on(&image, orbit)
                        && o.saturating_mul(t.len()) <= MAX_POWER_LETTERS
                    {
                        powers.push((o * t.len(), index, o));
                    }
                }
            }
        }
        // Conjugates `e^s` of the image's own elements of small order (a giant image's
        // 3-cycle, some thousands of letters) by short words, each times the inverse of its
        // image's word (which writes that 3-cycle as one conjugate of `e`): where a short word's
        // image has an order that is a product of cycle lengths, too large for its power to be
        // a seed in a giant image of high degree, the kernel's elements were random words times
        // their image's words, as long as a member's image word (`Sym(4) wr Sym(248)` from two
        // random elements: its orientations' kernel `C_2^247` spanned by words of 167,456
        // letters, 20 million letters a member). `e` itself may flip every block, so that its
        // power is central and its commutators with disjoint conjugates trivial; the two
        // conjugates of `e` with one image differ only on the 3-cycle's blocks.
        let budget = LetterBudget::new(MAX_POWER_LETTERS, ctx);
        for e in self.image.small_order_words() {
            for s in shorts.iter().rev().take(SMALL_ORDER_CONJUGATES) {
                ctx.check()?;
                let mut w = Word::identity();
                w.append_conjugate(e, s, &self.orders);
                let t = w.evaluate(&self.generators, degree);
                let image = self.action.image(&t).expect("a member acts");
                let Ok(Some(u)) = self.image.word_within(&image, budget) else {
                    continue;
                };
                let Ok(x) = u.taken_off(&t, &self.generators, &self.inverses, budget) else {
                    continue;
                };
                w.append_inverse(&u, &self.orders);
                if !x.is_identity() && w.len() <= MAX_POWER_LETTERS {
                    seeds.push(Seed::element_of(x, w));
                }
            }
        }
        if commutators {
            for powers in &mut trivial_on {
                powers.sort_unstable();
                powers.truncate(FACTORS_PER_ORBIT);
            }
            seeds.extend(
                combinations(&trivial_on)
                    .into_iter()
                    .map(|choice| {
                        Seed::commutator(
                            choice
                                .into_iter()
                                .map(|(_, index, o)| (shorts[index].clone(), o))
                                .collect(),
                        )
                    })
                    .filter(|seed| seed.letters() <= MAX_POWER_LETTERS),
            );
        }
        // Powers of somewhat longer words that move one part only (see `isolated_powers`).
        ctx.check()?;
        seeds.extend(isolated_power_seeds(
            &self.generators,
            &self.orders,
            self.kernel.positions(),
            isolating_search(effort),
            ctx,
            |x| {
                self.action
                    .image(x)
                    .is_some_and(|image| image.is_identity())
            },
        )?);
        seeds.sort_by_key(Seed::letters);
        Ok(seeds)
    }

    /// Inserts kernel elements until they generate the kernel, of order `kernel_order`: the
    /// candidates of [`KernelCandidates`], shortest first, then random words times the inverse
    /// of their image's word. Says how it ended: complete, or stopped at an element the series
    /// cannot take (the bottom not elementary abelian), or when the random words stop bringing
    /// new elements or the search's `work` passes its bound.
    fn find_kernel(
        &mut self,
        inputs: &KernelSearchInputs<'_>,
        work: &mut Work,
    ) -> Result<KernelSearch, SolveError> {
        let &KernelSearchInputs {
            kernel_order,
            seeds,
            ctx,
            budget_bytes,
            limit_name,
        } = inputs;
        let degree = self.generators[0].degree();
        // Candidates, the shortest word first (`KernelCandidates`), then random ones.
        let mut candidates = KernelCandidates::new(seeds.to_vec());
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let mut idle = 0usize;
        let mut walk = 2usize;
        loop {
            ctx.check()?;
            if self.kernel.order_at_least() == *kernel_order {
                return Ok(KernelSearch::Complete);
            }
            if work.exhausted() {
                return Ok(KernelSearch::Declined);
            }
            let next =
                candidates.next(&self.kernel, &self.generators, &self.inverses, &self.orders);
            let (x, w) = match next {
                Some(candidate) => candidate,
                None => {
                    if idle > TRIES_PER_DIMENSION * (self.kernel.found_len() + 1) + 256 {
                        return Ok(KernelSearch::Declined);
                    }
                    idle += 1;
                    if idle.is_multiple_of(32) {
                        walk = (walk + 1).min(16);
                    }
                    self.random_kernel_element(&mut rng, walk, work, ctx)?
                }
            };
            // In the kernel by construction; checked all the same (O(d)), as the proof needs it.
            if !self
                .action
                .image(&x)
                .is_some_and(|image| image.is_identity())
            {
                return Ok(KernelSearch::Declined);
            }
            // Kept to be returned should the series not take it.
            let candidate = x.clone();
            // Waiting elements are bounded by an eighth of the budget (the longest dropped).
            let written = self.kernel.written();
            let inserted = self
                .kernel
                .insert_or_reduce(x, w, &self.orders, kernel_order);
            // The words it wrote: millions of letters where the layers' elements have long
            // words, even when the element proves redundant.
            work.add(self.kernel.written() - written);
            let inserted = match inserted {
                Ok(inserted) => inserted,
                Err((reduced, word)) => {
                    // And the reduced element's word, millions of letters too.
                    work.add(word.len());
                    candidates.wait(reduced, word, budget_bytes / 8);
                    continue;
                }
            };
            match inserted {
                Inserted::NotElementary => return Ok(KernelSearch::NotElementary(candidate)),
                Inserted::Redundant => {}
                Inserted::New => {
                    idle = 0;
                    if self.kernel.order_at_least() > *kernel_order {
                        return Ok(KernelSearch::Declined); // impossible for a proven order
                    }
                    let held = self
                        .bytes
                        .saturating_add(self.kernel.bytes())
                        .saturating_add(candidates.waiting_bytes());
                    if held > budget_bytes {
                        return Err(SolveError::limit_shown(
                            format!(
                                "words of the group of degree {degree} (the kernel of its action)"
                            ),
                            limit_name,
                            budget_bytes,
                            format!("{budget_bytes} bytes ({limit_name})"),
                        ));
                    }
                }
            }
        }
    }

    /// The series of the parts' own groups ([`PartSeries`]), their tables made from the
    /// elements the kernel kept so far, the elements `outside` the last tables and
    /// [`SERIES_SAMPLES`] kernel elements more from `samples`; `None` when a part's group is
    /// too large, the tables would take more than `max_bytes` or the search's `work` passes
    /// its bound.
    fn part_series(
        &mut self,
        outside: &[Perm],
        samples: SeriesSamples<'_>,
        work: &mut Work,
        ctx: &SolveContext,
        max_bytes: u64,
    ) -> Result<Option<PartSeries>, SolveError> {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 0x5e41e5);
        let mut elements: Vec<Perm> = (0..self.kernel.found_len())
            .map(|i| self.kernel.found(i).0.clone())
            .collect();
        elements.extend_from_slice(outside);
        for i in 0..SERIES_SAMPLES {
            ctx.check()?;
            let sample = match samples {
                SeriesSamples::Conjugates(shortest) => {
                    let (g, _) = self.random_member(&mut rng, SERIES_WALK);
                    g.inverse()
                        .compose(&shortest[i % shortest.len()])
                        .compose(&g)
                }
                SeriesSamples::Random => {
                    if work.exhausted() {
                        return Ok(None);
                    }
                    self.random_kernel_element(&mut rng, SERIES_WALK, work, ctx)?
                        .0
                }
            };
            elements.push(sample);
        }
        PartSeries::of(
            self.kernel.parts(),
            self.kernel.positions(),
            &elements,
            &self.generators,
            ctx,
            max_bytes,
        )
    }

    /// `t · u⁻¹` for a random word `t` of at most `walk` letters and `u` the word of its image:
    /// an element of the kernel, with its word; the point images it cost (`|u|` times the
    /// degree) count as the search's work. `u` can have millions of letters, so a cancel stops
    /// both its writing and its evaluation.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    fn random_kernel_element(
        &self,
        rng: &mut ChaCha8Rng,
        walk: usize,
        work: &mut Work,
        ctx: &SolveContext,
    ) -> Result<(Perm, Word), SolveError> {
        let letters = rng.random_range(1..=walk);
        let (t, mut w) = self.random_member(rng, letters);
        let image = self.action.image(&t).expect("a member acts");
        // Only a cancel stops either step: no cap applies to the kernel's own elements.
        let budget = LetterBudget::new(u64::MAX, ctx);
        let u = self
            .image
            .word_within(&image, budget)
            .map_err(|_| SolveError::Cancelled)?
            .expect("the image of a member is a member of the image");
        let x = u
            .taken_off(&t, &self.generators, &self.inverses, budget)
            .map_err(|_| SolveError::Cancelled)?;
        work.add(u.len().saturating_mul(t.degree() as u64));
        w.append_inverse(&u, &self.orders);
        Ok((x, w))
    }

    /// The member on which routes are compared: a product of [`SAMPLE_LETTERS`] random
    /// generators and inverses, the same for every route of a group.
    pub(super) fn sample_member(&self) -> Perm {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 0x5a3_91e);
        self.random_member(&mut rng, SAMPLE_LETTERS).0
    }

    /// Whether the word of [`sample_member`](Self::sample_member) is longer than `letters`.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    fn writes_longer_than(&self, letters: u64, ctx: &SolveContext) -> Result<bool, SolveError> {
        Ok(self.sample_letters(letters, ctx)?.is_none())
    }

    /// The letters of [`sample_member`](Self::sample_member)'s word, `None` when more than
    /// `within`.
    ///
    /// # Errors
    /// [`SolveError::Cancelled`].
    pub(super) fn sample_letters(
        &self,
        within: u64,
        ctx: &SolveContext,
    ) -> Result<Option<u64>, SolveError> {
        let word = self.word_of(&self.sample_member(), LetterBudget::new(within, ctx));
        ctx.check()?;
        Ok(word.ok().flatten().map(|w| w.len()))
    }

    /// A product of `letters` random generators and inverses, with its word.
    fn random_member(&self, rng: &mut ChaCha8Rng, letters: usize) -> (Perm, Word) {
        let k = self.generators.len() as u32;
        let mut t = Perm::identity(self.generators[0].degree());
        let mut w = Word::identity();
        for _ in 0..letters {
            let g = rng.random_range(0..k);
            if rng.random_bool(0.5) {
                t = t.compose(&self.generators[g as usize]);
                w.push(g, 1, &self.orders);
            } else {
                t = t.compose(&self.inverses[g as usize]);
                w.push(g, -1, &self.orders);
            }
        }
        (t, w)
    }
}

/// What every search for the kernel's generators shares ([`ActionKernelWords::find_kernel`],
/// also down the parts' series): the kernel's order, the seeds of the candidates, the job's
/// context and the bytes the words may hold (`limit_name` the limit that sets them).
struct KernelSearchInputs<'a> {
    kernel_order: &'a BigUint,
    seeds: &'a [Seed],
    ctx: &'a SolveContext,
    budget_bytes: u64,
    limit_name: &'static str,
}

/// The search for powers that move one part only: as many words as `effort` allows (every
/// word up to as many letters as keep within them), powers of at most [`MAX_POWER_LETTERS`],
/// the 16 shortest kept on each class of parts. Effort beyond the default buys shorter seeds
/// (each member's word holds about three per part): the words bench's `PSL(2,7) wr Sym(40)`
/// beside `PSL(2,7) wr Sym(30)` has 234,642 letters a word at the default effort 5, 111,451 at
/// 30 (144,000 words, 0.8 s more set-up); its `PSL(2,7) wr Sym(100)` 363,588 and 216,484.
fn isolating_search(effort: WordEffort) -> IsolatingSearch {
    let effort = effort.0.max(WordEffort::default().0) as usize;
    IsolatingSearch {
        word_letters: 16,
        words: ISOLATING_WORDS_PER_EFFORT * effort,
        power_letters: MAX_POWER_LETTERS,
        most: 16,
    }
}

/// Bytes of the generators and their inverses (and two permutations of work space).
fn generators_bytes(group: &PermGroup) -> u64 {
    8 * group.degree() as u64 * (group.generators().len() as u64 + 2)
}

/// The order of `p` on `orbit` (a union of its cycles): the lcm of those cycles' lengths, or
/// `None` beyond `u64`. O(d).
fn order_on(p: &Perm, orbit: &[u32]) -> Option<u64> {
    let mut seen = vec![false; p.degree()];
    let mut order = 1u64;
    for &start in orbit {
        if seen[start as usize] {
            continue;
        }
        let mut length = 0u64;
        let mut x = start;
        while !seen[x as usize] {
            seen[x as usize] = true;
            length += 1;
            x = p.image(x);
        }
        order = order.checked_mul(length / num_integer::gcd(order, length))?;
    }
    Some(order)
}

/// Every choice of one entry from each list (the lists' cartesian product).
fn combinations<T: Copy>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    lists.iter().fold(vec![Vec::new()], |chosen, list| {
        chosen
            .iter()
            .flat_map(|prefix| {
                list.iter().map(move |&entry| {
                    let mut longer = prefix.clone();
                    longer.push(entry);
                    longer
                })
            })
            .collect()
    })
}

/// The freely reduced words of 1 to `letters` letters `g^±1` in `k` generators, shortest
/// first, at most `most` of them.
fn short_words(k: u32, letters: usize, most: usize, orders: &GeneratorOrders) -> Vec<Word> {
    let mut all: Vec<Word> = vec![Word::identity()];
    let mut frontier = all.clone();
    for _ in 0..letters {
        let mut next = Vec::new();
        for w in &frontier {
            if all.len() + next.len() > most {
                break;
            }
            for g in 0..k {
                for e in [1, -1] {
                    let mut longer = w.clone();
                    longer.push(g, e, orders);
                    if longer.len() == w.len() + 1 {
                        next.push(longer);
                    }
                }
            }
        }
        all.extend(next.iter().cloned());
        frontier = next;
    }
    all.remove(0);
    all.truncate(most);
    all
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::HashSet;

    use rand::seq::SliceRandom;

    use super::super::actions::Candidate;
    use super::super::kernel_series::tests::closure_of;
    use super::*;

    /// Every element of `<gens>` as its images, by breadth-first closure (the test's oracle).
    fn elements(gens: &[Perm], d: usize) -> HashSet<Vec<u32>> {
        closure_of(gens, d)
            .iter()
            .map(|x| x.images().to_vec())
            .collect()
    }

    /// The word's images, one letter at a time (independent of `Word::evaluate`).
    pub(in crate::group::words) fn multiply_out(w: &Word, gens: &[Perm], d: usize) -> Vec<u32> {
        let mut images: Vec<u32> = (0..d as u32).collect();
        for l in w.letters() {
            let step = if l.exponent > 0 {
                gens[l.generator as usize].clone()
            } else {
                gens[l.generator as usize].inverse()
            };
            for _ in 0..l.exponent.unsigned_abs() {
                images.iter_mut().for_each(|y| *y = step.image(*y));
            }
        }
        images
    }

    /// Writes into `images` a random element of `H wr Sym(m)` on the points `offset .. offset +
    /// b·m` (block `i` the `b` points from `offset + b·i`): the blocks shuffled, and inside each
    /// the permutation of `0..b` that `inside` draws (an element of `H`); each point renamed by
    /// `relabel`.
    pub(in crate::group::words) fn random_wreath_element_of(
        (b, m): (usize, usize),
        offset: usize,
        relabel: &[u32],
        images: &mut [u32],
        rng: &mut ChaCha8Rng,
        mut inside: impl FnMut(&mut ChaCha8Rng) -> Vec<usize>,
    ) {
        let mut blocks: Vec<usize> = (0..m).collect();
        blocks.shuffle(rng);
        for (i, &to) in blocks.iter().enumerate() {
            for (x, y) in inside(rng).into_iter().enumerate() {
                images[relabel[offset + b * i + x] as usize] = relabel[offset + b * to + y];
            }
        }
    }

    /// [`random_wreath_element_of`] `Sym(b) wr Sym(m)`.
    pub(in crate::group::words) fn random_wreath_element(
        (b, m): (usize, usize),
        offset: usize,
        relabel: &[u32],
        images: &mut [u32],
        rng: &mut ChaCha8Rng,
    ) {
        random_wreath_element_of((b, m), offset, relabel, images, rng, |rng| {
            let mut inside: Vec<usize> = (0..b).collect();
            inside.shuffle(rng);
            inside
        });
    }

    /// 20 random members (products of 40 random generators and inverses) get words that
    /// multiply out to them.
    fn assert_words_of_random_members(
        words: &ActionKernelWords,
        gens: &[Perm],
        rng: &mut ChaCha8Rng,
    ) {
        let d = gens[0].degree();
        for _ in 0..20 {
            let (x, _) = words.random_member(rng, 40);
            let w = words
                .word_of(&x, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member has a word");
            assert_eq!(multiply_out(&w, gens, d), x.images());
        }
    }

    /// A random permutation of the points, checked to be outside `group`, gets no word.
    fn assert_no_word_for_a_stranger(
        words: &ActionKernelWords,
        group: &PermGroup,
        rng: &mut ChaCha8Rng,
    ) {
        let mut images: Vec<u32> = (0..group.degree() as u32).collect();
        images.shuffle(rng);
        let stranger = Perm::from_images(images, "test").unwrap();
        assert!(!group.contains(&stranger));
        assert!(
            words
                .word_of(&stranger, LetterBudget::letters(u64::MAX))
                .unwrap()
                .is_none()
        );
    }

    /// Every element of `all` (the group's elements) gets a word that multiplies out to it, and
    /// 20 random permutations get one exactly when they are in `all`.
    fn assert_words_of_all(
        words: &ActionKernelWords,
        all: &HashSet<Vec<u32>>,
        gens: &[Perm],
        rng: &mut ChaCha8Rng,
        round: usize,
    ) {
        let d = gens[0].degree();
        for x in all {
            let p = Perm::from_images(x.clone(), "test").unwrap();
            let w = words
                .word_of(&p, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member has a word");
            assert_eq!(&multiply_out(&w, gens, d), x, "round {round}");
        }
        for _ in 0..20 {
            let mut images: Vec<u32> = (0..d as u32).collect();
            images.shuffle(rng);
            let p = Perm::from_images(images.clone(), "test").unwrap();
            assert_eq!(
                words
                    .word_of(&p, LetterBudget::letters(u64::MAX))
                    .unwrap()
                    .is_some(),
                all.contains(&images),
                "round {round}"
            );
        }
    }

    /// Random subgroups of `Sym(2) wr Sym(4)`, `Sym(3) wr Sym(2)`, `Sym(4) wr Sym(2)`,
    /// `Sym(2) wr Sym(3)`, `Sym(5) wr Sym(2)`, relabelled, every seventh on two copies of its
    /// points (intransitive): whenever the method applies (299 of the 300: the kernels of blocks
    /// of two to four points all have a series of signs, rotations and an elementary abelian
    /// bottom, those of blocks of five mostly a bottom that is a product over the blocks; it
    /// declines on primitive groups and subdirect bottoms), every element's word multiplies out
    /// to it and random non-members get none.
    #[test]
    fn every_element_of_small_groups_through_their_actions() {
        let mut rng = ChaCha8Rng::seed_from_u64(77);
        let ctx = SolveContext::detached();
        let mut applied = 0;
        for round in 0..300 {
            let (b, m) = [(2usize, 4usize), (3, 2), (4, 2), (2, 3), (5, 2)][round % 5];
            let d = b * m;
            let degree = if round % 7 == 0 { 2 * d } else { d };
            let mut relabel: Vec<u32> = (0..d as u32).collect();
            relabel.shuffle(&mut rng);
            let gens: Vec<Perm> = (0..rng.random_range(1..=3))
                .map(|_| {
                    // Blocks permuted at random, each block permuted at random inside.
                    let mut blocks: Vec<usize> = (0..m).collect();
                    blocks.shuffle(&mut rng);
                    let mut images = vec![0u32; d];
                    for (i, &to) in blocks.iter().enumerate() {
                        let mut inside: Vec<usize> = (0..b).collect();
                        inside.shuffle(&mut rng);
                        for j in 0..b {
                            images[relabel[b * i + j] as usize] = relabel[b * to + inside[j]];
                        }
                    }
                    // Every fifth group also acts on a copy of the points: intransitive.
                    if round % 7 == 0 {
                        let copy: Vec<u32> = images.iter().map(|&y| y + d as u32).collect();
                        images.extend(copy);
                    }
                    Perm::from_images(images, "test").unwrap()
                })
                .collect();
            let d = degree;
            let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
            let all = elements(&gens, d);
            let Some(words) =
                ActionKernelWords::new(&group, WordEffort(1), &ctx, 1 << 26, "test").unwrap()
            else {
                continue;
            };
            applied += 1;
            assert_words_of_all(&words, &all, &gens, &mut rng, round);
        }
        assert!(
            applied >= 290,
            "the method applied to {applied} groups only"
        );
    }

    /// Two random elements of `Sym(2) wr Sym(200)`, relabelled: the image on the blocks is a
    /// giant of high degree, whose short words' images have orders too large for their powers
    /// to be seeds; the kernel is spanned from conjugates of the image's 3-cycle (each times
    /// its image's word), so its elements are a tenth of one member's image word or less
    /// (random words times their image's words, as before, are about as long). Members'
    /// words multiply out to them, and random elements of the whole wreath product get a word
    /// exactly when the group's stabiliser chain says they are members.
    #[test]
    fn a_giant_image_spans_the_kernel_from_conjugates_of_its_three_cycle() {
        let mut rng = ChaCha8Rng::seed_from_u64(79);
        let ctx = SolveContext::detached();
        let (b, m) = (2, 200);
        let d = b * m;
        let mut relabel: Vec<u32> = (0..d as u32).collect();
        relabel.shuffle(&mut rng);
        let wreath_element = |rng: &mut ChaCha8Rng| {
            let mut images = vec![0u32; d];
            random_wreath_element((b, m), 0, &relabel, &mut images, rng);
            Perm::from_images(images, "test").unwrap()
        };
        let gens: Vec<Perm> = (0..2).map(|_| wreath_element(&mut rng)).collect();
        let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
        let words = ActionKernelWords::new(&group, WordEffort::default(), &ctx, 1 << 30, "test")
            .unwrap()
            .expect("the method applies");
        let longest_kernel_element = (0..words.kernel.found_len())
            .map(|i| words.kernel.found(i).1.len())
            .max()
            .expect("a kernel");
        let sample_image = words.action.image(&words.sample_member()).unwrap();
        let image_word = words.image.word_of(&sample_image).unwrap().len();
        assert!(
            10 * longest_kernel_element < image_word,
            "kernel elements up to {longest_kernel_element} letters, an image word {image_word}"
        );
        for _ in 0..3 {
            let (x, _) = words.random_member(&mut rng, 40);
            let w = words
                .word_of(&x, LetterBudget::letters(u64::MAX))
                .unwrap()
                .expect("a member has a word");
            assert_eq!(multiply_out(&w, &gens, d), x.images());
        }
        let mut strangers = 0;
        for _ in 0..10 {
            let x = wreath_element(&mut rng);
            let member = group.contains(&x);
            strangers += usize::from(!member);
            assert_eq!(
                words
                    .word_of(&x, LetterBudget::letters(u64::MAX))
                    .unwrap()
                    .is_some(),
                member
            );
        }
        assert!(strangers > 0, "no element outside the group was tried");
    }

    /// Random subgroups of a product of two wreath products on separate orbits (`Sym(2) wr
    /// Sym(3)` beside `Sym(3) wr Sym(2)`, and so on), each generator moving both orbits, so the
    /// action mostly goes through both orbits' blocks at once (its image on `m1 + m2` points,
    /// its kernel's seeds including commutators): every element's word multiplies out to it
    /// (all elements listed by closure), random non-members get none.
    #[test]
    fn every_element_of_products_of_two_wreath_products_through_their_blocks() {
        let shapes: [&[(usize, usize)]; 3] =
            [&[(2, 3), (3, 2)], &[(2, 2), (2, 3)], &[(3, 2), (2, 2)]];
        let through_all = words_of_wreath_products_side_by_side(&shapes, 60, 78);
        // 40 of the 60 with this seed: a random subgroup may have no blocks on an orbit, or
        // orbits that are copies of each other (a diagonal kernel), and then acts on one orbit.
        assert!(
            through_all >= 30,
            "through both orbits' blocks in {through_all} of 60 only"
        );
    }

    /// The same with three orbits, so the kernel's seeds include iterated commutators `[[a_1,
    /// a_2], a_3]` of powers each trivial on one orbit of the image.
    #[test]
    fn every_element_of_products_of_three_wreath_products_through_their_blocks() {
        let shapes: [&[(usize, usize)]; 2] = [&[(2, 2), (2, 3), (3, 2)], &[(2, 3), (3, 2), (2, 2)]];
        let through_all = words_of_wreath_products_side_by_side(&shapes, 20, 79);
        // 11 of the 20 with this seed.
        assert!(
            through_all >= 8,
            "through all orbits' blocks in {through_all} of 20 only"
        );
    }

    /// The subgroup of `D_5 wr Alt(60)` whose elements reflect an even number of blocks (the
    /// kernel on the blocks `C_5^60 ⋊ C_2^59`), from two random even permutations of the blocks,
    /// a reflection of two blocks and a rotation of one, relabelled: the seeds' conjugates
    /// reflect a few dozen blocks only, so the blocks' tables need the restrictions carried
    /// from block to block by the generators (from the samples' own restrictions, one more
    /// element each time the tables were made again, the search declined down the series).
    /// The group's order is checked against its formula, words of random members multiply out
    /// to them.
    #[test]
    fn a_kernel_whose_seeds_miss_most_blocks_goes_down_their_series() {
        let mut rng = ChaCha8Rng::seed_from_u64(80);
        let ctx = SolveContext::detached();
        let (b, m) = (5usize, 60usize);
        let d = b * m;
        let mut relabel: Vec<u32> = (0..d as u32).collect();
        relabel.shuffle(&mut rng);
        let on_blocks = |blocks: &[usize], inside: &dyn Fn(usize, usize) -> usize| {
            let mut images = vec![0u32; d];
            for (i, &to) in blocks.iter().enumerate() {
                for j in 0..b {
                    images[relabel[b * i + j] as usize] = relabel[b * to + inside(i, j)];
                }
            }
            Perm::from_images(images, "test").unwrap()
        };
        let fixed: Vec<usize> = (0..m).collect();
        let mut gens = Vec::new();
        while gens.len() < 2 {
            let mut blocks = fixed.clone();
            blocks.shuffle(&mut rng);
            let even = Perm::from_images(blocks.iter().map(|&i| i as u32).collect(), "test")
                .unwrap()
                .is_even();
            if even {
                gens.push(on_blocks(&blocks, &|_, j| j));
            }
        }
        gens.push(on_blocks(&fixed, &|i, j| {
            if i < 2 { (b - j) % b } else { j }
        }));
        gens.push(on_blocks(&fixed, &|i, j| {
            if i == 0 { (j + 1) % b } else { j }
        }));
        let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
        let alt60 = (1..=60u32).fold(BigUint::one(), |a, k| a * k) / 2u32;
        let kernel = BigUint::from(5u32).pow(60) * BigUint::from(2u32).pow(59);
        assert_eq!(group.order(), alt60 * kernel);
        let words = ActionKernelWords::new(&group, WordEffort(1), &ctx, 1 << 30, "test")
            .unwrap()
            .expect("the kernel goes down the series of its blocks' dihedral groups");
        assert!(matches!(words.action, Action::Blocks { .. }) && words.action.degree() == m);
        assert_words_of_random_members(&words, &gens, &mut rng);
    }

    /// Three random elements of `AGL(1,7) wr Sym(m1)` beside `Sym(9) wr Sym(m2)`, each moving
    /// both orbits, relabelled: the kernel on both orbits' blocks is `AGL(1,7)^m1 × Sym(9)^m2`
    /// (within the group), whose affine blocks' `C_3` the product over the blocks cannot
    /// isolate (an element whose order on an affine block is divisible by 3 has such orders
    /// on most `Sym(9)` blocks too, so none of its powers moves that block alone) and whose
    /// `Sym(9)` blocks are beyond a table: the blocks' series, with signs then `Alt(9)` on
    /// those (with the giants not taken, the method goes another way). The words of random
    /// members multiply out to them (checked letter by letter), a random permutation of the
    /// points gets none.
    #[test]
    fn a_kernel_of_affine_and_giant_blocks_goes_down_their_series() {
        let mut rng = ChaCha8Rng::seed_from_u64(81);
        let ctx = SolveContext::detached();
        let (m1, m2) = (10usize, 12usize);
        let d = 7 * m1 + 9 * m2;
        let mut relabel: Vec<u32> = (0..d as u32).collect();
        relabel.shuffle(&mut rng);
        let gens: Vec<Perm> = (0..3)
            .map(|_| {
                let mut images = vec![0u32; d];
                // `AGL(1,7) wr Sym(m1)`: `x ↦ a·x + c` mod 7 in each block.
                random_wreath_element_of((7, m1), 0, &relabel, &mut images, &mut rng, |rng| {
                    let (a, c) = (rng.random_range(1..7usize), rng.random_range(0..7usize));
                    (0..7).map(|x| (a * x + c) % 7).collect()
                });
                random_wreath_element((9, m2), 7 * m1, &relabel, &mut images, &mut rng);
                Perm::from_images(images, "test").unwrap()
            })
            .collect();
        let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
        let words = ActionKernelWords::new(&group, WordEffort(1), &ctx, 1 << 30, "test")
            .unwrap()
            .expect("the kernel goes down the series of its blocks' groups");
        assert!(matches!(words.action, Action::Blocks { .. }) && words.action.degree() == m1 + m2);
        assert_words_of_random_members(&words, &gens, &mut rng);
        assert_no_word_for_a_stranger(&words, &group, &mut rng);
    }

    /// Four groups of two random elements of `Sym(3) wr Sym(4)` beside `Sym(3) wr Sym(5)`
    /// beside `Sym(5)`, each moving every orbit (the first seeds whose elements are transitive
    /// on each). Through the first orbit the kernel's parts are the other two, and the
    /// second's group there (up to 933,120 elements, beyond a table) gets words in its own
    /// elements: then the route through the first orbit's points and the other orbits' blocks
    /// is the one tried beside it. Its action has the first orbit's 12 points,
    /// the second's 5 blocks and the third's 5 points; its kernel's parts are the 5 blocks. The
    /// words of random members multiply out to them, a random permutation gets none.
    #[test]
    fn a_part_in_its_own_elements_goes_through_one_orbit_and_the_other_blocks() {
        let mut taken = 0;
        for seed in 110..130u64 {
            if taken == 4 {
                break;
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let ctx = SolveContext::detached();
            let limits = Limits::default();
            // (points a block, blocks) of each orbit, one after another.
            let shape = [(3usize, 4usize), (3, 5), (1, 5)];
            let d: usize = shape.iter().map(|(b, m)| b * m).sum();
            let unchanged: Vec<u32> = (0..d as u32).collect();
            let gens: Vec<Perm> = (0..2)
                .map(|_| {
                    let mut images = vec![0u32; d];
                    let mut offset = 0;
                    for &(b, m) in &shape {
                        random_wreath_element((b, m), offset, &unchanged, &mut images, &mut rng);
                        offset += b * m;
                    }
                    Perm::from_images(images, "test").unwrap()
                })
                .collect();
            let group = PermGroup::new(d, gens.clone(), &ctx, &limits).unwrap();
            let mut orbits: Vec<usize> = group.orbits_ref().iter().map(Vec::len).collect();
            orbits.sort_unstable();
            if orbits != [5, 12, 15] {
                continue; // two elements not transitive on an orbit
            }
            let through_first = choose_actions(&group, &gens, &ctx, &limits)
                .unwrap()
                .into_iter()
                .find(|c| matches!(c, Candidate::Orbit(Action::Orbit { points, .. }, _) if points.len() == 12))
                .expect("an action on the first orbit")
                .build(&gens, &ctx, &limits)
                .unwrap();
            let Some(first) = ActionKernelWords::through(
                &group,
                through_first,
                WordEffort(1),
                &ctx,
                1 << 30,
                "test",
                MAX_WORK,
            )
            .unwrap() else {
                continue;
            };
            if !first.kernel.writes_parts_in_elements() {
                continue; // the second orbit's group in the kernel within a table
            }
            let on_points = OrbitBlocks::of(&group, &gens, &ctx)
                .unwrap()
                .expect("two orbits")
                .action(Some(0))
                .expect("the second orbit has blocks");
            let words = ActionKernelWords::through_blocks(
                &group,
                Some(on_points),
                WordEffort(1),
                &ctx,
                1 << 30,
                "test",
                POINTS_AND_BLOCKS_WORK,
            )
            .unwrap()
            .expect("a kernel of blocks of three points goes down the series");
            assert_eq!(words.action.degree(), 12 + 5 + 5);
            let parts = words.kernel.parts();
            assert_eq!(parts.len(), 5);
            assert!(
                parts
                    .iter()
                    .all(|p| p.len() == 3 && (12..27).contains(&p[0]))
            );
            assert_words_of_random_members(&words, &gens, &mut rng);
            assert_no_word_for_a_stranger(&words, &group, &mut rng);
            taken += 1;
        }
        assert_eq!(taken, 4, "the route was tried in {taken} groups of 20");
    }

    /// 18 groups, each of three random elements of `D_5 wr Sym(3)` beside `D_5 wr Sym(3)`
    /// beside `Sym(6)`, each element moving every orbit and reflecting as many blocks of the
    /// first orbit as of the second, modulo 2. Through the action on `Sym(6)`'s orbit the
    /// kernel's parts are the other orbits, and the character "blocks reflected, modulo 2"
    /// ties the two wreath orbits: where the kernel has an element odd there, it is odd on both orbits, and no
    /// power of it moves one orbit alone (a reflection's order is 2 on each), so the product of
    /// the kernel's intersections with the orbits has index 2 in the kernel (with the cosets
    /// not taken, 5 of the 18 decline). The words of random members multiply out to them, a
    /// random permutation gets none.
    #[test]
    fn a_kernel_whose_parts_a_character_ties_takes_a_coset_of_their_product() {
        for seed in 82..100u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let ctx = SolveContext::detached();
            let (m, k) = (3usize, 6usize);
            let d = 2 * 5 * m + k;
            let gens: Vec<Perm> = (0..3)
                .map(|_| {
                    let mut images = vec![0u32; d];
                    let mut reflected = [0usize; 2];
                    for (orbit, reflected) in reflected.iter_mut().enumerate() {
                        let offset = 5 * m * orbit;
                        let mut blocks: Vec<usize> = (0..m).collect();
                        blocks.shuffle(&mut rng);
                        for (i, &to) in blocks.iter().enumerate() {
                            // `x ↦ a·x + c` on the block's five points: a reflection when `a = 4`.
                            let a = if rng.random_bool(0.5) { 1 } else { 4 };
                            let c = rng.random_range(0..5usize);
                            *reflected += usize::from(a == 4);
                            for x in 0..5 {
                                images[offset + 5 * i + x] =
                                    (offset + 5 * to + (a * x + c) % 5) as u32;
                            }
                        }
                    }
                    if reflected[0] % 2 != reflected[1] % 2 {
                        // Reflect the second orbit's first block's image too: `y ↦ -y` after it.
                        let offset = 5 * m;
                        let y = images[offset] as usize - offset;
                        let block = y / 5;
                        for x in 0..5 {
                            let image = images[offset + x] as usize - offset - 5 * block;
                            images[offset + x] = (offset + 5 * block + (5 - image) % 5) as u32;
                        }
                    }
                    let mut giant: Vec<usize> = (0..k).collect();
                    giant.shuffle(&mut rng);
                    for (x, &y) in giant.iter().enumerate() {
                        images[10 * m + x] = (10 * m + y) as u32;
                    }
                    Perm::from_images(images, "test").unwrap()
                })
                .collect();
            let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
            let limits = Limits::default();
            let through_giant = choose_actions(&group, &gens, &ctx, &limits)
            .unwrap()
            .into_iter()
            .find(|c| matches!(c, Candidate::Orbit(Action::Orbit { points, .. }, _) if points.len() == k))
            .expect("an action on the orbit of Sym(6)")
            .build(&gens, &ctx, &limits)
            .unwrap();
            let words = ActionKernelWords::through(
                &group,
                through_giant,
                WordEffort(1),
                &ctx,
                1 << 26,
                "test",
                MAX_WORK,
            )
            .unwrap()
            .expect("the kernel is the product of the orbits' parts and its cosets");
            assert_words_of_random_members(&words, &gens, &mut rng);
            assert_no_word_for_a_stranger(&words, &group, &mut rng);
        }
    }

    /// For `rounds` random groups, each of 2 or 3 random elements of a product of wreath
    /// products `Sym(b) wr Sym(m)` on separate orbits (`shapes[round % len]`, relabelled),
    /// checks every element's word and random non-members ([`assert_words_of_all`]); returns in
    /// how many the action went through every orbit's blocks at once.
    fn words_of_wreath_products_side_by_side(
        shapes: &[&[(usize, usize)]],
        rounds: usize,
        seed: u64,
    ) -> usize {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let ctx = SolveContext::detached();
        let mut through_all = 0;
        for round in 0..rounds {
            let shape = shapes[round % shapes.len()];
            let d: usize = shape.iter().map(|(b, m)| b * m).sum();
            let mut relabel: Vec<u32> = (0..d as u32).collect();
            relabel.shuffle(&mut rng);
            let count = rng.random_range(2..=3);
            let gens: Vec<Perm> = (0..count)
                .map(|_| {
                    let mut images = vec![0u32; d];
                    let mut offset = 0;
                    for &(b, m) in shape {
                        random_wreath_element((b, m), offset, &relabel, &mut images, &mut rng);
                        offset += b * m;
                    }
                    Perm::from_images(images, "test").unwrap()
                })
                .collect();
            let group = PermGroup::new(d, gens.clone(), &ctx, &Limits::default()).unwrap();
            let all = elements(&gens, d);
            let words = ActionKernelWords::new(&group, WordEffort(1), &ctx, 1 << 26, "test")
                .unwrap()
                .expect("a kernel of blocks of two and three points goes down the series");
            let blocks: usize = shape.iter().map(|(_, m)| m).sum();
            if matches!(words.action, Action::Blocks { .. }) && words.action.degree() == blocks {
                through_all += 1;
            }
            assert_words_of_all(&words, &all, &gens, &mut rng, round);
        }
        through_all
    }
}
