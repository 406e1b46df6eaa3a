//! Checks of the reasons ("witnesses") a server sends with its answers, made by the client alone
//! from the job it sent: an answer the client can verify need not be trusted.
//!
//! - [`game`]: a game graph's moves with their values and its principal variations.
//! - [`cop_thief`]: the same for the policeman-and-thief game, replayed by its rules.
//! - [`group`]: the words of a group's members, multiplied out.
//! - [`puzzle`]: the token puzzle's move sequences, replayed on the graph.

pub mod cop_thief;
pub mod game;
pub mod group;
pub mod puzzle;

pub use cop_thief::{CopThiefWitnessError, check_cop_thief_witness};
pub use game::{GameWitnessError, check_game_witness};
pub use group::{GroupWordError, check_group_words, format_word};
pub use puzzle::{PuzzleReplay, PuzzleWitnessError, check_puzzle_moves, check_puzzle_witness};
