//! The state word of the propagation: before a state is resolved, the number of the mover's
//! moves not yet refuted; afterwards a resolved flag, whether the mover wins, and the depth
//! (`u16`, or `u32` for games deeper than 16,383 half-moves).

use bytemuck::Zeroable;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// A state word: `u16` normally, `u32` for games deeper than the `u16` encoding holds.
///
/// Encoding: below `RESOLVED` the word is the number of the mover's moves not yet refuted;
/// from `RESOLVED` up: `RESOLVED | (WIN if the mover wins) | depth`.
pub(super) trait Word: Send + Sync + Sized + Zeroable {
    const BITS: u32;
    const RESOLVED: u32 = 1 << (Self::BITS - 1);
    const WIN: u32 = 1 << (Self::BITS - 2);
    const MAX_DEPTH: u32 = Self::WIN - 1;
    fn get(&self) -> u32;
    fn set(&self, v: u32);
}

impl Word for AtomicU16 {
    const BITS: u32 = 16;
    #[inline]
    fn get(&self) -> u32 {
        u32::from(self.load(Ordering::Relaxed))
    }
    #[inline]
    fn set(&self, v: u32) {
        self.store(v as u16, Ordering::Relaxed)
    }
}

impl Word for AtomicU32 {
    const BITS: u32 = 32;
    #[inline]
    fn get(&self) -> u32 {
        self.load(Ordering::Relaxed)
    }
    #[inline]
    fn set(&self, v: u32) {
        self.store(v, Ordering::Relaxed)
    }
}

/// How deep the `u16` encoding may go before the solver switches to `u32` words.
pub(super) const NARROW_MAX_DEPTH: u32 = <AtomicU16 as Word>::MAX_DEPTH;

pub(super) enum Words {
    Narrow(Vec<AtomicU16>),
    Wide(Vec<AtomicU32>),
}
