//! The `orbit.v1.Orbit` handlers. Each follows four steps: validate, proto → domain, submit,
//! domain → proto. Admission (the first two steps and a queue slot) lives in `admission.rs`,
//! conversions in `convert/` (one file per job kind), status mapping in `error.rs`, the
//! `SolveStream` loop in `stream.rs`.

use std::pin::Pin;
use std::sync::Arc;

use futures::Stream;
use orbit_api::JobKind;
use orbit_api::v1 as pb;
use orbit_api::v1::orbit_server::Orbit;
use tokio::sync::watch;
use tonic::{Request, Response, Status, Streaming};

use crate::convert::{self, JobRequest};
use crate::dispatcher::{Dispatcher, Submission, job_span};
use crate::error::ServiceError;
use crate::stream::{self, StreamSettings};

/// The service object tonic serves.
#[derive(Debug, Clone)]
pub struct OrbitService {
    dispatcher: Arc<Dispatcher>,
    /// Flips to `true` when the grace period is over: open streams end.
    closing: watch::Receiver<bool>,
    /// The streams' settings, also the message limit unary answers are checked against.
    settings: StreamSettings,
}

impl OrbitService {
    /// A service over `dispatcher`.
    pub fn new(
        dispatcher: Arc<Dispatcher>,
        closing: watch::Receiver<bool>,
        settings: StreamSettings,
    ) -> Self {
        Self {
            dispatcher,
            closing,
            settings,
        }
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::JobEvent, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl Orbit for OrbitService {
    async fn solve(&self, request: Request<pb::Job>) -> Result<Response<pb::JobResult>, Status> {
        let admission = self.dispatcher.admission();
        let JobRequest {
            id,
            spec,
            deadline,
            progress: _,
        } = admission
            .accept(request.into_inner())
            .map_err(|(_, e)| Status::from(e))?;
        let slot = admission.try_queue_slot(spec.kind())?;
        // After the slot: a job refused for a full queue has no span to leave unfinished.
        let span = job_span(&id, spec.kind());
        let job = Submission {
            id: id.clone(),
            spec,
            deadline,
            span,
        };
        let ticket = self.dispatcher.submit_unary(slot, job)?;
        // If the client goes away, tonic drops this future and with it the ticket, which cancels
        // the job.
        let done = ticket.outcome().await?;
        let answer = done.outcome?;
        let result = convert::result_to_proto(id, answer, done.queue_wait, done.run_time);
        ServiceError::check_answer_size(&result, self.settings.max_message_bytes)?;
        Ok(Response::new(result))
    }

    type SolveStreamStream = EventStream;

    async fn solve_stream(
        &self,
        request: Request<Streaming<pb::Job>>,
    ) -> Result<Response<Self::SolveStreamStream>, Status> {
        let events = stream::spawn(
            Arc::clone(&self.dispatcher),
            request.into_inner(),
            self.settings,
            self.closing.clone(),
        );
        Ok(Response::new(Box::pin(events)))
    }

    async fn server_info(
        &self,
        _request: Request<pb::ServerInfoRequest>,
    ) -> Result<Response<pb::ServerInfoResponse>, Status> {
        let d = &self.dispatcher;
        Ok(Response::new(pb::ServerInfoResponse {
            version: env!("CARGO_PKG_VERSION").to_string(),
            workers: d.workers() as u32,
            queue_capacity: d.queue_capacity() as u32,
            stream_window: self.settings.window as u32,
            limits: Some(convert::limits_to_proto(
                d.limits(),
                self.settings.max_message_bytes,
            )),
            job_kinds: JobKind::ALL.iter().map(|k| k.name().to_string()).collect(),
            queue_depth: d.queue_depth() as u32,
            busy_workers: d.busy_workers() as u32,
        }))
    }
}
