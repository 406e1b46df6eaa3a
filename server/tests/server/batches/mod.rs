//! Durable batches (`orbit.v1.Batches`) against real servers: in this process on a SQLite file
//! (`in_process`), and as `orbit-server` processes on SQLite and on PostgreSQL, killed, restarted
//! and cut off from their database (`replicas`).
//!
//! The oracle throughout is the online service: every batch job's final event must equal the
//! answer of the same job solved alone through `Solve` (timings aside), and every job of a batch
//! must have exactly one final event, sequence numbers 1..k without gaps.

mod in_process;
mod replicas;

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use orbit_api::v1::batches_client::BatchesClient;
use orbit_client::{Client, pb};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::Status;
use tonic::transport::Channel;

/// The generated batch client for `url`.
async fn batches_client(url: &str) -> BatchesClient<Channel> {
    BatchesClient::connect(url.to_string())
        .await
        .expect("connect to the batch service")
}

/// Creates a batch of `jobs` in one `CreateBatch` stream.
async fn create(
    client: &mut BatchesClient<Channel>,
    request_id: &str,
    name: &str,
    jobs: Vec<pb::Job>,
) -> Result<pb::Batch, Status> {
    let header = pb::CreateBatchRequest {
        item: Some(pb::create_batch_request::Item::Header(pb::BatchHeader {
            request_id: request_id.into(),
            name: name.into(),
        })),
    };
    let items = std::iter::once(header).chain(jobs.into_iter().map(|job| pb::CreateBatchRequest {
        item: Some(pb::create_batch_request::Item::Job(job)),
    }));
    Ok(client
        .create_batch(tokio_stream::iter(items))
        .await?
        .into_inner())
}

async fn get(client: &mut BatchesClient<Channel>, batch_id: &str) -> Result<pb::Batch, Status> {
    Ok(client
        .get_batch(pb::GetBatchRequest {
            batch_id: batch_id.into(),
        })
        .await?
        .into_inner())
}

/// Every event of `WatchBatch(after, follow)` until the stream ends; panics on a status.
async fn watch(
    client: &mut BatchesClient<Channel>,
    batch_id: &str,
    after: u64,
    follow: bool,
) -> Vec<pb::BatchEvent> {
    let mut stream = client
        .watch_batch(pb::WatchBatchRequest {
            batch_id: batch_id.into(),
            after_sequence: after,
            follow,
        })
        .await
        .expect("WatchBatch starts")
        .into_inner();
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event.expect("a watch event"));
    }
    events
}

/// Polls `GetBatch` until `done` holds for it, for at most `limit`.
async fn wait_for(
    client: &mut BatchesClient<Channel>,
    batch_id: &str,
    limit: Duration,
    what: &str,
    done: impl Fn(&pb::Batch) -> bool,
) -> pb::Batch {
    let start = std::time::Instant::now();
    loop {
        let batch = get(client, batch_id).await.expect("GetBatch");
        if done(&batch) {
            return batch;
        }
        assert!(
            start.elapsed() < limit,
            "waited {limit:?} for {what}; the batch is {batch:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn is_finished(batch: &pb::Batch) -> bool {
    matches!(
        batch.state(),
        pb::BatchState::Done | pb::BatchState::Cancelled
    )
}

fn counts(batch: &pb::Batch) -> pb::BatchCounts {
    batch.counts.unwrap_or_default()
}

/// Checks that `events` answer each of `jobs` exactly once, by position, with the id it was sent
/// with, numbered 1..k without gaps; returns the final events by position.
fn check_exactly_once(jobs: &[pb::Job], events: &[pb::BatchEvent]) -> Vec<pb::JobEvent> {
    let sequences: Vec<u64> = events.iter().map(|e| e.sequence).collect();
    let expected: Vec<u64> = (1..=jobs.len() as u64).collect();
    assert_eq!(sequences, expected, "sequence numbers 1..k in order");
    let mut by_position: BTreeMap<u64, pb::JobEvent> = BTreeMap::new();
    for event in events {
        let job_event = event.event.clone().expect("an event");
        assert!(
            matches!(
                job_event.event,
                Some(pb::job_event::Event::Result(_) | pb::job_event::Event::Error(_))
            ),
            "a final event: {job_event:?}"
        );
        let position = event.position;
        let job = &jobs[usize::try_from(position).expect("position")];
        assert_eq!(
            job_event.id, job.id,
            "the id the job at {position} was sent with"
        );
        assert!(
            by_position.insert(position, job_event).is_none(),
            "position {position} answered twice"
        );
    }
    assert_eq!(by_position.len(), jobs.len(), "every position answered");
    by_position.into_values().collect()
}

/// What a final event says, without the timings that differ from run to run.
fn answer(event: &pb::JobEvent) -> pb::JobEvent {
    let mut event = event.clone();
    if let Some(pb::job_event::Event::Result(result)) = &mut event.event {
        result.timing = None;
    }
    event
}

/// Each job solved alone through the online `Solve`, as the final event a stream would carry.
async fn solve_alone(url: &str, jobs: &[pb::Job]) -> Vec<pb::JobEvent> {
    let mut client = Client::connect(url).await.expect("connect");
    let mut answers = Vec::with_capacity(jobs.len());
    for job in jobs {
        let id = job.id.clone();
        let event = match client.solve(job.clone()).await {
            Ok(result) => pb::job_event::Event::Result(result),
            // With the status's google.rpc details as the typed fields, as a client reads them.
            Err(status) => pb::job_event::Event::Error(orbit_api::wire::job_error(&status)),
        };
        answers.push(answer(&pb::JobEvent {
            id,
            event: Some(event),
        }));
    }
    answers
}

/// Asserts that each batch answer equals the job solved alone.
fn assert_same_answers(batch: &[pb::JobEvent], alone: &[pb::JobEvent]) {
    assert_eq!(batch.len(), alone.len());
    for (position, (b, a)) in batch.iter().zip(alone).enumerate() {
        assert_eq!(&answer(b), a, "job at position {position}");
    }
}

fn job(id: impl Into<String>, kind: pb::job::Kind) -> pb::Job {
    pb::Job {
        id: id.into(),
        options: None,
        kind: Some(kind),
    }
}

/// A random small job of any kind (ids `prefix-i`), valid or, now and then, invalid.
fn random_job(rng: &mut ChaCha8Rng, id: String) -> pb::Job {
    match rng.random_range(0..10) {
        0..=2 => {
            let vertices = rng.random_range(1..12u32);
            let edges = (0..rng.random_range(0..3 * vertices))
                .map(|_| pb::Edge {
                    from: rng.random_range(0..vertices),
                    to: rng.random_range(0..vertices),
                })
                .collect();
            job(
                id,
                pb::job::Kind::Game(pb::GameGraphJob {
                    vertices,
                    edges,
                    query: vec![],
                    ..Default::default()
                }),
            )
        }
        3..=4 => {
            let n = rng.random_range(1..40u64);
            let k = rng.random_range(1..6u64);
            let family = if rng.random_bool(0.5) {
                pb::count_job::Family::Necklace(pb::NecklaceCount { n, k })
            } else {
                pb::count_job::Family::Bracelet(pb::NecklaceCount { n, k })
            };
            job(
                id,
                pb::job::Kind::Count(pb::CountJob {
                    family: Some(family),
                    modulus: String::new(),
                }),
            )
        }
        5..=6 => {
            let degree = rng.random_range(2..9u32);
            let mut permutation = || {
                let mut images: Vec<u32> = (0..degree).collect();
                for i in (1..images.len()).rev() {
                    images.swap(i, rng.random_range(0..=i));
                }
                pb::Permutation {
                    images,
                    cycles: String::new(),
                }
            };
            let generators = (0..2).map(|_| permutation()).collect();
            let candidates = (0..3).map(|_| permutation()).collect();
            job(
                id,
                pb::job::Kind::Group(pb::GroupJob {
                    degree,
                    generators,
                    candidates,
                    ..Default::default()
                }),
            )
        }
        7 => {
            // A path 0-1-...-(n-1): only the start itself is reachable.
            let n = rng.random_range(2..7u32);
            let edges = (1..n).map(|v| pb::Edge { from: v - 1, to: v }).collect();
            let start: Vec<u32> = (0..n).collect();
            let mut other = start.clone();
            other.swap(0, 1);
            job(
                id,
                pb::job::Kind::Puzzle(pb::PuzzleJob {
                    n,
                    edges,
                    start: Some(pb::Arrangement {
                        tokens: start.clone(),
                    }),
                    targets: vec![
                        pb::Arrangement { tokens: start },
                        pb::Arrangement { tokens: other },
                    ],
                    targets_packed: vec![],
                    moves: false,
                }),
            )
        }
        8 => job(
            id,
            pb::job::Kind::CopThief(pb::CopThiefJob {
                rows: vec!["C..".into(), "...".into(), "..T".into()],
                queries: vec![],
                ..Default::default()
            }),
        ),
        _ => {
            // Invalid: an edge to a vertex that does not exist; answered with its own error.
            job(
                id,
                pb::job::Kind::Game(pb::GameGraphJob {
                    vertices: 2,
                    edges: vec![pb::Edge { from: 0, to: 7 }],
                    query: vec![],
                    ..Default::default()
                }),
            )
        }
    }
}

/// `n` random jobs from `seed`, ids `prefix-i`.
fn random_jobs(seed: u64, n: usize, prefix: &str) -> Vec<pb::Job> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|i| random_job(&mut rng, format!("{prefix}-{i}")))
        .collect()
}

/// A cop-and-thief job on an open `n x n` grid: long enough at n = 100 to be seen running.
fn slow_job(id: &str, n: usize) -> pb::Job {
    job(
        id,
        pb::job::Kind::CopThief(pb::CopThiefJob {
            rows: crate::common::open_grid_rows(n),
            queries: vec![],
            ..Default::default()
        }),
    )
}
