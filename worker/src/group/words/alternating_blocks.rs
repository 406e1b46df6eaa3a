//! [`AlternatingBlocksWords`]: words for a transitive group that contains the alternating groups
//! of its minimal blocks, such as `Sym(50) wr Sym(20)` given by three random elements.
//!
//! Such a group `G` maps onto `Ĝ`, its action on the blocks' orientations (a group of degree
//! `2b` for `b` blocks), with kernel `A = Π Alt(B_i)` (see `crate::group::alternating_blocks`,
//! which proves the structure). A member `g` is written as `g = z · y`: `y` the product of the
//! word `u` of `g`'s image in `Ĝ` (the images of the same generators, so `u` is a word of `G`
//! too), and `z = g · y⁻¹`, which fixes every oriented block and so lies in `A`, written by the
//! giants' method on the blocks ([`GiantWords::on_blocks`]: conjugates of one 3-cycle of the
//! group, found as a power or a commutator of powers of random words). A permutation that does
//! not map blocks onto blocks, or whose image is not in `Ĝ`, is not a member.
//!
//! # Complexity
//! Set-up: the recognition (`O(n²)` for the minimal blocks, random elements for the 3-cycle),
//! `Ĝ`'s group and words, and one giants' set-up on all points. A word: `O(d)` for the image,
//! `Ĝ`'s word, `O(|u| · d)` to evaluate it, then the giants' word of `z`.
//!
//! # Reference
//! Á. Seress, *Permutation Group Algorithms* (2003), §10.2 (giants); J. D. Dixon, B. Mortimer,
//! *Permutation Groups* (1996), §1.5 (blocks).

use super::giant::GiantWords;
use super::group_words::{GroupWords, WordEffort};
use super::word::{GeneratorOrders, Word};
use crate::context::SolveContext;
use crate::error::SolveError;
use crate::group::alternating_blocks::{AlternatingBlocks, recognise_alternating_blocks};
use crate::group::{Perm, PermGroup};
use crate::limits::Limits;

/// Seed of the recognition's random elements (the words never depend on it).
const SEED: u64 = 0x0a17_b10c;

/// Words through the blocks' orientations and their alternating groups (see the module
/// documentation).
#[derive(Debug)]
pub(super) struct AlternatingBlocksWords {
    blocks: AlternatingBlocks,
    /// Words of `Ĝ` in the images of the same generators.
    image: Box<GroupWords>,
    bottom: GiantWords,
    generators: Vec<Perm>,
    orders: GeneratorOrders,
    bytes: u64,
}

impl AlternatingBlocksWords {
    /// Builds the words for `group`, or returns `Ok(None)` when it is not transitive on the
    /// points it moves, or not proven to contain the alternating groups of its minimal blocks
    /// (then another method applies).
    ///
    /// # Arguments
    /// As [`GroupWords::new`]: `Ĝ`'s chain and words and the giants' share `budget_bytes`.
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
    ) -> Result<Option<AlternatingBlocksWords>, SolveError> {
        let mut moved: Vec<Vec<u32>> = group
            .orbits_ref()
            .iter()
            .filter(|o| o.len() > 1)
            .cloned()
            .collect();
        let (Some(mut orbit), true) = (moved.pop(), moved.is_empty()) else {
            return Ok(None);
        };
        orbit.sort_unstable();
        let degree = group.degree();
        let generators = group.generators().to_vec();
        let Some(mut blocks) =
            recognise_alternating_blocks(degree, &orbit, &generators, SEED, ctx)?
        else {
            return Ok(None);
        };
        let over_budget = |what: &str, bytes: u64| {
            SolveError::limit_shown(
                format!("words of the group of degree {degree} ({what}, {bytes} bytes)"),
                limit_name,
                budget_bytes,
                format!("{budget_bytes} bytes ({limit_name})"),
            )
            .requested(bytes)
        };
        // The block tables and the generators with their inverses.
        let mut held = 16 * degree as u64 * (generators.len() as u64 + 2);
        if held > budget_bytes {
            return Err(over_budget("the block tables", held));
        }
        let images = std::mem::take(&mut blocks.orientations);
        let left = budget_bytes - held;
        let limits = Limits {
            max_group_chain_bytes: left,
            max_job_memory: left,
            ..Limits::default()
        };
        let image_group = match PermGroup::new(images[0].degree(), images, ctx, &limits) {
            Err(SolveError::LimitExceeded { .. }) => {
                return Err(over_budget(
                    "the orientations' chain",
                    left.saturating_add(1),
                ));
            }
            image_group => image_group?,
        };
        let image = GroupWords::new(
            &image_group,
            effort,
            ctx,
            left.saturating_sub(image_group.chain_bytes()),
            limit_name,
        )?;
        drop(image_group);
        held = held.saturating_add(image.bytes());
        let bottom = GiantWords::on_blocks(
            group,
            blocks.blocks(),
            effort,
            ctx,
            budget_bytes.saturating_sub(held),
            limit_name,
        )?;
        held = held.saturating_add(bottom.bytes());
        Ok(Some(AlternatingBlocksWords {
            blocks,
            image: Box::new(image),
            bottom,
            orders: GeneratorOrders::of(&generators),
            generators,
            bytes: held,
        }))
    }

    /// The word of `g`, `Ok(None)` for a non-member, `Err(letters)` as soon as the word is known
    /// to be longer than `max_letters`.
    ///
    /// Complexity: see the module documentation.
    pub(super) fn word_of(&self, g: &Perm, max_letters: u64) -> Result<Option<Word>, u64> {
        let Some(image) = self.blocks.orientation_of(g) else {
            return Ok(None);
        };
        let Some(u) = self.image.word_of_at_most(&image, max_letters)? else {
            return Ok(None);
        };
        let y = u.evaluate(&self.generators, g.degree());
        let z = g.compose(&y.inverse());
        let left = max_letters.saturating_sub(u.len());
        let Some(mut word) = self
            .bottom
            .word_of(&z, left)
            .map_err(|letters| letters.saturating_add(u.len()))?
        else {
            return Ok(None); // z fixes every oriented block, so this is never reached
        };
        word.append(&u, &self.orders);
        word.at_most(max_letters)
    }

    /// Bytes held: `Ĝ`'s words, the giants' trees and base element, the tables.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The giants' base element's length (mean and largest), for benchmarks.
    pub(super) fn entry_lengths(&self) -> (f64, u64) {
        let len = self.bottom.base_len();
        (len as f64, len)
    }
}
