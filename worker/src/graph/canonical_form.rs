//! The canonical form of a graph under a canonical labelling: the certificate that decides
//! isomorphism, and the isomorphism it yields.

use super::undirected_graph::UndirectedGraph;

/// A graph relabelled canonically: vertex `labelling[i]` becomes `i`. Two graphs are isomorphic
/// (colour numbers respected) exactly when their canonical forms are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CanonicalForm {
    /// Number of vertices.
    pub vertices: u32,
    /// The relabelled edges `(a, b)`, `a < b`, sorted.
    pub edges: Vec<(u32, u32)>,
    /// The colour of canonical vertex `i` (0 for every vertex of an uncoloured graph).
    pub colours: Vec<u64>,
}

impl CanonicalForm {
    /// The form from the canonically relabelled edges (`(a, b)`, `a < b`, sorted) the search
    /// read off its canonical matrix, and the colours in canonical order.
    ///
    /// Complexity: O(n).
    pub fn from_search(
        graph: &UndirectedGraph,
        labelling: &[u32],
        edges: Vec<(u32, u32)>,
    ) -> CanonicalForm {
        CanonicalForm {
            vertices: graph.vertices,
            edges,
            colours: labelling.iter().map(|&v| graph.colour(v)).collect(),
        }
    }
}

/// The inverse of a labelling: `labels[v]` is the canonical position of vertex `v`.
///
/// Complexity: O(n).
///
/// ```
/// assert_eq!(orbit_worker::graph::canonical_labels(&[2, 0, 1]), vec![1, 2, 0]);
/// ```
pub fn canonical_labels(labelling: &[u32]) -> Vec<u32> {
    let mut labels = vec![0u32; labelling.len()];
    for (position, &v) in labelling.iter().enumerate() {
        labels[v as usize] = position as u32;
    }
    labels
}

impl CanonicalForm {
    /// The form of `graph` under `labelling` (position → vertex, a permutation of its vertices).
    ///
    /// Complexity: O(n + m log m).
    ///
    /// ```
    /// use orbit_worker::graph::{CanonicalForm, UndirectedGraph};
    /// let g = UndirectedGraph { vertices: 3, edges: vec![(0, 2)], colours: None };
    /// assert_eq!(CanonicalForm::new(&g, &[1, 0, 2]).edges, vec![(1, 2)]);
    /// ```
    ///
    /// Reference: McKay, "Practical graph isomorphism" (1981), §2 (canonical labellings).
    pub fn new(graph: &UndirectedGraph, labelling: &[u32]) -> CanonicalForm {
        let labels = canonical_labels(labelling);
        let mut edges: Vec<(u32, u32)> = graph
            .edges
            .iter()
            .map(|&(u, v)| {
                let (a, b) = (labels[u as usize], labels[v as usize]);
                (a.min(b), a.max(b))
            })
            .collect();
        edges.sort_unstable();
        let colours = labelling.iter().map(|&v| graph.colour(v)).collect();
        CanonicalForm {
            vertices: graph.vertices,
            edges,
            colours,
        }
    }
}

/// The isomorphism from graph A to graph B given canonical labellings with equal forms: the
/// image of vertex `labelling_a[i]` is `labelling_b[i]`.
///
/// Complexity: O(n).
///
/// ```
/// assert_eq!(orbit_worker::graph::isomorphism_from_labellings(&[1, 0], &[0, 1]), vec![1, 0]);
/// ```
pub fn isomorphism_from_labellings(labelling_a: &[u32], labelling_b: &[u32]) -> Vec<u32> {
    let mut image = vec![0u32; labelling_a.len()];
    for (&a, &b) in labelling_a.iter().zip(labelling_b) {
        image[a as usize] = b;
    }
    image
}

/// Whether `image` (vertex of A → vertex of B) is an isomorphism of A onto B: a bijection that
/// maps the edges of A onto those of B and keeps colour numbers. The independent check of an
/// answer (it does not use the search).
///
/// Complexity: O(n + m log m).
///
/// ```
/// use orbit_worker::graph::{UndirectedGraph, is_isomorphism};
/// let a = UndirectedGraph { vertices: 3, edges: vec![(0, 1)], colours: None };
/// let b = UndirectedGraph { vertices: 3, edges: vec![(1, 2)], colours: None };
/// assert!(is_isomorphism(&a, &b, &[1, 2, 0]));
/// assert!(!is_isomorphism(&a, &b, &[0, 1, 2]));
/// ```
pub fn is_isomorphism(a: &UndirectedGraph, b: &UndirectedGraph, image: &[u32]) -> bool {
    if a.vertices != b.vertices || a.edges.len() != b.edges.len() {
        return false;
    }
    if image.len() != a.vertices as usize {
        return false;
    }
    let mut hit = vec![false; image.len()];
    for &x in image {
        if x >= b.vertices || std::mem::replace(&mut hit[x as usize], true) {
            return false;
        }
    }
    if (0..a.vertices).any(|v| a.colour(v) != b.colour(image[v as usize])) {
        return false;
    }
    let normal = |(u, v): (u32, u32)| (u.min(v), u.max(v));
    let mut mapped: Vec<(u32, u32)> = a
        .edges
        .iter()
        .map(|&(u, v)| normal((image[u as usize], image[v as usize])))
        .collect();
    let mut target: Vec<(u32, u32)> = b.edges.iter().copied().map(normal).collect();
    mapped.sort_unstable();
    target.sort_unstable();
    mapped == target
}
