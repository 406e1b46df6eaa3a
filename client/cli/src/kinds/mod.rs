//! One file per job kind, each owning everything the CLI knows about its kind: the text format
//! (text → protobuf job, gathered in [`crate::text_formats`]), the domain → protobuf conversions
//! it needs, and its command (`run`: read the input, solve over gRPC, print the answer).
//!
//! - [`game`]: win/lose/draw on a game graph by retrograde analysis (`orbit game`).
//! - [`group`]: a permutation group's order and memberships (`orbit group`).
//! - [`count`]: colourings up to symmetry (Burnside / Pólya; `orbit count ...`).
//! - [`puzzle`]: the token-swapping puzzle (WC2017 "board game"; `orbit puzzle`).
//! - [`cop_thief`]: the policeman-and-thief grid game (`orbit cop-thief`).

pub mod cop_thief;
pub mod count;
pub mod game;
pub mod group;
pub mod puzzle;
