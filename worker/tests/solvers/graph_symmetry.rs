//! The symmetries of a graph against independent oracles: brute force over every vertex
//! permutation (every graph on up to 6 vertices, seeded random and coloured graphs up to 9),
//! published automorphism group orders (Petersen, cube, dodecahedron, the buckminsterfullerene
//! graph, Paley graphs by `q(q-1)/2 · e`, Kneser graphs by `n!`), and isomorphism: relabelled
//! copies, and non-isomorphic graphs with equal degree sequences.

use std::collections::{BTreeSet, HashMap};

use num_bigint::BigUint;
use orbit_worker::graph::{
    CanonicalForm, GraphJob, UndirectedGraph, is_isomorphism, isomorphism_from_labellings,
    parse_graph_text, solve_graph,
};
use orbit_worker::{Limits, SolveContext, SolveError};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------------
// Oracles

/// Every permutation of `0..n` (Heap's algorithm), passed to `visit`.
fn for_each_permutation(n: usize, mut visit: impl FnMut(&[u32])) {
    let mut p: Vec<u32> = (0..n as u32).collect();
    let mut c = vec![0usize; n];
    visit(&p);
    let mut i = 0;
    while i < n {
        if c[i] < i {
            if i % 2 == 0 {
                p.swap(0, i);
            } else {
                p.swap(c[i], i);
            }
            visit(&p);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}

fn adjacency_matrix(g: &UndirectedGraph) -> Vec<Vec<bool>> {
    let n = g.vertices as usize;
    let mut a = vec![vec![false; n]; n];
    for &(u, v) in &g.edges {
        a[u as usize][v as usize] = true;
        a[v as usize][u as usize] = true;
    }
    a
}

/// Every automorphism of `g` (colours kept), by trying every permutation.
pub(crate) fn brute_automorphisms(g: &UndirectedGraph) -> Vec<Vec<u32>> {
    let a = adjacency_matrix(g);
    let mut found = Vec::new();
    for_each_permutation(g.vertices as usize, |p| {
        let keeps_colours = (0..g.vertices).all(|v| g.colour(v) == g.colour(p[v as usize]));
        let keeps_edges = g
            .edges
            .iter()
            .all(|&(u, v)| a[p[u as usize] as usize][p[v as usize] as usize]);
        if keeps_colours && keeps_edges {
            found.push(p.to_vec());
        }
    });
    found
}

/// The orbits of the brute-force group, sorted.
pub(crate) fn brute_orbits(n: u32, group: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut orbits: Vec<Vec<u32>> = Vec::new();
    let mut seen = vec![false; n as usize];
    for v in 0..n {
        if seen[v as usize] {
            continue;
        }
        let orbit: BTreeSet<u32> = group.iter().map(|g| g[v as usize]).collect();
        for &w in &orbit {
            seen[w as usize] = true;
        }
        orbits.push(orbit.into_iter().collect());
    }
    orbits
}

/// A complete invariant by brute force: the least (colours, edge bit string) over all
/// relabellings.
pub(crate) fn brute_canonical_code(g: &UndirectedGraph) -> (Vec<u64>, u64) {
    let n = g.vertices as usize;
    let mut best: Option<(Vec<u64>, u64)> = None;
    for_each_permutation(n, |p| {
        let mut colours = vec![0u64; n];
        for v in 0..n {
            colours[p[v] as usize] = g.colour(v as u32);
        }
        let mut bits = 0u64;
        for &(u, v) in &g.edges {
            let (a, b) = (
                p[u as usize].min(p[v as usize]),
                p[u as usize].max(p[v as usize]),
            );
            bits |= 1 << (a as usize * n + b as usize);
        }
        let code = (colours, bits);
        if best.as_ref().is_none_or(|b| code < *b) {
            best = Some(code);
        }
    });
    best.unwrap_or_default()
}

fn solve(g: &UndirectedGraph) -> orbit_worker::graph::GraphAnswer {
    solve_graph(
        &GraphJob { graph: g.clone() },
        &SolveContext::detached(),
        &Limits::default(),
    )
    .unwrap()
}

pub(crate) fn random_graph(
    rng: &mut ChaCha8Rng,
    n: u32,
    density: f64,
    colours: u64,
) -> UndirectedGraph {
    let mut edges = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.random_bool(density) {
                edges.push(if rng.random_bool(0.5) { (u, v) } else { (v, u) });
            }
        }
    }
    edges.shuffle(rng);
    let colours = (colours > 1).then(|| (0..n).map(|_| rng.random_range(0..colours)).collect());
    UndirectedGraph {
        vertices: n,
        edges,
        colours,
    }
}

pub(crate) fn relabel(g: &UndirectedGraph, image: &[u32]) -> UndirectedGraph {
    let mut edges: Vec<(u32, u32)> = g
        .edges
        .iter()
        .map(|&(u, v)| (image[u as usize], image[v as usize]))
        .collect();
    edges.reverse();
    let colours = g.colours.as_ref().map(|c| {
        let mut out = vec![0; c.len()];
        for v in 0..c.len() {
            out[image[v] as usize] = c[v];
        }
        out
    });
    UndirectedGraph {
        vertices: g.vertices,
        edges,
        colours,
    }
}

/// The answer against brute force: order, orbits, each generator an automorphism, and the
/// canonical form of a random relabelling equal to the graph's.
fn check_against_brute_force(g: &UndirectedGraph, rng: &mut ChaCha8Rng) {
    let answer = solve(g);
    let group = brute_automorphisms(g);
    assert_eq!(answer.order, BigUint::from(group.len()), "{g:?}");
    assert_eq!(answer.orbits, brute_orbits(g.vertices, &group), "{g:?}");
    for generator in &answer.generators {
        assert!(
            group.contains(&generator.images(g.vertices as usize)),
            "{g:?}: {generator:?}"
        );
    }
    assert_eq!(
        schreier_sims_order(g.vertices, &answer.generators),
        answer.order,
        "{g:?}"
    );
    // The certificate read off the search's matrix is the graph relabelled by the labels.
    assert_eq!(
        answer.canonical_form,
        CanonicalForm::new(g, &labelling(&answer.canonical_labels)),
        "{g:?}"
    );
    let mut image: Vec<u32> = (0..g.vertices).collect();
    image.shuffle(rng);
    let copy = relabel(g, &image);
    let copy_answer = solve(&copy);
    assert_eq!(answer.canonical_form, copy_answer.canonical_form, "{g:?}");
}

/// The order of the group the generators generate, by Orbit's Schreier–Sims (independent of the
/// search's own count from its first path).
fn schreier_sims_order(n: u32, generators: &[orbit_worker::graph::SparsePermutation]) -> BigUint {
    let generators: Vec<orbit_worker::group::Perm> = generators
        .iter()
        .map(|g| orbit_worker::group::Perm::from_images(g.images(n as usize), "g").unwrap())
        .collect();
    if generators.is_empty() {
        return BigUint::from(1u32);
    }
    orbit_worker::group::PermGroup::new(
        n as usize,
        generators,
        &SolveContext::detached(),
        &Limits::default(),
    )
    .unwrap()
    .order()
}

// ---------------------------------------------------------------------------------------------
// Brute force

#[test]
fn every_graph_up_to_five_vertices_matches_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    for n in 0..=5u32 {
        let pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .collect();
        for mask in 0u64..1 << pairs.len() {
            let edges = (0..pairs.len())
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| pairs[i])
                .collect();
            let g = UndirectedGraph {
                vertices: n,
                edges,
                colours: None,
            };
            check_against_brute_force(&g, &mut rng);
        }
    }
}

#[test]
fn canonical_forms_separate_exactly_the_isomorphism_classes_up_to_six_vertices() {
    // 1, 1, 2, 4, 11, 34, 156 unlabelled graphs on 0..6 vertices (OEIS A000088).
    for (n, classes) in [
        (0u32, 1usize),
        (1, 1),
        (2, 2),
        (3, 4),
        (4, 11),
        (5, 34),
        (6, 156),
    ] {
        let pairs: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .collect();
        let mut by_form: HashMap<_, (Vec<u64>, u64)> = HashMap::new();
        let mut codes = BTreeSet::new();
        for mask in 0u64..1 << pairs.len() {
            let edges = (0..pairs.len())
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| pairs[i])
                .collect();
            let g = UndirectedGraph {
                vertices: n,
                edges,
                colours: None,
            };
            let code = brute_canonical_code(&g);
            codes.insert(code.clone());
            let form = solve(&g).canonical_form;
            let previous = by_form.entry(form).or_insert_with(|| code.clone());
            assert_eq!(
                *previous, code,
                "two non-isomorphic graphs share a canonical form: {g:?}"
            );
        }
        assert_eq!(codes.len(), classes);
        assert_eq!(by_form.len(), classes, "n = {n}");
    }
}

#[test]
pub(crate) fn random_graphs_up_to_nine_vertices_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(1818);
    for case in 0..120 {
        let n = rng.random_range(6..=9);
        let density = [0.2, 0.5, 0.8][case % 3];
        let g = random_graph(&mut rng, n, density, 1);
        check_against_brute_force(&g, &mut rng);
    }
}

#[test]
fn random_coloured_graphs_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(81);
    for case in 0..120 {
        let n = rng.random_range(1..=8);
        let colours = rng.random_range(2..=3);
        let g = random_graph(&mut rng, n, [0.3, 0.5][case % 2], colours);
        check_against_brute_force(&g, &mut rng);
    }
}

#[test]
fn random_pairs_are_isomorphic_exactly_when_brute_force_says_so() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut isomorphic = 0;
    for _ in 0..400 {
        let n = rng.random_range(1..=7);
        let a = random_graph(&mut rng, n, 0.5, 1);
        let b = random_graph(&mut rng, n, 0.5, 1);
        let (ra, rb) = (solve(&a), solve(&b));
        let same = brute_canonical_code(&a) == brute_canonical_code(&b);
        assert_eq!(ra.canonical_form == rb.canonical_form, same, "{a:?} {b:?}");
        if same {
            isomorphic += 1;
            let image = isomorphism_from_labellings(
                &labelling(&ra.canonical_labels),
                &labelling(&rb.canonical_labels),
            );
            assert!(is_isomorphism(&a, &b, &image));
        }
    }
    assert!(
        isomorphic > 20,
        "only {isomorphic} isomorphic pairs: the test is too weak"
    );
}

/// The labelling (position → vertex) from the labels (vertex → position).
pub(crate) fn labelling(labels: &[u32]) -> Vec<u32> {
    let mut out = vec![0; labels.len()];
    for (v, &l) in labels.iter().enumerate() {
        out[l as usize] = v as u32;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Published orders

pub(crate) fn graph(n: u32, edges: impl IntoIterator<Item = (u32, u32)>) -> UndirectedGraph {
    UndirectedGraph {
        vertices: n,
        edges: edges.into_iter().collect(),
        colours: None,
    }
}

/// The generalised Petersen graph GP(n, k): outer cycle, spokes, inner star polygon.
pub(crate) fn generalised_petersen(n: u32, k: u32) -> UndirectedGraph {
    let mut edges = Vec::new();
    for i in 0..n {
        edges.push((i, (i + 1) % n));
        edges.push((i, n + i));
        let (a, b) = (n + i, n + (i + k) % n);
        if !edges.contains(&(b, a)) {
            edges.push((a, b));
        }
    }
    graph(2 * n, edges)
}

pub(crate) fn hypercube(d: u32) -> UndirectedGraph {
    let n = 1 << d;
    graph(
        n,
        (0..n)
            .flat_map(|v| (0..d).map(move |b| (v, v ^ (1 << b))))
            .filter(|&(u, v)| u < v),
    )
}

/// The buckminsterfullerene graph: the truncated icosahedron, built from the icosahedron's
/// coordinates `(0, ±1, ±φ)` and cyclic shifts; a vertex per directed edge `u → v` of the
/// icosahedron, joined to `v → u` and to `u → w` for the neighbours `w` of `u` adjacent to `v`.
pub(crate) fn buckminsterfullerene() -> UndirectedGraph {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let mut points = Vec::new();
    for s1 in [-1.0, 1.0] {
        for s2 in [-1.0, 1.0] {
            let (a, b) = (s1, s2 * phi);
            points.push([0.0, a, b]);
            points.push([a, b, 0.0]);
            points.push([b, 0.0, a]);
        }
    }
    let close = |p: &[f64; 3], q: &[f64; 3]| {
        let d: f64 = (0..3).map(|i| (p[i] - q[i]).powi(2)).sum();
        (d - 4.0).abs() < 1e-9
    };
    let ico: Vec<(usize, usize)> = (0..12)
        .flat_map(|u| (0..12).map(move |v| (u, v)))
        .filter(|&(u, v)| u != v && close(&points[u], &points[v]))
        .collect();
    assert_eq!(ico.len(), 60);
    let index = |e: (usize, usize)| ico.iter().position(|&f| f == e).unwrap() as u32;
    let mut edges = BTreeSet::new();
    for &(u, v) in &ico {
        let (a, b) = (index((u, v)), index((v, u)));
        edges.insert((a.min(b), a.max(b)));
        for &(x, w) in &ico {
            if x == u && w != v && close(&points[v], &points[w]) {
                let (a, b) = (index((u, v)), index((u, w)));
                edges.insert((a.min(b), a.max(b)));
            }
        }
    }
    graph(60, edges)
}

/// The Paley graph on GF(p) (`p ≡ 1 mod 4` prime): `x ~ y` when `x - y` is a non-zero square.
pub(crate) fn paley_prime(p: u32) -> UndirectedGraph {
    let squares: BTreeSet<u32> = (1..p).map(|x| x * x % p).collect();
    graph(
        p,
        (0..p)
            .flat_map(|x| (x + 1..p).map(move |y| (x, y)))
            .filter(|&(x, y)| squares.contains(&((y - x) % p))),
    )
}

/// The Paley graph on GF(p^2), `p ≡ 3 mod 4` prime, as `a + b i` with `i^2 = -1`.
fn paley_square(p: u32) -> UndirectedGraph {
    let q = p * p;
    let mul = |(a, b): (u32, u32), (c, d): (u32, u32)| {
        ((a * c + p * p - b * d % p) % p, (a * d + b * c) % p)
    };
    let squares: BTreeSet<(u32, u32)> = (1..q).map(|x| (x / p, x % p)).map(|x| mul(x, x)).collect();
    let edges = (0..q)
        .flat_map(|x| (x + 1..q).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let diff = ((y / p + p - x / p) % p, (y % p + p - x % p) % p);
            squares.contains(&diff)
        });
    graph(q, edges)
}

fn factorial(n: u32) -> BigUint {
    (1..=n).map(BigUint::from).product()
}

/// The Kneser graph K(n, k): k-subsets of `0..n`, adjacent when disjoint.
fn kneser(n: u32, k: u32) -> UndirectedGraph {
    let sets: Vec<u32> = (0u32..1 << n).filter(|s| s.count_ones() == k).collect();
    let count = sets.len() as u32;
    let edges: Vec<(u32, u32)> = (0..count)
        .flat_map(|i| (i + 1..count).map(move |j| (i, j)))
        .filter(|&(i, j)| sets[i as usize] & sets[j as usize] == 0)
        .collect();
    graph(count, edges)
}

#[test]
fn published_orders() {
    let cases: Vec<(&str, UndirectedGraph, BigUint)> = vec![
        ("Petersen", generalised_petersen(5, 2), 120u32.into()),
        ("cube", hypercube(3), 48u32.into()),
        ("4-cube", hypercube(4), 384u32.into()),
        ("dodecahedron", generalised_petersen(10, 2), 120u32.into()),
        (
            "buckminsterfullerene",
            buckminsterfullerene(),
            120u32.into(),
        ),
        (
            "Desargues GP(10,3)",
            generalised_petersen(10, 3),
            240u32.into(),
        ),
        ("Kneser K(7,2)", kneser(7, 2), factorial(7)),
        ("Kneser K(7,3)", kneser(7, 3), factorial(7)),
        ("Kneser K(8,3)", kneser(8, 3), factorial(8)),
        // The rook's graph K6 x K6: 2 (6!)^2; the star K(1,9): 9!.
        (
            "rook's graph 6x6",
            graph(
                36,
                (0..36u32)
                    .flat_map(|a| (a + 1..36).map(move |b| (a, b)))
                    .filter(|&(a, b)| a / 6 == b / 6 || a % 6 == b % 6),
            ),
            BigUint::from(2u32) * factorial(6) * factorial(6),
        ),
        (
            "star K(1,9)",
            graph(10, (1..10).map(|v| (0, v))),
            factorial(9),
        ),
    ];
    for (name, g, order) in cases {
        let answer = solve(&g);
        assert_eq!(answer.order, order, "{name}");
        assert_eq!(
            schreier_sims_order(g.vertices, &answer.generators),
            order,
            "{name}"
        );
        let transitive = !name.starts_with("star");
        assert_eq!(answer.orbits.len() == 1, transitive, "{name}");
    }
}

#[test]
fn paley_graphs_have_order_q_times_q_minus_one_over_two_times_e() {
    for p in [5u32, 13, 17, 29, 37, 41, 53, 101] {
        assert_eq!(
            solve(&paley_prime(p)).order,
            BigUint::from(p * (p - 1) / 2),
            "P({p})"
        );
    }
    for p in [3u32, 7, 11] {
        let q = p * p;
        assert_eq!(
            solve(&paley_square(p)).order,
            BigUint::from(q * (q - 1) / 2 * 2),
            "P({q})"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Isomorphism

#[test]
fn relabelled_copies_of_large_graphs_are_isomorphic_and_the_map_checks() {
    let mut rng = ChaCha8Rng::seed_from_u64(60);
    for g in [
        buckminsterfullerene(),
        paley_prime(101),
        kneser(8, 3),
        random_graph(&mut rng, 200, 0.1, 1),
        random_graph(&mut rng, 150, 0.3, 3),
    ] {
        let mut image: Vec<u32> = (0..g.vertices).collect();
        image.shuffle(&mut rng);
        let copy = relabel(&g, &image);
        let (a, b) = (solve(&g), solve(&copy));
        assert_eq!(a.canonical_form, b.canonical_form);
        let map = isomorphism_from_labellings(
            &labelling(&a.canonical_labels),
            &labelling(&b.canonical_labels),
        );
        assert!(is_isomorphism(&g, &copy, &map));
    }
}

#[test]
fn equal_degree_sequences_do_not_make_graphs_isomorphic() {
    // C6 and two triangles; K3,3 and the triangular prism; Petersen and the pentagonal prism;
    // the cube and the Möbius ladder on 8 vertices (both cubic).
    let c6 = graph(6, (0..6).map(|i| (i, (i + 1) % 6)));
    let triangles = graph(6, [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]);
    let k33 = graph(6, (0..3).flat_map(|i| (3..6).map(move |j| (i, j))));
    let prism = generalised_petersen(3, 1);
    let petersen = generalised_petersen(5, 2);
    let pentagonal_prism = generalised_petersen(5, 1);
    let cube = hypercube(3);
    let moebius = graph(
        8,
        (0..8)
            .map(|i| (i, (i + 1) % 8))
            .chain((0..4).map(|i| (i, i + 4))),
    );
    for (a, b) in [
        (c6, triangles),
        (k33, prism),
        (petersen, pentagonal_prism),
        (cube, moebius),
    ] {
        assert_ne!(solve(&a).canonical_form, solve(&b).canonical_form);
    }
    // Colour numbers count: the same graph with its colours swapped is another coloured graph.
    let path = |colours: Vec<u64>| UndirectedGraph {
        vertices: 3,
        edges: vec![(0, 1), (1, 2)],
        colours: Some(colours),
    };
    assert_ne!(
        solve(&path(vec![1, 2, 1])).canonical_form,
        solve(&path(vec![2, 1, 2])).canonical_form
    );
    assert_eq!(
        solve(&path(vec![1, 2, 3])).canonical_form,
        solve(&path(vec![3, 2, 1])).canonical_form
    );
}

// ---------------------------------------------------------------------------------------------
// Input

#[test]
fn bad_input_is_named_by_line_and_field() {
    let cases = [
        ("", "line 1: empty input: expected a first line `n m`"),
        ("3\n", "line 1: m: missing (expected `n m`)"),
        (
            "3 1\n1 4\n",
            "line 2: v: vertex 4 out of range 1..3 (no such vertex)",
        ),
        ("3 1\n2 2\n", "line 2: v: a self-loop at vertex 2"),
        (
            "3 3\n1 2\n2 3\n\n2 1\n",
            "line 5: v: the edge 2 1 repeats the edge on line 2",
        ),
        (
            "3 2\n1 2\n",
            "line 3: end of input after 1 edge lines; line 1 announced 2",
        ),
        (
            "3 1\n1 2\n2 3\n",
            "line 3: more edge lines than the 1 announced on line 1",
        ),
        (
            "3 1\n1 2\ncolours 1 2\n",
            "line 3: colours: 2 colours for 3 vertices: give one per vertex",
        ),
        (
            "3 1\n1 2\ncolours 1 x 2\n",
            "line 3: colours: c2: `x` is not a non-negative integer",
        ),
        (
            "3 1\ncolours 1 1 2\n",
            "line 2: colours: after 0 edge lines; line 1 announced 1",
        ),
        (
            "2 1\n1 a\n",
            "line 2: v: `a` is not a non-negative integer (expected `u v`)",
        ),
    ];
    for (text, message) in cases {
        let error = parse_graph_text(text).unwrap_err().to_string();
        let expected = message.replace(" (no such vertex)", "");
        assert_eq!(error, expected, "{text:?}");
    }
    let too_many = parse_graph_text("2000000 0\n").unwrap_err();
    assert!(matches!(
        too_many,
        SolveError::LimitExceeded {
            limit_name: "graph_vertices",
            ..
        }
    ));
}

#[test]
fn a_cancelled_search_stops() {
    let flag = orbit_worker::CancelFlag::new();
    flag.cancel();
    let ctx = SolveContext::new(flag, None);
    let job = GraphJob {
        graph: paley_prime(101),
    };
    assert_eq!(
        solve_graph(&job, &ctx, &Limits::default()),
        Err(SolveError::Cancelled)
    );
}
