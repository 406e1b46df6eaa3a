//! The `SolveStream` loop: read jobs, queue them, forward their events, end cleanly.
//!
//! Backpressure rule (also in the .proto): a stream has at most `stream_window` jobs in flight;
//! the loop reads the next job only while it has fewer, and queues it only when the shared queue
//! has room (it waits for both). Events go out through a small bounded channel, so a client that
//! stops reading stops the loop, and with it the reading of further jobs: memory per stream is
//! bounded by the window. When the client cancels or disconnects, the loop ends and its `Drop`
//! cancels the jobs it still has in flight.
//!
//! A client that keeps the stream open but stops reading would otherwise hold its window of
//! answers in memory for as long as it likes: when no event can be handed over for
//! [`StreamSettings::stall_timeout`], the stream ends with RESOURCE_EXHAUSTED, reason
//! STREAM_STALLED (sent through a
//! slot of the outbound buffer reserved for that last word) and its jobs in flight are cancelled.
//! Workers never wait for a client either way: answers reach the loop through an unbounded
//! channel fed from the worker threads.
//!
//! Per job, the worker's answer is converted to its final event on the worker thread and pushed
//! into the loop's channel: no task, timer or lock per job on the async side (a timer only for
//! jobs with a deadline, armed by the dispatcher as for unary calls: `deadline.rs`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use orbit_api::v1 as pb;
use orbit_worker::context::ProgressSink;
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Status, Streaming};
use tracing::Instrument;

use crate::convert;
use crate::dispatcher::{Dispatcher, Done, Submission, Submitted, job_span};
use crate::error::{ErrorReport, ServiceError};
use crate::layers::message_limit::oversize_to_resource_exhausted;

/// How long a closing stream waits for its client to take the last events.
const CLOSING_FLUSH: Duration = Duration::from_secs(1);

/// Events buffered towards the client before the loop waits for it to read.
const OUTBOUND_BUFFER: usize = 256;

/// Per-stream settings, built once from the server's flags by
/// [`ServerConfig::stream_settings`](crate::ServerConfig::stream_settings), which normalises them.
#[derive(Debug, Clone, Copy)]
pub struct StreamSettings {
    /// `--stream-window`: jobs in flight (queued or running) before the loop stops reading more;
    /// at least 1.
    pub window: usize,
    /// `--stall-timeout`: how long the loop waits for a client to take an event before giving up
    /// on it.
    pub stall_timeout: Duration,
    /// `--max-message-bytes`: a final event larger than this becomes an error event for its job,
    /// instead of an encoding error that would end the stream. (Unary answers are checked against
    /// the same limit.)
    pub max_message_bytes: usize,
}

/// Starts the loop for one stream and returns the events for tonic to send.
pub fn spawn(
    dispatcher: Arc<Dispatcher>,
    inbound: Streaming<pb::Job>,
    settings: StreamSettings,
    closing: watch::Receiver<bool>,
) -> ReceiverStream<Result<pb::JobEvent, Status>> {
    // One slot more than the buffer: the reserved last word.
    let (out_tx, out_rx) = mpsc::channel(OUTBOUND_BUFFER + 1);
    let (notes_tx, notes_rx) = mpsc::unbounded_channel();
    let stream = StreamLoop {
        dispatcher,
        window: settings.window,
        max_message_bytes: settings.max_message_bytes,
        notes_tx,
        inflight: HashMap::new(),
        next_seq: 0,
    };
    // The loop runs in the call's span (if traced), so its jobs' spans are the call's children.
    tokio::spawn(
        async move {
            let Ok(last_word) = out_tx.clone().reserve_owned().await else {
                return;
            };
            let out = Outbound {
                tx: out_tx,
                last_word: Some(last_word),
                stall_timeout: settings.stall_timeout,
            };
            stream.drive(inbound, notes_rx, closing, out).await;
        }
        .in_current_span(),
    );
    ReceiverStream::new(out_rx)
}

/// The events towards the client, with the stall rule.
struct Outbound {
    tx: mpsc::Sender<Result<pb::JobEvent, Status>>,
    /// A buffer slot kept free for the status that ends a stalled stream.
    last_word: Option<mpsc::OwnedPermit<Result<pb::JobEvent, Status>>>,
    stall_timeout: Duration,
}

impl Outbound {
    /// Hands `item` to the client; `false` if the client is gone or stalled (the stream is over).
    async fn send(&mut self, item: Result<pb::JobEvent, Status>) -> bool {
        match tokio::time::timeout(self.stall_timeout, self.tx.send(item)).await {
            Ok(sent) => sent.is_ok(),
            Err(_) => {
                tracing::warn!(
                    stall_s = self.stall_timeout.as_secs_f64(),
                    "SolveStream: the client stopped reading; closing the stream"
                );
                if let Some(permit) = self.last_word.take() {
                    permit.send(Err(Status::from(ServiceError::StreamStalled {
                        stall_timeout: self.stall_timeout,
                    })));
                }
                false
            }
        }
    }

    /// Resolves when the client has gone away.
    async fn closed(&self) {
        self.tx.closed().await;
    }
}

/// What job callbacks (on worker threads) tell the loop.
enum Note {
    /// A progress event to forward.
    Progress(pb::JobEvent),
    /// A job's final event; `seq` identifies it among this stream's jobs in flight.
    Final { seq: u64, event: pb::JobEvent },
}

/// One stream's loop: its jobs in flight (those that have not sent their final event yet, by
/// `seq`), and where their callbacks send their notes.
struct StreamLoop {
    dispatcher: Arc<Dispatcher>,
    window: usize,
    /// `--max-message-bytes`: a final event larger than this becomes an error event for its job,
    /// instead of an encoding error that would end the stream.
    max_message_bytes: usize,
    /// Unbounded so that worker threads never wait; bounded in practice by the window (each job
    /// sends one final note and at most ~100 progress notes).
    notes_tx: mpsc::UnboundedSender<Note>,
    inflight: HashMap<u64, Submitted>,
    next_seq: u64,
}

impl Drop for StreamLoop {
    /// The stream is over (finished, cancelled, disconnected or closed by shutdown): cancel what is
    /// still in flight.
    fn drop(&mut self) {
        // Dropping the handles afterwards stops their deadline timers.
        for job in self.inflight.values() {
            job.cancel();
        }
    }
}

impl StreamLoop {
    async fn drive(
        mut self,
        mut inbound: Streaming<pb::Job>,
        mut notes: mpsc::UnboundedReceiver<Note>,
        mut closing: watch::Receiver<bool>,
        mut out: Outbound,
    ) {
        let mut inbound_open = true;
        loop {
            if !inbound_open && self.inflight.is_empty() {
                return;
            }
            tokio::select! {
                biased;
                // The grace period is over (or the server is gone): stop; `Drop` cancels the rest.
                _ = closing_signal(&mut closing) => {
                    // Answers that arrived during the drain still go out, waiting at most
                    // CLOSING_FLUSH for a client that does not read.
                    let flush = async {
                        while let Ok(note) = notes.try_recv() {
                            let (Note::Progress(event) | Note::Final { event, .. }) = note;
                            if !out.send(Ok(event)).await {
                                return;
                            }
                        }
                    };
                    let _ = tokio::time::timeout(CLOSING_FLUSH, flush).await;
                    return;
                }
                () = out.closed() => return,
                Some(note) = notes.recv() => {
                    let event = match note {
                        Note::Progress(event) => event,
                        Note::Final { seq, event } => {
                            // Dropping the job's handles stops its deadline timer, if any.
                            self.inflight.remove(&seq);
                            event
                        }
                    };
                    if !out.send(Ok(event)).await {
                        return;
                    }
                }
                message = inbound.message(), if inbound_open && self.inflight.len() < self.window => match message {
                    Ok(Some(job)) => {
                        if !self.start(job, &mut out).await {
                            return;
                        }
                    }
                    Ok(None) => inbound_open = false,
                    Err(status) => {
                        // The request stream broke (e.g. an oversized message): report it and stop;
                        // `Drop` cancels what was in flight.
                        let status = oversize_to_resource_exhausted(&status, self.max_message_bytes)
                            .unwrap_or(status);
                        out.send(Err(status)).await;
                        return;
                    }
                },
            }
        }
    }

    /// Accepts one job: validates it, waits for a queue slot, submits it. Errors become final
    /// `JobError` events right away. Returns `false` if the client is gone.
    async fn start(&mut self, job: pb::Job, out: &mut Outbound) -> bool {
        let admission = self.dispatcher.admission();
        let request = match admission.accept(job) {
            Ok(r) => r,
            Err((id, e)) => return out.send(Ok(error_event(id, &e))).await,
        };
        let convert::JobRequest {
            id,
            spec,
            deadline,
            progress,
        } = request;
        let slot = match admission.queue_slot(spec.kind()).await {
            Ok(s) => s,
            Err(e) => return out.send(Ok(error_event(id, &e))).await,
        };
        // After the slot: a job refused while it waited for one has no span left unfinished.
        let span = job_span(&id, spec.kind());
        let seq = self.next_seq;
        self.next_seq += 1;
        let progress: Option<Arc<dyn ProgressSink>> = progress.then(|| {
            let notes = self.notes_tx.clone();
            let id = id.clone();
            Arc::new(move |fraction: f64| {
                let _ = notes.send(Note::Progress(pb::JobEvent {
                    id: id.clone(),
                    event: Some(pb::job_event::Event::Progress(pb::Progress { fraction })),
                }));
            }) as Arc<dyn ProgressSink>
        });
        let notes = self.notes_tx.clone();
        let final_id = id.clone();
        let max_message_bytes = self.max_message_bytes;
        let job = Submission {
            id: id.clone(),
            spec,
            deadline,
            span,
        };
        let submitted = self
            .dispatcher
            .submit(slot, job, progress, move |done: Done| {
                let event = final_event(final_id, done, max_message_bytes);
                // The loop is gone only if the stream ended; the job was cancelled then anyway.
                let _ = notes.send(Note::Final { seq, event });
            });
        let submitted = match submitted {
            Ok(s) => s,
            Err(e) => return out.send(Ok(error_event(id, &e))).await,
        };
        self.inflight.insert(seq, submitted);
        let queue_depth = self.dispatcher.queue_depth() as u32;
        let queued = pb::JobEvent {
            id,
            event: Some(pb::job_event::Event::Queued(pb::Queued { queue_depth })),
        };
        out.send(Ok(queued)).await
    }
}

/// The final event for a finished job: its result, or an error event if the result does not fit
/// one message of `max_message_bytes`.
pub fn final_event(id: String, done: Done, max_message_bytes: usize) -> pb::JobEvent {
    match done.outcome {
        Ok(answer) => {
            let event = pb::JobEvent {
                id: id.clone(),
                event: Some(pb::job_event::Event::Result(convert::result_to_proto(
                    id.clone(),
                    answer,
                    done.queue_wait,
                    done.run_time,
                ))),
            };
            match ServiceError::check_answer_size(&event, max_message_bytes) {
                Ok(()) => event,
                Err(e) => error_event(id, &e),
            }
        }
        Err(e) => error_event(id, &e),
    }
}

/// Resolves once `closing` turns true or its sender is gone (the server is closing either way).
async fn closing_signal(closing: &mut watch::Receiver<bool>) {
    let _ = closing.wait_for(|c| *c).await;
}

/// A final error event for job `id`: the fields of the status a unary call would get, with its
/// `google.rpc` details as `JobError`'s typed fields (`error.rs`).
pub fn error_event(id: String, e: &ServiceError) -> pb::JobEvent {
    ErrorReport::from(e).to_event(id)
}
