//! Puzzle move sequences over gRPC: asked for, every sequence replays to its target under the
//! client's own check (`orbit_client::witness::check_puzzle_witness`), unreachable targets get
//! `has_moves = false`, a damaged sequence is caught; without the request the answer carries no
//! moves; beyond `max_puzzle_moves` a job gets RESOURCE_EXHAUSTED naming it (with the limit in
//! `ServerInfo`).

use orbit_client::witness::check_puzzle_witness;
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::Code;

use crate::common::TestServer;

/// A 3x4 grid with a random start and targets: random walks of the blank (reachable) and the
/// same with two tokens swapped (unreachable: the grid is bipartite).
fn grid_job(rng: &mut ChaCha8Rng, moves: bool) -> pb::PuzzleJob {
    let (w, h) = (4u32, 3u32);
    let n = w * h;
    let mut edges = Vec::new();
    for v in 0..n {
        if v % w + 1 < w {
            edges.push((v, v + 1));
        }
        if v + w < n {
            edges.push((v, v + w));
        }
    }
    let mut start: Vec<u32> = (0..n).collect();
    start.shuffle(rng);
    let mut targets = vec![start.clone()];
    for i in 0..20 {
        let mut t = start.clone();
        let mut b = t.iter().position(|&x| x == 0).unwrap_or(0);
        for _ in 0..rng.random_range(0..300) {
            let nb: Vec<usize> = edges
                .iter()
                .filter_map(|&(u, v)| {
                    if u as usize == b {
                        Some(v as usize)
                    } else if v as usize == b {
                        Some(u as usize)
                    } else {
                        None
                    }
                })
                .collect();
            let c = nb[rng.random_range(0..nb.len())];
            t.swap(b, c);
            b = c;
        }
        if i % 2 == 1 {
            let (x, y) = if t[0] != 0 && t[1] != 0 {
                (0, 1)
            } else {
                (2, 3)
            };
            t.swap(x, y);
        }
        targets.push(t);
    }
    pb::PuzzleJob {
        n,
        edges: edges
            .iter()
            .map(|&(from, to)| pb::Edge { from, to })
            .collect(),
        start: Some(pb::Arrangement { tokens: start }),
        targets: targets
            .into_iter()
            .map(|tokens| pb::Arrangement { tokens })
            .collect(),
        targets_packed: Vec::new(),
        moves,
    }
}

async fn solve_puzzle(
    client: &mut Client,
    job: pb::PuzzleJob,
) -> Result<pb::PuzzleResult, tonic::Status> {
    let result = client
        .solve(pb::Job {
            id: "moves".into(),
            options: None,
            kind: Some(pb::job::Kind::Puzzle(job)),
        })
        .await?;
    match result.result {
        Some(pb::job_result::Result::Puzzle(p)) => Ok(p),
        other => panic!("not a puzzle result: {other:?}"),
    }
}

#[tokio::test]
async fn puzzle_moves_replay_and_damage_is_caught() {
    let server = TestServer::start(ServerConfig {
        workers: Some(1),
        ..ServerConfig::default()
    })
    .await;
    let mut client = server.client().await;
    let mut rng = ChaCha8Rng::seed_from_u64(7001);
    let (mut yes, mut no) = (0, 0);
    for _ in 0..10 {
        let job = grid_job(&mut rng, true);
        let result = solve_puzzle(&mut client, job.clone())
            .await
            .expect("solved");
        assert_eq!(result.moves.len(), job.targets.len());
        check_puzzle_witness(&job, &result).expect("every sequence replays");
        assert!(result.moves[0].has_moves && result.moves[0].vertices.is_empty());
        for (m, &r) in result.moves.iter().zip(&result.reachable) {
            assert_eq!(m.has_moves, r);
            if r { yes += 1 } else { no += 1 }
        }
        // Damage: one step dropped from a non-empty sequence.
        let mut bad = result.clone();
        if let Some(m) = bad.moves.iter_mut().find(|m| m.vertices.len() >= 2) {
            m.vertices.remove(m.vertices.len() / 2);
            assert!(check_puzzle_witness(&job, &bad).is_err());
        }
        // The same job without the request: the same verdicts and no moves.
        let plain = solve_puzzle(
            &mut client,
            pb::PuzzleJob {
                moves: false,
                ..job
            },
        )
        .await
        .expect("solved");
        assert_eq!(plain.reachable, result.reachable);
        assert!(plain.moves.is_empty());
    }
    assert!(yes >= 50 && no >= 50, "{yes} yes, {no} no");
    server.stop().await;
}

#[tokio::test]
async fn puzzle_moves_over_the_cap_get_resource_exhausted_naming_it() {
    let server = TestServer::start(ServerConfig {
        workers: Some(1),
        max_puzzle_moves: 10,
        ..ServerConfig::default()
    })
    .await;
    let mut client = server.client().await;
    let info = client.info().await.expect("info");
    assert_eq!(info.limits.expect("limits").max_puzzle_moves, 10);
    let mut rng = ChaCha8Rng::seed_from_u64(7002);
    let status = solve_puzzle(&mut client, grid_job(&mut rng, true))
        .await
        .expect_err("over the cap");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("max_puzzle_moves"),
        "{}",
        status.message()
    );
    // Without moves the cap does not apply.
    solve_puzzle(&mut client, grid_job(&mut rng, false))
        .await
        .expect("verdicts only");
    server.stop().await;
}
