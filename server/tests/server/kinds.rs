//! Every job kind over real gRPC: one good job each (checked against published values), and the
//! status each kind of bad input gets.

use orbit_cli::embedded::EmbeddedServer;
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use tonic::Code;

async fn server() -> (EmbeddedServer, Client) {
    let config = ServerConfig {
        workers: Some(2),
        threads_per_job: Some(1),
        max_degree: 1000,
        ..ServerConfig::default()
    };
    let server = EmbeddedServer::start(config).await.expect("start");
    let client = Client::connect(&server.url()).await.expect("connect");
    (server, client)
}

fn job(kind: pb::job::Kind) -> pb::Job {
    pb::Job {
        id: "j".into(),
        options: None,
        kind: Some(kind),
    }
}

fn cycles(s: &str) -> pb::Permutation {
    pb::Permutation {
        images: vec![],
        cycles: s.into(),
    }
}

fn images(v: &[u32]) -> pb::Permutation {
    pb::Permutation {
        images: v.to_vec(),
        cycles: String::new(),
    }
}

#[tokio::test]
async fn group_jobs() {
    let (server, mut client) = server().await;
    // M11 from its standard generators: order 7920; a transposition is not in it.
    let m11 = pb::GroupJob {
        degree: 11,
        generators: vec![
            cycles("(1,2,3,4,5,6,7,8,9,10,11)"),
            cycles("(3,7,11,8)(4,10,5,6)"),
        ],
        candidates: vec![cycles("(1,2)"), images(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0])],
        ..Default::default()
    };
    let r = client
        .solve(job(pb::job::Kind::Group(m11)))
        .await
        .expect("solve");
    let Some(pb::job_result::Result::Group(g)) = r.result else {
        panic!("group result")
    };
    assert_eq!(g.order, "7920");
    assert_eq!(g.members, vec![false, true]);
    assert_eq!(g.orbits.len(), 1);
    assert_eq!(g.orbits[0].points, (0..11).collect::<Vec<u32>>());

    let bad = |generators: Vec<pb::Permutation>, degree: u32| {
        job(pb::job::Kind::Group(pb::GroupJob {
            degree,
            generators,
            ..Default::default()
        }))
    };
    let cases = [
        (
            bad(vec![images(&[0, 0, 1])], 3),
            Code::InvalidArgument,
            "group.generators[0].images",
        ),
        (
            bad(vec![images(&[0, 1])], 3),
            Code::InvalidArgument,
            "group.generators[0].images",
        ),
        (
            bad(vec![cycles("(1,4)")], 3),
            Code::InvalidArgument,
            "group.generators[0].cycles",
        ),
        (
            bad(vec![cycles("(1,2,1)")], 3),
            Code::InvalidArgument,
            "group.generators[0].cycles",
        ),
        (
            bad(vec![cycles("(1,2")], 3),
            Code::InvalidArgument,
            "group.generators[0].cycles",
        ),
        (
            bad(
                vec![pb::Permutation {
                    images: vec![1, 0, 2],
                    cycles: "(1,2)".into(),
                }],
                3,
            ),
            Code::InvalidArgument,
            "exactly one",
        ),
        (
            bad(vec![cycles("(1,2)")], 5000),
            Code::ResourceExhausted,
            "1000",
        ),
    ];
    for (j, code, needle) in cases {
        let err = client.solve(j).await.expect_err("bad input");
        assert_eq!(err.code(), code, "{err:?}");
        assert!(
            err.message().contains(needle),
            "{:?} lacks {needle:?}",
            err.message()
        );
    }
    server.stop().await.expect("stop");
}

#[tokio::test]
async fn count_jobs() {
    let (server, mut client) = server().await;
    use pb::count_job::Family;
    let count = |family: Family, modulus: &str| {
        job(pb::job::Kind::Count(pb::CountJob {
            family: Some(family),
            modulus: modulus.into(),
        }))
    };
    let answer = |r: pb::JobResult| match r.result {
        Some(pb::job_result::Result::Count(c)) => c.count,
        other => panic!("count result expected, got {other:?}"),
    };
    // OEIS A000031(10) = 108, A000029(10) = 78, A000088(8) = 12346.
    let r = client
        .solve(count(
            Family::Necklace(pb::NecklaceCount { n: 10, k: 2 }),
            "",
        ))
        .await
        .expect("solve");
    assert_eq!(answer(r), "108");
    let r = client
        .solve(count(
            Family::Bracelet(pb::NecklaceCount { n: 10, k: 2 }),
            "",
        ))
        .await
        .expect("solve");
    assert_eq!(answer(r), "78");
    let r = client
        .solve(count(Family::Graphs(pb::GraphsCount { n: 8 }), ""))
        .await
        .expect("solve");
    assert_eq!(answer(r), "12346");
    let r = client
        .solve(count(
            Family::Necklace(pb::NecklaceCount { n: 10, k: 2 }),
            "7",
        ))
        .await
        .expect("solve");
    assert_eq!(answer(r), "3");
    // The cycle index of C_4 on 4 points.
    let c4 = pb::GroupCount {
        degree: 4,
        generators: vec![cycles("(1,2,3,4)")],
        k: 2,
        content: vec![],
        cycle_index: true,
    };
    let r = client
        .solve(count(Family::Group(c4), ""))
        .await
        .expect("solve");
    let Some(pb::job_result::Result::Count(c)) = r.result else {
        panic!("count")
    };
    assert_eq!(c.count, "6");
    let mut terms: Vec<String> = c
        .cycle_index
        .iter()
        .map(|t| {
            format!(
                "{} {:?}",
                t.coefficient,
                t.cycle_type
                    .iter()
                    .map(|p| (p.length, p.count))
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    terms.sort();
    assert_eq!(terms, ["1/2 [(4, 1)]", "1/4 [(1, 4)]", "1/4 [(2, 2)]"]);

    let bad = [
        (
            job(pb::job::Kind::Count(pb::CountJob {
                family: None,
                modulus: String::new(),
            })),
            "count.family",
        ),
        (
            count(Family::Cube(pb::CubeCount { part: 0, k: 2 }), ""),
            "count.cube.part",
        ),
        (
            count(Family::Necklace(pb::NecklaceCount { n: 6, k: 2 }), "12x"),
            "count.modulus",
        ),
        (
            count(Family::Necklace(pb::NecklaceCount { n: 6, k: 0 }), ""),
            "k",
        ),
        (
            count(
                Family::Group(pb::GroupCount {
                    degree: 4,
                    generators: vec![cycles("(1,2)")],
                    k: 0,
                    content: vec![3, 3],
                    cycle_index: false,
                }),
                "",
            ),
            "content",
        ),
    ];
    for (j, needle) in bad {
        let err = client.solve(j).await.expect_err("bad input");
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(
            err.message().contains(needle),
            "{:?} lacks {needle:?}",
            err.message()
        );
    }
    server.stop().await.expect("stop");
}

#[tokio::test]
async fn puzzle_jobs() {
    let (server, mut client) = server().await;
    let edge = |from, to| pb::Edge { from, to };
    let arr = |t: &[u32]| pb::Arrangement { tokens: t.to_vec() };
    let sample = pb::PuzzleJob {
        n: 5,
        edges: vec![
            edge(1, 0),
            edge(3, 4),
            edge(2, 4),
            edge(2, 3),
            edge(1, 2),
            edge(0, 2),
        ],
        start: Some(arr(&[1, 2, 3, 4, 0])),
        targets: vec![
            arr(&[0, 1, 2, 3, 4]),
            arr(&[2, 1, 0, 4, 3]),
            arr(&[4, 3, 0, 1, 2]),
        ],
        targets_packed: Vec::new(),
        moves: false,
    };
    let r = client
        .solve(job(pb::job::Kind::Puzzle(sample.clone())))
        .await
        .expect("solve");
    let Some(pb::job_result::Result::Puzzle(p)) = r.result else {
        panic!("puzzle result")
    };
    assert_eq!(p.reachable, vec![true, true, false]);

    let mut twice = sample.clone();
    twice.targets[1] = arr(&[2, 1, 2, 4, 3]);
    let err = client
        .solve(job(pb::job::Kind::Puzzle(twice)))
        .await
        .expect_err("not a permutation");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().starts_with("puzzle.targets[1]"),
        "{}",
        err.message()
    );
    let mut out_of_range = sample.clone();
    out_of_range.edges[2] = edge(2, 9);
    let err = client
        .solve(job(pb::job::Kind::Puzzle(out_of_range)))
        .await
        .expect_err("bad edge");
    assert!(
        err.message().starts_with("puzzle.edges[2]"),
        "{}",
        err.message()
    );
    let mut short = sample.clone();
    short.start = Some(arr(&[1, 0]));
    let err = client
        .solve(job(pb::job::Kind::Puzzle(short)))
        .await
        .expect_err("wrong length");
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");

    // The same targets in `targets_packed` (4 bytes little-endian per token, written out here
    // byte by byte): the same answers and the same error names.
    let flat = |p: &pb::PuzzleJob| pb::PuzzleJob {
        targets: Vec::new(),
        targets_packed: p
            .targets
            .iter()
            .flat_map(|a| {
                a.tokens
                    .iter()
                    .flat_map(|&t| [t as u8, (t >> 8) as u8, 0, 0])
            })
            .collect(),
        ..p.clone()
    };
    let r = client
        .solve(job(pb::job::Kind::Puzzle(flat(&sample))))
        .await
        .expect("solve flat");
    let Some(pb::job_result::Result::Puzzle(p)) = r.result else {
        panic!("puzzle result")
    };
    assert_eq!(p.reachable, vec![true, true, false]);
    let mut twice = sample.clone();
    twice.targets[2] = arr(&[4, 3, 0, 1, 1]);
    let err = client
        .solve(job(pb::job::Kind::Puzzle(flat(&twice))))
        .await
        .expect_err("not a permutation");
    assert_eq!(
        err.message(),
        "puzzle.targets[2][4]: token 1 appears twice (also at puzzle.targets[2][3])"
    );
    let mut ragged = flat(&sample);
    ragged.targets_packed.pop();
    let err = client
        .solve(job(pb::job::Kind::Puzzle(ragged)))
        .await
        .expect_err("not a multiple of n");
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert_eq!(
        err.message(),
        "puzzle.targets_packed: holds 59 bytes, not a multiple of 4n = 20 (n tokens of 4 bytes per target)"
    );
    let both = pb::PuzzleJob {
        targets: sample.targets.clone(),
        ..flat(&sample)
    };
    let err = client
        .solve(job(pb::job::Kind::Puzzle(both)))
        .await
        .expect_err("both forms");
    assert_eq!(
        err.message(),
        "puzzle.targets_packed: set either targets or targets_packed, not both"
    );
    server.stop().await.expect("stop");
}

#[tokio::test]
async fn cop_thief_jobs_answer_queried_states() {
    let (server, mut client) = server().await;
    let cell = |row, col| Some(pb::GridCell { row, col });
    let state = |cop, thief, thief_to_move| pb::CopThiefState {
        cop,
        thief,
        thief_to_move,
    };
    let grid = |queries| {
        job(pb::job::Kind::CopThief(pb::CopThiefJob {
            rows: vec!["C...".into(), ".*..".into(), "...T".into()],
            queries,
            ..Default::default()
        }))
    };
    let queries = vec![
        // The start position, asked for explicitly: the same answer as the start.
        state(cell(0, 0), cell(2, 3), false),
        // Policeman next to the thief, policeman to move: caught in one half-move, on the thief's cell.
        state(cell(1, 2), cell(2, 3), false),
        // Already caught: nothing to move.
        state(cell(2, 3), cell(2, 3), true),
    ];
    let r = client.solve(grid(queries)).await.expect("solve");
    let Some(pb::job_result::Result::CopThief(ct)) = r.result else {
        panic!("cop-thief result")
    };
    assert_eq!(ct.queries.len(), 3);
    assert_eq!(
        (ct.queries[0].winner, ct.queries[0].half_moves),
        (ct.winner, ct.half_moves)
    );
    assert_eq!(ct.queries[1].winner, pb::Winner::Cop as i32);
    assert_eq!(ct.queries[1].half_moves, Some(1));
    assert_eq!(ct.queries[1].best_move, cell(2, 3));
    assert_eq!(ct.queries[2].half_moves, Some(0));
    assert_eq!(ct.queries[2].best_move, None);

    let err = client
        .solve(grid(vec![state(cell(1, 1), cell(2, 3), false)]))
        .await
        .expect_err("wall");
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().starts_with("cop_thief.queries[0].cop"),
        "{}",
        err.message()
    );
    let err = client
        .solve(grid(vec![state(None, cell(2, 3), false)]))
        .await
        .expect_err("missing");
    assert!(
        err.message()
            .starts_with("cop_thief.queries[0].cop: missing"),
        "{}",
        err.message()
    );
    server.stop().await.expect("stop");
}

fn graph_job(vertices: u32, edges: &[(u32, u32)], colours: Vec<u64>) -> pb::GraphJob {
    pb::GraphJob {
        vertices,
        edges: edges
            .iter()
            .map(|&(from, to)| pb::Edge { from, to })
            .collect(),
        colours,
    }
}

/// The Petersen graph (outer 5-cycle, spokes, inner pentagram), 0-based.
fn petersen_edges() -> Vec<(u32, u32)> {
    (0..5)
        .flat_map(|i| [(i, (i + 1) % 5), (i, i + 5), (i + 5, (i + 2) % 5 + 5)])
        .collect()
}

#[tokio::test]
async fn graph_jobs() {
    let (server, mut client) = server().await;
    // Petersen: |Aut| = 120 (S5 on 2-subsets), vertex-transitive; every generator an automorphism.
    let r = client
        .solve(job(pb::job::Kind::Graph(graph_job(
            10,
            &petersen_edges(),
            vec![],
        ))))
        .await
        .expect("petersen");
    let Some(pb::job_result::Result::Graph(g)) = r.result else {
        panic!("not a graph result: {r:?}");
    };
    assert_eq!(g.order, "120");
    assert_eq!(g.orbits.len(), 1);
    assert_eq!(g.canonical_labels.len(), 10);
    assert_eq!(g.canonical_edges.len(), 15);
    assert_eq!(g.canonical_colours, vec![0; 10]);
    let normal = |(u, v): (u32, u32)| (u.min(v), u.max(v));
    let mut edges: Vec<(u32, u32)> = petersen_edges().into_iter().map(normal).collect();
    edges.sort_unstable();
    for generator in &g.generators {
        let mut mapped: Vec<(u32, u32)> = edges
            .iter()
            .map(|&(u, v)| normal((generator.images[u as usize], generator.images[v as usize])))
            .collect();
        mapped.sort_unstable();
        assert_eq!(mapped, edges);
    }
    // Colours split the path's flip: trivial group, three orbits.
    let r = client
        .solve(job(pb::job::Kind::Graph(graph_job(
            3,
            &[(0, 1), (1, 2)],
            vec![5, 5, 7],
        ))))
        .await
        .expect("coloured path");
    let Some(pb::job_result::Result::Graph(g)) = r.result else {
        panic!("not a graph result");
    };
    assert_eq!(
        (g.order.as_str(), g.orbits.len(), g.generators.len()),
        ("1", 3, 0)
    );
    // Counting: the Petersen graph's vertex 2-colourings up to its symmetries (34, by Burnside
    // over S5's classes on 2-subsets).
    let r = client
        .solve(job(pb::job::Kind::Count(pb::CountJob {
            family: Some(pb::count_job::Family::GraphColourings(
                pb::GraphColouringsCount {
                    graph: Some(graph_job(10, &petersen_edges(), vec![])),
                    k: 2,
                    edges: false,
                    content: vec![],
                    cycle_index: false,
                },
            )),
            modulus: String::new(),
        })))
        .await
        .expect("count");
    let Some(pb::job_result::Result::Count(c)) = r.result else {
        panic!("not a count result");
    };
    assert_eq!(c.count, "34");
    // Bad input is named by its field.
    let bad = [
        (
            graph_job(3, &[(0, 1), (1, 1)], vec![]),
            "graph.edges[1]: a self-loop at vertex 1",
        ),
        (
            graph_job(3, &[(0, 1), (1, 0)], vec![]),
            "graph.edges[1]: repeats graph.edges[0]",
        ),
        (
            graph_job(3, &[(0, 3)], vec![]),
            "graph.edges[0]: vertex 3 out of range 0..3",
        ),
        (
            graph_job(3, &[], vec![1, 2]),
            "graph.colours: 2 colours for 3 vertices",
        ),
    ];
    for (graph, needle) in bad {
        let err = client
            .solve(job(pb::job::Kind::Graph(graph)))
            .await
            .expect_err("bad input");
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(
            err.message().contains(needle),
            "{:?} lacks {needle:?}",
            err.message()
        );
    }
    // Beyond the dense search's 32,768 vertices the sparse search answers, its generators in
    // cycle notation: the path on 40,000 vertices (order 2, one generator reversing it).
    let path: Vec<(u32, u32)> = (0..39_999).map(|i| (i, i + 1)).collect();
    let r = client
        .solve(job(pb::job::Kind::Graph(graph_job(40_000, &path, vec![]))))
        .await
        .expect("a sparse graph beyond the dense range");
    let Some(pb::job_result::Result::Graph(result)) = r.result else {
        panic!("not a graph result: {r:?}");
    };
    assert_eq!(result.order, "2");
    assert_eq!(result.generators.len(), 1);
    assert!(result.generators[0].images.is_empty());
    assert!(
        result.generators[0]
            .cycles
            .starts_with("(1,40000)(2,39999)")
    );
    server.stop().await.expect("stop");
}
