//! Durable batches (`orbit.v1.Batches`): submit jobs, disconnect, come back for the answers.
//!
//! [`BatchesClient`] (from [`Client::batches`](crate::Client::batches)) wraps the generated client:
//! create a batch from a stream of jobs ([`create_batch`](BatchesClient::create_batch), idempotent
//! by request id), read it, list them, watch its final events (once, or resuming after transient
//! failures with [`watch_batch_resuming`](BatchesClient::watch_batch_resuming)), cancel and
//! delete it. Unlike [`crate::batch`], which solves a batch online over `SolveStream`s, these
//! batches are stored by the server and worked through whether or not a client is connected.
//!
//! ```no_run
//! # async fn demo(jobs: Vec<orbit_client::pb::Job>) -> Result<(), Box<dyn std::error::Error>> {
//! use futures::StreamExt;
//! use orbit_client::batches::{WatchRetry, is_finished};
//! let client = orbit_client::Client::connect("http://127.0.0.1:50051").await?;
//! let mut batches = client.batches();
//! let batch = batches
//!     .create_batch("3f1c0d6e-request", "nightly", futures::stream::iter(jobs))
//!     .await?;
//! let events = batches.watch_batch_resuming(&batch.id, 0, true, WatchRetry::default());
//! futures::pin_mut!(events);
//! while let Some(event) = events.next().await {
//!     println!("{:?}", event?.event);
//! }
//! assert!(is_finished(&batches.get_batch(&batch.id).await?));
//! # Ok(()) }
//! ```

use std::time::Duration;

use futures::{Stream, StreamExt};
use orbit_api::v1::batches_client::BatchesClient as RawBatchesClient;
use orbit_api::v1::create_batch_request::Item;
use tonic::{Code, Status, Streaming};

use crate::{OrbitChannel, pb};

/// Whether `batch` is finished: DONE (every job has its final event) or CANCELLED. A finished
/// batch gets no more events.
pub fn is_finished(batch: &pb::Batch) -> bool {
    matches!(
        batch.state(),
        pb::BatchState::Done | pb::BatchState::Cancelled
    )
}

/// Whether a call that failed with `status` is worth trying again as it is: the server was
/// unreachable or draining (UNAVAILABLE), or the stream broke under the call — the connection
/// was reset or closed (UNKNOWN, CANCELLED, ABORTED, as tonic reports a body that stopped) or
/// an HTTP/2 error ended it (INTERNAL "h2 protocol error"). The server's own answers
/// (NOT_FOUND, INVALID_ARGUMENT, FAILED_PRECONDITION, an INTERNAL of its own, ...) are not.
pub fn is_transient(status: &Status) -> bool {
    match status.code() {
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::Aborted => true,
        Code::Internal => status.message().starts_with("h2 protocol error"),
        _ => false,
    }
}

/// How [`BatchesClient::watch_batch_resuming`] reconnects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchRetry {
    /// Reconnects in a row without an event in between before the last error is returned; an
    /// event resets the count. 0: no reconnect.
    pub attempts: u32,
    /// Wait before each reconnect.
    pub delay: Duration,
}

impl Default for WatchRetry {
    /// 10 reconnects, 1 s apart: rides out a server restart or a rolling update.
    fn default() -> Self {
        Self {
            attempts: 10,
            delay: Duration::from_secs(1),
        }
    }
}

/// The `orbit.v1.Batches` calls of one server (or channel); cheap to clone.
#[derive(Debug, Clone)]
pub struct BatchesClient {
    inner: RawBatchesClient<OrbitChannel>,
}

impl BatchesClient {
    /// Wraps a generated client (with its message limits and token).
    pub fn new(inner: RawBatchesClient<OrbitChannel>) -> Self {
        Self { inner }
    }

    /// The generated client, for anything this wrapper does not cover.
    pub fn raw(&mut self) -> &mut RawBatchesClient<OrbitChannel> {
        &mut self.inner
    }

    /// Creates a batch: sends the header (`request_id`, `name`), then `jobs` in order, and
    /// returns the sealed batch once the stream ends. Jobs are stored as they arrive, so the
    /// stream may be far larger than memory.
    ///
    /// Idempotent by `request_id` (choose one per batch, e.g. 128 random bits): if the call
    /// fails, calling again with the same request id and the same jobs from the first finishes
    /// the batch — the jobs already stored are skipped by position — and a call repeated after
    /// the batch was created returns it. A job the server cannot use (no kind, a bad field) is
    /// still stored and answered with its own error event.
    ///
    /// # Errors
    /// The call's status: INVALID_ARGUMENT (an empty or too long request id or name),
    /// FAILED_PRECONDITION (the request id's batch was cancelled or deleted, or the server keeps
    /// no batches), RESOURCE_EXHAUSTED (over the server's `--max-batch-jobs`/`--max-batch-bytes`,
    /// or a job larger than its message limit), UNAVAILABLE and the stream-break codes of
    /// [`is_transient`]. After any of them the jobs stored so far stay in the batch.
    pub async fn create_batch(
        &mut self,
        request_id: &str,
        name: &str,
        jobs: impl Stream<Item = pb::Job> + Send + 'static,
    ) -> Result<pb::Batch, Status> {
        let header = pb::CreateBatchRequest {
            item: Some(Item::Header(pb::BatchHeader {
                request_id: request_id.to_string(),
                name: name.to_string(),
            })),
        };
        let requests = futures::stream::once(std::future::ready(header)).chain(jobs.map(|job| {
            pb::CreateBatchRequest {
                item: Some(Item::Job(job)),
            }
        }));
        Ok(self.inner.create_batch(requests).await?.into_inner())
    }

    /// The batch `batch_id`: state, counts, times.
    ///
    /// # Errors
    /// NOT_FOUND if there is no such batch (or it was deleted, or retention removed it);
    /// INVALID_ARGUMENT for an empty id; UNAVAILABLE while the server's store is unreachable.
    pub async fn get_batch(&mut self, batch_id: &str) -> Result<pb::Batch, Status> {
        let request = pb::GetBatchRequest {
            batch_id: batch_id.to_string(),
        };
        Ok(self.inner.get_batch(request).await?.into_inner())
    }

    /// One page of batches, newest first: `page_size` of them (0: the server's default, 100; at
    /// most 1000), after the page that returned `page_token` ("" for the first page). The
    /// response's `next_page_token` is empty on the last page.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a token the server did not hand out; UNAVAILABLE.
    pub async fn list_batches(
        &mut self,
        page_size: u32,
        page_token: &str,
    ) -> Result<pb::ListBatchesResponse, Status> {
        let request = pb::ListBatchesRequest {
            page_size,
            page_token: page_token.to_string(),
        };
        Ok(self.inner.list_batches(request).await?.into_inner())
    }

    /// Every batch, newest first: the pages of [`list_batches`](Self::list_batches), following
    /// `next_page_token` to the last.
    ///
    /// # Errors
    /// The first page's error; INTERNAL if the server hands back the token it was given (it
    /// would never end).
    pub async fn list_all_batches(&mut self) -> Result<Vec<pb::Batch>, Status> {
        let mut batches = Vec::new();
        let mut token = String::new();
        loop {
            let page = self.list_batches(0, &token).await?;
            batches.extend(page.batches);
            if page.next_page_token.is_empty() {
                return Ok(batches);
            }
            if page.next_page_token == token {
                return Err(Status::internal(format!(
                    "ListBatches returned its own page token '{token}' as the next one"
                )));
            }
            token = page.next_page_token;
        }
    }

    /// The batch's final job events in commit order, those with a sequence number above `after`
    /// (0: from the first); with `follow`, the stream then stays open and sends each event as it
    /// is committed, ending when the batch is finished and every event has been sent. Without
    /// it, the stream ends after the events committed so far.
    ///
    /// # Errors
    /// The call: NOT_FOUND for no such batch, INVALID_ARGUMENT, UNAVAILABLE. The stream may
    /// also end with an error (NOT_FOUND if the batch is deleted meanwhile, a transient one if
    /// the connection breaks); [`watch_batch_resuming`](Self::watch_batch_resuming) rides out
    /// the transient ones.
    pub async fn watch_batch(
        &mut self,
        batch_id: &str,
        after: u64,
        follow: bool,
    ) -> Result<Streaming<pb::BatchEvent>, Status> {
        let request = pb::WatchBatchRequest {
            batch_id: batch_id.to_string(),
            after_sequence: after,
            follow,
        };
        Ok(self.inner.watch_batch(request).await?.into_inner())
    }

    /// Like [`watch_batch`](Self::watch_batch), but a call or stream that fails with a transient
    /// error ([`is_transient`]: the server unreachable or restarting, the connection broken) is
    /// made again after `retry.delay`, with `after` = the last sequence number received, so that
    /// no event is missed and none is delivered twice (an event at or below the last one seen is
    /// dropped, should a server send one). The stream ends when the watch does.
    ///
    /// # Errors
    /// Yields a non-transient error at once (NOT_FOUND, ...), or the last transient one after
    /// `retry.attempts` reconnects in a row without an event; nothing follows an error.
    pub fn watch_batch_resuming(
        &self,
        batch_id: &str,
        after: u64,
        follow: bool,
        retry: WatchRetry,
    ) -> impl Stream<Item = Result<pb::BatchEvent, Status>> + Send + 'static {
        let state = Resuming {
            client: self.clone(),
            batch_id: batch_id.to_string(),
            last: after,
            follow,
            retry,
            stream: None,
            failures: 0,
            ended: false,
        };
        futures::stream::unfold(state, |mut state| async move {
            let item = state.next().await?;
            Some((item, state))
        })
    }

    /// Cancels the batch: every job without a final event gets a CANCELLED error event at once,
    /// and running ones are stopped. Cancelling a finished batch changes nothing. Returns the
    /// batch as it is then.
    ///
    /// # Errors
    /// NOT_FOUND, INVALID_ARGUMENT, UNAVAILABLE.
    pub async fn cancel_batch(&mut self, batch_id: &str) -> Result<pb::Batch, Status> {
        let request = pb::CancelBatchRequest {
            batch_id: batch_id.to_string(),
        };
        Ok(self.inner.cancel_batch(request).await?.into_inner())
    }

    /// Deletes the batch with its jobs and results, cancelling what still runs.
    ///
    /// # Errors
    /// NOT_FOUND (also for a batch already deleted), INVALID_ARGUMENT, UNAVAILABLE.
    pub async fn delete_batch(&mut self, batch_id: &str) -> Result<(), Status> {
        let request = pb::DeleteBatchRequest {
            batch_id: batch_id.to_string(),
        };
        self.inner.delete_batch(request).await?;
        Ok(())
    }
}

/// The state of a resuming watch between two events.
struct Resuming {
    client: BatchesClient,
    batch_id: String,
    /// The last sequence number delivered (or the caller's `after`).
    last: u64,
    follow: bool,
    retry: WatchRetry,
    /// The current call's stream; `None` before the first call and after a break.
    stream: Option<Streaming<pb::BatchEvent>>,
    /// Transient failures since the last event.
    failures: u32,
    /// An error was yielded, or the watch ended.
    ended: bool,
}

impl Resuming {
    /// The next event or the final error; `None` once the watch has ended.
    async fn next(&mut self) -> Option<Result<pb::BatchEvent, Status>> {
        while !self.ended {
            let stream = match &mut self.stream {
                Some(stream) => stream,
                None => {
                    match self
                        .client
                        .watch_batch(&self.batch_id, self.last, self.follow)
                        .await
                    {
                        Ok(stream) => self.stream.insert(stream),
                        Err(status) => {
                            if let Err(status) = self.failed(status).await {
                                return Some(Err(status));
                            }
                            continue;
                        }
                    }
                }
            };
            match stream.message().await {
                Ok(Some(event)) => {
                    if event.sequence <= self.last {
                        continue;
                    }
                    self.last = event.sequence;
                    self.failures = 0;
                    return Some(Ok(event));
                }
                Ok(None) => self.ended = true,
                Err(status) => {
                    self.stream = None;
                    if let Err(status) = self.failed(status).await {
                        return Some(Err(status));
                    }
                }
            }
        }
        None
    }

    /// Counts a failure and waits before the next try; the error to yield if it is not transient
    /// or the attempts are spent (the watch has ended then).
    async fn failed(&mut self, status: Status) -> Result<(), Status> {
        if !is_transient(&status) || self.failures >= self.retry.attempts {
            self.ended = true;
            return Err(status);
        }
        self.failures += 1;
        tokio::time::sleep(self.retry.delay).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::net::SocketAddr;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};

    use futures::StreamExt;
    use orbit_api::v1::batches_server::{Batches, BatchesServer};
    use tokio::sync::oneshot;
    use tonic::{Request, Response, Status};

    use super::*;
    use crate::Client;

    /// What the fake server holds and was sent.
    #[derive(Debug, Default)]
    struct FakeState {
        /// Batches by id, in creation order (the listing's order here).
        batches: Vec<pb::Batch>,
        /// Jobs stored per request id (a retried create appends nothing twice).
        jobs: HashMap<String, Vec<pb::Job>>,
        /// `after_sequence` of each watch call, in order.
        watch_calls: Vec<u64>,
        /// Page tokens received by ListBatches, in order.
        list_tokens: Vec<String>,
    }

    /// A Batches server in memory. Its one batch to watch, `b1`, has `events` final events; the
    /// first `breaks` watch calls break (UNAVAILABLE, or UNKNOWN as a reset connection looks)
    /// after sending `break_after` new events; a reconnect first resends `overlap` events from
    /// before `after_sequence`, as a careless server might.
    #[derive(Debug, Clone)]
    struct Fake {
        state: Arc<Mutex<FakeState>>,
        events: u64,
        break_after: u64,
        breaks: usize,
        overlap: u64,
        /// The first watch call sends this many events, then neither ends nor sends more.
        hang_after: Option<u64>,
        page_size: usize,
    }

    impl Fake {
        fn new(events: u64) -> Self {
            Self {
                state: Arc::default(),
                events,
                break_after: u64::MAX,
                breaks: 0,
                overlap: 0,
                hang_after: None,
                page_size: 2,
            }
        }
    }

    fn event(sequence: u64) -> pb::BatchEvent {
        pb::BatchEvent {
            sequence,
            position: sequence - 1,
            event: Some(pb::JobEvent {
                id: format!("j{sequence}"),
                event: None,
            }),
        }
    }

    type EventStream = Pin<Box<dyn Stream<Item = Result<pb::BatchEvent, Status>> + Send>>;

    #[tonic::async_trait]
    impl Batches for Fake {
        async fn create_batch(
            &self,
            request: Request<tonic::Streaming<pb::CreateBatchRequest>>,
        ) -> Result<Response<pb::Batch>, Status> {
            let mut inbound = request.into_inner();
            let Some(pb::CreateBatchRequest {
                item: Some(Item::Header(header)),
            }) = inbound.message().await?
            else {
                return Err(Status::invalid_argument("no header"));
            };
            let mut position = 0;
            while let Some(message) = inbound.message().await? {
                let Some(Item::Job(job)) = message.item else {
                    return Err(Status::invalid_argument("not a job"));
                };
                let mut state = self.state.lock().unwrap();
                let jobs = state.jobs.entry(header.request_id.clone()).or_default();
                if position >= jobs.len() {
                    jobs.push(job);
                }
                position += 1;
            }
            let mut state = self.state.lock().unwrap();
            let count = state.jobs.get(&header.request_id).map_or(0, Vec::len) as u64;
            let batch = pb::Batch {
                id: format!("batch-{}", header.request_id),
                name: header.name,
                request_id: header.request_id,
                state: pb::BatchState::Running as i32,
                counts: Some(pb::BatchCounts {
                    jobs: count,
                    ..Default::default()
                }),
                ..Default::default()
            };
            state.batches.retain(|b| b.id != batch.id);
            state.batches.push(batch.clone());
            Ok(Response::new(batch))
        }

        async fn get_batch(
            &self,
            request: Request<pb::GetBatchRequest>,
        ) -> Result<Response<pb::Batch>, Status> {
            let id = request.into_inner().batch_id;
            let state = self.state.lock().unwrap();
            state
                .batches
                .iter()
                .find(|b| b.id == id)
                .cloned()
                .map(Response::new)
                .ok_or_else(|| Status::not_found(format!("no batch {id}")))
        }

        async fn list_batches(
            &self,
            request: Request<pb::ListBatchesRequest>,
        ) -> Result<Response<pb::ListBatchesResponse>, Status> {
            let token = request.into_inner().page_token;
            let mut state = self.state.lock().unwrap();
            state.list_tokens.push(token.clone());
            let start: usize = if token.is_empty() {
                0
            } else {
                token
                    .strip_prefix("page-")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| Status::invalid_argument("bad token"))?
            };
            let end = (start + self.page_size).min(state.batches.len());
            let next_page_token = if end < state.batches.len() {
                format!("page-{end}")
            } else {
                String::new()
            };
            Ok(Response::new(pb::ListBatchesResponse {
                batches: state.batches[start..end].to_vec(),
                next_page_token,
            }))
        }

        type WatchBatchStream = EventStream;

        async fn watch_batch(
            &self,
            request: Request<pb::WatchBatchRequest>,
        ) -> Result<Response<EventStream>, Status> {
            let request = request.into_inner();
            if request.batch_id != "b1" {
                return Err(Status::not_found(format!("no batch {}", request.batch_id)));
            }
            let call = {
                let mut state = self.state.lock().unwrap();
                state.watch_calls.push(request.after_sequence);
                state.watch_calls.len()
            };
            let after = request.after_sequence;
            let first = if call > 1 {
                after.saturating_sub(self.overlap) + 1
            } else {
                after + 1
            };
            let mut items: Vec<Result<pb::BatchEvent, Status>> =
                (first..=self.events).map(|s| Ok(event(s))).collect();
            if call <= self.breaks {
                // The resent events, then `break_after` new ones.
                items.truncate((after + 1 - first + self.break_after) as usize);
                // Alternate the two shapes of a break: a draining server, a reset connection.
                items.push(Err(if call % 2 == 1 {
                    Status::unavailable("injected: the server is restarting")
                } else {
                    Status::unknown("injected: error reading a body from connection")
                }));
            }
            if let (Some(n), 1) = (self.hang_after, call) {
                items.truncate(n as usize);
                let hang = futures::stream::pending();
                return Ok(Response::new(Box::pin(
                    futures::stream::iter(items).chain(hang),
                )));
            }
            Ok(Response::new(Box::pin(futures::stream::iter(items))))
        }

        async fn cancel_batch(
            &self,
            request: Request<pb::CancelBatchRequest>,
        ) -> Result<Response<pb::Batch>, Status> {
            let id = request.into_inner().batch_id;
            let mut state = self.state.lock().unwrap();
            let batch = state
                .batches
                .iter_mut()
                .find(|b| b.id == id)
                .ok_or_else(|| Status::not_found(format!("no batch {id}")))?;
            batch.state = pb::BatchState::Cancelled as i32;
            Ok(Response::new(batch.clone()))
        }

        async fn delete_batch(
            &self,
            request: Request<pb::DeleteBatchRequest>,
        ) -> Result<Response<pb::DeleteBatchResponse>, Status> {
            let id = request.into_inner().batch_id;
            let mut state = self.state.lock().unwrap();
            let before = state.batches.len();
            state.batches.retain(|b| b.id != id);
            if state.batches.len() == before {
                return Err(Status::not_found(format!("no batch {id}")));
            }
            Ok(Response::new(pb::DeleteBatchResponse {}))
        }
    }

    /// `fake` served on a loopback port; dropping the sender stops it.
    async fn serve(fake: Fake) -> (SocketAddr, oneshot::Sender<()>) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(BatchesServer::new(fake))
                .serve_with_incoming_shutdown(
                    tokio_stream::wrappers::TcpListenerStream::new(listener),
                    async {
                        let _ = stopped.await;
                    },
                ),
        );
        (addr, stop)
    }

    /// A TCP proxy in front of `backend` whose connections can be cut, as a network failure or a
    /// killed server would (the client sees its connection closed under a live stream).
    struct Proxy {
        addr: SocketAddr,
        connections: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    }

    impl Proxy {
        async fn start(backend: SocketAddr) -> Self {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .unwrap();
            let addr = listener.local_addr().unwrap();
            let connections = Arc::new(Mutex::new(Vec::new()));
            let tasks = Arc::clone(&connections);
            tokio::spawn(async move {
                while let Ok((mut inbound, _)) = listener.accept().await {
                    let task = tokio::spawn(async move {
                        if let Ok(mut outbound) = tokio::net::TcpStream::connect(backend).await {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    });
                    tasks.lock().unwrap().push(task);
                }
            });
            Self { addr, connections }
        }

        /// Closes every connection open now; new ones go through.
        fn cut(&self) {
            for task in self.connections.lock().unwrap().drain(..) {
                task.abort();
            }
        }
    }

    async fn client(addr: SocketAddr) -> BatchesClient {
        Client::connect(&format!("http://{addr}"))
            .await
            .unwrap()
            .batches()
    }

    const QUICK: WatchRetry = WatchRetry {
        attempts: 3,
        delay: Duration::from_millis(10),
    };

    async fn sequences(
        events: impl Stream<Item = Result<pb::BatchEvent, Status>>,
    ) -> (Vec<u64>, Option<Status>) {
        futures::pin_mut!(events);
        let mut seen = Vec::new();
        while let Some(item) = events.next().await {
            match item {
                Ok(event) => seen.push(event.sequence),
                Err(status) => {
                    assert!(events.next().await.is_none(), "nothing after an error");
                    return (seen, Some(status));
                }
            }
        }
        (seen, None)
    }

    #[tokio::test]
    async fn a_resuming_watch_gets_every_event_once_across_breaks() {
        let fake = Fake {
            break_after: 3,
            breaks: 4,
            overlap: 2,
            ..Fake::new(10)
        };
        let state = Arc::clone(&fake.state);
        let (addr, _stop) = serve(fake).await;
        let batches = client(addr).await;
        let (seen, error) = sequences(batches.watch_batch_resuming("b1", 0, true, QUICK)).await;
        assert!(error.is_none(), "{error:?}");
        assert_eq!(seen, (1..=10).collect::<Vec<_>>());
        // Each reconnect asks for what follows the last event delivered.
        assert_eq!(state.lock().unwrap().watch_calls, vec![0, 3, 6, 9, 10]);

        // From a starting point.
        let (seen, error) = sequences(batches.watch_batch_resuming("b1", 7, false, QUICK)).await;
        assert!(error.is_none(), "{error:?}");
        assert_eq!(seen, vec![8, 9, 10]);
    }

    #[tokio::test]
    async fn a_resuming_watch_rides_out_a_cut_connection() {
        let fake = Fake {
            hang_after: Some(3),
            ..Fake::new(6)
        };
        let state = Arc::clone(&fake.state);
        let (addr, _stop) = serve(fake).await;
        let proxy = Proxy::start(addr).await;
        let batches = client(proxy.addr).await;
        let events = batches.watch_batch_resuming("b1", 0, true, QUICK);
        futures::pin_mut!(events);
        for expected in 1..=3 {
            assert_eq!(events.next().await.unwrap().unwrap().sequence, expected);
        }
        proxy.cut();
        let mut rest = Vec::new();
        while let Some(event) = events.next().await {
            rest.push(event.expect("the cut is ridden out").sequence);
        }
        assert_eq!(rest, [4, 5, 6]);
        assert_eq!(state.lock().unwrap().watch_calls, [0, 3]);

        // And what the cut looks like to a plain watch: a transient status.
        let fake = Fake {
            hang_after: Some(1),
            ..Fake::new(6)
        };
        let (addr, _stop) = serve(fake).await;
        let proxy = Proxy::start(addr).await;
        let mut batches = client(proxy.addr).await;
        let mut stream = batches.watch_batch("b1", 0, true).await.unwrap();
        assert_eq!(stream.message().await.unwrap().unwrap().sequence, 1);
        proxy.cut();
        let status = stream.message().await.unwrap_err();
        assert!(is_transient(&status), "{status:?}");
    }

    #[tokio::test]
    async fn a_resuming_watch_gives_up_after_its_attempts_and_on_other_errors() {
        // Breaks before any event, more times than the attempts allow.
        let fake = Fake {
            break_after: 0,
            breaks: 100,
            ..Fake::new(5)
        };
        let state = Arc::clone(&fake.state);
        let (addr, _stop) = serve(fake).await;
        let batches = client(addr).await;
        let (seen, error) = sequences(batches.watch_batch_resuming("b1", 0, true, QUICK)).await;
        assert!(seen.is_empty());
        let error = error.expect("an error after the attempts");
        assert!(is_transient(&error), "{error:?}");
        // The first call and three reconnects.
        assert_eq!(state.lock().unwrap().watch_calls.len(), 4);

        // NOT_FOUND is the answer, not a break: no reconnect.
        let (seen, error) = sequences(batches.watch_batch_resuming("nope", 0, true, QUICK)).await;
        assert!(seen.is_empty());
        assert_eq!(error.map(|s| s.code()), Some(Code::NotFound));
        assert_eq!(state.lock().unwrap().watch_calls.len(), 4);

        // No retry at all with zero attempts.
        let once = WatchRetry {
            attempts: 0,
            ..QUICK
        };
        let (seen, error) = sequences(batches.watch_batch_resuming("b1", 0, true, once)).await;
        assert!(seen.is_empty());
        assert_eq!(error.map(|s| s.code()), Some(Code::Unavailable));
    }

    #[tokio::test]
    async fn a_plain_watch_reports_the_break() {
        let fake = Fake {
            break_after: 2,
            breaks: 1,
            ..Fake::new(5)
        };
        let (addr, _stop) = serve(fake).await;
        let mut batches = client(addr).await;
        let mut stream = batches.watch_batch("b1", 0, true).await.unwrap();
        assert_eq!(stream.message().await.unwrap().unwrap().sequence, 1);
        assert_eq!(stream.message().await.unwrap().unwrap().sequence, 2);
        let status = stream.message().await.unwrap_err();
        assert_eq!(status.code(), Code::Unavailable);
        let status = batches.watch_batch("b2", 0, false).await.unwrap_err();
        assert_eq!(status.code(), Code::NotFound);
    }

    #[tokio::test]
    async fn create_sends_the_header_then_the_jobs_and_a_retry_stores_none_twice() {
        let fake = Fake::new(0);
        let state = Arc::clone(&fake.state);
        let (addr, _stop) = serve(fake).await;
        let mut batches = client(addr).await;
        let jobs = |n: usize| {
            futures::stream::iter((0..n).map(|i| pb::Job {
                id: format!("j{i}"),
                ..Default::default()
            }))
        };
        let batch = batches.create_batch("r1", "first", jobs(3)).await.unwrap();
        assert_eq!(batch.id, "batch-r1");
        assert_eq!(batch.name, "first");
        assert_eq!(batch.counts.unwrap().jobs, 3);
        let again = batches.create_batch("r1", "first", jobs(5)).await.unwrap();
        assert_eq!(again.counts.unwrap().jobs, 5);
        let stored: Vec<String> = state.lock().unwrap().jobs["r1"]
            .iter()
            .map(|j| j.id.clone())
            .collect();
        assert_eq!(stored, ["j0", "j1", "j2", "j3", "j4"]);
        assert_eq!(batches.get_batch("batch-r1").await.unwrap(), again);
        let status = batches.get_batch("batch-r9").await.unwrap_err();
        assert_eq!(status.code(), Code::NotFound);
    }

    #[tokio::test]
    async fn list_all_follows_the_page_tokens() {
        let fake = Fake::new(0);
        let state = Arc::clone(&fake.state);
        let (addr, _stop) = serve(fake).await;
        let mut batches = client(addr).await;
        assert!(batches.list_all_batches().await.unwrap().is_empty());
        for i in 0..5 {
            let request_id = format!("r{i}");
            batches
                .create_batch(&request_id, "", futures::stream::empty())
                .await
                .unwrap();
        }
        let ids: Vec<String> = batches
            .list_all_batches()
            .await
            .unwrap()
            .into_iter()
            .map(|b| b.id)
            .collect();
        assert_eq!(
            ids,
            ["batch-r0", "batch-r1", "batch-r2", "batch-r3", "batch-r4"]
        );
        // The empty listing, then three pages of two.
        assert_eq!(
            state.lock().unwrap().list_tokens,
            ["", "", "page-2", "page-4"]
        );
        let page = batches.list_batches(2, "page-4").await.unwrap();
        assert_eq!(page.batches.len(), 1);
        assert!(page.next_page_token.is_empty());
    }

    #[tokio::test]
    async fn cancel_and_delete() {
        let fake = Fake::new(0);
        let (addr, _stop) = serve(fake).await;
        let mut batches = client(addr).await;
        let batch = batches
            .create_batch("r1", "", futures::stream::empty())
            .await
            .unwrap();
        assert!(!is_finished(&batch));
        let cancelled = batches.cancel_batch(&batch.id).await.unwrap();
        assert!(is_finished(&cancelled));
        batches.delete_batch(&batch.id).await.unwrap();
        let status = batches.delete_batch(&batch.id).await.unwrap_err();
        assert_eq!(status.code(), Code::NotFound);
        let status = batches.cancel_batch(&batch.id).await.unwrap_err();
        assert_eq!(status.code(), Code::NotFound);
    }

    #[test]
    fn finished_and_transient() {
        let batch = |state: pb::BatchState| pb::Batch {
            state: state as i32,
            ..Default::default()
        };
        assert!(is_finished(&batch(pb::BatchState::Done)));
        assert!(is_finished(&batch(pb::BatchState::Cancelled)));
        assert!(!is_finished(&batch(pb::BatchState::Open)));
        assert!(!is_finished(&batch(pb::BatchState::Running)));
        assert!(!is_finished(&batch(pb::BatchState::Unspecified)));

        assert!(is_transient(&Status::unavailable("down")));
        assert!(is_transient(&Status::unknown(
            "error reading a body from connection"
        )));
        assert!(is_transient(&Status::cancelled(
            "h2 protocol error: CANCEL"
        )));
        assert!(is_transient(&Status::internal(
            "h2 protocol error: stream error received"
        )));
        assert!(!is_transient(&Status::internal(
            "stored result 3 is damaged"
        )));
        assert!(!is_transient(&Status::not_found("no batch x")));
        assert!(!is_transient(&Status::failed_precondition("cancelled")));
        assert!(!is_transient(&Status::invalid_argument("batch_id: empty")));
    }
}
