//! Words in a group's generators for its members: [`Word`] (the normal form, GAP's notation)
//! and [`GroupWords`] (the factorisation of a member: Minkwitz's tables of short words for the
//! coset representatives in general, conjugates of one transposition or 3-cycle for giants of
//! large degree, one of these per orbit for a direct product given factor by factor, per
//! orbit with a parity correction for a product of giants whose generators move several orbits,
//! through the blocks' orientations and 3-cycles for a transitive group containing its minimal
//! blocks' alternating groups, and through an action on an orbit, on blocks or on invariant
//! lines, down the kernel's series (signs and rotations, or the parts' own series for small
//! solvable groups on them), for other groups with long bases).

mod action_kernel;
mod actions;
mod alternating_blocks;
mod elementary_abelian;
mod giant;
mod giant_product;
mod group_words;
mod isolated_powers;
mod kernel_candidates;
mod kernel_series;
mod local_table;
mod minkwitz;
mod moved_points;
mod orbit_copies;
mod orbit_product;
mod parity_space;
mod part_product;
mod part_series;
mod power_tables;
mod prime_space;
mod three_cycle;
mod word;
mod word_product;

pub use group_words::{
    ACTION_WORDS_FROM_BASE, GIANT_WORDS_FROM_DEGREE, GroupWords, WordEffort, WordMethod,
};
pub use word::{LetterBudget, Word, WordLetter};
