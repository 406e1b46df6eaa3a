//! `orbit graph symmetry FILE` and `orbit graph isomorphic A B`: the automorphism group and the
//! canonical labelling of an undirected graph, from the `orbit game` format read as undirected
//! (`n m`, m lines `u v`, 1-based; an optional last line `colours c1 ... cn`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::Subcommand;
use orbit_client::batch::BatchEndpoint;
use orbit_client::pb;
use orbit_worker::SolveError;
use orbit_worker::graph::{
    SparseAdjacency, SparsePermutation, UndirectedGraph, is_isomorphism, parse_graph_text,
};

use crate::input::read_input;
use crate::unary::solve_one;

/// `orbit graph` and its two commands.
#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// The automorphism group of a graph. Input: `n m`, m lines `u v` (1-based, undirected, no
    /// self-loops or repeated edges), optionally `colours c1 ... cn`. Prints the group order; then
    /// `orbits K` and K lines of vertices; `generators G` and G lines in cycle notation; then
    /// `canonical` and a line with each vertex's canonical label (1-based; stable within a
    /// release of Orbit, not across releases).
    Symmetry {
        /// Input file; `-` for stdin.
        file: std::path::PathBuf,
    },
    /// Whether two graphs are isomorphic (colour numbers respected): `Yes` and, on the same line,
    /// the image in B of each vertex of A (1-based, checked here), or `No`. Exit 0 either way.
    Isomorphic {
        /// The first graph's file.
        a: std::path::PathBuf,
        /// The second graph's file.
        b: std::path::PathBuf,
    },
}

/// `orbit graph`: the graph text → a graph job.
///
/// # Errors
/// The parser's error naming the line, e.g. `line 3: v: a self-loop at vertex 2`.
///
/// ```
/// let job = orbit_cli::text_formats::graph_job("3 2\n1 2\n2 3\n").unwrap();
/// assert_eq!((job.vertices, job.edges.len()), (3, 2));
/// ```
pub fn graph_job(text: &str) -> Result<pb::GraphJob, SolveError> {
    Ok(graph_to_proto(&parse_graph_text(text)?))
}

/// domain → proto for a graph.
pub fn graph_to_proto(graph: &UndirectedGraph) -> pb::GraphJob {
    pb::GraphJob {
        vertices: graph.vertices,
        edges: graph
            .edges
            .iter()
            .map(|&(from, to)| pb::Edge { from, to })
            .collect(),
        colours: graph.colours.clone().unwrap_or_default(),
    }
}

/// Solves one graph job over gRPC.
async fn solve_graph(
    endpoints: &[BatchEndpoint],
    job: pb::GraphJob,
) -> anyhow::Result<pb::GraphResult> {
    let pb::job_result::Result::Graph(result) =
        solve_one(endpoints, "graph", pb::job::Kind::Graph(job)).await?
    else {
        anyhow::bail!("the server answered a graph job with another kind of result");
    };
    Ok(result)
}

/// Runs `orbit graph symmetry` or `orbit graph isomorphic`.
pub async fn run(endpoints: &[BatchEndpoint], command: GraphCommand) -> anyhow::Result<ExitCode> {
    match command {
        GraphCommand::Symmetry { file } => symmetry(endpoints, &file).await,
        GraphCommand::Isomorphic { a, b } => isomorphic(endpoints, &a, &b).await,
    }
}

async fn symmetry(endpoints: &[BatchEndpoint], file: &Path) -> anyhow::Result<ExitCode> {
    let graph = parse_graph_text(&read_input(Some(file))?)?;
    let result = solve_graph(endpoints, graph_to_proto(&graph)).await?;
    let n = graph.vertices as usize;
    // Each generator, from whichever form the server sent (image array, or cycles for large
    // graphs), checked to be an automorphism on the edges at its moved points.
    let adjacency = SparseAdjacency::new(n, &graph.edges);
    let mut generators = Vec::with_capacity(result.generators.len());
    for (i, g) in result.generators.iter().enumerate() {
        let p = if g.images.is_empty() {
            SparsePermutation::parse_cycles(&g.cycles, n).ok()
        } else {
            (g.images.len() == n).then(|| {
                SparsePermutation::from_pairs(
                    g.images
                        .iter()
                        .enumerate()
                        .map(|(x, &y)| (x as u32, y))
                        .collect(),
                )
            })
        };
        let p = p.filter(|p| {
            p.is_automorphism_of(&adjacency)
                && p.moved()
                    .iter()
                    .all(|&(x, y)| graph.colour(x) == graph.colour(y))
        });
        let Some(p) = p else {
            anyhow::bail!(
                "the server's answer does not check out: generator {} is not an automorphism",
                i + 1
            );
        };
        generators.push(p);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{}", result.order)?;
    writeln!(out, "orbits {}", result.orbits.len())?;
    for orbit in &result.orbits {
        let points: Vec<String> = orbit.points.iter().map(|p| (p + 1).to_string()).collect();
        writeln!(out, "{}", points.join(" "))?;
    }
    writeln!(out, "generators {}", generators.len())?;
    for g in &generators {
        writeln!(out, "{g}")?;
    }
    writeln!(out, "canonical")?;
    let labels: Vec<String> = result
        .canonical_labels
        .iter()
        .map(|l| (l + 1).to_string())
        .collect();
    writeln!(out, "{}", labels.join(" "))?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

async fn isomorphic(endpoints: &[BatchEndpoint], a: &Path, b: &Path) -> anyhow::Result<ExitCode> {
    let graph_a = parse_graph_text(&read_input(Some(a))?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.display()))?;
    let graph_b = parse_graph_text(&read_input(Some(b))?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", b.display()))?;
    let same_size =
        graph_a.vertices == graph_b.vertices && graph_a.edges.len() == graph_b.edges.len();
    let verdict = if same_size {
        let (ra, rb) = tokio::try_join!(
            solve_graph(endpoints, graph_to_proto(&graph_a)),
            solve_graph(endpoints, graph_to_proto(&graph_b)),
        )?;
        let certificate = |r: &pb::GraphResult| {
            let edges: Vec<(u32, u32)> = r.canonical_edges.iter().map(|e| (e.from, e.to)).collect();
            (edges, r.canonical_colours.clone())
        };
        if certificate(&ra) == certificate(&rb) {
            let n = graph_a.vertices as usize;
            let mut by_label = vec![u32::MAX; n];
            for (v, &label) in rb.canonical_labels.iter().enumerate() {
                if let Some(slot) = by_label.get_mut(label as usize) {
                    *slot = v as u32;
                }
            }
            let image: Vec<u32> = ra
                .canonical_labels
                .iter()
                .map(|&label| by_label.get(label as usize).copied().unwrap_or(u32::MAX))
                .collect();
            if !is_isomorphism(&graph_a, &graph_b, &image) {
                anyhow::bail!(
                    "the server's answer does not check out: equal certificates, but the map from the canonical labels is not an isomorphism"
                );
            }
            Some(image)
        } else {
            None
        }
    } else {
        None
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match verdict {
        Some(image) => {
            let images: Vec<String> = image.iter().map(|v| (v + 1).to_string()).collect();
            if images.is_empty() {
                writeln!(out, "Yes")?;
            } else {
                writeln!(out, "Yes {}", images.join(" "))?;
            }
        }
        None => writeln!(out, "No")?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
