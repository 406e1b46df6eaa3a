//! One file per job kind, each owning everything the CLI knows about its kind: the text format
//! (text → protobuf job, gathered in [`crate::text_formats`]), the domain → protobuf conversions
//! it needs, and its command (`run`: read the input, solve over gRPC, print the answer).
//!
//! - [`game`]: win/lose/draw on a game graph by retrograde analysis (`orbit game`).
//! - [`group`]: a permutation group's order and memberships (`orbit group`).
//! - [`count`]: colourings up to symmetry (Burnside / Pólya; `orbit count ...`).
//! - [`puzzle`]: the token-swapping puzzle (WC2017 "board game"; `orbit puzzle`).
//! - [`cop_thief`]: the policeman-and-thief grid game (`orbit cop-thief`).
//! - [`graph`]: the automorphism group and canonical labelling of a graph (`orbit graph ...`).
//!
//! Each kind is registered here once: its `mod` line, its [`KindCommand`] variant and its arm in
//! [`run`].

pub mod cop_thief;
pub mod count;
pub mod game;
pub mod graph;
pub mod group;
pub mod puzzle;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::GlobalArgs;
use crate::connection::Connection;

/// The per-kind commands, flattened into [`crate::Command`]; each variant's name is the kind's
/// `orbit_api::JobKind::cli_command`.
#[derive(Debug, Subcommand)]
pub enum KindCommand {
    /// Win/lose/draw on a game graph. Input: `n m`, then m lines `u v` (1-based, a move from u to
    /// v). Prints n lines, vertex 1 first: `win D`, `lose D` or `draw`.
    Game {
        /// Input file; `-` or nothing for stdin.
        file: Option<PathBuf>,
        /// Append ` moves` and every move as `V:win D`, `V:lose D` or `V:draw` (V the vertex
        /// moved to, 1-based; its value for the player to move there), comma-separated, best
        /// first.
        #[arg(long)]
        moves: bool,
        /// Append ` line` and the vertices of the principal variation (1-based; `...` at the end
        /// when cut at the server's `max_line`).
        #[arg(long)]
        line: bool,
    },
    /// A permutation group: order and membership. Input: `d k q`, then k generator lines and q
    /// candidate lines in GAP cycle notation, 1-based (`(1,2,3)(4,5)`; `()` is the identity).
    /// Prints the order on the first line, then q lines `Yes`/`No`.
    Group {
        /// Input file; `-` or nothing for stdin.
        file: Option<PathBuf>,
        /// Append to each `Yes`, after a space, a word in the generators for the member: `g1`,
        /// `g2`, ... (1-based) joined by `*`, inverses and powers as `g3^-1`, `g2^2`, the
        /// identity as `<identity>`, multiplied left to right as GAP does. Checked here before
        /// it is printed.
        #[arg(long)]
        words: bool,
        /// With `--words`: set-up time against word length, 0..100 (the server's default 5 when
        /// not given; 0 is fastest with the longest words).
        #[arg(long, value_name = "EFFORT", requires = "words")]
        word_effort: Option<u32>,
    },
    /// Counting colourings up to symmetry; prints the number alone on a line.
    Count(count::CountArgs),
    /// The token puzzle on a graph. Input: `n m q`, m lines `u v` (1-based), a line of n tokens
    /// (the token on vertex 1..n), then q target lines. Prints q lines `Yes`/`No`.
    Puzzle {
        /// Input file; `-` or nothing for stdin.
        file: Option<PathBuf>,
        /// After each `Yes`, on the same line, the 1-based vertices token 0 steps to, separated
        /// by spaces (nothing for a target equal to the start). Every sequence is replayed on the
        /// graph before it is printed; a wrong one fails the command naming its target.
        #[arg(long)]
        moves: bool,
    },
    /// The policeman-and-thief game. Input: `n m`, then n rows of m characters (`.` free, `*` wall,
    /// `C` policeman, `T` thief, `E` exit). Prints `cop N`, `thief N` or `draw` (N = half-moves).
    #[command(name = "cop-thief")]
    CopThief {
        /// Input file; `-` or nothing for stdin.
        file: Option<PathBuf>,
        /// After the answer, show the board after every half-move of the optimal chase: a
        /// header `K cop|thief` (half-moves played, who moves next), the rows with `C` and `T`
        /// where they stand, a blank line; in place on a terminal, as frames when piped.
        #[arg(long)]
        play: bool,
    },
    /// The symmetries of an undirected graph: `orbit graph symmetry FILE` (automorphism group,
    /// orbits, generators, canonical labelling) and `orbit graph isomorphic A B`.
    #[command(subcommand)]
    Graph(graph::GraphCommand),
}

impl KindCommand {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Game { .. } => "game",
            Self::Group { .. } => "group",
            Self::Count(_) => "count",
            Self::Puzzle { .. } => "puzzle",
            Self::CopThief { .. } => "cop-thief",
            Self::Graph(_) => "graph",
        }
    }
}

/// Runs a per-kind command against `connection`.
pub(crate) async fn run(
    command: KindCommand,
    connection: &Connection,
    global: &GlobalArgs,
) -> anyhow::Result<ExitCode> {
    let endpoints = connection.endpoints();
    match command {
        KindCommand::Game { file, moves, line } => {
            game::run(endpoints, file.as_deref(), game::Witness { moves, line }).await
        }
        KindCommand::Group {
            file,
            words,
            word_effort,
        } => {
            let words = group::Words {
                words,
                effort: word_effort,
            };
            group::run(endpoints, file.as_deref(), words).await
        }
        KindCommand::Count(args) => count::run(endpoints, args).await,
        KindCommand::Puzzle { file, moves } => {
            let mut client = connection.client().clone();
            puzzle::run(
                &mut client,
                file.as_deref(),
                global.max_message_bytes,
                moves,
            )
            .await
        }
        KindCommand::CopThief { file, play } => {
            cop_thief::run(endpoints, file.as_deref(), play).await
        }
        KindCommand::Graph(command) => graph::run(endpoints, command).await,
    }
}
