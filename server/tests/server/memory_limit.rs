//! `--max-job-memory` over real gRPC: a job whose memory estimate is above the limit is refused
//! with RESOURCE_EXHAUSTED before it runs (a stream never reports it queued), the message stating
//! the estimate and the limit; jobs under it run; a group job whose stabiliser chain outgrows
//! what the limit leaves it stops with RESOURCE_EXHAUSTED; `ServerInfo` reports the limit; the
//! flag takes suffixes.

use clap::Parser;
use futures::StreamExt;
use orbit_cli::embedded::EmbeddedServer;
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use tonic::Code;

const LIMIT: u64 = 64 << 20;

async fn server() -> (EmbeddedServer, Client) {
    let config = ServerConfig {
        workers: Some(2),
        threads_per_job: Some(1),
        max_job_memory: LIMIT,
        ..ServerConfig::default()
    };
    let server = EmbeddedServer::start(config).await.expect("start");
    let client = Client::connect(&server.url()).await.expect("connect");
    (server, client)
}

/// An open `n x n` policeman-and-thief grid, the policeman top left, the thief bottom right.
fn open_grid(id: &str, n: usize) -> pb::Job {
    let mut rows = vec![".".repeat(n); n];
    rows[0].replace_range(0..1, "C");
    rows[n - 1].replace_range(n - 1..n, "T");
    pb::Job {
        id: id.into(),
        options: None,
        kind: Some(pb::job::Kind::CopThief(pb::CopThiefJob {
            rows,
            queries: vec![],
            ..Default::default()
        })),
    }
}

/// The byte count in a message's `... of 815.4 MiB ...`, in bytes.
fn bytes_after(message: &str, marker: &str) -> f64 {
    let rest = &message[message.find(marker).expect("marker") + marker.len()..];
    let mut words = rest.split_whitespace();
    let value: f64 = words.next().expect("number").parse().expect("a number");
    let unit = words.next().expect("unit");
    let scale = match unit {
        "bytes" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        other => panic!("unit {other}"),
    };
    value * scale
}

#[tokio::test]
async fn a_job_over_the_memory_limit_is_refused_before_it_runs() {
    let (server, mut client) = server().await;
    // 100 x 100 open grid: 2 · 10^4 · 10^4 states of at least 2 bytes each, 400 MB at the very
    // least, far above 64 MiB.
    let status = client
        .solve(open_grid("big", 100))
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let message = status.message();
    assert!(
        message.starts_with("cop_thief job memory estimate of "),
        "{message}"
    );
    assert!(
        message.ends_with("exceeds the limit of 64.0 MiB (max_job_memory)"),
        "{message}"
    );
    let estimate = bytes_after(message, "estimate of ");
    assert!(estimate >= 4e8, "{message}");

    // On a stream the refusal is the job's only event: it was never queued. The small job after
    // it runs.
    let mut events = client
        .solve_stream(futures::stream::iter(vec![
            open_grid("big", 100),
            open_grid("small", 5),
        ]))
        .await
        .expect("stream");
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        let event = event.expect("event");
        let kind = match event.event.expect("event set") {
            pb::job_event::Event::Queued(_) => "queued".to_string(),
            pb::job_event::Event::Progress(_) => continue,
            pb::job_event::Event::Result(_) => "result".to_string(),
            pb::job_event::Event::Error(e) => {
                assert_eq!(e.code_name, "RESOURCE_EXHAUSTED", "{e:?}");
                assert!(e.message.contains("memory estimate of"), "{e:?}");
                "error".to_string()
            }
        };
        seen.push(format!("{} {kind}", event.id));
    }
    assert_eq!(seen, ["big error", "small queued", "small result"]);
    let info = client.info().await.expect("info");
    assert_eq!(info.limits.expect("limits").max_job_memory, LIMIT);
    drop(server);
}

#[tokio::test]
async fn a_group_whose_chain_outgrows_the_limit_stops_with_resource_exhausted() {
    let (server, mut client) = server().await;
    // 700 disjoint copies of Sym(3) on 2,100 points: a base of 1,400 points, each level's point
    // array alone 8.4 KB, with strong generators of 16.8 KB each: well over what 64 MiB leaves.
    let copies = 700;
    let generators = (0..copies)
        .flat_map(|b| {
            let p = 3 * b + 1;
            [
                pb::Permutation {
                    images: vec![],
                    cycles: format!("({},{},{})", p, p + 1, p + 2),
                },
                pb::Permutation {
                    images: vec![],
                    cycles: format!("({},{})", p, p + 1),
                },
            ]
        })
        .collect();
    let job = pb::Job {
        id: "sym3s".into(),
        options: None,
        kind: Some(pb::job::Kind::Group(pb::GroupJob {
            degree: 3 * copies,
            generators,
            ..Default::default()
        })),
    };
    let status = client.solve(job).await.expect_err("the chain does not fit");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(
        status.message().contains("stabiliser chain"),
        "{}",
        status.message()
    );
    drop(server);
}

#[derive(Parser)]
struct Flags {
    #[command(flatten)]
    config: ServerConfig,
}

#[test]
fn the_flag_takes_bytes_and_suffixes_and_refuses_junk() {
    let parse = |value: &str| {
        Flags::try_parse_from(["orbit-server", "--max-job-memory", value])
            .map(|f| f.config.max_job_memory)
    };
    assert_eq!(parse("1048576").expect("bytes"), 1 << 20);
    assert_eq!(parse("512M").expect("M"), 512 << 20);
    assert_eq!(parse("4g").expect("g"), 4 << 30);
    assert_eq!(parse("2GiB").expect("GiB"), 2 << 30);
    let err = parse("lots").expect_err("junk").to_string();
    assert!(err.contains("`lots` is not a byte count"), "{err}");
    let err = parse("4X").expect_err("junk").to_string();
    assert!(err.contains("suffix K, M, G or T"), "{err}");
    let default = Flags::try_parse_from(["orbit-server"]).expect("defaults");
    assert_eq!(default.config.max_job_memory, 4 << 30);
    assert_eq!(ServerConfig::default().limits().max_job_memory, 4 << 30);
}
