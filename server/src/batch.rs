//! The `SolveStream` loop: read jobs, queue them, forward their events, end cleanly.
//!
//! Backpressure rule (also in the .proto): a stream has at most `stream_window` jobs in flight;
//! the loop reads the next job only when it holds a window slot, and queues it only when the shared
//! queue has room (it waits for both). Events go out through a small bounded channel, so a client
//! that stops reading stops the loop, and with it the reading of further jobs: memory per stream is
//! bounded by the window. When the client cancels or disconnects, the loop ends and drops its
//! job tasks, whose tickets set the jobs' cancel flags.

use std::sync::Arc;

use orbit_api::v1 as pb;
use orbit_worker::context::ProgressSink;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Status, Streaming};

use crate::convert;
use crate::dispatcher::{Dispatcher, job_span};
use crate::error::{ServiceError, code_name};
use crate::service::accept;

/// Events buffered towards the client before the loop waits for it to read.
const OUTBOUND_BUFFER: usize = 64;

/// Starts the loop for one stream and returns the events for tonic to send.
pub fn spawn(
    dispatcher: Arc<Dispatcher>,
    inbound: Streaming<pb::Job>,
    window: usize,
    closing: watch::Receiver<bool>,
) -> ReceiverStream<Result<pb::JobEvent, Status>> {
    let (out_tx, out_rx) = mpsc::channel(OUTBOUND_BUFFER);
    let batch = Batch {
        dispatcher,
        window: Arc::new(Semaphore::new(window)),
        events: mpsc::unbounded_channel(),
        jobs: JoinSet::new(),
    };
    tokio::spawn(batch.drive(inbound, closing, out_tx));
    ReceiverStream::new(out_rx)
}

struct Batch {
    dispatcher: Arc<Dispatcher>,
    window: Arc<Semaphore>,
    /// Events from job tasks and progress sinks (on worker threads). Unbounded so that neither ever
    /// waits; bounded in practice by the window (each job sends a handful of events, progress at
    /// most ~100).
    events: (
        mpsc::UnboundedSender<pb::JobEvent>,
        mpsc::UnboundedReceiver<pb::JobEvent>,
    ),
    /// One task per job in flight, awaiting its ticket. Dropping the set aborts them, which drops
    /// the tickets, which cancels the jobs.
    jobs: JoinSet<()>,
}

impl Batch {
    async fn drive(
        mut self,
        mut inbound: Streaming<pb::Job>,
        mut closing: watch::Receiver<bool>,
        out: mpsc::Sender<Result<pb::JobEvent, Status>>,
    ) {
        let mut inbound_open = true;
        let mut slot: Option<OwnedSemaphorePermit> = None;
        loop {
            if !inbound_open && self.jobs.is_empty() {
                // Every job has sent its final event into the channel; flush and end the stream.
                while let Ok(event) = self.events.1.try_recv() {
                    if out.send(Ok(event)).await.is_err() {
                        return;
                    }
                }
                return;
            }
            tokio::select! {
                biased;
                // The grace period is over (or the server is gone): stop here. Jobs still in
                // flight are cancelled by dropping `self.jobs`.
                _ = closing_signal(&mut closing) => {
                    while let Ok(event) = self.events.1.try_recv() {
                        let _ = out.try_send(Ok(event));
                    }
                    return;
                }
                () = out.closed() => return,
                Some(event) = self.events.1.recv() => {
                    if out.send(Ok(event)).await.is_err() {
                        return;
                    }
                }
                Some(_) = self.jobs.join_next(), if !self.jobs.is_empty() => {}
                permit = Arc::clone(&self.window).acquire_owned(), if inbound_open && slot.is_none() => {
                    slot = Some(permit.expect("the window semaphore is never closed"));
                }
                message = inbound.message(), if inbound_open && slot.is_some() => match message {
                    Ok(Some(job)) => {
                        let permit = slot.take().expect("guarded by slot.is_some()");
                        self.start(job, permit).await;
                    }
                    Ok(None) => inbound_open = false,
                    Err(status) => {
                        // The request stream broke (e.g. an oversized message): report it and stop;
                        // dropping the jobs cancels what was in flight.
                        let status = crate::layers::message_limit::oversize_to_resource_exhausted(&status).unwrap_or(status);
                        let _ = out.send(Err(status)).await;
                        return;
                    }
                },
            }
        }
    }

    /// Accepts one job: validates it, waits for a queue slot, submits it and spawns the task that
    /// turns its ticket into the final event. Errors become `JobError` events right away.
    async fn start(&mut self, job: pb::Job, window_permit: OwnedSemaphorePermit) {
        let events = self.events.0.clone();
        let request = match accept(job, &self.dispatcher) {
            Ok(r) => r,
            Err((id, e)) => {
                let _ = events.send(error_event(id, &e));
                return;
            }
        };
        let convert::JobRequest {
            id,
            spec,
            deadline,
            progress,
        } = request;
        let span = job_span(&id, spec.kind());
        let admitted = self.dispatcher.admit().await;
        let progress: Option<Arc<dyn ProgressSink>> = progress.then(|| {
            let events = events.clone();
            let id = id.clone();
            Arc::new(move |fraction: f64| {
                let _ = events.send(pb::JobEvent {
                    id: id.clone(),
                    event: Some(pb::job_event::Event::Progress(pb::Progress { fraction })),
                });
            }) as Arc<dyn ProgressSink>
        });
        let ticket = admitted.and_then(|admission| {
            self.dispatcher
                .submit(admission, spec, deadline, progress, span)
        });
        let ticket = match ticket {
            Ok(t) => t,
            Err(e) => {
                let _ = events.send(error_event(id, &e));
                return;
            }
        };
        let queue_depth = self.dispatcher.queue_depth() as u32;
        let _ = events.send(pb::JobEvent {
            id: id.clone(),
            event: Some(pb::job_event::Event::Queued(pb::Queued { queue_depth })),
        });
        self.jobs.spawn(async move {
            let _window_permit = window_permit;
            let event = match ticket.outcome().await {
                Ok(a) => pb::JobEvent {
                    id: id.clone(),
                    event: Some(pb::job_event::Event::Result(convert::result_to_proto(
                        id,
                        a.answer,
                        a.queue_wait,
                        a.run_time,
                    ))),
                },
                Err(e) => error_event(id, &e),
            };
            let _ = events.send(event);
        });
    }
}

/// Resolves once `closing` turns true or its sender is gone (the server is closing either way).
async fn closing_signal(closing: &mut watch::Receiver<bool>) {
    let _ = closing.wait_for(|c| *c).await;
}

/// A final error event for job `id`.
pub fn error_event(id: String, e: &ServiceError) -> pb::JobEvent {
    let code = e.code();
    pb::JobEvent {
        id,
        event: Some(pb::job_event::Event::Error(pb::JobError {
            code: code as i32,
            code_name: code_name(code).to_string(),
            message: e.to_string(),
        })),
    }
}
