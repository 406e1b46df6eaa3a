//! `orbit count ...`: colourings up to symmetry (Burnside / Pólya). Each prints the number alone on
//! a line (with `--cycle-index`, the cycle index follows, one term per line).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_worker::counting::{parse_content, parse_count_group_text};
use orbit_worker::{Limits, SolveError};

use crate::input::read_input;
use crate::unary::solve_one;

/// `orbit count group FILE --k K [--content C] [--cycle-index]`: the group in the `orbit group`
/// format (candidate lines ignored) and the flags → a count family.
///
/// # Errors
/// The parser's error naming the line, or `count.content[i]` for a malformed `--content` entry.
///
/// ```
/// use orbit_cli::text_formats::count_group_family;
/// let family = count_group_family("4 1 0\n(1,2,3,4)\n", 2, Some("2,2"), false).unwrap();
/// assert_eq!((family.degree, family.content.clone()), (4, vec![2, 2]));
/// ```
pub fn count_group_family(
    text: &str,
    k: u64,
    content: Option<&str>,
    cycle_index: bool,
) -> Result<pb::GroupCount, SolveError> {
    let limits = Limits::default();
    let (degree, generators) = parse_count_group_text(text, &limits)?;
    let content = match content {
        Some(c) => parse_content(c)?,
        None => Vec::new(),
    };
    let degree = u32::try_from(degree).map_err(|_| {
        SolveError::limit(
            format!("group degree {degree}"),
            "group_degree_u32",
            u64::from(u32::MAX),
        )
        .requested(degree)
    })?;
    Ok(pb::GroupCount {
        degree,
        generators: generators
            .iter()
            .map(|g| pb::Permutation {
                images: g.images().to_vec(),
                cycles: String::new(),
            })
            .collect(),
        k,
        content,
        cycle_index,
    })
}

/// `orbit count graph-colourings FILE --k K [--edges] [--content C] [--cycle-index]`: the graph
/// in the `orbit graph` format and the flags → a count family.
///
/// # Errors
/// The parser's error naming the line, or `count.content[i]` for a malformed `--content` entry.
///
/// ```
/// use orbit_cli::text_formats::count_graph_colourings_family;
/// let family = count_graph_colourings_family("3 2\n1 2\n2 3\n", 2, true, None, false).unwrap();
/// assert_eq!((family.edges, family.graph.unwrap().vertices), (true, 3));
/// ```
pub fn count_graph_colourings_family(
    text: &str,
    k: u64,
    edges: bool,
    content: Option<&str>,
    cycle_index: bool,
) -> Result<pb::GraphColouringsCount, SolveError> {
    let graph = crate::kinds::graph::graph_job(text)?;
    let content = match content {
        Some(c) => parse_content(c)?,
        None => Vec::new(),
    };
    Ok(pb::GraphColouringsCount {
        graph: Some(graph),
        k,
        edges,
        content,
        cycle_index,
    })
}

/// `orbit count` and its families.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Print the count modulo M (a decimal integer >= 1) instead of the exact count.
    #[arg(long, global = true)]
    pub modulus: Option<String>,
    #[command(subcommand)]
    pub family: Family,
}

/// What to count.
#[derive(Debug, Subcommand)]
pub enum Family {
    /// Necklaces: n beads, k colours, up to rotation.
    Necklace {
        #[arg(long)]
        n: u64,
        #[arg(long)]
        k: u64,
    },
    /// Bracelets: n beads, k colours, up to rotation and reflection.
    Bracelet {
        #[arg(long)]
        n: u64,
        #[arg(long)]
        k: u64,
    },
    /// The torus: a rows x cols sheet, k colours, up to cyclic shifts of rows and columns and the
    /// 180-degree turn.
    Torus {
        #[arg(long)]
        rows: u64,
        #[arg(long)]
        cols: u64,
        #[arg(long)]
        k: u64,
        /// Leave out the 180-degree turn.
        #[arg(long)]
        no_rotation: bool,
    },
    /// Faces, vertices or edges of a cube up to its 24 rotations.
    Cube {
        /// faces, vertices or edges.
        part: String,
        #[arg(long)]
        k: u64,
    },
    /// Unlabelled simple graphs on n vertices.
    Graphs {
        #[arg(long)]
        n: u64,
    },
    /// A complete rooted binary tree of depth D (depth 0 is one vertex), k colours, up to swapping
    /// the children of any node.
    Tree {
        #[arg(long)]
        depth: u64,
        #[arg(long)]
        k: u64,
    },
    /// Colourings of the points of any permutation group, given in the `orbit group` file format
    /// (candidate lines are ignored).
    Group {
        /// Input file; `-` for stdin.
        file: PathBuf,
        /// Colours (not needed with --content).
        #[arg(long, default_value_t = 0)]
        k: u64,
        /// Only colourings with these many points of each colour, e.g. 4,3,1.
        #[arg(long)]
        content: Option<String>,
        /// Also print the cycle index.
        #[arg(long)]
        cycle_index: bool,
    },
    /// Colourings of the vertices (or edges) of a graph up to its automorphisms; the graph in the
    /// `orbit graph` format (`n m`, m lines `u v`, optionally `colours c1 ... cn`). Distinct from
    /// `count graphs`, which counts unlabelled graphs.
    #[command(name = "graph-colourings")]
    GraphColourings {
        /// Input file; `-` for stdin.
        file: PathBuf,
        /// Colours (not needed with --content).
        #[arg(long, default_value_t = 0)]
        k: u64,
        /// Colour the edges instead of the vertices.
        #[arg(long)]
        edges: bool,
        /// Only colourings with these many vertices (or edges) of each colour, e.g. 4,3,1.
        #[arg(long)]
        content: Option<String>,
        /// Also print the cycle index.
        #[arg(long)]
        cycle_index: bool,
    },
}

/// Builds the job, solves it over gRPC and prints the count.
pub async fn run(endpoints: &[BatchEndpoint], args: CountArgs) -> anyhow::Result<ExitCode> {
    use pb::count_job::Family as F;
    let family = match args.family {
        Family::Necklace { n, k } => F::Necklace(pb::NecklaceCount { n, k }),
        Family::Bracelet { n, k } => F::Bracelet(pb::NecklaceCount { n, k }),
        Family::Torus {
            rows,
            cols,
            k,
            no_rotation,
        } => F::Torus(pb::TorusCount {
            rows,
            cols,
            k,
            no_rotation,
        }),
        Family::Cube { part, k } => {
            let part = match part.to_ascii_lowercase().as_str() {
                "faces" => pb::CubePart::Faces,
                "vertices" => pb::CubePart::Vertices,
                "edges" => pb::CubePart::Edges,
                other => anyhow::bail!("cube part `{other}`: expected faces, vertices or edges"),
            };
            F::Cube(pb::CubeCount {
                part: part as i32,
                k,
            })
        }
        Family::Graphs { n } => F::Graphs(pb::GraphsCount { n }),
        Family::Tree { depth, k } => F::BinaryTree(pb::BinaryTreeCount { depth, k }),
        Family::Group {
            file,
            k,
            content,
            cycle_index,
        } => {
            let text = read_input(Some(Path::new(&file)))?;
            F::Group(count_group_family(
                &text,
                k,
                content.as_deref(),
                cycle_index,
            )?)
        }
        Family::GraphColourings {
            file,
            k,
            edges,
            content,
            cycle_index,
        } => {
            let text = read_input(Some(Path::new(&file)))?;
            F::GraphColourings(count_graph_colourings_family(
                &text,
                k,
                edges,
                content.as_deref(),
                cycle_index,
            )?)
        }
    };
    let pb::job_result::Result::Count(count) = solve_one(
        endpoints,
        "count",
        pb::job::Kind::Count(pb::CountJob {
            family: Some(family),
            modulus: args.modulus.unwrap_or_default(),
        }),
    )
    .await?
    else {
        anyhow::bail!("the server answered a count job with another kind of result");
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{}", count.count)?;
    for term in &count.cycle_index {
        let monomial: Vec<String> = term
            .cycle_type
            .iter()
            .map(|p| {
                if p.count == 1 {
                    format!("x{}", p.length)
                } else {
                    format!("x{}^{}", p.length, p.count)
                }
            })
            .collect();
        writeln!(out, "{} {}", term.coefficient, monomial.join(" "))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
