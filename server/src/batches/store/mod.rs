//! Where batches live: PostgreSQL (`postgres://...`, shared by every replica) or an embedded SQLite
//! file (`sqlite:PATH`, one node). Both hold the same three tables (`migrations/<engine>/`):
//! `batches` (one row per batch, with its counters), `batch_jobs` (jobs without a final result,
//! with their leases) and `batch_results` (one final event per job, numbered per batch).
//!
//! The rules every operation keeps, on both engines:
//! - A batch's counters change in the same transaction as the rows they count.
//! - A result is stored, its job row deleted and the batch's `last_sequence` advanced in one
//!   transaction that first locks the batch row: sequence numbers are gapless and follow commit
//!   order, and a job whose row is already gone (answered by another replica, or cancelled) gets no
//!   second result.
//! - A claim marks jobs leased until an expiry; a lease that is not renewed expires and the job is
//!   claimed again (by any replica), its `attempts` counting the claims.
//!
//! [`Store`] is the one entry point; `postgres.rs` and `sqlite.rs` hold each engine's SQL.

mod postgres;
mod sqlite;

use std::borrow::Cow;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{PgPool, SqlSafeStr, SqlitePool};

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be reached or failed; worth retrying.
    #[error("the batch store is unavailable: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// The database refused the write for lack of space.
    #[error("the batch store is full and refused the write: {0}")]
    Full(#[source] sqlx::Error),
    /// The store URL is not one this server knows.
    #[error("invalid --store '{url}': {reason}")]
    BadUrl { url: String, reason: String },
    /// Migrations failed at start.
    #[error("cannot migrate the batch store: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// No batch with that id.
    #[error("no batch {0}")]
    NotFound(String),
    /// The create names a request id whose batch can take no more jobs (cancelled, or deleted:
    /// the request ids of deleted batches are kept for one more `--batch-retention`).
    #[error("batch {batch_id} of request id '{request_id}' is {state} and takes no more jobs")]
    Closed {
        batch_id: String,
        request_id: String,
        state: &'static str,
    },
    /// Jobs sent out of order: the create stream skipped positions.
    #[error("batch {batch_id} holds {stored} jobs; jobs from position {first} cannot follow")]
    Gap {
        batch_id: String,
        stored: i64,
        first: i64,
    },
    /// A batch limit would be exceeded.
    #[error(
        "batch {batch_id} would hold {requested} {what}, over the {limit_name} limit of {limit}; \
         the batch keeps the {stored} jobs stored before and takes no more"
    )]
    LimitExceeded {
        batch_id: String,
        limit_name: &'static str,
        what: &'static str,
        limit: u64,
        requested: u64,
        stored: u64,
    },
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        // Disk full: SQLITE_FULL (13) and PostgreSQL's disk_full (53100).
        let full = e
            .as_database_error()
            .and_then(|db| db.code())
            .is_some_and(|code| code == "13" || code == "53100");
        if full {
            StoreError::Full(e)
        } else {
            StoreError::Unavailable(e)
        }
    }
}

/// `orbit.v1.BatchState` numbers, as stored.
pub mod state {
    /// More jobs may come.
    pub const OPEN: i32 = 1;
    /// Every job stored, some unanswered.
    pub const RUNNING: i32 = 2;
    /// Every job answered.
    pub const DONE: i32 = 3;
    /// Cancelled.
    pub const CANCELLED: i32 = 4;

    /// The state's name, for messages.
    pub fn name(state: i32) -> &'static str {
        match state {
            OPEN => "open",
            RUNNING => "running",
            DONE => "done",
            CANCELLED => "cancelled",
            _ => "unknown",
        }
    }
}

/// A batch as stored.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct BatchRecord {
    pub id: String,
    pub request_id: String,
    pub name: String,
    pub state: i32,
    pub create_ms: i64,
    pub finish_ms: i64,
    pub jobs: i64,
    pub stored_bytes: i64,
    pub ok: i64,
    pub failed: i64,
    pub cancelled: i64,
    pub last_sequence: i64,
}

/// A job to store: its position is implied by its place in the slice handed to
/// [`Store::append_jobs`].
#[derive(Debug, Clone)]
pub struct NewJob {
    /// The caller's id.
    pub job_id: String,
    /// The encoded `orbit.v1.Job`.
    pub job: Vec<u8>,
}

/// A claimed job.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ClaimedJob {
    pub batch_id: String,
    pub position: i64,
    pub job_id: String,
    pub job: Vec<u8>,
    /// Claims so far, this one included (a hand-back at a drain takes its claim back).
    pub attempts: i32,
    /// Runs known to have started (see [`Store::record_run`]).
    pub runs: i32,
}

/// How a final event counts in its batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Failed,
    Cancelled,
}

/// A final event to store.
#[derive(Debug, Clone)]
pub struct NewResult {
    pub position: i64,
    pub outcome: Outcome,
    /// The encoded `orbit.v1.JobEvent`.
    pub event: Vec<u8>,
}

/// A stored final event.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredResult {
    pub sequence: i64,
    pub position: i64,
    pub event: Vec<u8>,
}

/// Jobs in the store by state, for the metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct JobCounts {
    pub queued: i64,
    pub running: i64,
    pub done: i64,
}

/// The limits a batch is held to while it is created.
#[derive(Debug, Clone, Copy)]
pub struct BatchLimits {
    /// `--max-batch-jobs`.
    pub max_jobs: u64,
    /// `--max-batch-bytes`: encoded job bytes.
    pub max_bytes: u64,
}

/// A connected, migrated store.
#[derive(Debug, Clone)]
pub enum Store {
    Postgres(PgPool),
    Sqlite(SqlitePool),
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// The migrations of one engine, embedded in the binary, as (version, description, SQL).
fn migrator(migrations: &[(i64, &'static str, &'static str)]) -> Migrator {
    Migrator::with_migrations(
        migrations
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}

/// PostgreSQL's migrations.
const POSTGRES_MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "batches",
        include_str!("../../../migrations/postgres/0001_batches.sql"),
    ),
    (
        2,
        "batch job runs",
        include_str!("../../../migrations/postgres/0002_batch_job_runs.sql"),
    ),
    (
        3,
        "deleted batches",
        include_str!("../../../migrations/postgres/0003_deleted_batches.sql"),
    ),
];

/// SQLite's migrations.
const SQLITE_MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "batches",
        include_str!("../../../migrations/sqlite/0001_batches.sql"),
    ),
    (
        2,
        "batch job runs",
        include_str!("../../../migrations/sqlite/0002_batch_job_runs.sql"),
    ),
    (
        3,
        "deleted batches",
        include_str!("../../../migrations/sqlite/0003_deleted_batches.sql"),
    ),
];

impl Store {
    /// Connects to `url` (`postgres://...`, `postgresql://...` or `sqlite:PATH`, the file created
    /// if missing) and runs the migrations.
    ///
    /// # Errors
    /// A URL of no known engine, a database that cannot be reached, or failed migrations.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = postgres::connect(url).await?;
            migrator(POSTGRES_MIGRATIONS).run(&pool).await?;
            Store::Postgres(pool)
        } else if let Some(path) = url.strip_prefix("sqlite:") {
            if path.is_empty() {
                return Err(StoreError::BadUrl {
                    url: url.to_string(),
                    reason: "sqlite: needs a file path, e.g. sqlite:/var/lib/orbit/batches.db"
                        .into(),
                });
            }
            let pool = sqlite::connect(path).await?;
            migrator(SQLITE_MIGRATIONS).run(&pool).await?;
            Store::Sqlite(pool)
        } else {
            return Err(StoreError::BadUrl {
                url: redact(url),
                reason: "expected postgres://... or sqlite:PATH".into(),
            });
        };
        Ok(store)
    }

    /// Which engine, for logs.
    pub fn engine(&self) -> &'static str {
        match self {
            Store::Postgres(_) => "postgres",
            Store::Sqlite(_) => "sqlite",
        }
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self {
            Store::Postgres(pool) => postgres::ping(pool).await,
            Store::Sqlite(pool) => sqlite::ping(pool).await,
        }
    }

    /// The batch of `request_id`, created (open, with id `new_id`) if there is none and there
    /// was none lately ([`StoreError::Closed`] if it was deleted).
    pub async fn open_batch(
        &self,
        new_id: &str,
        request_id: &str,
        name: &str,
    ) -> Result<BatchRecord, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::open_batch(pool, new_id, request_id, name).await,
            Store::Sqlite(pool) => sqlite::open_batch(pool, new_id, request_id, name).await,
        }
    }

    /// Stores `jobs` at positions `first..first + jobs.len()` of an open batch, skipping those
    /// already stored (a retried create), and counts them, all in one transaction. Returns the
    /// batch's job count afterwards.
    pub async fn append_jobs(
        &self,
        batch_id: &str,
        first: i64,
        jobs: &[NewJob],
        limits: BatchLimits,
    ) -> Result<i64, StoreError> {
        match self {
            Store::Postgres(pool) => {
                postgres::append_jobs(pool, batch_id, first, jobs, limits).await
            }
            Store::Sqlite(pool) => sqlite::append_jobs(pool, batch_id, first, jobs, limits).await,
        }
    }

    /// Ends an open batch's create: running, or done at once if every job is answered.
    pub async fn seal(&self, batch_id: &str) -> Result<BatchRecord, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::seal(pool, batch_id).await,
            Store::Sqlite(pool) => sqlite::seal(pool, batch_id).await,
        }
    }

    /// The batch, if it exists.
    pub async fn get(&self, batch_id: &str) -> Result<Option<BatchRecord>, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::get(pool, batch_id).await,
            Store::Sqlite(pool) => sqlite::get(pool, batch_id).await,
        }
    }

    /// Up to `limit` batches, newest first, strictly after `after` = (create_ms, id) in that order.
    pub async fn list(
        &self,
        limit: i64,
        after: Option<(i64, String)>,
    ) -> Result<Vec<BatchRecord>, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::list(pool, limit, after).await,
            Store::Sqlite(pool) => sqlite::list(pool, limit, after).await,
        }
    }

    /// Up to `limit` results of the batch with sequence numbers above `after`, in order.
    pub async fn results_after(
        &self,
        batch_id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredResult>, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::results_after(pool, batch_id, after, limit).await,
            Store::Sqlite(pool) => sqlite::results_after(pool, batch_id, after, limit).await,
        }
    }

    /// Cancels the batch: every job without a result gets `cancelled_event(job_id)` as its
    /// result, in one transaction. A finished batch is returned unchanged.
    pub async fn cancel(
        &self,
        batch_id: &str,
        cancelled_event: &(dyn Fn(&str) -> Vec<u8> + Sync),
    ) -> Result<BatchRecord, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::cancel(pool, batch_id, cancelled_event).await,
            Store::Sqlite(pool) => sqlite::cancel(pool, batch_id, cancelled_event).await,
        }
    }

    /// Deletes the batch with its jobs and results, keeping its request id (see
    /// [`StoreError::Closed`]); whether it existed.
    pub async fn delete(&self, batch_id: &str) -> Result<bool, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::delete(pool, batch_id).await,
            Store::Sqlite(pool) => sqlite::delete(pool, batch_id).await,
        }
    }

    /// Claims up to `limit` jobs (queued, or leased with an expired lease) for `owner` until
    /// `lease_until_ms`.
    pub async fn claim(
        &self,
        owner: &str,
        limit: i64,
        lease_until_ms: i64,
    ) -> Result<Vec<ClaimedJob>, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::claim(pool, owner, limit, lease_until_ms).await,
            Store::Sqlite(pool) => sqlite::claim(pool, owner, limit, lease_until_ms).await,
        }
    }

    /// Counts a run of a job that `owner` is about to start (its `runs`), for a job claimed
    /// again after its holder lost it: only such runs are recorded (one write each, and rare),
    /// so that a job merely held by a replica that died spends no attempt.
    pub async fn record_run(
        &self,
        owner: &str,
        batch_id: &str,
        position: i64,
    ) -> Result<(), StoreError> {
        match self {
            Store::Postgres(pool) => postgres::record_run(pool, owner, batch_id, position).await,
            Store::Sqlite(pool) => sqlite::record_run(pool, owner, batch_id, position).await,
        }
    }

    /// Extends every lease `owner` holds to `lease_until_ms`.
    pub async fn renew(&self, owner: &str, lease_until_ms: i64) -> Result<(), StoreError> {
        match self {
            Store::Postgres(pool) => postgres::renew(pool, owner, lease_until_ms).await,
            Store::Sqlite(pool) => sqlite::renew(pool, owner, lease_until_ms).await,
        }
    }

    /// Hands the given leases of `owner` back (queued again, the claim not counted as an
    /// attempt): a draining replica's jobs that did not finish.
    pub async fn release(&self, owner: &str, jobs: &[(String, i64)]) -> Result<(), StoreError> {
        match self {
            Store::Postgres(pool) => postgres::release(pool, owner, jobs).await,
            Store::Sqlite(pool) => sqlite::release(pool, owner, jobs).await,
        }
    }

    /// Stores the final events of jobs of one batch (those whose job still has no result) and
    /// counts them; returns how many were stored.
    pub async fn write_results(
        &self,
        batch_id: &str,
        results: &[NewResult],
    ) -> Result<usize, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::write_results(pool, batch_id, results).await,
            Store::Sqlite(pool) => sqlite::write_results(pool, batch_id, results).await,
        }
    }

    /// Of `batch_ids`, those that are cancelled or gone: their running jobs should stop.
    pub async fn stopped(&self, batch_ids: &[String]) -> Result<Vec<String>, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::stopped(pool, batch_ids).await,
            Store::Sqlite(pool) => sqlite::stopped(pool, batch_ids).await,
        }
    }

    /// Deletes the batches that finished before `before_ms`, keeping their request ids, and
    /// forgets the request ids of batches deleted before `before_ms`; how many batches.
    pub async fn expire(&self, before_ms: i64) -> Result<u64, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::expire(pool, before_ms).await,
            Store::Sqlite(pool) => sqlite::expire(pool, before_ms).await,
        }
    }

    /// Jobs by state over every batch.
    pub async fn job_counts(&self) -> Result<JobCounts, StoreError> {
        match self {
            Store::Postgres(pool) => postgres::job_counts(pool).await,
            Store::Sqlite(pool) => sqlite::job_counts(pool).await,
        }
    }
}

/// The part of `jobs` (at positions `first..`) that an append to `batch` stores: those not stored
/// yet, checked against the batch's state and `limits`.
fn new_jobs<'a>(
    batch: &BatchRecord,
    first: i64,
    jobs: &'a [NewJob],
    limits: BatchLimits,
) -> Result<&'a [NewJob], StoreError> {
    if batch.state != state::OPEN {
        return Err(StoreError::Closed {
            batch_id: batch.id.clone(),
            request_id: batch.request_id.clone(),
            state: state::name(batch.state),
        });
    }
    if first > batch.jobs {
        return Err(StoreError::Gap {
            batch_id: batch.id.clone(),
            stored: batch.jobs,
            first,
        });
    }
    let skip = usize::try_from(batch.jobs - first).unwrap_or(usize::MAX);
    let new = jobs.get(skip..).unwrap_or(&[]);
    let stored = batch.jobs as u64;
    let jobs_after = stored + new.len() as u64;
    if jobs_after > limits.max_jobs {
        return Err(StoreError::LimitExceeded {
            batch_id: batch.id.clone(),
            limit_name: "--max-batch-jobs",
            what: "jobs",
            limit: limits.max_jobs,
            requested: jobs_after,
            stored,
        });
    }
    let bytes_after =
        batch.stored_bytes as u64 + new.iter().map(|j| j.job.len() as u64).sum::<u64>();
    if bytes_after > limits.max_bytes {
        return Err(StoreError::LimitExceeded {
            batch_id: batch.id.clone(),
            limit_name: "--max-batch-bytes",
            what: "bytes of jobs",
            limit: limits.max_bytes,
            requested: bytes_after,
            stored,
        });
    }
    Ok(new)
}

/// What sealing a batch that is not open gives: the batch as it is, unless it is gone or
/// cancelled.
fn sealed_already(batch: Option<BatchRecord>, batch_id: &str) -> Result<BatchRecord, StoreError> {
    match batch {
        None => Err(StoreError::NotFound(batch_id.to_string())),
        Some(batch) if batch.state == state::CANCELLED => Err(StoreError::Closed {
            batch_id: batch.id.clone(),
            request_id: batch.request_id.clone(),
            state: state::name(batch.state),
        }),
        Some(batch) => Ok(batch),
    }
}

/// What a create naming the request id of a deleted batch gets: `gone` is the deleted batch's
/// id, if the store still remembers it.
fn deleted_already(request_id: &str, gone: Option<String>) -> StoreError {
    match gone {
        Some(batch_id) => StoreError::Closed {
            batch_id,
            request_id: request_id.to_string(),
            state: "deleted",
        },
        // Deleted and forgotten between two statements: a retention of almost nothing.
        None => StoreError::NotFound(format!("of request id '{request_id}'")),
    }
}

/// Of `asked`, those missing from `present` (id, state) or cancelled there.
fn stopped_of(asked: &[String], present: &[(String, i32)]) -> Vec<String> {
    asked
        .iter()
        .filter(|id| {
            !present
                .iter()
                .any(|(p, s)| p == *id && *s != state::CANCELLED)
        })
        .cloned()
        .collect()
}

/// `url` with any password replaced, for messages and logs.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("postgres://orbit:secret@db:5432/orbit"),
            "postgres://orbit:***@db:5432/orbit"
        );
        assert_eq!(redact("postgres://db/orbit"), "postgres://db/orbit");
        assert_eq!(redact("sqlite:/tmp/a.db"), "sqlite:/tmp/a.db");
    }
}
