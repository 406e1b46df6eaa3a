//! Client-side scale-out with nothing lost: three `orbit-server` processes on loopback, a batch
//! of 1,000 jobs spread over them by the Rust client (`orbit_client::batch`, what `orbit solve`
//! uses), and one server killed with SIGKILL mid-batch. Every job must get exactly one final
//! event, with the right answer.

use std::collections::HashMap;
use std::process::{Child, Command};
use std::time::Duration;

use num_bigint::BigUint;
use orbit_client::batch::{BatchEndpoint, BatchEvent, BatchOptions, solve_batch};
use orbit_client::{Client, pb};

/// Starts `orbit-server` on a free loopback port (no batch store); returns the child and its URL.
fn spawn_server() -> (Child, String) {
    let (child, url, _logs) = crate::common::spawn_orbit_server(None, &["--shutdown-grace", "0"]);
    (child, url)
}

/// Job `i`: Sym(a) on points 0..a-1 times a cyclic group of order b on the next b points, with
/// one member and one non-member to test. Its order is a! * b, known without any group theory
/// code, and the members answer is [true, false].
fn job(i: usize) -> (pb::Job, String) {
    let a = 5 + i % 20;
    let b = 2 + i % 7;
    let degree = a + b;
    let mut long_cycle: Vec<u32> = (0..degree as u32).collect();
    long_cycle[..a].rotate_left(1);
    let mut transposition: Vec<u32> = (0..degree as u32).collect();
    transposition.swap(0, 1);
    let mut rotation: Vec<u32> = (0..degree as u32).collect();
    rotation[a..].rotate_left(1);
    let mut non_member: Vec<u32> = (0..degree as u32).collect();
    non_member.swap(0, a);
    let images = |v: Vec<u32>| pb::Permutation {
        images: v,
        cycles: String::new(),
    };
    let order = (1..=a as u32).map(BigUint::from).product::<BigUint>() * BigUint::from(b);
    let job = pb::Job {
        id: format!("job-{i}"),
        options: None,
        kind: Some(pb::job::Kind::Group(pb::GroupJob {
            degree: degree as u32,
            generators: vec![
                images(long_cycle),
                images(transposition.clone()),
                images(rotation),
            ],
            candidates: vec![images(transposition), images(non_member)],
            ..Default::default()
        })),
    };
    (job, order.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_survives_a_server_killed_mid_batch() {
    batch_survives("KILL").await;
}

/// SIGTERM with no grace: the server cancels its running jobs, refuses new ones UNAVAILABLE and
/// exits; the client sends those jobs elsewhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_survives_a_server_shut_down_mid_batch() {
    batch_survives("TERM").await;
}

/// Runs the batch over three servers and sends `signal` to the second one a quarter of the way.
async fn batch_survives(signal: &str) {
    const JOBS: usize = 1_000;
    let servers: Vec<(Child, String)> = (0..3).map(|_| spawn_server()).collect();
    let mut endpoints = Vec::new();
    for (_, url) in &servers {
        endpoints.push(BatchEndpoint {
            address: url.clone(),
            client: Client::connect_lazy_with(url, &orbit_client::ConnectOptions::default())
                .expect("valid address"),
        });
    }
    let (jobs, expected): (Vec<pb::Job>, Vec<String>) = (0..JOBS).map(job).unzip();
    // A small window keeps every server busy until the end, and a small event buffer keeps the
    // batch from running ahead of this loop (a loaded machine can read slowly: with room for
    // every answer the batch could be done before the kill), so the kill lands on jobs in flight.
    let options = BatchOptions {
        window: 16,
        event_buffer: 16,
        ..BatchOptions::default()
    };
    let mut events = solve_batch(endpoints, jobs, options);

    let mut answers: HashMap<String, pb::JobEvent> = HashMap::new();
    let mut duplicates = Vec::new();
    let mut killed = false;
    let mut downs = Vec::new();
    let mut retried_from = HashMap::<String, usize>::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while answers.len() < JOBS {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the batch finishes within two minutes")
            .expect("the batch reports every job before closing");
        match event {
            BatchEvent::Final(event) => {
                let id = event.id.clone();
                if answers.insert(id.clone(), event).is_some() {
                    duplicates.push(id);
                }
            }
            BatchEvent::Progress(_) => {}
            BatchEvent::Retry { address, .. } => *retried_from.entry(address).or_default() += 1,
            BatchEvent::EndpointDown { address, .. } => downs.push(address),
        }
        if !killed && answers.len() >= JOBS / 4 {
            let status = Command::new("kill")
                .args([format!("-{signal}"), servers[1].0.id().to_string()])
                .status()
                .expect("kill runs");
            assert!(status.success(), "kill -{signal}");
            killed = true;
        }
    }
    assert!(killed);
    // The kill landed mid-batch: jobs in flight on the killed server were sent again, and no
    // other server lost any.
    let killed_url = &servers[1].1;
    assert!(
        retried_from.get(killed_url).copied().unwrap_or(0) > 0,
        "no job was in flight on the killed server: {retried_from:?}"
    );
    assert_eq!(retried_from.len(), 1, "{retried_from:?}");
    eprintln!("retried: {retried_from:?}; endpoints given up: {downs:?}");
    assert!(duplicates.is_empty(), "answered twice: {duplicates:?}");
    for (i, order) in expected.iter().enumerate() {
        let id = format!("job-{i}");
        let event = answers
            .get(&id)
            .unwrap_or_else(|| panic!("{id} unanswered"));
        match &event.event {
            Some(pb::job_event::Event::Result(pb::JobResult {
                result: Some(pb::job_result::Result::Group(group)),
                ..
            })) => {
                assert_eq!(&group.order, order, "{id}: order");
                assert_eq!(group.members, [true, false], "{id}: membership");
            }
            other => panic!("{id}: expected a group result, got {other:?}"),
        }
    }
    // Nothing more arrives: exactly one final event per job.
    let extra = tokio::time::timeout(Duration::from_secs(5), events.recv()).await;
    match extra {
        Ok(None) | Err(_) => {}
        Ok(Some(BatchEvent::EndpointDown { .. })) => {}
        Ok(Some(other)) => panic!("an event after the last answer: {other:?}"),
    }
    for (mut child, _) in servers {
        let _ = child.kill();
        let _ = child.wait();
    }
}
