//! Group words over gRPC, checked the way a client checks them (`orbit_client::witness`, which
//! multiplies every word out): random small groups with members and non-members, Rubik's cube
//! group, the identity's empty word; damage to a correct answer is caught; without the request
//! no words are sent; beyond `max_word_letters` RESOURCE_EXHAUSTED names it, and an effort above
//! 100 is INVALID_ARGUMENT naming `group.word_effort`.

use orbit_client::witness::{check_group_words, format_word};
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::Code;
use tonic_types::StatusExt;

use crate::common::TestServer;

/// GAP's Rubik's cube group on 48 facelets ("Analyzing Rubik's Cube with GAP").
const RUBIK: [&str; 6] = [
    "(1,3,8,6)(2,5,7,4)(9,33,25,17)(10,34,26,18)(11,35,27,19)",
    "(9,11,16,14)(10,13,15,12)(1,17,41,40)(4,20,44,37)(6,22,46,35)",
    "(17,19,24,22)(18,21,23,20)(6,25,43,16)(7,28,42,13)(8,30,41,11)",
    "(25,27,32,30)(26,29,31,28)(3,38,43,19)(5,36,45,21)(8,33,48,24)",
    "(33,35,40,38)(34,37,39,36)(3,9,46,32)(2,12,47,29)(1,14,48,27)",
    "(41,43,48,46)(42,45,47,44)(14,22,30,38)(15,23,31,39)(16,24,32,40)",
];

fn cycles(text: &str) -> pb::Permutation {
    pb::Permutation {
        cycles: text.into(),
        ..Default::default()
    }
}

fn images(images: Vec<u32>) -> pb::Permutation {
    pb::Permutation {
        images,
        ..Default::default()
    }
}

fn compose(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().map(|&x| b[x as usize]).collect()
}

async fn solve_group(
    client: &mut Client,
    group: pb::GroupJob,
) -> Result<pb::GroupResult, tonic::Status> {
    let result = client
        .solve(pb::Job {
            id: "words".into(),
            options: None,
            kind: Some(pb::job::Kind::Group(group)),
        })
        .await?;
    match result.result {
        Some(pb::job_result::Result::Group(group)) => Ok(group),
        other => panic!("not a group result: {other:?}"),
    }
}

/// A random group of degree <= 8 (random generators), candidates: products of generators
/// (members) and random permutations (members or not).
fn random_group_job(rng: &mut ChaCha8Rng) -> pb::GroupJob {
    let d = rng.random_range(1..=8usize);
    let random_perm = |rng: &mut ChaCha8Rng| {
        let mut p: Vec<u32> = (0..d as u32).collect();
        let k = rng.random_range(0..=d);
        p[..k].shuffle(rng);
        p
    };
    let generators: Vec<Vec<u32>> = (0..rng.random_range(0..=3))
        .map(|_| random_perm(rng))
        .collect();
    let mut candidates = Vec::new();
    for _ in 0..6 {
        let mut x: Vec<u32> = (0..d as u32).collect();
        if !generators.is_empty() {
            for _ in 0..rng.random_range(0..20) {
                x = compose(&x, &generators[rng.random_range(0..generators.len())]);
            }
        }
        candidates.push(x);
        candidates.push(random_perm(rng));
    }
    pb::GroupJob {
        degree: d as u32,
        generators: generators.into_iter().map(images).collect(),
        candidates: candidates.into_iter().map(images).collect(),
        words: true,
        word_effort: Some(rng.random_range(0..=3)),
    }
}

#[tokio::test]
async fn words_of_random_groups_check_out_and_damage_is_caught() {
    let server = TestServer::start(ServerConfig::default()).await;
    let mut client = server.client().await;
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let (mut members, mut non_members, mut caught) = (0, 0, 0);
    for _ in 0..200 {
        let job = random_group_job(&mut rng);
        let result = solve_group(&mut client, job.clone()).await.expect("solves");
        check_group_words(&job, &result).expect("the server's words check out");
        members += result.members.iter().filter(|&&m| m).count();
        non_members += result.members.iter().filter(|&&m| !m).count();
        // Damage: an extra letter on a member's word, a generator other than the identity and
        // other than the word's last letter (so the word stays reduced but its product changes).
        if let Some(i) = result.members.iter().position(|&m| m) {
            let mut bad = result.clone();
            let word = &mut bad.words[i];
            let moving = (0..job.generators.len() as u32).find(|&g| {
                word.generators.last() != Some(&g)
                    && job.generators[g as usize]
                        .images
                        .iter()
                        .enumerate()
                        .any(|(x, &y)| x as u32 != y)
            });
            if let Some(g) = moving {
                word.generators.push(g);
                word.exponents.push(1);
                assert!(check_group_words(&job, &bad).is_err(), "{bad:?}");
                caught += 1;
            }
        }
    }
    assert!(
        members > 300 && non_members > 100,
        "{members} {non_members}"
    );
    assert!(caught > 50, "{caught}");
    server.stop().await;
}

#[tokio::test]
async fn rubik_words_identity_and_no_words_unless_asked() {
    let server = TestServer::start(ServerConfig::default()).await;
    let mut client = server.client().await;
    let generators: Vec<pb::Permutation> = RUBIK.iter().map(|t| cycles(t)).collect();
    // The generators as image arrays, to build members as random products of them.
    let gens_images: Vec<Vec<u32>> = RUBIK
        .iter()
        .map(|t| {
            let mut p: Vec<u32> = (0..48).collect();
            for cycle in t.trim_end_matches(')').split(')') {
                let pts: Vec<u32> = cycle
                    .trim_start_matches('(')
                    .split(',')
                    .map(|s| s.parse::<u32>().expect("point") - 1)
                    .collect();
                for (i, &x) in pts.iter().enumerate() {
                    p[x as usize] = pts[(i + 1) % pts.len()];
                }
            }
            p
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(48);
    let mut candidates = vec![cycles("()"), cycles("(2,34)")];
    for _ in 0..20 {
        let mut x: Vec<u32> = (0..48).collect();
        for _ in 0..100 {
            x = compose(&x, &gens_images[rng.random_range(0..6)]);
        }
        candidates.push(images(x));
    }
    let job = pb::GroupJob {
        degree: 48,
        generators,
        candidates,
        words: true,
        word_effort: None,
    };
    let result = solve_group(&mut client, job.clone()).await.expect("solves");
    check_group_words(&job, &result).expect("the server's words check out");
    assert_eq!(result.order, "43252003274489856000");
    // The identity: a member whose word is empty and says it has one.
    assert!(result.words[0].has_word && result.words[0].generators.is_empty());
    assert_eq!(format_word(&result.words[0]), "<identity>");
    // One edge flip: not a member, no word.
    assert!(!result.members[1] && !result.words[1].has_word);
    assert!(result.words[2..].iter().all(|w| w.has_word));
    // Without the request: the same memberships, no words.
    let plain = pb::GroupJob {
        words: false,
        ..job
    };
    let result_plain = solve_group(&mut client, plain).await.expect("solves");
    assert_eq!(result_plain.members, result.members);
    assert!(result_plain.words.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn word_limits_are_refused_with_the_limit_named() {
    let server = TestServer::start(ServerConfig {
        workers: Some(1),
        max_word_letters: 2,
        ..ServerConfig::default()
    })
    .await;
    let mut client = server.client().await;
    // Sym(9) = <c = (1,...,9), t = (1,2)>: the only transposition among the words of at most 2
    // letters (t, c^±1, c^±2, t*c^±1, c^±1*t) is t itself, so (5,9) needs more than 2.
    let job = pb::GroupJob {
        degree: 9,
        generators: vec![cycles("(1,2,3,4,5,6,7,8,9)"), cycles("(1,2)")],
        candidates: vec![cycles("(5,9)"), cycles("(1,5)(2,6)(3,7)")],
        words: true,
        word_effort: Some(0),
    };
    let status = solve_group(&mut client, job.clone())
        .await
        .expect_err("over the limit");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("max_word_letters"),
        "{}",
        status.message()
    );
    let info = status.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "LIMIT_EXCEEDED");
    assert_eq!(
        info.metadata.get("limit_name").map(String::as_str),
        Some("max_word_letters")
    );
    assert_eq!(info.metadata.get("limit").map(String::as_str), Some("2"));
    let too_much = pb::GroupJob {
        word_effort: Some(101),
        ..job
    };
    let status = solve_group(&mut client, too_much)
        .await
        .expect_err("effort over 100");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert!(
        status.message().contains("group.word_effort"),
        "{}",
        status.message()
    );
    server.stop().await;
}
