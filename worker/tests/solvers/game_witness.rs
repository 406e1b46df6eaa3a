//! A game graph's witnesses (every move with its value, the principal variation) against the
//! naive fixed-point oracle of `game_retrograde`: each move's value is the oracle's value of the
//! vertex it leads to, the order is the documented one, and each line, replayed on the graph,
//! loses one depth per step and ends where the announced winner wins (or, for a draw, repeats).

use std::cmp::Ordering;

use orbit_worker::game::{
    GameGraph, GameJob, GameWitness, MoveValue, NO_DEPTH, Outcome, Successors,
};
use orbit_worker::job::Solve;
use orbit_worker::{CancelFlag, Limits, SolveContext, SolveError};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::game_retrograde::{naive, random_graph};

/// Whether move `a` is better than move `b` for the mover, as the proto documents the order:
/// a move to a loss beats a draw beats a move to a win; among losses the shallower, among wins
/// the deeper; then the lower vertex.
fn compare(a: &MoveValue, b: &MoveValue) -> Ordering {
    let class = |o: Outcome| match o {
        Outcome::Lose => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    };
    class(a.outcome)
        .cmp(&class(b.outcome))
        .then_with(|| match a.outcome {
            Outcome::Lose => a.depth.cmp(&b.depth),
            Outcome::Win => b.depth.cmp(&a.depth),
            Outcome::Draw => Ordering::Equal,
        })
        .then(a.to.cmp(&b.to))
}

fn solve_with_witness(
    g: &GameGraph,
    query: Vec<u32>,
    limits: &Limits,
) -> Result<orbit_worker::game::GameAnswer, SolveError> {
    GameJob {
        graph: g.clone(),
        query,
        witness: GameWitness {
            moves: true,
            line: true,
        },
    }
    .solve(&SolveContext::detached(), limits)
}

#[test]
fn moves_and_lines_match_the_naive_oracle_on_random_graphs() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x009a_3e77);
    let mut lines_by_outcome = [0usize; 3];
    for case in 0..1500 {
        let g = random_graph(&mut rng);
        let (outcome, depth) = naive(&g);
        let answer = solve_with_witness(&g, Vec::new(), &Limits::default()).expect("solve");
        let n = g.vertices as usize;
        let mut successors = vec![Vec::new(); n];
        for &(u, v) in &g.edges {
            successors[u as usize].push(v);
        }
        for list in &mut successors {
            list.sort_unstable();
            list.dedup();
        }
        assert_eq!(answer.moves.len(), n, "case {case}");
        assert_eq!(answer.lines.len(), n, "case {case}");
        for v in 0..n {
            let moves = &answer.moves[v];
            // Every move once, each with the oracle's value of where it goes.
            let mut targets: Vec<u32> = moves.iter().map(|m| m.to).collect();
            targets.sort_unstable();
            assert_eq!(targets, successors[v], "case {case} vertex {v}");
            for m in moves {
                let t = m.to as usize;
                assert_eq!(
                    (m.outcome, m.depth),
                    (outcome[t], depth[t]),
                    "case {case} {v}->{t}"
                );
            }
            for pair in moves.windows(2) {
                assert_eq!(
                    compare(&pair[0], &pair[1]),
                    Ordering::Less,
                    "case {case} vertex {v}: {moves:?}"
                );
            }
            // Replay the line on the graph.
            let line = &answer.lines[v];
            assert!(!line.truncated, "case {case}: lines here are short");
            if let Some(first) = moves.first() {
                assert_eq!(
                    line.vertices.first(),
                    Some(&first.to),
                    "case {case} vertex {v}"
                );
            }
            let mut at = v;
            for &next in &line.vertices {
                assert!(
                    successors[at].contains(&next),
                    "case {case}: {at}->{next} is not a move"
                );
                at = next as usize;
            }
            match outcome[v] {
                Outcome::Win | Outcome::Lose => {
                    assert_eq!(
                        line.vertices.len() as u32,
                        depth[v],
                        "case {case} vertex {v}"
                    );
                    let mut d = depth[v];
                    for &step in &line.vertices {
                        d -= 1;
                        assert_eq!(
                            depth[step as usize], d,
                            "case {case}: one depth less per step"
                        );
                    }
                    assert!(
                        successors[at].is_empty(),
                        "case {case}: the line ends the game"
                    );
                    // The player to move at the end cannot move and loses: the winner is the
                    // player to move at v exactly when the line has odd length.
                    assert_eq!(outcome[v] == Outcome::Win, depth[v] % 2 == 1);
                    lines_by_outcome[outcome[v] as usize] += 1;
                }
                Outcome::Draw => {
                    assert_eq!(depth[v], NO_DEPTH);
                    let (last, before) = line.vertices.split_last().expect("a drawn line moves");
                    let mut seen = vec![v as u32];
                    for &step in before {
                        assert_eq!(outcome[step as usize], Outcome::Draw, "case {case}");
                        assert!(
                            !seen.contains(&step),
                            "case {case}: repeated before the end"
                        );
                        seen.push(step);
                    }
                    assert!(
                        seen.contains(last),
                        "case {case}: a drawn line ends repeating"
                    );
                    lines_by_outcome[2] += 1;
                }
            }
        }
    }
    assert!(
        lines_by_outcome.iter().all(|&c| c > 1000),
        "{lines_by_outcome:?}"
    );
}

#[test]
fn a_query_gets_the_witnesses_of_its_vertices_in_its_order() {
    let g = GameGraph {
        vertices: 4,
        edges: vec![(0, 1), (1, 2), (2, 3), (3, 2)],
    };
    let answer = solve_with_witness(&g, vec![1, 0, 1], &Limits::default()).expect("solve");
    let firsts: Vec<u32> = answer.moves.iter().map(|m| m[0].to).collect();
    assert_eq!(firsts, [2, 1, 2]);
    assert_eq!(answer.lines[1].vertices, [1, 2, 3, 2]);
}

#[test]
fn without_a_witness_nothing_more_is_built() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let g = random_graph(&mut rng);
    let job = GameJob {
        graph: g,
        query: Vec::new(),
        witness: GameWitness::default(),
    };
    let answer = job
        .solve(&SolveContext::detached(), &Limits::default())
        .expect("solve");
    assert!(answer.moves.is_empty() && answer.lines.is_empty());
}

#[test]
fn a_long_line_is_cut_at_max_line_and_says_so() {
    let n = 50u32;
    let g = GameGraph {
        vertices: n,
        edges: (0..n - 1).map(|i| (i, i + 1)).collect(),
    };
    let limits = Limits {
        max_line: 10,
        ..Limits::default()
    };
    let answer = solve_with_witness(&g, vec![0, 45], &limits).expect("solve");
    assert_eq!(answer.lines[0].vertices, (1..=10).collect::<Vec<_>>());
    assert!(answer.lines[0].truncated);
    assert_eq!(answer.lines[1].vertices, [46, 47, 48, 49]);
    assert!(!answer.lines[1].truncated);
}

#[test]
fn too_many_reported_moves_name_the_limit() {
    // A complete graph on 100 vertices: 9,900 moves to report.
    let n = 100u32;
    let g = GameGraph {
        vertices: n,
        edges: (0..n)
            .flat_map(|u| (0..n).filter(move |&v| v != u).map(move |v| (u, v)))
            .collect(),
    };
    let limits = Limits {
        max_reported_moves: 5_000,
        ..Limits::default()
    };
    let error = solve_with_witness(&g, Vec::new(), &limits).expect_err("over the limit");
    assert!(
        matches!(
            error,
            SolveError::LimitExceeded {
                limit_name: "max_reported_moves",
                limit_value: 5_000,
                ..
            }
        ),
        "{error:?}"
    );
    // One vertex's moves fit.
    assert!(solve_with_witness(&g, vec![7], &limits).is_ok());
}

#[test]
fn building_the_successor_lists_stops_when_cancelled() {
    let cancel = CancelFlag::new();
    cancel.cancel();
    let ctx = SolveContext::new(cancel, None);
    let n = 200_000u32;
    let g = GameGraph {
        vertices: n,
        edges: (0..n).map(|i| (i, (i + 1) % n)).collect(),
    };
    assert_eq!(Successors::new(&g, &ctx), Err(SolveError::Cancelled));
}
