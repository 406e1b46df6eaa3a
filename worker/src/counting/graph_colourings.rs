//! Colourings of a graph's vertices or edges up to the graph's automorphism group: the group
//! from the graph kind's search, acting on the vertices or induced on the edges, then Burnside /
//! Pólya through [`count_group`](super::count_group).

use crate::context::SolveContext;
use crate::error::SolveError;
use crate::graph::{GraphJob, UndirectedGraph, solve_graph};
use crate::group::Perm;
use crate::limits::Limits;

/// The permutation an automorphism induces on the edges: edge `i` goes to the index of the edge
/// `{g(u), g(v)}`.
///
/// # Errors
/// [`SolveError::Panicked`] if `g` is not an automorphism (some edge has no image edge).
///
/// Complexity: O(m log m).
///
/// ```
/// use orbit_worker::counting::induced_edge_permutation;
/// use orbit_worker::graph::UndirectedGraph;
/// use orbit_worker::group::Perm;
/// let path = UndirectedGraph { vertices: 3, edges: vec![(0, 1), (1, 2)], colours: None };
/// let flip = Perm::from_images(vec![2, 1, 0], "flip").unwrap();
/// assert_eq!(induced_edge_permutation(&path, &flip).unwrap().images(), &[1, 0]);
/// ```
pub fn induced_edge_permutation(graph: &UndirectedGraph, g: &Perm) -> Result<Perm, SolveError> {
    let normal = |(u, v): (u32, u32)| (u.min(v), u.max(v));
    let mut index: Vec<((u32, u32), u32)> = graph
        .edges
        .iter()
        .enumerate()
        .map(|(i, &e)| (normal(e), i as u32))
        .collect();
    index.sort_unstable();
    let images = graph
        .edges
        .iter()
        .map(|&(u, v)| {
            let image = normal((g.image(u), g.image(v)));
            index
                .binary_search_by_key(&image, |&(e, _)| e)
                .map(|at| index[at].1)
                .map_err(|_| {
                    SolveError::Panicked(format!(
                        "a reported automorphism maps the edge {u} {v} to a non-edge"
                    ))
                })
        })
        .collect::<Result<Vec<u32>, _>>()?;
    Perm::from_images(images, "induced edge permutation")
}

/// Generators of the automorphism group of `graph`, acting on its vertices, or on its edges when
/// `edges` is set: the points the colourings colour and the group's generators on them.
///
/// # Errors
/// Those of [`solve_graph`].
///
/// Complexity: that of [`solve_graph`], plus O(m log m) per generator for the edges.
pub fn graph_colouring_group(
    graph: &UndirectedGraph,
    edges: bool,
    ctx: &SolveContext,
    limits: &Limits,
) -> Result<(usize, Vec<Perm>), SolveError> {
    let answer = solve_graph(
        &GraphJob {
            graph: graph.clone(),
        },
        ctx,
        limits,
    )?;
    let n = graph.vertices as usize;
    let answer_generators = answer
        .generators
        .iter()
        .map(|g| Perm::from_images(g.images(n), "automorphism"))
        .collect::<Result<Vec<_>, _>>()?;
    if !edges {
        return Ok((n, answer_generators));
    }
    let generators = answer_generators
        .iter()
        .map(|g| induced_edge_permutation(graph, g))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((graph.edges.len(), generators))
}
