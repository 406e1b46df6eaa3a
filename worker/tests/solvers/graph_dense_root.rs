//! Dense graphs whose root partition is discrete (almost every random dense graph), which the
//! job answers from its own equitable refinement without a search, against independent
//! oracles: colour refinement by its definition (1-dimensional Weisfeiler–Leman, run on several
//! graphs at once so that colours compare across them), the theorem that a graph whose
//! refinement is discrete has only the identity automorphism (McKay 1981, §2), brute force on
//! small graphs, relabelled copies (the map checked edge by edge), and degree-preserving edge
//! switches (equal degree sequences) that colour refinement tells apart.

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigUint;
use orbit_worker::graph::{
    CanonicalForm, GraphAnswer, GraphJob, UndirectedGraph, is_isomorphism,
    isomorphism_from_labellings, solve_graph,
};
use orbit_worker::{Limits, SolveContext};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::graph_symmetry::{brute_automorphisms, random_graph, relabel};

fn solve(g: &UndirectedGraph) -> GraphAnswer {
    solve_graph(
        &GraphJob { graph: g.clone() },
        &SolveContext::detached(),
        &Limits::default(),
    )
    .unwrap()
}

/// Position → vertex from vertex → position.
fn labelling(labels: &[u32]) -> Vec<u32> {
    let mut order = vec![0u32; labels.len()];
    for (v, &l) in labels.iter().enumerate() {
        order[l as usize] = v as u32;
    }
    order
}

/// Colour refinement by its definition, on several graphs at once (their disjoint union): a
/// vertex's colour starts as its colour number, and each round becomes the rank of (its colour,
/// the sorted colours of its neighbours) among every vertex's; rounds stop when the number of
/// colours stops growing. Returns each graph's stable colours, comparable across the graphs.
fn colour_refinement(graphs: &[&UndirectedGraph]) -> Vec<Vec<usize>> {
    let neighbours: Vec<Vec<Vec<u32>>> = graphs
        .iter()
        .map(|g| {
            let mut lists = vec![Vec::new(); g.vertices as usize];
            for &(u, v) in &g.edges {
                lists[u as usize].push(v);
                lists[v as usize].push(u);
            }
            lists
        })
        .collect();
    let mut colours: Vec<Vec<usize>> = graphs
        .iter()
        .map(|g| (0..g.vertices).map(|v| g.colour(v) as usize).collect())
        .collect();
    let mut distinct = usize::MAX;
    loop {
        let signatures: Vec<Vec<(usize, Vec<usize>)>> = colours
            .iter()
            .zip(&neighbours)
            .map(|(own, lists)| {
                own.iter()
                    .zip(lists)
                    .map(|(&c, list)| {
                        let mut around: Vec<usize> =
                            list.iter().map(|&w| own[w as usize]).collect();
                        around.sort_unstable();
                        (c, around)
                    })
                    .collect()
            })
            .collect();
        let ranks: BTreeMap<&(usize, Vec<usize>), usize> = signatures
            .iter()
            .flatten()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .enumerate()
            .map(|(rank, s)| (s, rank))
            .collect();
        let renamed: Vec<Vec<usize>> = signatures
            .iter()
            .map(|list| list.iter().map(|s| ranks[s]).collect())
            .collect();
        let now = ranks.len();
        colours = renamed;
        if now == distinct {
            return colours;
        }
        distinct = now;
    }
}

/// Whether colour refinement gives every vertex of `g` its own colour.
fn refines_to_discrete(g: &UndirectedGraph) -> bool {
    let colours = &colour_refinement(&[g])[0];
    colours.iter().collect::<BTreeSet<_>>().len() == colours.len()
}

/// Whether colour refinement tells `a` and `b` apart (then they are not isomorphic).
fn refinement_separates(a: &UndirectedGraph, b: &UndirectedGraph) -> bool {
    let colours = colour_refinement(&[a, b]);
    let histogram = |c: &[usize]| {
        let mut c = c.to_vec();
        c.sort_unstable();
        c
    };
    histogram(&colours[0]) != histogram(&colours[1])
}

/// `g` with the edges `{a, b}` and `{c, d}` replaced by `{a, c}` and `{b, d}`, for a random
/// choice where that keeps the graph simple (`a` = `at` if given): every degree stays the same.
fn switch_two_edges(g: &UndirectedGraph, at: Option<u32>, rng: &mut ChaCha8Rng) -> UndirectedGraph {
    let normal = |(u, v): (u32, u32)| (u.min(v), u.max(v));
    let mut edges: BTreeSet<(u32, u32)> = g.edges.iter().copied().map(normal).collect();
    loop {
        let (mut a, mut b) = g.edges[rng.random_range(0..g.edges.len())];
        if b == at.unwrap_or(a) {
            (a, b) = (b, a);
        }
        if at.is_some_and(|at| a != at) {
            continue;
        }
        let (c, d) = g.edges[rng.random_range(0..g.edges.len())];
        let ends: BTreeSet<u32> = [a, b, c, d].into();
        if ends.len() < 4 || edges.contains(&normal((a, c))) || edges.contains(&normal((b, d))) {
            continue;
        }
        edges.remove(&normal((a, b)));
        edges.remove(&normal((c, d)));
        edges.insert(normal((a, c)));
        edges.insert(normal((b, d)));
        let mut edges: Vec<(u32, u32)> = edges.into_iter().collect();
        edges.shuffle(rng);
        return UndirectedGraph {
            vertices: g.vertices,
            edges,
            colours: g.colours.clone(),
        };
    }
}

/// `g` with one more vertex, a twin of vertex 0 (the same neighbours, not adjacent to it): the
/// transposition of the two is an automorphism, so the root partition is not discrete.
fn with_a_twin_of_vertex_zero(g: &UndirectedGraph) -> UndirectedGraph {
    let twin = g.vertices;
    let mut edges = g.edges.clone();
    for &(u, v) in &g.edges {
        if u == 0 {
            edges.push((v, twin));
        } else if v == 0 {
            edges.push((u, twin));
        }
    }
    UndirectedGraph {
        vertices: twin + 1,
        edges,
        colours: g.colours.as_ref().map(|c| {
            let mut c = c.clone();
            c.push(c[0]);
            c
        }),
    }
}

/// A relabelled copy gets the same certificate, the labellings give an isomorphism (checked on
/// the edge lists), and the certificate is the graph relabelled by its own labelling.
fn check_relabelled_copy(g: &UndirectedGraph, rng: &mut ChaCha8Rng) -> GraphAnswer {
    let mut image: Vec<u32> = (0..g.vertices).collect();
    image.shuffle(rng);
    let copy = relabel(g, &image);
    let (a, b) = (solve(g), solve(&copy));
    let (la, lb) = (
        labelling(&a.canonical_labels),
        labelling(&b.canonical_labels),
    );
    assert_eq!(a.canonical_form, CanonicalForm::new(g, &la));
    assert_eq!(b.canonical_form, CanonicalForm::new(&copy, &lb));
    assert_eq!(
        a.canonical_form, b.canonical_form,
        "{} vertices",
        g.vertices
    );
    assert!(is_isomorphism(
        g,
        &copy,
        &isomorphism_from_labellings(&la, &lb)
    ));
    assert_eq!(a.order, b.order);
    a
}

#[test]
fn a_discrete_refinement_means_the_identity_alone_and_small_cases_agree_with_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(90);
    let mut discrete = 0;
    for round in 0..120 {
        let n = rng.random_range(6..=9u32);
        let g = random_graph(&mut rng, n, [0.3, 0.5][round % 2], [1, 2][round % 3 / 2]);
        let answer = solve(&g);
        let group = brute_automorphisms(&g);
        assert_eq!(answer.order, BigUint::from(group.len()), "{g:?}");
        if refines_to_discrete(&g) {
            discrete += 1;
            assert_eq!(group.len(), 1, "{g:?}");
            assert!(answer.generators.is_empty());
        }
        check_relabelled_copy(&g, &mut rng);
    }
    assert!(discrete >= 10, "only {discrete} discrete cases");
    for (n, density, colours) in [(60, 0.5, 1), (200, 0.5, 1), (500, 0.5, 1), (300, 0.3, 3)] {
        let g = random_graph(&mut rng, n, density, colours);
        assert!(refines_to_discrete(&g), "G({n}, {density})");
        let answer = check_relabelled_copy(&g, &mut rng);
        assert_eq!(answer.order, BigUint::from(1u32));
        assert!(answer.generators.is_empty());
        assert_eq!(answer.orbits.len(), n as usize);
    }
}

#[test]
fn relabelled_dense_and_sparse_ish_graphs_share_their_certificate() {
    let mut rng = ChaCha8Rng::seed_from_u64(91);
    // Sparse-ish graphs of at most 64 vertices and graphs of average degree over 16 take the
    // dense search; with a twin vertex the root is never discrete.
    for (n, density, colours) in [
        (40, 0.08, 1),
        (64, 0.05, 2),
        (64, 0.15, 1),
        (150, 0.15, 1),
        (200, 0.5, 2),
        (400, 0.5, 1),
        (700, 0.5, 1),
    ] {
        let g = random_graph(&mut rng, n, density, colours);
        check_relabelled_copy(&g, &mut rng);
        let twin = with_a_twin_of_vertex_zero(&g);
        assert!(!refines_to_discrete(&twin));
        let answer = check_relabelled_copy(&twin, &mut rng);
        assert!(answer.order >= BigUint::from(2u32));
    }
}

#[test]
fn degree_preserving_switches_change_the_certificate() {
    let mut rng = ChaCha8Rng::seed_from_u64(92);
    let (mut separated, mut across) = (0, 0);
    for round in 0..40 {
        let n = [30, 80, 150, 300][round % 4];
        let base = random_graph(&mut rng, n, 0.5, 1 + (round % 3 == 0) as u64);
        // Half the pairs start from a graph with a twin of vertex 0 (searched by canonaut): a
        // switch at vertex 0 breaks the twin, so the two graphs take different ways through
        // the job.
        let (a, at) = if round % 2 == 0 {
            (with_a_twin_of_vertex_zero(&base), Some(0))
        } else {
            (base, None)
        };
        let b = switch_two_edges(&a, at, &mut rng);
        if !refinement_separates(&a, &b) {
            continue;
        }
        separated += 1;
        across += usize::from(refines_to_discrete(&a) != refines_to_discrete(&b));
        assert_ne!(
            solve(&a).canonical_form,
            solve(&b).canonical_form,
            "round {round}"
        );
    }
    assert!(separated >= 30, "only {separated} pairs separated");
    assert!(across >= 5, "only {across} pairs across the two ways");
}
