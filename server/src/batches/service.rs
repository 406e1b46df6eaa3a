//! The `orbit.v1.Batches` handlers: validate, call the store, convert. Store errors become
//! statuses in `error.rs`; rows become messages in `convert.rs`.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use orbit_api::v1 as pb;
use orbit_api::v1::batches_server::Batches;
use orbit_api::v1::create_batch_request::Item;
use prost::Message;

use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use super::convert::{
    batch_to_proto, cancelled_event, new_batch_id, page_token, parse_page_token, result_to_proto,
};
use super::store::{BatchLimits, NewJob, Store, StoreError, state};
use crate::error::ServiceError;
use crate::layers::message_limit::oversize_to_resource_exhausted;

/// Jobs stored per transaction while a batch is created, at most. Each transaction waits for
/// one flush of the database's log to disk (28 ms on this project's VMs' disks, `pg_test_fsync`),
/// so the group size bounds the submit rate: 10,000 jobs a flush allow 350,000 jobs/s.
const APPEND_GROUP: usize = 10_000;
/// Encoded job bytes stored per transaction, at most (a group ends at whichever comes first).
const APPEND_GROUP_BYTES: usize = 4 << 20;
/// A group is also stored when the stream pauses this long: jobs sent slowly (a person, a
/// pipeline) start to run, and are kept if the create breaks off, without waiting for a full group.
const APPEND_IDLE: Duration = Duration::from_millis(100);
/// Results read per query by a watcher.
const WATCH_PAGE: i64 = 500;
/// How often a following watcher looks for new results.
const WATCH_POLL: Duration = Duration::from_millis(200);
/// Batches per `ListBatches` page: the default, and the most.
const DEFAULT_PAGE: u32 = 100;
/// See [`DEFAULT_PAGE`].
const MAX_PAGE: u32 = 1000;
/// Longest request id and name.
const MAX_REQUEST_ID: usize = 256;
/// See [`MAX_REQUEST_ID`].
const MAX_NAME: usize = 1024;

/// The service object tonic serves.
#[derive(Debug, Clone)]
pub struct BatchesService {
    /// `None` on a server without `--store`: every call says so.
    store: Option<Store>,
    limits: BatchLimits,
    /// `--max-message-bytes`: the largest request message the service decodes (for the
    /// MESSAGE_TOO_LARGE details).
    max_message_bytes: usize,
    /// Signalled after each group of jobs is stored: this replica's runner claims them at once
    /// instead of at its next poll.
    jobs_stored: Arc<Notify>,
}

impl BatchesService {
    /// A service over `store`, whose server decodes messages of at most `max_message_bytes`.
    pub fn new(
        store: Option<Store>,
        limits: BatchLimits,
        max_message_bytes: usize,
        jobs_stored: Arc<Notify>,
    ) -> Self {
        Self {
            store,
            limits,
            max_message_bytes,
            jobs_stored,
        }
    }

    fn store(&self) -> Result<&Store, Status> {
        self.store
            .as_ref()
            .ok_or_else(|| ServiceError::NoStore.into())
    }
}

/// INVALID_ARGUMENT naming `field`.
fn invalid(field: &str, reason: impl Into<String>) -> Status {
    ServiceError::InvalidRequest {
        field: field.to_string(),
        reason: reason.into(),
    }
    .into()
}

/// NOT_FOUND for batch `id`.
fn not_found(id: &str) -> Status {
    ServiceError::BatchNotFound {
        batch_id: id.to_string(),
        while_watched: false,
    }
    .into()
}

fn check_batch_id(id: &str) -> Result<(), Status> {
    if id.is_empty() {
        return Err(invalid("batch_id", "empty"));
    }
    Ok(())
}

type BatchEventStream = Pin<Box<dyn Stream<Item = Result<pb::BatchEvent, Status>> + Send>>;

#[tonic::async_trait]
impl Batches for BatchesService {
    async fn create_batch(
        &self,
        request: Request<Streaming<pb::CreateBatchRequest>>,
    ) -> Result<Response<pb::Batch>, Status> {
        let store = self.store()?;
        let mut inbound = request.into_inner();
        let header = match inbound.message().await? {
            Some(pb::CreateBatchRequest {
                item: Some(Item::Header(header)),
            }) => header,
            _ => {
                return Err(invalid(
                    "header",
                    "the first message of CreateBatch must be a header (request_id, name)",
                ));
            }
        };
        if header.request_id.is_empty() {
            return Err(invalid(
                "header.request_id",
                "empty; choose one per batch (a UUID, say) so that a retried create never makes \
                 a second batch",
            ));
        }
        if header.request_id.len() > MAX_REQUEST_ID {
            return Err(invalid(
                "header.request_id",
                format!(
                    "{} bytes, over the limit of {MAX_REQUEST_ID}",
                    header.request_id.len()
                ),
            ));
        }
        if header.name.len() > MAX_NAME {
            return Err(invalid(
                "header.name",
                format!("{} bytes, over the limit of {MAX_NAME}", header.name.len()),
            ));
        }
        let batch = store
            .open_batch(&new_batch_id(), &header.request_id, &header.name)
            .await?;
        if batch.state == state::CANCELLED {
            return Err(ServiceError::BatchCancelled {
                request_id: header.request_id,
                batch_id: batch.id,
            }
            .into());
        }
        if batch.state != state::OPEN {
            // A create retried after it completed: the batch as it is.
            return Ok(Response::new(batch_to_proto(batch)));
        }
        let mut appender = Appender {
            store,
            jobs_stored: &self.jobs_stored,
            batch_id: &batch.id,
            limits: self.limits,
            already: batch.jobs,
            next: 0,
            group_first: 0,
            group: Vec::new(),
            group_bytes: 0,
            writing: None,
        };
        loop {
            let message = if appender.group.is_empty() {
                inbound.message().await
            } else {
                // `Streaming::message` keeps its state in the stream, so dropping it on the
                // timeout loses nothing.
                match tokio::time::timeout(APPEND_IDLE, inbound.message()).await {
                    Ok(message) => message,
                    Err(_paused) => {
                        appender.send_group().await?;
                        continue;
                    }
                }
            };
            match message {
                Ok(Some(pb::CreateBatchRequest {
                    item: Some(Item::Job(job)),
                })) => appender.push(job).await?,
                Ok(Some(pb::CreateBatchRequest {
                    item: Some(Item::Header(_)),
                })) => {
                    appender.flush().await?;
                    return Err(invalid(
                        "header",
                        format!(
                            "a second header after {} jobs; a stream creates one batch",
                            appender.next
                        ),
                    ));
                }
                Ok(Some(pb::CreateBatchRequest { item: None })) => {
                    appender.flush().await?;
                    return Err(invalid(
                        "item",
                        format!(
                            "message {} is neither a header nor a job",
                            appender.next + 1
                        ),
                    ));
                }
                Ok(None) => {
                    // hyper reads a client's RST_STREAM(CANCEL) as the end of the request body
                    // (it does not fail the body), so a create the client broke off would look
                    // complete here. It also drops the handler when it sees that reset, which it
                    // checks each time the handler waits: one yield lets it, before anything is
                    // sealed. A real end of stream passes through unchanged.
                    tokio::task::yield_now().await;
                    break;
                }
                Err(status) => {
                    // The jobs that arrived whole are kept: a retry with the same request id
                    // goes on from there.
                    appender.flush().await?;
                    return Err(
                        oversize_to_resource_exhausted(&status, self.max_message_bytes)
                            .unwrap_or(status),
                    );
                }
            }
        }
        appender.flush().await?;
        let batch = store.seal(&batch.id).await?;
        // One line per batch; its jobs log at debug (`dispatcher::batch_job_span`).
        tracing::info!(batch = %batch.id, jobs = batch.jobs, name = %batch.name, "batch stored");
        Ok(Response::new(batch_to_proto(batch)))
    }

    async fn get_batch(
        &self,
        request: Request<pb::GetBatchRequest>,
    ) -> Result<Response<pb::Batch>, Status> {
        let store = self.store()?;
        let id = request.into_inner().batch_id;
        check_batch_id(&id)?;
        match store.get(&id).await? {
            Some(batch) => Ok(Response::new(batch_to_proto(batch))),
            None => Err(not_found(&id)),
        }
    }

    async fn list_batches(
        &self,
        request: Request<pb::ListBatchesRequest>,
    ) -> Result<Response<pb::ListBatchesResponse>, Status> {
        let store = self.store()?;
        let request = request.into_inner();
        let after = parse_page_token(&request.page_token)?;
        let size = match request.page_size {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        } as usize;
        // One more than the page: whether there is a next page.
        let mut batches: Vec<pb::Batch> = store
            .list(size as i64 + 1, after)
            .await?
            .into_iter()
            .map(batch_to_proto)
            .collect();
        let next_page_token = if batches.len() > size {
            batches.truncate(size);
            batches.last().map(page_token).unwrap_or_default()
        } else {
            String::new()
        };
        Ok(Response::new(pb::ListBatchesResponse {
            batches,
            next_page_token,
        }))
    }

    type WatchBatchStream = BatchEventStream;

    async fn watch_batch(
        &self,
        request: Request<pb::WatchBatchRequest>,
    ) -> Result<Response<Self::WatchBatchStream>, Status> {
        let store = self.store()?.clone();
        let request = request.into_inner();
        check_batch_id(&request.batch_id)?;
        let after = i64::try_from(request.after_sequence)
            .map_err(|_| invalid("after_sequence", "larger than any sequence number"))?;
        // Fails now, with NOT_FOUND as the call's status, for a batch that does not exist.
        if store.get(&request.batch_id).await?.is_none() {
            return Err(not_found(&request.batch_id));
        }
        let (tx, rx) = mpsc::channel(64);
        tokio::spawn(watch(store, request.batch_id, after, request.follow, tx));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn cancel_batch(
        &self,
        request: Request<pb::CancelBatchRequest>,
    ) -> Result<Response<pb::Batch>, Status> {
        let store = self.store()?;
        let id = request.into_inner().batch_id;
        check_batch_id(&id)?;
        let batch = store.cancel(&id, &cancelled_event).await?;
        Ok(Response::new(batch_to_proto(batch)))
    }

    async fn delete_batch(
        &self,
        request: Request<pb::DeleteBatchRequest>,
    ) -> Result<Response<pb::DeleteBatchResponse>, Status> {
        let store = self.store()?;
        let id = request.into_inner().batch_id;
        check_batch_id(&id)?;
        if store.delete(&id).await? {
            Ok(Response::new(pb::DeleteBatchResponse {}))
        } else {
            Err(not_found(&id))
        }
    }
}

/// A create's jobs on their way to the store, in groups.
struct Appender<'a> {
    store: &'a Store,
    jobs_stored: &'a Notify,
    batch_id: &'a str,
    limits: BatchLimits,
    /// Jobs the batch held when this create began (a retried create skips them).
    already: i64,
    /// The position of the next job of the stream.
    next: i64,
    /// The position of the group's first job.
    group_first: i64,
    group: Vec<NewJob>,
    group_bytes: usize,
    /// The previous group's write, while the next group arrives: one write in flight, so that
    /// receiving and storing overlap (positions follow one another, so never two at once).
    writing: Option<JoinHandle<Result<i64, StoreError>>>,
}

impl Appender<'_> {
    async fn push(&mut self, job: pb::Job) -> Result<(), Status> {
        let position = self.next;
        self.next += 1;
        if position < self.already {
            return Ok(());
        }
        if self.group.is_empty() {
            self.group_first = position;
        }
        let job = NewJob {
            job_id: job.id.clone(),
            job: job.encode_to_vec(),
        };
        self.group_bytes += job.job.len();
        self.group.push(job);
        if self.group.len() >= APPEND_GROUP || self.group_bytes >= APPEND_GROUP_BYTES {
            self.send_group().await?;
        }
        Ok(())
    }

    /// Stores every job received so far.
    async fn flush(&mut self) -> Result<(), Status> {
        self.send_group().await?;
        self.wait_written().await
    }

    /// Starts the group's write once the previous one is done.
    async fn send_group(&mut self) -> Result<(), Status> {
        self.wait_written().await?;
        if self.group.is_empty() {
            return Ok(());
        }
        let store = self.store.clone();
        let batch_id = self.batch_id.to_string();
        let (first, limits) = (self.group_first, self.limits);
        let group = std::mem::take(&mut self.group);
        self.group_bytes = 0;
        // A task, not a future polled here: it goes on while the next jobs are received, and
        // finishes even if the caller goes away (what it stores, a retry skips).
        self.writing = Some(tokio::spawn(async move {
            store.append_jobs(&batch_id, first, &group, limits).await
        }));
        Ok(())
    }

    /// Waits for the write in flight, if any.
    async fn wait_written(&mut self) -> Result<(), Status> {
        let Some(writing) = self.writing.take() else {
            return Ok(());
        };
        let appended = writing.await.map_err(|e| {
            ServiceError::Internal(format!("storing jobs of the batch failed: {e}"))
        })?;
        if let Err(e @ StoreError::LimitExceeded { .. }) = appended {
            // No later job fits either: the batch is sealed with the jobs it holds, so that it
            // still finishes (a limit is not a reason to leave it open for ever).
            self.store.seal(self.batch_id).await?;
            return Err(e.into());
        }
        appended?;
        self.jobs_stored.notify_one();
        Ok(())
    }
}

/// Sends the batch's results after `after` to `tx`; with `follow`, goes on until the batch is
/// finished and every result is sent.
async fn watch(
    store: Store,
    batch_id: String,
    mut after: i64,
    follow: bool,
    tx: mpsc::Sender<Result<pb::BatchEvent, Status>>,
) {
    loop {
        // The state first, then the results: if the batch was finished at that moment, the
        // results read afterwards are all it will ever have.
        let batch = match store.get(&batch_id).await {
            Ok(Some(batch)) => batch,
            Ok(None) => {
                let _ = tx
                    .send(Err(ServiceError::BatchNotFound {
                        batch_id: batch_id.clone(),
                        while_watched: true,
                    }
                    .into()))
                    .await;
                return;
            }
            Err(e) => {
                let _ = tx.send(Err(e.into())).await;
                return;
            }
        };
        let finished = batch.state == state::DONE || batch.state == state::CANCELLED;
        loop {
            let page = match store.results_after(&batch_id, after, WATCH_PAGE).await {
                Ok(page) => page,
                Err(e) => {
                    let _ = tx.send(Err(e.into())).await;
                    return;
                }
            };
            let full = page.len() as i64 == WATCH_PAGE;
            for result in page {
                after = result.sequence;
                if tx.send(result_to_proto(result)).await.is_err() {
                    return;
                }
            }
            if !full {
                break;
            }
        }
        if !follow || (finished && after >= batch.last_sequence) {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(WATCH_POLL) => {}
            () = tx.closed() => return,
        }
    }
}
