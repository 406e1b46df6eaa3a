//! The `orbit.v1.Orbit` handlers. Each follows four steps: validate, proto → domain, submit,
//! domain → proto. Conversions live in `convert.rs`, status mapping in `error.rs`, the streaming
//! batch loop in `batch.rs`.

use std::pin::Pin;
use std::sync::Arc;

use futures::Stream;
use orbit_api::JobKind;
use orbit_api::v1 as pb;
use orbit_api::v1::orbit_server::Orbit;
use orbit_worker::Limits;
use tokio::sync::watch;
use tonic::{Request, Response, Status, Streaming};

use crate::convert::{self, JobRequest};
use crate::dispatcher::{Dispatcher, job_span};
use crate::error::ServiceError;

/// The service object tonic serves.
#[derive(Debug, Clone)]
pub struct OrbitService {
    dispatcher: Arc<Dispatcher>,
    /// Flips to `true` when the grace period is over: open streams end.
    closing: watch::Receiver<bool>,
    streams: crate::batch::StreamSettings,
    max_message_bytes: usize,
}

impl OrbitService {
    /// A service over `dispatcher`.
    pub fn new(
        dispatcher: Arc<Dispatcher>,
        closing: watch::Receiver<bool>,
        streams: crate::batch::StreamSettings,
        max_message_bytes: usize,
    ) -> Self {
        Self {
            dispatcher,
            closing,
            streams: crate::batch::StreamSettings {
                window: streams.window.max(1),
                ..streams
            },
            max_message_bytes,
        }
    }
}

/// Steps 1 and 2 for one job: proto → domain, then validation against the server's `limits`.
/// `Solve` and `SolveStream` call it through [`accept_counted`]; it is public so the fuzz targets
/// (`fuzz/`) check exactly what a decoded job goes through before it is queued.
///
/// # Errors
/// The job's id and why it was refused (INVALID_ARGUMENT naming the field, or RESOURCE_EXHAUSTED
/// stating the limit).
pub fn accept(job: pb::Job, limits: &Limits) -> Result<JobRequest, (String, ServiceError)> {
    let id = job.id.clone();
    let request =
        convert::job_from_proto(job, limits).map_err(|e| (id.clone(), ServiceError::from(e)))?;
    request
        .spec
        .validate(limits)
        .map_err(|e| (id, ServiceError::from(e)))?;
    Ok(request)
}

/// [`accept`] against the dispatcher's limits; a refused job is counted in the metrics.
pub(crate) fn accept_counted(
    job: pb::Job,
    dispatcher: &Dispatcher,
) -> Result<JobRequest, (String, ServiceError)> {
    let kind = convert::kind_name(&job);
    accept(job, dispatcher.limits()).map_err(|(id, e)| (id, dispatcher.refused(kind, e)))
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::JobEvent, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl Orbit for OrbitService {
    async fn solve(&self, request: Request<pb::Job>) -> Result<Response<pb::JobResult>, Status> {
        let job = request.into_inner();
        let JobRequest {
            id,
            spec,
            deadline,
            progress: _,
        } = accept_counted(job, &self.dispatcher).map_err(|(_, e)| Status::from(e))?;
        let span = job_span(&id, spec.kind());
        let admission = self.dispatcher.try_admit(spec.kind())?;
        let ticket = self
            .dispatcher
            .submit_unary(admission, spec, deadline, span)?;
        // If the client goes away, tonic drops this future and with it the ticket, which cancels
        // the job.
        let done = ticket.outcome().await?;
        let answer = done.outcome?;
        let result = convert::result_to_proto(id, answer, done.queue_wait, done.run_time);
        ServiceError::check_answer_size(&result, self.max_message_bytes)?;
        Ok(Response::new(result))
    }

    type SolveStreamStream = EventStream;

    async fn solve_stream(
        &self,
        request: Request<Streaming<pb::Job>>,
    ) -> Result<Response<Self::SolveStreamStream>, Status> {
        let inbound = request.into_inner();
        let events = crate::batch::spawn(
            Arc::clone(&self.dispatcher),
            inbound,
            self.streams,
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
            stream_window: self.streams.window as u32,
            limits: Some(convert::limits_to_proto(d.limits(), self.max_message_bytes)),
            job_kinds: JobKind::ALL.iter().map(|k| k.name().to_string()).collect(),
            queue_depth: d.queue_depth() as u32,
            busy_workers: d.busy_workers() as u32,
        }))
    }
}
