//! Game witnesses over gRPC, checked the way a client checks them (`orbit_client::witness`): every
//! answer of random graphs passes the check, and each kind of damage to a correct answer (moves
//! out of order, a wrong value, a line cut, bent or lengthened) is caught. Beyond
//! `max_reported_moves` a job gets RESOURCE_EXHAUSTED naming it.

use orbit_client::witness::check_game_witness;
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::Code;

use crate::common::TestServer;

fn random_game(rng: &mut ChaCha8Rng) -> pb::GameGraphJob {
    let n = rng.random_range(1..=12u32);
    let m = rng.random_range(0..=3 * n as usize);
    pb::GameGraphJob {
        vertices: n,
        edges: (0..m)
            .map(|_| pb::Edge {
                from: rng.random_range(0..n),
                to: rng.random_range(0..n),
            })
            .collect(),
        query: Vec::new(),
        moves: true,
        line: true,
    }
}

async fn solve_game(
    client: &mut Client,
    game: pb::GameGraphJob,
) -> Result<pb::GameGraphResult, tonic::Status> {
    let result = client
        .solve(pb::Job {
            id: "witness".into(),
            options: None,
            kind: Some(pb::job::Kind::Game(game)),
        })
        .await?;
    match result.result {
        Some(pb::job_result::Result::Game(game)) => Ok(game),
        other => panic!("not a game result: {other:?}"),
    }
}

/// Damages a correct answer in one of several ways; `None` when the answer has nothing that way
/// to damage.
fn damage(
    result: &pb::GameGraphResult,
    how: u32,
    rng: &mut ChaCha8Rng,
) -> Option<pb::GameGraphResult> {
    let mut bad = result.clone();
    let v = rng.random_range(0..bad.vertices.len());
    let vertex = &mut bad.vertices[v];
    match how {
        // Two moves swapped.
        0 if vertex.moves.len() >= 2 => vertex.moves.swap(0, 1),
        // A move's depth off by one (or a draw given a depth).
        1 if !vertex.moves.is_empty() => {
            let m = &mut vertex.moves[0];
            m.depth = Some(m.depth.map_or(3, |d| d + 1));
        }
        // A move dropped.
        2 if !vertex.moves.is_empty() => {
            vertex.moves.pop();
        }
        // The line cut by one step.
        3 if !vertex.line.is_empty() => {
            vertex.line.pop();
        }
        // A line step bent to another vertex.
        4 if !vertex.line.is_empty() => {
            let i = rng.random_range(0..vertex.line.len());
            vertex.line[i] = (vertex.line[i] + 1) % result.vertices.len() as u32;
        }
        // The line made one step longer.
        5 => {
            let last = vertex.line.last().copied().unwrap_or(vertex.vertex);
            vertex.line.push(last);
        }
        // The vertex's own value flipped.
        6 if vertex.depth.is_some() => {
            vertex.outcome = if vertex.outcome == pb::Outcome::Win as i32 {
                pb::Outcome::Lose as i32
            } else {
                pb::Outcome::Win as i32
            };
        }
        _ => return None,
    }
    Some(bad)
}

#[tokio::test]
async fn every_answer_checks_out_and_every_damage_is_caught() {
    let server = TestServer::start(ServerConfig {
        workers: Some(2),
        ..ServerConfig::default()
    })
    .await;
    let mut client = server.client().await;
    let mut rng = ChaCha8Rng::seed_from_u64(0x5157_0001);
    let mut caught = [0usize; 7];
    for case in 0..300 {
        let game = random_game(&mut rng);
        let result = solve_game(&mut client, game.clone()).await.expect("solve");
        check_game_witness(&game, &result).unwrap_or_else(|e| panic!("case {case}: {e}"));
        for how in 0..7 {
            if let Some(bad) = damage(&result, how, &mut rng) {
                if bad == result {
                    continue;
                }
                assert!(
                    check_game_witness(&game, &bad).is_err(),
                    "case {case}: damage {how} not caught: {game:?}\n{bad:?}"
                );
                caught[how as usize] += 1;
            }
        }
    }
    assert!(caught.iter().all(|&c| c >= 20), "{caught:?}");
    server.stop().await;
}

#[tokio::test]
async fn too_many_reported_moves_get_resource_exhausted_naming_the_limit() {
    let server = TestServer::start(ServerConfig {
        workers: Some(1),
        max_reported_moves: 1_000,
        ..ServerConfig::default()
    })
    .await;
    let mut client = server.client().await;
    let n = 50u32;
    let game = pb::GameGraphJob {
        vertices: n,
        edges: (0..n)
            .flat_map(|u| (0..n).map(move |v| pb::Edge { from: u, to: v }))
            .collect(),
        moves: true,
        ..Default::default()
    };
    let status = solve_game(&mut client, game)
        .await
        .expect_err("over the limit");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("max_reported_moves"),
        "{}",
        status.message()
    );
    server.stop().await;
}

fn random_grid(rng: &mut ChaCha8Rng) -> Vec<String> {
    let (h, w) = (rng.random_range(1..=6usize), rng.random_range(3..=6usize));
    let mut cells: Vec<u8> = (0..h * w)
        .map(|_| if rng.random_bool(0.2) { b'*' } else { b'.' })
        .collect();
    let mut spots: Vec<usize> = (0..h * w).collect();
    for (k, mark) in [b'C', b'T', b'E'].into_iter().enumerate() {
        let i = spots.swap_remove(rng.random_range(0..spots.len()));
        if k < 2 || rng.random_bool(0.7) {
            cells[i] = mark;
        }
    }
    cells
        .chunks(w)
        .map(|row| String::from_utf8(row.to_vec()).expect("ascii"))
        .collect()
}

#[tokio::test]
async fn cop_thief_chases_check_out_and_damage_is_caught() {
    use orbit_client::witness::check_cop_thief_witness;
    let server = TestServer::start(ServerConfig {
        workers: Some(2),
        ..ServerConfig::default()
    })
    .await;
    let mut client = server.client().await;
    let mut rng = ChaCha8Rng::seed_from_u64(0x5157_0002);
    let mut caught = [0usize; 2];
    for case in 0..150 {
        let rows = random_grid(&mut rng);
        let job = pb::CopThiefJob {
            rows,
            queries: Vec::new(),
            moves: true,
            line: true,
        };
        let result = client
            .solve(pb::Job {
                id: "chase".into(),
                options: None,
                kind: Some(pb::job::Kind::CopThief(job.clone())),
            })
            .await
            .expect("solve");
        let Some(pb::job_result::Result::CopThief(answer)) = result.result else {
            panic!("not a cop-thief result")
        };
        check_cop_thief_witness(&job, &answer).unwrap_or_else(|e| panic!("case {case}: {e}"));
        if !answer.line.is_empty() {
            let mut cut = answer.clone();
            cut.line.pop();
            assert!(check_cop_thief_witness(&job, &cut).is_err(), "case {case}");
            caught[0] += 1;
        }
        if answer.moves.len() >= 2 && answer.moves[0].winner != answer.moves[1].winner {
            let mut swapped = answer.clone();
            swapped.moves.swap(0, 1);
            assert!(
                check_cop_thief_witness(&job, &swapped).is_err(),
                "case {case}"
            );
            caught[1] += 1;
        }
    }
    assert!(caught.iter().all(|&c| c >= 10), "{caught:?}");
    server.stop().await;
}
