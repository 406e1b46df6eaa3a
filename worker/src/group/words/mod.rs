//! Words in a group's generators for its members: [`Word`] (the normal form, GAP's notation)
//! and [`GroupWords`] (Minkwitz's tables of short words for the coset representatives, and the
//! factorisation of a member through them).

mod minkwitz;
mod word;

pub use minkwitz::{GroupWords, WordEffort};
pub use word::{Word, WordLetter};
