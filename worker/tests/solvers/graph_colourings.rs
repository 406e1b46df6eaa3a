//! Colourings of a graph's vertices or edges up to its automorphisms, against Burnside's lemma
//! evaluated by brute force: the group from trying every vertex permutation (small graphs), or
//! the closure of the reported generators once each is checked to be an automorphism and the
//! closure has the published order (the buckminsterfullerene graph); and, for a content, orbits
//! of explicitly listed colourings.

use std::collections::{BTreeSet, HashSet};

use num_bigint::BigUint;
use orbit_worker::counting::{CountKind, CountProblem, solve_count};
use orbit_worker::graph::{GraphJob, UndirectedGraph, solve_graph};
use orbit_worker::{Limits, SolveContext, SolveError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::graph_symmetry::{
    brute_automorphisms, buckminsterfullerene, generalised_petersen, random_graph,
};

/// The permutation of the edges (by index) induced by a vertex permutation.
fn on_edges(g: &UndirectedGraph, p: &[u32]) -> Vec<u32> {
    let normal = |(u, v): (u32, u32)| (u.min(v), u.max(v));
    g.edges
        .iter()
        .map(|&(u, v)| {
            let image = normal((p[u as usize], p[v as usize]));
            g.edges.iter().position(|&e| normal(e) == image).unwrap() as u32
        })
        .collect()
}

fn cycles(p: &[u32]) -> u32 {
    let mut seen = vec![false; p.len()];
    let mut count = 0;
    for start in 0..p.len() {
        if !seen[start] {
            count += 1;
            let mut x = start;
            while !seen[x] {
                seen[x] = true;
                x = p[x] as usize;
            }
        }
    }
    count
}

/// Burnside: the average over the group of `k^(cycles)`.
fn burnside(group: &[Vec<u32>], k: u64) -> BigUint {
    let sum: BigUint = group.iter().map(|p| BigUint::from(k).pow(cycles(p))).sum();
    sum / BigUint::from(group.len())
}

/// Orbits of the colourings with the given content, by listing them all.
fn orbits_with_content(group: &[Vec<u32>], points: usize, content: &[u64]) -> usize {
    let mut colourings = vec![Vec::new()];
    for _ in 0..points {
        colourings = colourings
            .into_iter()
            .flat_map(|c: Vec<u8>| {
                (0..content.len() as u8).map(move |x| [c.clone(), vec![x]].concat())
            })
            .collect();
    }
    let mut orbits = HashSet::new();
    for c in colourings {
        let fits = (0..content.len())
            .all(|x| c.iter().filter(|&&y| y as usize == x).count() as u64 == content[x]);
        if !fits {
            continue;
        }
        let least = group
            .iter()
            .map(|p| {
                let mut image = vec![0u8; points];
                for i in 0..points {
                    image[p[i] as usize] = c[i];
                }
                image
            })
            .min()
            .unwrap();
        orbits.insert(least);
    }
    orbits.len()
}

fn count(graph: &UndirectedGraph, edges: bool, k: u64, content: Option<Vec<u64>>) -> BigUint {
    let problem = CountProblem::new(CountKind::GraphColourings {
        graph: graph.clone(),
        edges,
        k,
        content,
        cycle_index: false,
    });
    solve_count(&problem, &SolveContext::detached(), &Limits::default())
        .unwrap()
        .count
}

#[test]
fn random_graphs_match_brute_force_burnside() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for case in 0..60 {
        let n = rng.random_range(1..=7);
        let g = random_graph(
            &mut rng,
            n,
            [0.3, 0.6][case % 2],
            if case % 3 == 0 { 2 } else { 1 },
        );
        let group = brute_automorphisms(&g);
        for k in 1..=3 {
            assert_eq!(
                count(&g, false, k, None),
                burnside(&group, k),
                "{g:?} k={k}"
            );
            if !g.edges.is_empty() {
                let on_e: Vec<Vec<u32>> = group.iter().map(|p| on_edges(&g, p)).collect();
                assert_eq!(
                    count(&g, true, k, None),
                    burnside(&on_e, k),
                    "{g:?} edges k={k}"
                );
            }
        }
    }
}

#[test]
fn contents_match_listed_orbits() {
    let petersen = generalised_petersen(5, 2);
    let group = brute_automorphisms(&petersen);
    for content in [vec![5, 5], vec![3, 7], vec![2, 3, 5]] {
        let expected = orbits_with_content(&group, 10, &content);
        assert_eq!(
            count(&petersen, false, 0, Some(content.clone())),
            BigUint::from(expected),
            "{content:?}"
        );
    }
    let cube = UndirectedGraph {
        vertices: 8,
        edges: (0u32..8)
            .flat_map(|v| (0..3).map(move |b| (v, v ^ (1 << b))))
            .filter(|&(u, v)| u < v)
            .collect(),
        colours: None,
    };
    let group: Vec<Vec<u32>> = brute_automorphisms(&cube)
        .iter()
        .map(|p| on_edges(&cube, p))
        .collect();
    for content in [vec![6, 6], vec![4, 8], vec![3, 3, 6]] {
        let expected = orbits_with_content(&group, 12, &content);
        assert_eq!(
            count(&cube, true, 0, Some(content.clone())),
            BigUint::from(expected),
            "{content:?}"
        );
    }
}

#[test]
fn buckminsterfullerene_two_colourings_by_burnside_over_the_closure() {
    let c60 = buckminsterfullerene();
    let answer = solve_graph(
        &GraphJob { graph: c60.clone() },
        &SolveContext::detached(),
        &Limits::default(),
    )
    .unwrap();
    let edges: BTreeSet<(u32, u32)> = c60
        .edges
        .iter()
        .map(|&(u, v)| (u.min(v), u.max(v)))
        .collect();
    let generators: Vec<Vec<u32>> = answer
        .generators
        .iter()
        .map(|g| g.images(c60.vertices as usize))
        .collect();
    for g in &generators {
        assert!(c60.edges.iter().all(|&(u, v)| {
            let (a, b) = (g[u as usize], g[v as usize]);
            edges.contains(&(a.min(b), a.max(b)))
        }));
    }
    let identity: Vec<u32> = (0..60).collect();
    let mut group = vec![identity.clone()];
    let mut seen = HashSet::from([identity]);
    let mut i = 0;
    while i < group.len() {
        for g in &generators {
            let h: Vec<u32> = group[i].iter().map(|&x| g[x as usize]).collect();
            if seen.insert(h.clone()) {
                group.push(h);
            }
        }
        i += 1;
    }
    assert_eq!(group.len(), 120);
    let expected = burnside(&group, 2);
    assert_eq!(count(&c60, false, 2, None), expected);
    // The value quoted for the 2-colourings of the 60 carbon atoms under the full icosahedral
    // group (Pólya enumeration of C60 derivatives).
    assert_eq!(expected.to_string(), "9607679885269312");
    let on_e: Vec<Vec<u32>> = group.iter().map(|p| on_edges(&c60, p)).collect();
    assert_eq!(count(&c60, true, 2, None), burnside(&on_e, 2));
}

#[test]
fn bad_graphs_are_named_in_the_count_fields() {
    let loop_graph = UndirectedGraph {
        vertices: 2,
        edges: vec![(1, 1)],
        colours: None,
    };
    let problem = CountProblem::new(CountKind::GraphColourings {
        graph: loop_graph,
        edges: false,
        k: 2,
        content: None,
        cycle_index: false,
    });
    let e = solve_count(&problem, &SolveContext::detached(), &Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "count.graph_colourings.graph.edges[0]: a self-loop at vertex 1"
    );
    let empty = UndirectedGraph {
        vertices: 2,
        edges: vec![],
        colours: None,
    };
    let problem = CountProblem::new(CountKind::GraphColourings {
        graph: empty,
        edges: true,
        k: 2,
        content: None,
        cycle_index: false,
    });
    assert!(matches!(
        solve_count(&problem, &SolveContext::detached(), &Limits::default()),
        Err(SolveError::InvalidArgument { .. })
    ));
}
