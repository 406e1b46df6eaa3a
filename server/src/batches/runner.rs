//! This replica's share of the batch work: claim jobs from the store, run them on idle workers,
//! commit their final events.
//!
//! Five tasks, all on the async runtime (none runs solver code):
//! - the claim loop: claims jobs when workers are idle (a lease of `--lease-timeout`), and hands
//!   each to an idle worker ([`Dispatcher::submit_idle`]); a job whose replica died under it
//!   `--max-attempts` times is failed instead (see `suspect_run`); a job that does not decode or validate gets its
//!   error as its result, like online;
//! - the writer: commits final events in groups, one transaction per batch, retrying while the
//!   store is away (the answers wait in memory: at most the jobs this replica holds);
//! - the renewer: extends this replica's leases every third of the lease time;
//! - the stopper: twice a second, cancels the running jobs of batches that were cancelled or
//!   deleted (on any replica);
//! - the janitor: deletes batches past `--batch-retention`, refreshes the job-count metrics.
//!
//! A job cancelled under its worker (its batch was cancelled, or this server is shutting down)
//! is handed back, not answered: a cancelled batch already has its CANCELLED results, and a job
//! stopped by a drain is for another replica to run. A drain hands back every lease it holds
//! without counting it as an attempt.
//!
//! Health: `orbit.v1.Batches` is SERVING while the store answers, NOT_SERVING while it does not
//! (the online service's status is not touched).

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use orbit_api::v1 as pb;
use orbit_worker::SolveError;
use prost::Message;
use tokio::sync::{Notify, mpsc, watch};
use tokio::task::JoinHandle;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use super::store::{ClaimedJob, NewResult, Outcome, Store, StoreError, now_ms};
use super::{BatchSettings, SERVICE_NAME};
use crate::convert::JobRequest;
use crate::dispatcher::{Dispatcher, Done, Submission, Submitted, batch_job_span};
use crate::error::ServiceError;
use crate::stream::{error_event, final_event};

/// How often the claim loop looks for work when it found none.
const POLL_INTERVAL: Duration = Duration::from_millis(200);
/// How often the stopper looks for cancelled batches.
const STOP_INTERVAL: Duration = Duration::from_millis(500);
/// How often the janitor runs.
const JANITOR_INTERVAL: Duration = Duration::from_secs(5);
/// Final events committed in one transaction at most.
const WRITE_GROUP: usize = 2000;
/// Work held ahead of each worker when jobs are short (see [`SHORT_JOB`]), in run time: one claim
/// round trip then feeds the workers for a while instead of one round trip per job (each claim is
/// a write transaction, and on a small machine the store's CPU time is the workers' CPU time).
/// Held jobs are leased, so at the end of a batch another replica may wait up to about this long
/// for work this one holds.
const HOLD_AHEAD: Duration = Duration::from_millis(200);
/// Jobs held ahead of the workers at most (tiny jobs: a claim of this many, refilled at half).
const MAX_HELD: usize = 2048;
/// Jobs that ran shorter than this on average are short: work is held for each worker (see
/// [`HOLD_AHEAD`]). Longer jobs are claimed only as workers fall idle, so a replica never sits
/// on a long job that another replica could be running.
const SHORT_JOB: Duration = Duration::from_secs(1);
/// How long the writer waits, after an answer arrives, for more to commit with it. Short jobs
/// finish one at a time; without the wait each answer is a transaction of its own.
const WRITE_LINGER: Duration = Duration::from_millis(50);
/// Longest wait between retries while the store is away.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How long a drain waits for the last answers to be committed.
const FINAL_FLUSH: Duration = Duration::from_secs(10);

/// What a finished batch job leaves for the writer.
#[derive(Debug)]
enum Answer {
    /// Commit this final event.
    Final { batch_id: String, result: NewResult },
    /// The job did not finish here: give its lease back.
    HandBack { batch_id: String, position: i64 },
}

/// State shared by the runner's tasks and the job callbacks (on worker threads).
#[derive(Debug)]
struct Shared {
    store: Store,
    dispatcher: Arc<Dispatcher>,
    settings: BatchSettings,
    /// This replica's name on its leases: host, process and a random part (a restarted process
    /// is a new owner).
    owner: String,
    health: HealthReporter,
    /// Whether the store answered last time (health is changed only on a change of this).
    store_up: AtomicBool,
    /// Jobs on the worker pool, by (batch, position): their cancel handles.
    running: Mutex<HashMap<(String, i64), Submitted>>,
    /// Moving average of batch jobs' run times, nanoseconds (decides the prefetch).
    mean_run_ns: AtomicU64,
    /// Jobs started (or answered at once) whose answers are not committed yet.
    uncommitted: AtomicUsize,
    /// A suspect job (see [`suspect_run`]) runs alone: nothing else starts until its answer is
    /// committed, so that if it kills the replica it takes no other job's run with it.
    isolating: AtomicBool,
    /// Signalled by the writer after each commit (an isolated suspect may be done).
    committed: Notify,
    /// Signalled by this replica's creates when they store jobs.
    jobs_stored: Arc<Notify>,
}

/// The running batch runner of one replica. [`begin_drain`](Self::begin_drain) then
/// [`finish`](Self::finish) at shutdown.
#[derive(Debug)]
pub struct BatchRunner {
    shared: Arc<Shared>,
    draining: watch::Sender<bool>,
    /// Taken by [`finish`](Self::finish); whatever is left is aborted on drop (a server that
    /// stopped early).
    claim_loop: Option<JoinHandle<VecDeque<ClaimedJob>>>,
    writer: Option<JoinHandle<()>>,
    helpers: Vec<JoinHandle<()>>,
}

impl Drop for BatchRunner {
    fn drop(&mut self) {
        self.claim_loop.take().inspect(JoinHandle::abort);
        self.writer.take().inspect(JoinHandle::abort);
        for helper in &self.helpers {
            helper.abort();
        }
    }
}

impl BatchRunner {
    /// Starts the runner's tasks on the current runtime.
    pub fn start(
        store: Store,
        dispatcher: Arc<Dispatcher>,
        settings: BatchSettings,
        health: HealthReporter,
        jobs_stored: Arc<Notify>,
    ) -> Self {
        let shared = Arc::new(Shared {
            store,
            dispatcher,
            settings,
            owner: owner_name(),
            health,
            store_up: AtomicBool::new(true),
            running: Mutex::new(HashMap::new()),
            mean_run_ns: AtomicU64::new(u64::MAX),
            uncommitted: AtomicUsize::new(0),
            isolating: AtomicBool::new(false),
            committed: Notify::new(),
            jobs_stored,
        });
        tracing::info!(owner = %shared.owner, store = shared.store.engine(), "batch runner started");
        let (draining, draining_rx) = watch::channel(false);
        let (answers_tx, answers_rx) = mpsc::unbounded_channel();
        let claim_loop = tokio::spawn(claim_loop(Arc::clone(&shared), answers_tx, draining_rx));
        let writer = tokio::spawn(write_loop(Arc::clone(&shared), answers_rx));
        let helpers = vec![
            tokio::spawn(renew_loop(Arc::clone(&shared))),
            tokio::spawn(stop_loop(Arc::clone(&shared))),
            tokio::spawn(janitor_loop(Arc::clone(&shared))),
        ];
        Self {
            shared,
            draining,
            claim_loop: Some(claim_loop),
            writer: Some(writer),
            helpers,
        }
    }

    /// Shutdown has begun: claim and start nothing more; `orbit.v1.Batches` turns NOT_SERVING.
    pub async fn begin_drain(&self) {
        let _ = self.draining.send(true);
        self.shared
            .health
            .set_service_status(SERVICE_NAME, ServingStatus::NotServing)
            .await;
    }

    /// After the worker pool went idle (or gave up on its last jobs): hands back the jobs that
    /// were claimed and never started, commits the answers still waiting, hands back whatever
    /// is still running, and stops the tasks.
    pub async fn finish(mut self) {
        let _ = self.draining.send(true);
        let held = match self.claim_loop.take() {
            Some(task) => task.await.unwrap_or_default(),
            None => VecDeque::new(),
        };
        let mut hand_back: Vec<(String, i64)> =
            held.into_iter().map(|j| (j.batch_id, j.position)).collect();
        // The claim loop's sender is gone with it; the job callbacks' senders go as their jobs
        // are answered. A job that ignores its cancellation keeps the writer open: give up then.
        if let Some(mut writer) = self.writer.take()
            && tokio::time::timeout(FINAL_FLUSH, &mut writer)
                .await
                .is_err()
        {
            tracing::warn!("batch runner: answers not committed in time; their leases will expire");
            writer.abort();
        }
        hand_back.extend(self.shared.running().keys().cloned());
        if !hand_back.is_empty()
            && let Err(e) = self
                .shared
                .store
                .release(&self.shared.owner, &hand_back)
                .await
        {
            tracing::warn!(error = %e, jobs = hand_back.len(), "batch runner: cannot hand back leases; they will expire");
        }
        for helper in &self.helpers {
            helper.abort();
        }
        tracing::info!(handed_back = hand_back.len(), "batch runner stopped");
    }
}

impl Shared {
    fn running(&self) -> MutexGuard<'_, HashMap<(String, i64), Submitted>> {
        // A panic while holding the lock leaves the map as it was; keep using it.
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records whether the store answered, and turns the service's health with it.
    async fn store_answered(&self, outcome: Result<(), &StoreError>) {
        let up = outcome.is_ok();
        if self.store_up.swap(up, Ordering::SeqCst) == up {
            return;
        }
        match outcome {
            Ok(()) => {
                tracing::info!("batch store is back: {SERVICE_NAME} SERVING");
                self.health
                    .set_service_status(SERVICE_NAME, ServingStatus::Serving)
                    .await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "batch store unreachable: {SERVICE_NAME} NOT_SERVING, batch work paused");
                self.health
                    .set_service_status(SERVICE_NAME, ServingStatus::NotServing)
                    .await;
            }
        }
    }

    /// Jobs to claim now, given `held` claimed and not started: enough for the idle workers;
    /// when jobs are short, also [`HOLD_AHEAD`] of work waiting for each worker (at least one
    /// job, at most [`MAX_HELD`] in all), so that a worker that finishes starts the next job
    /// without waiting for a claim's round trip. That reserve is refilled only once half of it is
    /// used: a claim per job would make the store's write lock the bottleneck.
    fn wanted(&self, held: usize) -> usize {
        let idle = self.dispatcher.idle_workers();
        let mean = self.mean_run_ns.load(Ordering::Relaxed);
        if mean >= SHORT_JOB.as_nanos() as u64 {
            return idle.saturating_sub(held);
        }
        let per_worker = (HOLD_AHEAD.as_nanos() as u64 / mean.max(1)).max(1);
        let ahead = usize::try_from(per_worker)
            .unwrap_or(usize::MAX)
            .saturating_mul(self.dispatcher.workers())
            .min(MAX_HELD);
        let target = idle + ahead;
        if held > idle + ahead / 2 {
            return 0;
        }
        target - held
    }

    fn lease_until(&self) -> i64 {
        now_ms().saturating_add(self.settings.lease_timeout.as_millis() as i64)
    }
}

/// `host-pid-random`.
fn owner_name() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "orbit".to_string());
    format!(
        "{host}-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    )
}

/// A claim on its way: it runs beside the loop, so that a worker falling idle meanwhile still
/// gets a held job at once.
type Claiming =
    Pin<Box<dyn Future<Output = (Instant, Result<Vec<ClaimedJob>, StoreError>)> + Send>>;

async fn claim_loop(
    shared: Arc<Shared>,
    answers: mpsc::UnboundedSender<Answer>,
    mut draining: watch::Receiver<bool>,
) -> VecDeque<ClaimedJob> {
    let mut held: VecDeque<ClaimedJob> = VecDeque::new();
    let mut claiming: Option<Claiming> = None;
    // No claim before this instant: after a claim that found nothing (`false`: news ends it
    // early) or one that failed (`true`: the store is away; back off).
    let mut pause: Option<(tokio::time::Instant, bool)> = None;
    let mut backoff = POLL_INTERVAL;
    loop {
        if *draining.borrow() {
            // What a claim still on its way brings is handed back with the rest.
            if let Some(claim) = claiming.take()
                && let (_, Ok(jobs)) = claim.await
            {
                held.extend(jobs);
            }
            return held;
        }
        // Registered before the checks below, so an answer in between still wakes the loop.
        let answered = shared.dispatcher.answered();
        let committed = shared.committed.notified();
        while shared.dispatcher.idle_workers() > 0 && !shared.isolating.load(Ordering::SeqCst) {
            let Some(job) = held.pop_front() else { break };
            if job.attempts <= 1 {
                start(&shared, job, &answers);
                continue;
            }
            // A suspect waits until every answer before it is committed, then runs alone.
            if shared.uncommitted.load(Ordering::SeqCst) > 0 {
                held.push_front(job);
                break;
            }
            match suspect_run(&shared, &job).await {
                Ok(true) => {
                    shared.isolating.store(true, Ordering::SeqCst);
                    start(&shared, job, &answers);
                }
                Ok(false) => {
                    shared.uncommitted.fetch_add(1, Ordering::SeqCst);
                    let _ = answers.send(attempts_exhausted(job, shared.settings.max_attempts));
                }
                Err(e) => {
                    // The run could not be counted: keep the job and try again later.
                    shared.store_answered(Err(&e)).await;
                    held.push_front(job);
                    break;
                }
            }
        }
        let wanted = shared.wanted(held.len());
        let paused = pause.is_some_and(|(until, _)| tokio::time::Instant::now() < until);
        if claiming.is_none() && !paused && wanted > 0 {
            let shared = Arc::clone(&shared);
            claiming = Some(Box::pin(async move {
                let began = Instant::now();
                let claimed = shared
                    .store
                    .claim(&shared.owner, wanted as i64, shared.lease_until())
                    .await;
                (began, claimed)
            }));
        }
        let next_poll = match pause {
            Some((until, _)) if paused => until,
            _ => tokio::time::Instant::now() + POLL_INTERVAL,
        };
        // News that may mean work: ends a pause after an empty claim, not one after an error.
        let mut news = false;
        tokio::select! {
            (began, claimed) = async { claiming.as_mut().expect("a claim").await }, if claiming.is_some() => {
                claiming = None;
                match claimed {
                    Ok(jobs) => {
                        shared.store_answered(Ok(())).await;
                        backoff = POLL_INTERVAL;
                        let expired = jobs.iter().filter(|j| j.attempts > 1).count() as u64;
                        shared
                            .dispatcher
                            .metrics()
                            .batch_claimed(began.elapsed(), expired);
                        // Nothing queued: ask again at the next poll, or on news.
                        pause = jobs
                            .is_empty()
                            .then(|| (tokio::time::Instant::now() + POLL_INTERVAL, false));
                        held.extend(jobs);
                    }
                    Err(e) => {
                        shared.store_answered(Err(&e)).await;
                        pause = Some((tokio::time::Instant::now() + backoff, true));
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                }
            }
            () = answered => news = true,
            () = committed => news = true,
            () = shared.jobs_stored.notified() => news = true,
            () = tokio::time::sleep_until(next_poll), if claiming.is_none() => pause = None,
            _ = draining.changed() => {}
        }
        if news && matches!(pause, Some((_, false))) {
            pause = None;
        }
    }
}

/// Runs one claimed job on an idle worker, or answers it at once (too many attempts, bad input).
fn start(shared: &Arc<Shared>, job: ClaimedJob, answers: &mpsc::UnboundedSender<Answer>) {
    let ClaimedJob {
        batch_id,
        position,
        job_id,
        job,
        ..
    } = job;
    // Every path below sends exactly one answer; the writer counts it off when committed.
    shared.uncommitted.fetch_add(1, Ordering::SeqCst);
    let fail = |id: String, error: ServiceError| Answer::Final {
        batch_id: batch_id.clone(),
        result: NewResult {
            position,
            outcome: Outcome::Failed,
            event: error_event(id, &error).encode_to_vec(),
        },
    };
    let job = match pb::Job::decode(job.as_slice()) {
        Ok(job) => job,
        Err(e) => {
            let error = ServiceError::Solve(SolveError::invalid("job", e.to_string()));
            let _ = answers.send(fail(job_id, error));
            return;
        }
    };
    if shared.settings.abort_on_job_id.as_deref() == Some(job.id.as_str()) {
        // The test-only fault hook: die as a crash would, holding the lease.
        eprintln!("orbit-server: --test-abort-on-job-id {}: aborting", job.id);
        std::process::abort();
    }
    let JobRequest {
        id, spec, deadline, ..
    } = match shared.dispatcher.admission().accept(job) {
        Ok(request) => request,
        Err((id, error)) => {
            let _ = answers.send(fail(id, error));
            return;
        }
    };
    let span = batch_job_span(&id, spec.kind());
    let key = (batch_id.clone(), position);
    let max_message_bytes = shared.settings.max_message_bytes;
    let callback_shared = Arc::clone(shared);
    let callback_answers = answers.clone();
    let callback_key = key.clone();
    // Held across the submission, so that the callback (which removes the job) finds it there
    // even if the job finishes before `submit_idle` returns.
    let mut running = shared.running();
    let submission = Submission {
        id: id.clone(),
        spec,
        deadline,
        span,
    };
    let submitted = shared
        .dispatcher
        .submit_idle(submission, move |done: Done| {
            callback_shared.running().remove(&callback_key);
            record_run_time(&callback_shared.mean_run_ns, done.run_time);
            let (batch_id, position) = callback_key;
            let answer = match &done.outcome {
                Err(ServiceError::Solve(SolveError::Cancelled)) => {
                    Answer::HandBack { batch_id, position }
                }
                outcome => {
                    let outcome = if outcome.is_ok() {
                        Outcome::Ok
                    } else {
                        Outcome::Failed
                    };
                    let event = final_event(id, done, max_message_bytes);
                    Answer::Final {
                        batch_id,
                        result: NewResult {
                            position,
                            outcome,
                            event: event.encode_to_vec(),
                        },
                    }
                }
            };
            let _ = callback_answers.send(answer);
        });
    match submitted {
        Ok(handle) => {
            running.insert(key, handle);
        }
        Err(_) => {
            drop(running);
            let _ = answers.send(Answer::HandBack { batch_id, position });
        }
    }
}

/// Whether a claimed job may run, counting the run first when the job is a suspect: one
/// claimed again after the replica holding it lost it (died, or could not renew its lease).
///
/// The first run of a job is not recorded (a write per job would halve the drain rate of tiny
/// jobs), so a suspect may or may not have run before; each of its later runs is recorded
/// before it starts. A suspect with `runs + 1 >= --max-attempts` is failed instead of run: its
/// holders died that many times while it may have been running. A job that was only claimed
/// ahead by a replica that died (never started) thus spends at most the unrecorded first run.
/// The claim loop runs a suspect alone, after every earlier answer is committed and before any
/// other job starts, so a job that kills its replica takes no other job's answer with it.
async fn suspect_run(shared: &Shared, job: &ClaimedJob) -> Result<bool, StoreError> {
    if job.attempts <= 1 {
        return Ok(true);
    }
    if i64::from(job.runs) + 1 >= i64::from(shared.settings.max_attempts) {
        return Ok(false);
    }
    shared
        .store
        .record_run(&shared.owner, &job.batch_id, job.position)
        .await?;
    Ok(true)
}

/// The final answer of a job whose runs kept dying.
fn attempts_exhausted(job: ClaimedJob, max_attempts: u32) -> Answer {
    let event = error_event(
        job.job_id,
        &ServiceError::AttemptsExhausted { max_attempts },
    );
    Answer::Final {
        batch_id: job.batch_id,
        result: NewResult {
            position: job.position,
            outcome: Outcome::Failed,
            event: event.encode_to_vec(),
        },
    }
}

/// Folds one run time into the moving average (weight 1/8).
fn record_run_time(mean_ns: &AtomicU64, run: Duration) {
    let run = run.as_nanos().min(u64::MAX as u128) as u64;
    let _ = mean_ns.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |mean| {
        Some(if mean == u64::MAX {
            run
        } else {
            mean - mean / 8 + run / 8
        })
    });
}

async fn write_loop(shared: Arc<Shared>, mut answers: mpsc::UnboundedReceiver<Answer>) {
    let mut finals: HashMap<String, Vec<NewResult>> = HashMap::new();
    let mut hand_back: Vec<(String, i64)> = Vec::new();
    let mut backoff = Duration::from_millis(100);
    let mut open = true;
    loop {
        let pending = finals.values().map(Vec::len).sum::<usize>() + hand_back.len();
        if pending == 0 {
            if !open {
                return;
            }
            match answers.recv().await {
                Some(answer) => add(answer, &mut finals, &mut hand_back),
                None => return,
            }
            let linger_until = tokio::time::Instant::now() + WRITE_LINGER;
            let mut pending = 1;
            while pending < WRITE_GROUP {
                match tokio::time::timeout_at(linger_until, answers.recv()).await {
                    Ok(Some(answer)) => {
                        add(answer, &mut finals, &mut hand_back);
                        pending += 1;
                    }
                    Ok(None) => {
                        open = false;
                        break;
                    }
                    Err(_lingered) => break,
                }
            }
        }
        let mut pending = finals.values().map(Vec::len).sum::<usize>() + hand_back.len();
        while pending < WRITE_GROUP {
            match answers.try_recv() {
                Ok(answer) => {
                    add(answer, &mut finals, &mut hand_back);
                    pending += 1;
                }
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        let flushed = flush(&shared, &mut finals, &mut hand_back).await;
        let left = finals.values().map(Vec::len).sum::<usize>() + hand_back.len();
        if left < pending {
            let before = shared
                .uncommitted
                .fetch_sub(pending - left, Ordering::SeqCst);
            if before == pending - left {
                shared.isolating.store(false, Ordering::SeqCst);
            }
            shared.committed.notify_one();
        }
        match flushed {
            Ok(()) => {
                shared.store_answered(Ok(())).await;
                backoff = Duration::from_millis(100);
            }
            Err(e) => {
                shared.store_answered(Err(&e)).await;
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

fn add(
    answer: Answer,
    finals: &mut HashMap<String, Vec<NewResult>>,
    hand_back: &mut Vec<(String, i64)>,
) {
    match answer {
        Answer::Final { batch_id, result } => finals.entry(batch_id).or_default().push(result),
        Answer::HandBack { batch_id, position } => hand_back.push((batch_id, position)),
    }
}

/// Commits what is pending; what could not be committed stays pending.
async fn flush(
    shared: &Shared,
    finals: &mut HashMap<String, Vec<NewResult>>,
    hand_back: &mut Vec<(String, i64)>,
) -> Result<(), StoreError> {
    let batches: Vec<String> = finals.keys().cloned().collect();
    for batch_id in batches {
        let results = &finals[&batch_id];
        for group in results.chunks(WRITE_GROUP) {
            shared.store.write_results(&batch_id, group).await?;
        }
        finals.remove(&batch_id);
    }
    if !hand_back.is_empty() {
        shared.store.release(&shared.owner, hand_back).await?;
        hand_back.clear();
    }
    Ok(())
}

async fn renew_loop(shared: Arc<Shared>) {
    let every = shared.settings.lease_timeout / 3;
    loop {
        tokio::time::sleep(every).await;
        let renewed = shared
            .store
            .renew(&shared.owner, shared.lease_until())
            .await;
        if let Err(e) = &renewed {
            tracing::warn!(error = %e, "batch runner: cannot renew leases");
        }
        shared.store_answered(renewed.as_ref().map(|_| ())).await;
    }
}

async fn stop_loop(shared: Arc<Shared>) {
    loop {
        tokio::time::sleep(STOP_INTERVAL).await;
        let batches: Vec<String> = {
            let running = shared.running();
            let ids: HashSet<&String> = running.keys().map(|(b, _)| b).collect();
            ids.into_iter().cloned().collect()
        };
        if batches.is_empty() {
            continue;
        }
        match shared.store.stopped(&batches).await {
            Ok(stopped) if !stopped.is_empty() => {
                let stopped: HashSet<String> = stopped.into_iter().collect();
                let running = shared.running();
                for ((batch_id, _), job) in running.iter() {
                    if stopped.contains(batch_id) {
                        job.cancel();
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                tracing::debug!(error = %e, "batch runner: cannot check for cancelled batches")
            }
        }
    }
}

async fn janitor_loop(shared: Arc<Shared>) {
    loop {
        if let Ok(counts) = shared.store.job_counts().await {
            shared
                .dispatcher
                .metrics()
                .batch_jobs(counts.queued, counts.running, counts.done);
        }
        // Cheap when nothing is due: finished batches are indexed by their finish time.
        let before = now_ms().saturating_sub(shared.settings.retention.as_millis() as i64);
        match shared.store.expire(before).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(batches = n, "deleted batches past --batch-retention"),
            Err(e) => tracing::debug!(error = %e, "batch runner: cannot expire batches"),
        }
        tokio::time::sleep(JANITOR_INTERVAL).await;
    }
}
