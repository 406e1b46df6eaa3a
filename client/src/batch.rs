//! A batch spread over several Orbit servers, with retry: every job gets exactly one final event.
//!
//! Each endpoint runs one `SolveStream` at a time and pulls jobs from a shared queue, keeping at
//! most [`BatchOptions::window`] in flight, so a fast server takes more of the batch than a slow
//! one. Solve jobs are pure functions of their input, hence idempotent: a job is sent again, to
//! any endpoint, when its answer was lost:
//! - its stream broke (server killed, connection reset, refused): every job in flight on it goes
//!   back to the queue and the endpoint reconnects with exponential backoff; after
//!   [`BatchOptions::max_connect_failures`] failures in a row without an answer it is given up;
//! - the server answered the job UNAVAILABLE or CANCELLED (it is draining or shutting down; this
//!   client never cancels a job on its own): the job goes back to the queue and the endpoint
//!   stops taking work until its stream closes.
//!
//! A job is tried at most [`BatchOptions::max_attempts`] times; after that, or when every endpoint
//! has been given up, it gets an error event with the last status. Every other error is the job's
//! own answer (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, ...). An answer is
//! delivered once per job even if a resent job is answered twice, and events carry the caller's
//! id (on the wire, ids that occur more than once in the batch are made unique and mapped back).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::StreamExt;
use prost::Message;
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status};

use crate::{Client, pb};

/// How a batch is spread and retried.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Jobs in flight per endpoint. The server holds back a stream that has more than its own
    /// window (`ServerInfo.stream_window`, 256 by default) unanswered, so more buys nothing.
    pub window: usize,
    /// Sends of one job before its last error becomes its answer.
    pub max_attempts: u32,
    /// Stream failures in a row, with no answer in between, before an endpoint is given up.
    pub max_connect_failures: u32,
    /// First reconnect delay; doubles per failure up to [`max_backoff`](Self::max_backoff).
    pub initial_backoff: Duration,
    /// Longest reconnect delay.
    pub max_backoff: Duration,
    /// Largest job message the endpoints accept; a bigger job is answered RESOURCE_EXHAUSTED
    /// without being sent (it would break the whole stream, not just itself).
    pub max_message_bytes: usize,
    /// Events held for a slow reader of the returned receiver. When it is full the batch waits
    /// (a stream stops taking jobs until its answer is read), so the batch runs at most this
    /// many events, plus the endpoints' windows, ahead of its reader.
    pub event_buffer: usize,
}

impl Default for BatchOptions {
    fn default() -> Self {
        Self {
            window: 256,
            max_attempts: 5,
            max_connect_failures: 6,
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
            max_message_bytes: crate::DEFAULT_MAX_MESSAGE_BYTES,
            event_buffer: 1024,
        }
    }
}

/// What a batch reports, in the order it happens.
#[derive(Debug, Clone)]
pub enum BatchEvent {
    /// A job's final event (`result` or `error`), exactly one per job.
    Final(pb::JobEvent),
    /// A progress event of a running job.
    Progress(pb::JobEvent),
    /// A job's answer was lost on `address` (its stream broke, or the server is draining); the
    /// job was queued again for any endpoint.
    Retry {
        /// The caller's id of the job.
        id: String,
        /// The endpoint that lost it.
        address: String,
        /// Why.
        reason: Status,
    },
    /// An endpoint was given up; its unanswered jobs went to the others.
    EndpointDown {
        /// The endpoint's address.
        address: String,
        /// The last status it failed with.
        reason: Status,
    },
}

/// One server of the batch.
#[derive(Debug, Clone)]
pub struct BatchEndpoint {
    /// Where it is, for messages.
    pub address: String,
    /// A client for it (best made with [`Client::connect_lazy_with`], so that an endpoint
    /// that is down at the start does not stop the batch).
    pub client: Client,
}

/// Solves `jobs` across `endpoints`; the events arrive on the returned receiver, which closes
/// after the last job's final event.
///
/// # Panics
/// If `endpoints` is empty, or `options.window` or `options.event_buffer` is 0 (caller bugs).
pub fn solve_batch(
    endpoints: Vec<BatchEndpoint>,
    jobs: Vec<pb::Job>,
    options: BatchOptions,
) -> mpsc::Receiver<BatchEvent> {
    assert!(!endpoints.is_empty(), "a batch needs at least one endpoint");
    assert!(options.window > 0, "the window must be at least 1");
    assert!(
        options.event_buffer > 0,
        "the event buffer must hold at least 1"
    );
    let (events, receiver) = mpsc::channel(options.event_buffer);
    let (shared, oversized) = Shared::new(jobs, endpoints.len(), options);
    let shared = Arc::new(shared);
    tokio::spawn({
        let events = events.clone();
        async move {
            for event in oversized {
                if events.send(BatchEvent::Final(event)).await.is_err() {
                    return;
                }
            }
        }
    });
    for endpoint in endpoints {
        tokio::spawn(drive_endpoint(shared.clone(), endpoint, events.clone()));
    }
    receiver
}

/// The batch's state shared by the endpoint tasks.
struct Shared {
    /// The jobs with their wire ids.
    jobs: Vec<pb::Job>,
    /// The caller's id of each job, where the wire id differs.
    caller_ids: HashMap<usize, String>,
    options: BatchOptions,
    state: Mutex<State>,
    /// Bumped whenever work is queued or the batch finishes, to wake idle endpoints.
    changed: watch::Sender<u64>,
}

struct State {
    /// Jobs waiting for an endpoint.
    queue: VecDeque<usize>,
    /// Sends so far, per job.
    attempts: Vec<u32>,
    /// Whether each job has had its final event.
    answered: Vec<bool>,
    /// Jobs still owed a final event.
    unanswered: usize,
    /// Endpoints not given up.
    live_endpoints: usize,
}

impl Shared {
    /// The shared state, and final events for the jobs too big to send.
    fn new(
        mut jobs: Vec<pb::Job>,
        endpoints: usize,
        options: BatchOptions,
    ) -> (Self, Vec<pb::JobEvent>) {
        let mut seen = HashSet::new();
        let repeated: HashSet<String> = jobs
            .iter()
            .filter(|job| !seen.insert(job.id.as_str()))
            .map(|job| job.id.clone())
            .collect();
        let mut caller_ids = HashMap::new();
        for (index, job) in jobs.iter_mut().enumerate() {
            if repeated.contains(&job.id) {
                let wire = format!("{}#{index}", job.id);
                caller_ids.insert(index, std::mem::replace(&mut job.id, wire));
            }
        }
        // A repeated id rewritten to `id#i` could collide with a caller's own `id#i`: then fall
        // back to plain indices, which cannot.
        let distinct: HashSet<&str> = jobs.iter().map(|job| job.id.as_str()).collect();
        if distinct.len() != jobs.len() {
            for (index, job) in jobs.iter_mut().enumerate() {
                let wire = format!("{index}");
                let caller = std::mem::replace(&mut job.id, wire);
                caller_ids.entry(index).or_insert(caller);
            }
        }
        let mut queue = VecDeque::with_capacity(jobs.len());
        let mut answered = vec![false; jobs.len()];
        let mut oversized = Vec::new();
        for (index, job) in jobs.iter().enumerate() {
            let bytes = job.encoded_len();
            if bytes > options.max_message_bytes {
                answered[index] = true;
                oversized.push(error_event(
                    caller_ids.get(&index).unwrap_or(&job.id).clone(),
                    &Status::resource_exhausted(format!(
                        "the job is {bytes} bytes encoded, over the largest message of {} bytes",
                        options.max_message_bytes
                    )),
                ));
            } else {
                queue.push_back(index);
            }
        }
        let state = State {
            unanswered: queue.len(),
            queue,
            attempts: vec![0; jobs.len()],
            answered,
            live_endpoints: endpoints,
        };
        let shared = Self {
            jobs,
            caller_ids,
            options,
            state: Mutex::new(state),
            changed: watch::Sender::new(0),
        };
        (shared, oversized)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the queue half-updated in a way that
        // matters more than losing the batch; keep going with the data as it is.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wake(&self) {
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    fn finished(&self) -> bool {
        self.state().unanswered == 0
    }

    /// The next job to send, counting the attempt.
    fn take(&self) -> Option<usize> {
        let mut state = self.state();
        let index = state.queue.pop_front()?;
        state.attempts[index] += 1;
        Some(index)
    }

    /// Marks `index` answered; false if it already was (a resent job answered twice).
    fn answer(&self, index: usize) -> bool {
        let mut state = self.state();
        if state.answered[index] {
            return false;
        }
        state.answered[index] = true;
        state.unanswered -= 1;
        let done = state.unanswered == 0;
        drop(state);
        if done {
            self.wake();
        }
        true
    }

    /// Puts `index` back in the queue after `status` lost it on `address` (a `Retry` event), or,
    /// when it has used its attempts or no endpoint is left, gives its final error event.
    fn retry(&self, index: usize, address: &str, status: &Status) -> Option<BatchEvent> {
        let mut state = self.state();
        if state.answered[index] {
            return None;
        }
        if state.attempts[index] >= self.options.max_attempts || state.live_endpoints == 0 {
            drop(state);
            return self
                .answer(index)
                .then(|| BatchEvent::Final(self.final_error(index, status)));
        }
        state.queue.push_back(index);
        drop(state);
        self.wake();
        Some(BatchEvent::Retry {
            id: self.caller_id(index).to_string(),
            address: address.to_string(),
            reason: status.clone(),
        })
    }

    /// Gives up an endpoint; if it was the last, empties the queue into final error events.
    fn endpoint_down(&self, status: &Status) -> Vec<pb::JobEvent> {
        let mut state = self.state();
        state.live_endpoints -= 1;
        if state.live_endpoints > 0 {
            return Vec::new();
        }
        let stranded: Vec<usize> = state.queue.drain(..).collect();
        drop(state);
        stranded
            .into_iter()
            .filter(|&i| self.answer(i))
            .map(|i| self.final_error(i, status))
            .collect()
    }

    fn final_error(&self, index: usize, status: &Status) -> pb::JobEvent {
        error_event(self.caller_id(index).to_string(), status)
    }

    fn caller_id(&self, index: usize) -> &str {
        self.caller_ids
            .get(&index)
            .map_or(self.jobs[index].id.as_str(), String::as_str)
    }

    /// `event` with the caller's id in place of the wire id.
    fn restore_id(&self, index: usize, mut event: pb::JobEvent) -> pb::JobEvent {
        if let Some(caller) = self.caller_ids.get(&index) {
            event.id.clone_from(caller);
            if let Some(pb::job_event::Event::Result(result)) = &mut event.event {
                result.id.clone_from(caller);
            }
        }
        event
    }
}

/// How one stream ended.
enum StreamEnd {
    /// Every job of the batch is answered.
    Finished,
    /// The server is draining: it answered a job UNAVAILABLE/CANCELLED and the stream is now
    /// empty. Reconnect later (the server may be gone by then).
    Draining(Status),
    /// The stream broke; `answered` says whether it answered anything before.
    Broken { status: Status, answered: bool },
    /// The caller dropped the receiver.
    Abandoned,
}

/// One endpoint's loop: streams until the batch is done or the endpoint is given up.
async fn drive_endpoint(
    shared: Arc<Shared>,
    endpoint: BatchEndpoint,
    events: mpsc::Sender<BatchEvent>,
) {
    let mut changed = shared.changed.subscribe();
    let mut failures = 0u32;
    loop {
        // Wait for work: nothing to send is no reason to open a stream (and count failures).
        loop {
            changed.borrow_and_update();
            let (finished, has_work) = {
                let state = shared.state();
                (state.unanswered == 0, !state.queue.is_empty())
            };
            if finished {
                return;
            }
            if has_work {
                break;
            }
            if changed.changed().await.is_err() {
                return;
            }
        }
        let status = match run_stream(&shared, &endpoint, &events, &mut changed).await {
            StreamEnd::Finished | StreamEnd::Abandoned => return,
            StreamEnd::Draining(status) => status,
            StreamEnd::Broken { status, answered } => {
                if answered {
                    failures = 0;
                }
                if !is_transient(status.code()) {
                    // Misconfiguration (auth, TLS, an old server): retrying will not help.
                    failures = shared.options.max_connect_failures;
                }
                status
            }
        };
        failures += 1;
        if failures >= shared.options.max_connect_failures {
            let stranded = shared.endpoint_down(&status);
            let _ = events
                .send(BatchEvent::EndpointDown {
                    address: endpoint.address.clone(),
                    reason: status,
                })
                .await;
            for event in stranded {
                if events.send(BatchEvent::Final(event)).await.is_err() {
                    return;
                }
            }
            return;
        }
        let backoff = shared
            .options
            .initial_backoff
            .saturating_mul(1 << (failures - 1).min(16))
            .min(shared.options.max_backoff);
        let sleep = tokio::time::sleep(backoff);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => break,
                _ = changed.changed() => if shared.finished() { return; },
            }
        }
    }
}

/// One `SolveStream` on `endpoint`, fed from the shared queue.
async fn run_stream(
    shared: &Shared,
    endpoint: &BatchEndpoint,
    events: &mpsc::Sender<BatchEvent>,
    changed: &mut watch::Receiver<u64>,
) -> StreamEnd {
    let window = shared.options.window;
    let (requests, request_stream) = mpsc::channel::<pb::Job>(window);
    let mut client = endpoint.client.clone();
    let mut responses = match client
        .solve_stream(ReceiverStream::new(request_stream))
        .await
    {
        Ok(responses) => responses,
        Err(status) => {
            return StreamEnd::Broken {
                status,
                answered: false,
            };
        }
    };
    // Jobs sent on this stream and not yet answered, by wire id.
    let mut in_flight: HashMap<String, usize> = HashMap::new();
    let mut accepting = true;
    let mut answered = false;
    let mut drain_status = None;
    loop {
        changed.borrow_and_update();
        while accepting && in_flight.len() < window {
            let Some(index) = shared.take() else { break };
            let job = shared.jobs[index].clone();
            in_flight.insert(job.id.clone(), index);
            // Capacity is `window` and at most `window` jobs are unanswered, so this cannot be
            // full; it fails only if the call has ended, which the response side reports.
            let _ = requests.try_send(job);
        }
        if in_flight.is_empty() {
            if shared.finished() {
                drop(requests);
                // Let the server end the call cleanly rather than see it reset.
                let _ = tokio::time::timeout(Duration::from_secs(1), async {
                    while responses.next().await.is_some() {}
                })
                .await;
                return StreamEnd::Finished;
            }
            if let Some(status) = drain_status {
                return StreamEnd::Draining(status);
            }
        }
        tokio::select! {
            response = responses.next() => {
                let event = match response {
                    Some(Ok(event)) => event,
                    broken => {
                        let status = match broken {
                            Some(Err(status)) => status,
                            _ => Status::unavailable(format!(
                                "{}: the stream ended with jobs unanswered",
                                endpoint.address
                            )),
                        };
                        for (_, index) in in_flight.drain() {
                            if let Some(event) = shared.retry(index, &endpoint.address, &status)
                                && events.send(event).await.is_err()
                            {
                                return StreamEnd::Abandoned;
                            }
                        }
                        return StreamEnd::Broken { status, answered };
                    }
                };
                let Some(&index) = in_flight.get(&event.id) else {
                    continue;
                };
                let delivered = match &event.event {
                    Some(pb::job_event::Event::Result(_)) => {
                        in_flight.remove(&event.id);
                        answered = true;
                        shared
                            .answer(index)
                            .then(|| BatchEvent::Final(shared.restore_id(index, event)))
                    }
                    Some(pb::job_event::Event::Error(error)) => {
                        in_flight.remove(&event.id);
                        let code = Code::from_i32(error.code);
                        if matches!(code, Code::Unavailable | Code::Cancelled) {
                            let status = Status::new(code, error.message.clone());
                            accepting = false;
                            let retry = shared.retry(index, &endpoint.address, &status);
                            drain_status = Some(status);
                            retry
                        } else {
                            answered = true;
                            shared
                                .answer(index)
                                .then(|| BatchEvent::Final(shared.restore_id(index, event)))
                        }
                    }
                    Some(pb::job_event::Event::Progress(_)) => {
                        Some(BatchEvent::Progress(shared.restore_id(index, event)))
                    }
                    Some(pb::job_event::Event::Queued(_)) | None => None,
                };
                if let Some(delivered) = delivered
                    && events.send(delivered).await.is_err()
                {
                    return StreamEnd::Abandoned;
                }
            }
            woken = changed.changed(), if accepting && in_flight.len() < window => {
                if woken.is_err() {
                    return StreamEnd::Abandoned;
                }
            }
        }
    }
}

/// Whether a stream-level status may go away by itself (a server restarting, a network blip),
/// as opposed to a misconfiguration that fails every try the same way.
fn is_transient(code: Code) -> bool {
    match code {
        Code::Unavailable
        | Code::Unknown
        | Code::Internal
        | Code::Cancelled
        | Code::DeadlineExceeded
        | Code::Aborted
        | Code::ResourceExhausted => true,
        Code::Ok
        | Code::InvalidArgument
        | Code::NotFound
        | Code::AlreadyExists
        | Code::PermissionDenied
        | Code::FailedPrecondition
        | Code::OutOfRange
        | Code::Unimplemented
        | Code::DataLoss
        | Code::Unauthenticated => false,
    }
}

/// A final error event for job `id`: the status's code and message, and the `google.rpc` details
/// it carries (reason, metadata, field violations, retry delay) as `JobError`'s typed fields.
pub fn error_event(id: String, status: &Status) -> pb::JobEvent {
    pb::JobEvent {
        id,
        event: Some(pb::job_event::Event::Error(orbit_api::wire::job_error(
            status,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tonic_types::{ErrorDetails, StatusExt};

    /// A refusal as an Orbit server sends it: the job error keeps the code and message and
    /// carries the details as typed fields.
    #[test]
    fn error_events_carry_the_status_details() {
        let mut details = ErrorDetails::with_error_info(
            "INVALID_FIELD",
            "orbit.v1",
            std::collections::HashMap::new(),
        );
        details.add_bad_request_violation("puzzle.targets[3][7]", "token 9 out of range 0..8");
        let status = Status::with_error_details(
            Code::InvalidArgument,
            "puzzle.targets[3][7]: token 9 out of range 0..8",
            details,
        );
        let Some(pb::job_event::Event::Error(e)) = error_event("j1".into(), &status).event else {
            panic!("not an error event");
        };
        assert_eq!(e.code, 3);
        assert_eq!(e.code_name, "INVALID_ARGUMENT");
        assert_eq!(e.message, "puzzle.targets[3][7]: token 9 out of range 0..8");
        assert_eq!(e.reason, "INVALID_FIELD");
        assert_eq!(
            e.field_violations,
            vec![pb::FieldViolation {
                field: "puzzle.targets[3][7]".into(),
                description: "token 9 out of range 0..8".into(),
            }]
        );
        assert_eq!(e.retry_delay_ms, 0);

        let mut details =
            ErrorDetails::with_error_info("DRAINING", "orbit.v1", std::collections::HashMap::new());
        details.set_retry_info(Some(Duration::from_secs(2)));
        let status = Status::with_error_details(Code::Unavailable, "shutting down", details);
        let Some(pb::job_event::Event::Error(e)) = error_event("j2".into(), &status).event else {
            panic!("not an error event");
        };
        assert_eq!((e.reason.as_str(), e.retry_delay_ms), ("DRAINING", 2000));
    }

    /// A status without details (a transport error, another server): the typed fields stay empty.
    #[test]
    fn statuses_without_details_leave_the_fields_empty() {
        let status = Status::unavailable("connection refused");
        let Some(pb::job_event::Event::Error(e)) = error_event("j".into(), &status).event else {
            panic!("not an error event");
        };
        assert_eq!(e.message, "connection refused");
        assert!(e.reason.is_empty() && e.metadata.is_empty() && e.field_violations.is_empty());
    }
}
