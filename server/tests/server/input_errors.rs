//! The gRPC status each class of bad input gets, as the README's "Errors" table states it, over
//! real loopback gRPC; and the inputs the fuzz targets (`fuzz/run.sh`) found, with the clear error
//! each gets now. Expected codes and messages are written out from the contract, not copied from
//! the code's output.

use futures::StreamExt;
use orbit_api::JobKind;
use orbit_cli::embedded::EmbeddedServer;
use orbit_client::{Client, pb};
use orbit_server::ServerConfig;
use orbit_server::admission::accept;
use orbit_worker::Limits;
use tonic::Code;

/// A message whose field 1 is a varint, where `orbit.v1.Job` has the string `id`: bytes that
/// are not a `Job`.
#[derive(Clone, PartialEq, prost::Message)]
struct NotAJob {
    #[prost(uint64, tag = "1")]
    id: u64,
}

async fn server() -> (EmbeddedServer, Client) {
    let config = ServerConfig {
        workers: Some(1),
        ..ServerConfig::default()
    };
    let server = EmbeddedServer::start(config).await.expect("server starts");
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

fn count(family: pb::count_job::Family) -> pb::Job {
    job(pb::job::Kind::Count(pb::CountJob {
        family: Some(family),
        modulus: String::new(),
    }))
}

#[tokio::test]
async fn undecodable_bytes_get_internal_from_the_codec() {
    let (server, client) = server().await;
    let channel = tonic::transport::Endpoint::from_shared(server.url())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("ready");
    let err = grpc
        .unary(
            tonic::Request::new(NotAJob { id: 7 }),
            http::uri::PathAndQuery::from_static("/orbit.v1.Orbit/Solve"),
            tonic_prost::ProstCodec::<NotAJob, pb::JobResult>::default(),
        )
        .await
        .expect_err("not a Job");
    // gRPC's status-code guide assigns INTERNAL to an unparsable request; tonic's codec does so.
    assert_eq!(err.code(), Code::Internal, "{err:?}");
    assert_eq!(
        err.message(),
        "failed to decode Protobuf message: Job.id: invalid wire type: Varint (expected \
         LengthDelimited)"
    );
    // The server lives on.
    let mut client = client;
    client.health("").await.expect("still serving");
    drop(client);
    server.stop().await.expect("server stops");
}

#[tokio::test]
async fn refusals_before_queueing_name_the_field_or_the_limit() {
    let (server, mut client) = server().await;
    let no_kind = format!(
        "kind: no job kind set (expected one of: {})",
        JobKind::names()
    );
    let cases = [
        (
            pb::Job {
                id: "none".into(),
                options: None,
                kind: None,
            },
            Code::InvalidArgument,
            no_kind.as_str(),
        ),
        (
            job(pb::job::Kind::Puzzle(pb::PuzzleJob {
                n: 2,
                edges: vec![pb::Edge { from: 0, to: 1 }],
                start: Some(pb::Arrangement { tokens: vec![0, 1] }),
                targets: vec![pb::Arrangement { tokens: vec![1, 1] }],
                targets_packed: vec![],
                moves: false,
            })),
            Code::InvalidArgument,
            "puzzle.targets[0][1]: token 1 appears twice (also at puzzle.targets[0][0])",
        ),
        (
            job(pb::job::Kind::Group(pb::GroupJob {
                degree: 200_000,
                ..Default::default()
            })),
            Code::ResourceExhausted,
            "group degree 200000 exceeds the limit of 100000",
        ),
        // Found by the `job_count` fuzz target: validation allocated 64 GiB for this `n`.
        (
            count(pb::count_job::Family::Graphs(pb::GraphsCount {
                n: 4_294_967_295,
            })),
            Code::ResourceExhausted,
            "count.n: the cycle types of S_4294967295 (partitions of 4294967295) to visit \
             exceeds the limit of 100000000 (max_group_elements)",
        ),
        // Found by the `job_count` fuzz target: `depth + 1` overflowed in this message.
        (
            count(pb::count_job::Family::BinaryTree(pb::BinaryTreeCount {
                depth: u64::MAX,
                k: 2,
            })),
            Code::ResourceExhausted,
            "the exact answer (2^18446744073709551616 vertices; give a modulus) exceeds the \
             limit of 16777216 bits",
        ),
    ];
    for (job, code, message) in cases {
        // The function both handlers call, then the real call.
        let (_, refusal) = accept(job.clone(), &Limits::default()).expect_err(message);
        assert_eq!(refusal.to_string(), message);
        let status = client.solve(job).await.expect_err(message);
        assert_eq!((status.code(), status.message()), (code, message));
    }
    drop(client);
    server.stop().await.expect("server stops");
}

/// An answer larger than `--max-message-bytes` (20,000 vertices, all reported, with a 64 KiB
/// limit) is that job's RESOURCE_EXHAUSTED; it used to be tonic's OUT_OF_RANGE encoding error,
/// which on a stream ended the stream and lost the other jobs' answers.
#[tokio::test]
async fn an_answer_too_large_for_a_message_fails_only_its_job() {
    let config = ServerConfig {
        workers: Some(1),
        max_message_bytes: 65_536,
        ..ServerConfig::default()
    };
    let server = EmbeddedServer::start(config).await.expect("server starts");
    let mut client = Client::connect(&server.url()).await.expect("connect");
    let game = |id: &str, vertices: u32| pb::Job {
        id: id.into(),
        options: None,
        kind: Some(pb::job::Kind::Game(pb::GameGraphJob {
            vertices,
            edges: vec![],
            query: vec![],
            ..Default::default()
        })),
    };
    let too_large = |code: Code, message: &str| {
        assert_eq!(code, Code::ResourceExhausted, "{message}");
        assert!(
            message.starts_with("the answer is ")
                && message.ends_with(
                    " bytes, over the --max-message-bytes limit of 65536; ask for less (e.g. \
                     game.query lists the vertices to report) or split the job"
                ),
            "{message}"
        );
    };
    let status = client
        .solve(game("big", 20_000))
        .await
        .expect_err("too large");
    too_large(status.code(), status.message());

    let mut events = client
        .solve_stream(futures::stream::iter(vec![
            game("big", 20_000),
            game("small", 2),
        ]))
        .await
        .expect("stream starts");
    let mut finals = Vec::new();
    while let Some(event) = events.next().await {
        let event = event.expect("the stream stays up");
        match event.event {
            Some(pb::job_event::Event::Error(e)) => {
                too_large(Code::from(e.code), &e.message);
                assert_eq!(e.code_name, "RESOURCE_EXHAUSTED");
                finals.push(event.id);
            }
            Some(pb::job_event::Event::Result(_)) => finals.push(event.id),
            _ => {}
        }
    }
    finals.sort();
    assert_eq!(finals, ["big", "small"]);
    drop(client);
    server.stop().await.expect("server stops");
}

/// A limit only the solver can see: Sym(12) x Sym(2) on 14 points (not transitive, so not
/// recognised as a giant) has 12! * 2 = 958,003,200 elements, over `max_group_elements`.
#[tokio::test]
async fn a_limit_found_while_solving_is_resource_exhausted() {
    let (server, mut client) = server().await;
    let cycles = |text: &str| pb::Permutation {
        images: vec![],
        cycles: text.into(),
    };
    let status = client
        .solve(count(pb::count_job::Family::Group(pb::GroupCount {
            degree: 14,
            generators: vec![
                cycles("(1,2,3,4,5,6,7,8,9,10,11,12)"),
                cycles("(1,2)"),
                cycles("(13,14)"),
            ],
            k: 2,
            content: vec![],
            cycle_index: false,
        })))
        .await
        .expect_err("too many elements");
    assert_eq!(
        (status.code(), status.message()),
        (
            Code::ResourceExhausted,
            "group elements to enumerate (order 958003200) exceeds the limit of 100000000 \
             (max_group_elements)"
        )
    );
    drop(client);
    server.stop().await.expect("server stops");
}
