//! An undirected simple graph with an optional vertex colouring: the input of the graph kind.

use crate::error::SolveError;

/// Most vertices a graph job may have: the graph kind's own limit (the group degree limit
/// `max_degree` does not apply to it).
pub const MAX_GRAPH_VERTICES: u64 = 1_000_000;

/// Most edges a graph job may have: the graph kind's own limit.
pub const MAX_GRAPH_EDGES: u64 = 10_000_000;

/// An undirected simple graph on the vertices `0..vertices`, optionally vertex-coloured.
///
/// A colouring is a partition the automorphisms must respect: vertices of different colours are
/// never exchanged, and two coloured graphs are isomorphic when a bijection maps edges to edges
/// and every vertex to a vertex of the same colour number.
///
/// ```
/// use orbit_worker::graph::UndirectedGraph;
/// let path = UndirectedGraph { vertices: 3, edges: vec![(0, 1), (1, 2)], colours: None };
/// assert!(path.check("graph").is_ok());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndirectedGraph {
    /// Number of vertices `n`.
    pub vertices: u32,
    /// Edges `{u, v}` with `u != v`, each at most once (in either orientation).
    pub edges: Vec<(u32, u32)>,
    /// A colour number per vertex (`n` entries), or `None` for an uncoloured graph.
    pub colours: Option<Vec<u64>>,
}

impl UndirectedGraph {
    /// Checks the graph is simple and within the graph kind's limits; `field` prefixes the
    /// fields named in errors (`graph` gives `graph.edges[3]`).
    ///
    /// # Errors
    /// [`SolveError::LimitExceeded`] naming `graph_vertices` or `graph_edges`;
    /// [`SolveError::InvalidArgument`] naming `{field}.edges[i]` (an endpoint out of range, a
    /// self-loop, an edge repeating an earlier one, which it names) or `{field}.colours` (not one
    /// per vertex).
    ///
    /// Complexity: O(m log m) time, O(m) memory.
    ///
    /// ```
    /// use orbit_worker::graph::UndirectedGraph;
    /// let g = UndirectedGraph { vertices: 3, edges: vec![(0, 1), (1, 0)], colours: None };
    /// assert_eq!(
    ///     g.check("graph").unwrap_err().to_string(),
    ///     "graph.edges[1]: repeats graph.edges[0] (the edge 1 2, 1-based)"
    /// );
    /// ```
    ///
    /// Reference: none (Orbit's input policy).
    pub fn check(&self, field: &str) -> Result<(), SolveError> {
        if u64::from(self.vertices) > MAX_GRAPH_VERTICES {
            return Err(SolveError::limit(
                format!("{field}.vertices ({})", self.vertices),
                "graph_vertices",
                MAX_GRAPH_VERTICES,
            )
            .requested(self.vertices));
        }
        if self.edges.len() as u64 > MAX_GRAPH_EDGES {
            return Err(SolveError::limit(
                format!("the number of {field}.edges ({})", self.edges.len()),
                "graph_edges",
                MAX_GRAPH_EDGES,
            )
            .requested(self.edges.len()));
        }
        for (i, &(u, v)) in self.edges.iter().enumerate() {
            for x in [u, v] {
                if x >= self.vertices {
                    return Err(SolveError::invalid(
                        format!("{field}.edges[{i}]"),
                        format!("vertex {x} out of range 0..{}", self.vertices),
                    ));
                }
            }
            if u == v {
                return Err(SolveError::invalid(
                    format!("{field}.edges[{i}]"),
                    format!("a self-loop at vertex {u}"),
                ));
            }
        }
        if let Some(i) = first_repeated_edge(&self.edges) {
            let (j, (u, v)) = i;
            return Err(SolveError::invalid(
                format!("{field}.edges[{}]", j.1),
                format!(
                    "repeats {field}.edges[{}] (the edge {} {}, 1-based)",
                    j.0,
                    u + 1,
                    v + 1
                ),
            ));
        }
        if let Some(colours) = &self.colours
            && colours.len() != self.vertices as usize
        {
            return Err(SolveError::invalid(
                format!("{field}.colours"),
                format!(
                    "{} colours for {} vertices: give one per vertex",
                    colours.len(),
                    self.vertices
                ),
            ));
        }
        Ok(())
    }

    /// The colour number of `v`: 0 for every vertex of an uncoloured graph (so an uncoloured
    /// graph is the same as one whose colours are all 0).
    pub fn colour(&self, v: u32) -> u64 {
        self.colours.as_ref().map_or(0, |c| c[v as usize])
    }

    /// The neighbours of every vertex, as offsets into one array (compressed rows).
    ///
    /// Complexity: O(n + m).
    pub fn adjacency(&self) -> Adjacency {
        let n = self.vertices as usize;
        let mut offsets = vec![0u32; n + 1];
        for &(u, v) in &self.edges {
            offsets[u as usize + 1] += 1;
            offsets[v as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill: Vec<u32> = offsets[..n].to_vec();
        let mut neighbours = vec![0u32; 2 * self.edges.len()];
        for &(u, v) in &self.edges {
            neighbours[fill[u as usize] as usize] = v;
            fill[u as usize] += 1;
            neighbours[fill[v as usize] as usize] = u;
            fill[v as usize] += 1;
        }
        Adjacency {
            offsets,
            neighbours,
        }
    }
}

/// Compressed adjacency rows of an [`UndirectedGraph`] (each edge listed at both ends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjacency {
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    /// The neighbours of `v`, in input order.
    pub fn of(&self, v: u32) -> &[u32] {
        &self.neighbours[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }
}

/// The first edge (by index) that repeats an earlier one, as `((earlier, later), edge)`.
fn first_repeated_edge(edges: &[(u32, u32)]) -> Option<((usize, usize), (u32, u32))> {
    let mut keyed: Vec<(u32, u32, usize)> = edges
        .iter()
        .enumerate()
        .map(|(i, &(u, v))| (u.min(v), u.max(v), i))
        .collect();
    keyed.sort_unstable();
    keyed
        .windows(2)
        .filter(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        .map(|w| ((w[0].2, w[1].2), (w[0].0, w[0].1)))
        .min_by_key(|&((_, later), _)| later)
}
