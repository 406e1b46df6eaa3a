//! The sparse search (`sparse_search`, called directly) against independent oracles: brute force
//! over every vertex permutation (seeded random graphs up to 8 vertices, coloured or not),
//! Schreier–Sims on its generators, the dense search's orders and isomorphism verdicts, and
//! orders by formula: grids, cycles, prisms, random trees (by AHU encoding), Petersen, cube,
//! buckminsterfullerene, Paley.

use std::collections::{BTreeMap, HashMap};

use num_bigint::BigUint;
use orbit_worker::graph::{
    CanonicalForm, SparseSearchOptions, SparseSearchResult, UndirectedGraph, dense_search,
    is_isomorphism, isomorphism_from_labellings, order_from_search, sparse_search,
    sparse_search_with,
};
use orbit_worker::group::{Perm, PermGroup};
use orbit_worker::{Limits, SolveContext};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::graph_symmetry::{
    brute_automorphisms, brute_canonical_code, brute_orbits, buckminsterfullerene,
    generalised_petersen, graph, hypercube, paley_prime, random_graph, relabel,
};

fn search(g: &UndirectedGraph) -> SparseSearchResult {
    sparse_search(g, &SolveContext::detached(), u64::MAX).unwrap()
}

fn form(g: &UndirectedGraph, found: &SparseSearchResult) -> CanonicalForm {
    CanonicalForm::new(g, &found.labelling)
}

/// The orbits as sorted lists ordered by least vertex, from `orbit_of`.
fn orbits(found: &SparseSearchResult) -> Vec<Vec<u32>> {
    let mut by_least: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (v, &r) in found.orbit_of.iter().enumerate() {
        by_least.entry(r).or_default().push(v as u32);
    }
    by_least.into_values().collect()
}

/// Every generator is an automorphism (by the edge set, independently of the search).
fn check_generators(g: &UndirectedGraph, found: &SparseSearchResult) {
    for generator in &found.generators {
        let images = generator.images(g.vertices as usize);
        assert!(is_isomorphism(g, g, &images), "{g:?}: {generator:?}");
    }
}

fn schreier_sims_order(g: &UndirectedGraph, found: &SparseSearchResult) -> BigUint {
    if found.generators.is_empty() {
        return BigUint::from(1u32);
    }
    let n = g.vertices as usize;
    let perms: Vec<Perm> = found
        .generators
        .iter()
        .map(|s| Perm::from_images(s.images(n), "g").unwrap())
        .collect();
    PermGroup::new(n, perms, &SolveContext::detached(), &Limits::default())
        .unwrap()
        .order()
}

fn shuffled(rng: &mut ChaCha8Rng, g: &UndirectedGraph) -> (UndirectedGraph, Vec<u32>) {
    let mut image: Vec<u32> = (0..g.vertices).collect();
    image.shuffle(rng);
    (relabel(g, &image), image)
}

/// A relabelled copy has the same canonical form, and the isomorphism the labellings give checks.
fn check_relabelled_copy(g: &UndirectedGraph, rng: &mut ChaCha8Rng) {
    let found = search(g);
    let (copy, _) = shuffled(rng, g);
    let copy_found = search(&copy);
    assert_eq!(form(g, &found), form(&copy, &copy_found), "{g:?}");
    assert_eq!(found.order, copy_found.order);
    let map = isomorphism_from_labellings(&found.labelling, &copy_found.labelling);
    assert!(is_isomorphism(g, &copy, &map), "{g:?}");
}

#[test]
fn random_graphs_up_to_eight_vertices_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1801);
    for case in 0..600 {
        let n = rng.random_range(1..=8);
        let density = [0.15, 0.3, 0.5, 0.7, 0.9][case % 5];
        let colours = if case % 3 == 0 { 3 } else { 1 };
        let g = random_graph(&mut rng, n, density, colours);
        let found = search(&g);
        let group = brute_automorphisms(&g);
        assert_eq!(found.order, BigUint::from(group.len()), "{g:?}");
        assert_eq!(orbits(&found), brute_orbits(n, &group), "{g:?}");
        check_generators(&g, &found);
        assert_eq!(schreier_sims_order(&g, &found), found.order, "{g:?}");
        check_relabelled_copy(&g, &mut rng);
    }
}

#[test]
fn canonical_forms_separate_isomorphism_classes_like_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1802);
    // Many random graphs on 6 vertices with 6 or 7 edges: pairs are isomorphic exactly when
    // their brute-force codes agree.
    let mut by_form: HashMap<CanonicalForm, (Vec<u64>, u64)> = HashMap::new();
    let mut codes: HashMap<(Vec<u64>, u64), CanonicalForm> = HashMap::new();
    for _ in 0..400 {
        let g = random_graph(&mut rng, 6, 0.45, 1);
        let f = form(&g, &search(&g));
        let code = brute_canonical_code(&g);
        if let Some(c) = by_form.get(&f) {
            assert_eq!(*c, code, "{g:?}");
        }
        if let Some(other) = codes.get(&code) {
            assert_eq!(*other, f, "{g:?}");
        }
        by_form.insert(f.clone(), code.clone());
        codes.insert(code, f);
    }
    assert!(codes.len() > 20);
}

/// A random tree on `n` vertices (a random parent among the earlier vertices, relabelled).
fn random_tree(rng: &mut ChaCha8Rng, n: u32) -> UndirectedGraph {
    let edges = (1..n).map(|v| (rng.random_range(0..v), v));
    let g = graph(n, edges);
    shuffled(rng, &g).0
}

/// `|Aut(T)|` of a tree by AHU encoding: rooted at its centre (or the edge of its bicentre),
/// the product over vertices of the factorials of the multiplicities of isomorphic child
/// subtrees, times 2 when the two halves of a bicentre are isomorphic.
fn tree_automorphisms(g: &UndirectedGraph) -> BigUint {
    let n = g.vertices as usize;
    let mut adjacency = vec![Vec::new(); n];
    for &(u, v) in &g.edges {
        adjacency[u as usize].push(v as usize);
        adjacency[v as usize].push(u as usize);
    }
    if n <= 1 {
        return BigUint::from(1u32);
    }
    // The centre: peel leaves.
    let mut degree: Vec<usize> = adjacency.iter().map(Vec::len).collect();
    let mut layer: Vec<usize> = (0..n).filter(|&v| degree[v] <= 1).collect();
    let mut left = n;
    while left > 2 {
        left -= layer.len();
        let mut next = Vec::new();
        for &v in &layer {
            for &w in &adjacency[v] {
                degree[w] -= 1;
                if degree[w] == 1 {
                    next.push(w);
                }
            }
        }
        layer = next;
    }
    let mut codes: HashMap<Vec<usize>, usize> = HashMap::new();
    let mut order = BigUint::from(1u32);
    // Iterative post-order code of the subtree at `root` away from `parent`.
    let mut encode = |root: usize, parent: usize, order: &mut BigUint| -> usize {
        let mut stack = vec![(root, parent, false)];
        let mut code = vec![0usize; n];
        while let Some((v, p, done)) = stack.pop() {
            if !done {
                stack.push((v, p, true));
                for &w in &adjacency[v] {
                    if w != p {
                        stack.push((w, v, false));
                    }
                }
            } else {
                let mut children: Vec<usize> = adjacency[v]
                    .iter()
                    .filter(|&&w| w != p)
                    .map(|&w| code[w])
                    .collect();
                children.sort_unstable();
                let mut i = 0;
                while i < children.len() {
                    let mut j = i;
                    while j < children.len() && children[j] == children[i] {
                        j += 1;
                    }
                    for f in 2..=(j - i) {
                        *order *= f as u32;
                    }
                    i = j;
                }
                let len = codes.len();
                code[v] = *codes.entry(children).or_insert(len);
            }
        }
        code[root]
    };
    if layer.len() == 1 {
        encode(layer[0], usize::MAX, &mut order);
    } else {
        let (a, b) = (layer[0], layer[1]);
        let ca = encode(a, b, &mut order);
        let cb = encode(b, a, &mut order);
        if ca == cb {
            order *= 2u32;
        }
    }
    order
}

#[test]
fn random_trees_have_the_ahu_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(1803);
    for case in 0..120 {
        let n = [2, 3, 5, 9, 17, 40, 100, 300, 1000][case % 9];
        let g = random_tree(&mut rng, n);
        let found = search(&g);
        assert_eq!(found.order, tree_automorphisms(&g), "{g:?}");
        check_generators(&g, &found);
        if n <= 100 {
            assert_eq!(schreier_sims_order(&g, &found), found.order);
            check_relabelled_copy(&g, &mut rng);
        }
    }
    // Symmetric trees: a complete binary tree of depth 6 (2^(2^6 - 1)), a star.
    let binary = graph(127, (1..127).map(|v| ((v - 1) / 2, v)));
    assert_eq!(search(&binary).order, BigUint::from(2u32).pow(63));
    let star = graph(12, (1..12).map(|v| (0, v)));
    let factorial_11: BigUint = (1..=11u32).map(BigUint::from).product();
    assert_eq!(search(&star).order, factorial_11);
}

fn grid(a: u32, b: u32) -> UndirectedGraph {
    let id = |i: u32, j: u32| i * b + j;
    let mut edges = Vec::new();
    for i in 0..a {
        for j in 0..b {
            if i + 1 < a {
                edges.push((id(i, j), id(i + 1, j)));
            }
            if j + 1 < b {
                edges.push((id(i, j), id(i, j + 1)));
            }
        }
    }
    graph(a * b, edges)
}

#[test]
fn known_families_have_their_orders() {
    let mut rng = ChaCha8Rng::seed_from_u64(1804);
    let mut cases: Vec<(UndirectedGraph, u64)> = Vec::new();
    for (a, b) in [(2, 3), (3, 3), (4, 7), (10, 10), (13, 31), (40, 40)] {
        cases.push((grid(a, b), if a == b { 8 } else { 4 }));
    }
    for n in [3u32, 4, 7, 50, 501] {
        cases.push((graph(n, (0..n).map(|i| (i, (i + 1) % n))), 2 * u64::from(n)));
    }
    for n in [5u32, 6, 11, 40] {
        // The prism C_n × K_2 (n ≠ 4): the dihedral group times the swap.
        cases.push((generalised_petersen(n, 1), 4 * u64::from(n)));
    }
    cases.push((generalised_petersen(5, 2), 120));
    cases.push((generalised_petersen(10, 3), 240)); // Desargues graph
    cases.push((hypercube(3), 48));
    cases.push((hypercube(5), 3840));
    cases.push((buckminsterfullerene(), 120));
    cases.push((paley_prime(13), 13 * 6 * 2 / 2));
    cases.push((paley_prime(29), 29 * 14));
    for (g, order) in cases {
        let found = search(&g);
        assert_eq!(found.order, BigUint::from(order), "{} vertices", g.vertices);
        check_generators(&g, &found);
        assert_eq!(schreier_sims_order(&g, &found), found.order);
        check_relabelled_copy(&g, &mut rng);
    }
}

#[test]
fn random_graphs_agree_with_the_dense_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(1805);
    for case in 0..60 {
        let n = rng.random_range(10..=300);
        let density = [0.02, 0.05, 0.1, 0.3][case % 4];
        // Some symmetry: half of the cases are two copies of one random graph plus a bridge-free
        // union, so the group is not trivial.
        let base = random_graph(&mut rng, n / 2, density, if case % 5 == 0 { 2 } else { 1 });
        let g = if case % 2 == 0 {
            let half = base.vertices;
            let mut edges = base.edges.clone();
            edges.extend(base.edges.iter().map(|&(u, v)| (u + half, v + half)));
            let colours = base
                .colours
                .as_ref()
                .map(|c| [c.clone(), c.clone()].concat());
            shuffled(
                &mut rng,
                &UndirectedGraph {
                    vertices: 2 * half,
                    edges,
                    colours,
                },
            )
            .0
        } else {
            random_graph(&mut rng, n, density, 1)
        };
        let found = search(&g);
        let dense = dense_search(&g, &SolveContext::detached(), u64::MAX).unwrap();
        let images: Vec<&[u32]> = dense.generators.iter().map(Perm::images).collect();
        let dense_order = order_from_search(g.vertices as usize, &images, &dense.stabilised);
        assert_eq!(found.order, dense_order, "case {case}");
        check_generators(&g, &found);
        // Isomorphism verdicts: a relabelled copy is isomorphic; the graph with one edge moved
        // is isomorphic exactly when the dense search says so.
        check_relabelled_copy(&g, &mut rng);
        if let Some(&(u, _)) = g.edges.first() {
            let mut other = g.clone();
            let w = (0..g.vertices)
                .find(|&w| w != u && !g.edges.iter().any(|&e| e == (u, w) || e == (w, u)));
            if let Some(w) = w {
                other.edges[0] = (u, w);
                let sparse_same = form(&g, &found) == form(&other, &search(&other));
                let d = dense_search(&other, &SolveContext::detached(), u64::MAX).unwrap();
                let dense_same = CanonicalForm::new(&g, &dense.labelling)
                    == CanonicalForm::new(&other, &d.labelling);
                assert_eq!(sparse_same, dense_same, "case {case}");
            }
        }
    }
}

#[test]
fn non_isomorphic_graphs_with_equal_degree_sequences_differ() {
    let c6 = graph(6, (0..6).map(|i| (i, (i + 1) % 6)));
    let triangles = graph(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]);
    let k33 = graph(6, (0..3).flat_map(|i| (3..6).map(move |j| (i, j))));
    let prism = generalised_petersen(3, 1);
    let cube = hypercube(3);
    let moebius = graph(
        8,
        (0..8)
            .map(|i| (i, (i + 1) % 8))
            .chain((0..4).map(|i| (i, i + 4))),
    );
    let c100 = graph(100, (0..100).map(|i| (i, (i + 1) % 100)));
    let two_c50 = graph(
        100,
        (0..100).map(|i| (i, if i % 50 == 49 { i - 49 } else { i + 1 })),
    );
    for (a, b) in [
        (c6, triangles),
        (k33, prism),
        (generalised_petersen(5, 2), generalised_petersen(5, 1)),
        (cube, moebius),
        (c100, two_c50),
    ] {
        assert_ne!(form(&a, &search(&a)), form(&b, &search(&b)));
    }
}

#[test]
fn generators_of_a_star_are_sparse() {
    // K_{1,2000}: every generator moves few points (a tree's group is a product of symmetric
    // groups of leaves).
    let star = graph(2001, (1..2001).map(|v| (0, v)));
    let found = search(&star);
    let factorial: BigUint = (1..=2000u32).map(BigUint::from).product();
    assert_eq!(found.order, factorial);
    let support: usize = found.generators.iter().map(|g| g.moved().len()).sum();
    assert!(support <= 4 * 2000, "{support}");
}

#[test]
fn a_cancelled_sparse_search_stops() {
    let flag = orbit_worker::CancelFlag::new();
    flag.cancel();
    let ctx = SolveContext::new(flag, None);
    assert_eq!(
        sparse_search(&grid(50, 50), &ctx, u64::MAX),
        Err(orbit_worker::SolveError::Cancelled)
    );
}

#[test]
fn a_grid_of_ten_to_the_five_vertices_through_the_job() {
    // The 320 x 320 grid (102,400 vertices): beyond the dense search's range, answered by the
    // sparse one with order 8, (160^2 - 160) / 2 orbits of 8 plus 160 of 4 on the diagonals.
    let g = grid(320, 320);
    let job = orbit_worker::graph::GraphJob { graph: g.clone() };
    let answer =
        orbit_worker::graph::solve_graph(&job, &SolveContext::detached(), &Limits::default())
            .unwrap();
    assert_eq!(answer.order, BigUint::from(8u32));
    assert_eq!(answer.orbits.len(), (160 * 160 - 160) / 2 + 160);
    let adjacency = orbit_worker::graph::SparseAdjacency::new(g.vertices as usize, &g.edges);
    for generator in &answer.generators {
        assert!(generator.is_automorphism_of(&adjacency));
    }
    // The memory estimate is that of the sparse search (tens of MiB, not the bit matrix's
    // gigabytes).
    let estimate = orbit_worker::graph::graph_memory_estimate(&job, &Limits::default());
    assert!(estimate < 256 << 20, "{estimate}");
}

/// The Cai–Fürer–Immerman graph over a cubic `base` graph (4 middle vertices per base vertex,
/// one per even subset of its edges, and two end vertices per incident edge), with the ends of
/// base edge `twisted` crossed: graphs that colour refinement cannot tell apart, whose searches
/// find many leaves with equal traces (Cai, Fürer and Immerman, Combinatorica 12 (1992)).
fn cfi_graph(base: &[(u32, u32)], vertices: u32, twisted: Option<usize>) -> UndirectedGraph {
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); vertices as usize];
    for (i, &(u, v)) in base.iter().enumerate() {
        incident[u as usize].push(i);
        incident[v as usize].push(i);
    }
    let mut ids: HashMap<(u32, usize, u32), u32> = HashMap::new();
    let mut next = 0u32;
    let mut id = |key: (u32, usize, u32)| {
        *ids.entry(key).or_insert_with(|| {
            next += 1;
            next - 1
        })
    };
    let mut edges = Vec::new();
    for v in 0..vertices {
        for mask in (0u32..8).filter(|m| m.count_ones() % 2 == 0) {
            // Middle vertices keyed by edge index usize::MAX.
            let middle = id((v, usize::MAX, mask));
            for (j, &e) in incident[v as usize].iter().enumerate() {
                edges.push((middle, id((v, e, (mask >> j) & 1))));
            }
        }
    }
    for (i, &(u, v)) in base.iter().enumerate() {
        for b in 0..2 {
            let cross = u32::from(twisted == Some(i));
            edges.push((id((u, i, b)), id((v, i, b ^ cross))));
        }
    }
    UndirectedGraph {
        vertices: vertices * 10,
        edges,
        colours: None,
    }
}

/// A random simple cubic graph on `n` (even) vertices, by the configuration model with retries.
fn random_cubic(rng: &mut ChaCha8Rng, n: u32) -> Vec<(u32, u32)> {
    loop {
        let mut points: Vec<u32> = (0..n).flat_map(|v| [v, v, v]).collect();
        points.shuffle(rng);
        let edges: Vec<(u32, u32)> = points.chunks(2).map(|p| (p[0], p[1])).collect();
        let mut seen = std::collections::HashSet::new();
        if edges
            .iter()
            .all(|&(u, v)| u != v && seen.insert((u.min(v), u.max(v))))
        {
            return edges;
        }
    }
}

/// CFI graphs over random cubic graphs of 6–30 vertices (60–300 vertices): the order agrees with
/// the dense search's (nauty's algorithm, an independent implementation) and with Schreier–Sims
/// on the generators, every generator is an automorphism, a relabelled copy has the same
/// canonical form, and the twisted graph (not isomorphic) a different one.
#[test]
fn cfi_graphs_agree_with_the_dense_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(1992);
    for case in 0..12 {
        let n = 6 + 2 * (case % 13);
        let base = random_cubic(&mut rng, n);
        let g = cfi_graph(&base, n, None);
        let found = search(&g);
        let dense = dense_search(&g, &SolveContext::detached(), u64::MAX).unwrap();
        let images: Vec<&[u32]> = dense.generators.iter().map(Perm::images).collect();
        let dense_order = order_from_search(g.vertices as usize, &images, &dense.stabilised);
        assert_eq!(found.order, dense_order, "case {case}");
        assert_eq!(schreier_sims_order(&g, &found), found.order, "case {case}");
        check_generators(&g, &found);
        check_relabelled_copy(&g, &mut rng);
        let twisted = cfi_graph(&base, n, Some(0));
        assert_ne!(
            form(&g, &found),
            form(&twisted, &search(&twisted)),
            "case {case}: CFI graphs are told apart"
        );
    }
}

/// A random connected simple cubic graph on `n` (even) vertices.
fn random_connected_cubic(rng: &mut ChaCha8Rng, n: u32) -> Vec<(u32, u32)> {
    loop {
        let edges = random_cubic(rng, n);
        let mut parent: Vec<u32> = (0..n).collect();
        fn root(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                x = parent[x as usize];
            }
            x
        }
        for &(u, v) in &edges {
            let (a, b) = (root(&mut parent, u), root(&mut parent, v));
            parent[a as usize] = b;
        }
        let root0 = root(&mut parent, 0);
        if (0..n).all(|v| root(&mut parent, v) == root0) {
            return edges;
        }
    }
}

/// The automorphism group order by the dense search (nauty's algorithm, independent of the
/// sparse search).
fn dense_order(g: &UndirectedGraph) -> BigUint {
    let dense = dense_search(g, &SolveContext::detached(), u64::MAX).unwrap();
    let images: Vec<&[u32]> = dense.generators.iter().map(Perm::images).collect();
    order_from_search(g.vertices as usize, &images, &dense.stabilised)
}

/// The order the CFI graph over a connected cubic base graph of `n` vertices and `m = 3n/2`
/// edges should have: `2^(m - n + 1)` (flipping the ends along any even subgraph of the base,
/// its cycle space) times the base graph's order (its automorphisms lift), the base's by the
/// dense search.
fn cfi_order_by_formula(base: &[(u32, u32)], n: u32) -> BigUint {
    let base_graph = graph(n, base.iter().copied());
    let cycle_space = base.len() as u32 - n + 1;
    (BigUint::from(1u32) << cycle_space) * dense_order(&base_graph)
}

/// The CFI order formula, checked against the dense search on small connected bases (60–240
/// vertices) before the test below relies on it.
#[test]
fn cfi_order_formula_agrees_with_the_dense_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(1982);
    for case in 0..10 {
        let n = 6 + 2 * case;
        let base = random_connected_cubic(&mut rng, n);
        let g = cfi_graph(&base, n, None);
        assert_eq!(
            dense_order(&g),
            cfi_order_by_formula(&base, n),
            "case {case}: base {base:?}"
        );
    }
}

/// Larger CFI graphs (500 to 2,000 vertices, out of the old direct automorphism search's reach):
/// the order by the formula and by Schreier–Sims on the generators, every generator an
/// automorphism that joined orbits when found (so at most `n - orbits` of them), the same
/// canonical form for a relabelled copy and a different one for the twisted graph.
#[test]
fn larger_cfi_graphs_have_the_order_by_formula_and_few_generators() {
    let mut rng = ChaCha8Rng::seed_from_u64(19_922);
    for n in [50u32, 100, 200] {
        let base = random_connected_cubic(&mut rng, n);
        let g = cfi_graph(&base, n, None);
        let found = search(&g);
        assert_eq!(found.order, cfi_order_by_formula(&base, n), "base of {n}");
        assert_eq!(schreier_sims_order(&g, &found), found.order, "base of {n}");
        check_generators(&g, &found);
        assert!(
            found.generators.len() <= g.vertices as usize - orbits(&found).len(),
            "{} generators for {} orbits",
            found.generators.len(),
            orbits(&found).len()
        );
        let (copy, _) = shuffled(&mut rng, &g);
        assert_eq!(form(&g, &found), form(&copy, &search(&copy)), "base of {n}");
        let twisted = cfi_graph(&base, n, Some(0));
        assert_ne!(form(&g, &found), form(&twisted, &search(&twisted)));
    }
}

/// The sparse search with its direct automorphism search cut short after `frames` frames.
fn search_with_frames(g: &UndirectedGraph, frames: u32) -> SparseSearchResult {
    let options = SparseSearchOptions {
        direct_search_frames: frames,
    };
    sparse_search_with(g, &SolveContext::detached(), u64::MAX, options).unwrap()
}

/// With the direct automorphism search cut short (0, 1 or 2 frames), automorphisms onto the
/// first level's candidates come from their subtrees (leaves equivalent to the first path's
/// leaf): the same brute-force orders, orbits and Schreier–Sims orders, and the same canonical
/// form as with the default search, for random graphs up to 8 vertices and for CFI graphs
/// against the dense search.
#[test]
fn the_subtree_search_for_automorphisms_matches_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1803);
    for case in 0..450 {
        let n = rng.random_range(1..=8);
        let density = [0.15, 0.3, 0.5, 0.7, 0.9][case % 5];
        let colours = if case % 3 == 0 { 3 } else { 1 };
        let g = random_graph(&mut rng, n, density, colours);
        let frames = (case % 3) as u32;
        let found = search_with_frames(&g, frames);
        let group = brute_automorphisms(&g);
        assert_eq!(found.order, BigUint::from(group.len()), "{g:?}");
        assert_eq!(orbits(&found), brute_orbits(n, &group), "{g:?}");
        check_generators(&g, &found);
        assert_eq!(schreier_sims_order(&g, &found), found.order, "{g:?}");
        assert_eq!(form(&g, &found), form(&g, &search(&g)), "{g:?}");
        let (copy, _) = shuffled(&mut rng, &g);
        let copy_found = search_with_frames(&copy, frames);
        assert_eq!(form(&g, &found), form(&copy, &copy_found), "{g:?}");
    }
    for case in 0..6 {
        let n = 6 + 2 * case;
        let base = random_connected_cubic(&mut rng, n);
        let g = cfi_graph(&base, n, None);
        let found = search_with_frames(&g, 0);
        assert_eq!(found.order, dense_order(&g), "case {case}");
        assert_eq!(schreier_sims_order(&g, &found), found.order, "case {case}");
        check_generators(&g, &found);
        assert_eq!(form(&g, &found), form(&g, &search(&g)), "case {case}");
    }
}
