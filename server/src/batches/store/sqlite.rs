//! The store in an embedded SQLite file: one node. WAL mode, so readers (watchers, `GetBatch`)
//! never wait for the writer; every write transaction starts with `BEGIN IMMEDIATE`, taking the
//! one write lock at once (a deferred transaction that upgrades later can fail with SQLITE_BUSY
//! instead of waiting). With one writer at a time, locking the batch row is implicit.

use std::collections::HashSet;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Connection, QueryBuilder, SqliteConnection, SqlitePool};

use super::{
    BatchLimits, BatchRecord, ClaimedJob, JobCounts, NewJob, NewResult, Outcome, StoreError,
    StoredResult, deleted_already, new_jobs, now_ms, sealed_already, state, stopped_of,
};

/// Rows per multi-row statement: 4 bound values each, far below SQLite's 32,766 variables.
const ROWS_PER_STATEMENT: usize = 500;

/// Connections: readers run beside the one writer.
const MAX_CONNECTIONS: u32 = 4;

pub(super) async fn connect(path: &str) -> Result<SqlitePool, StoreError> {
    if let Some(dir) = std::path::Path::new(path).parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::BadUrl {
            url: format!("sqlite:{path}"),
            reason: format!("cannot create the directory {}: {e}", dir.display()),
        })?;
    }
    let options = SqliteConnectOptions::from_str(&format!("sqlite:{path}"))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL with NORMAL: a commit survives a process crash (SIGKILL); only a power loss can take
        // the last commits back.
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10));
    Ok(SqlitePoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .after_release(|connection, _| Box::pin(discard_if_in_transaction(connection)))
        .connect_with(options)
        .await?)
}

/// Whether a connection coming back to the pool may be used again: not if it is still inside a
/// transaction. A transaction dropped without a commit queues its ROLLBACK on the connection's
/// thread; after some failures SQLite has already rolled back by itself (SQLITE_FULL, SQLITE_IOERR:
/// "the transaction is rolled back automatically", sqlite.org/lang_transaction.html), the queued
/// ROLLBACK fails, and sqlx keeps counting the transaction: every later `BEGIN` on that connection
/// would fail. Such a connection is closed and a fresh one opened when needed.
async fn discard_if_in_transaction(connection: &mut SqliteConnection) -> Result<bool, sqlx::Error> {
    if !connection.is_in_transaction() {
        return Ok(true);
    }
    // Commands run in order on the connection's thread: after the ping, the ROLLBACK has run.
    connection.ping().await?;
    Ok(!connection.is_in_transaction())
}

pub(super) async fn ping(pool: &SqlitePool) -> Result<(), StoreError> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}

pub(super) async fn open_batch(
    pool: &SqlitePool,
    new_id: &str,
    request_id: &str,
    name: &str,
) -> Result<BatchRecord, StoreError> {
    // Not for a request id of a deleted batch: the guard and the insert are one statement.
    sqlx::query(
        "INSERT INTO batches (id, request_id, name, state, create_ms) \
         SELECT ?, ?, ?, ?, ? \
         WHERE NOT EXISTS (SELECT 1 FROM deleted_batches WHERE request_id = ?) \
         ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(new_id)
    .bind(request_id)
    .bind(name)
    .bind(state::OPEN)
    .bind(now_ms())
    .bind(request_id)
    .execute(pool)
    .await?;
    let batch: Option<BatchRecord> = sqlx::query_as("SELECT * FROM batches WHERE request_id = ?")
        .bind(request_id)
        .fetch_optional(pool)
        .await?;
    match batch {
        Some(batch) => Ok(batch),
        None => {
            let gone: Option<String> =
                sqlx::query_scalar("SELECT batch_id FROM deleted_batches WHERE request_id = ?")
                    .bind(request_id)
                    .fetch_optional(pool)
                    .await?;
            Err(deleted_already(request_id, gone))
        }
    }
}

pub(super) async fn append_jobs(
    pool: &SqlitePool,
    batch_id: &str,
    first: i64,
    jobs: &[NewJob],
    limits: BatchLimits,
) -> Result<i64, StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let batch: Option<BatchRecord> = sqlx::query_as("SELECT * FROM batches WHERE id = ?")
        .bind(batch_id)
        .fetch_optional(&mut *tx)
        .await?;
    let batch = batch.ok_or_else(|| StoreError::NotFound(batch_id.to_string()))?;
    let new = new_jobs(&batch, first, jobs, limits)?;
    if new.is_empty() {
        return Ok(batch.jobs);
    }
    let bytes: i64 = new.iter().map(|j| j.job.len() as i64).sum();
    let mut positions = batch.jobs..;
    for chunk in new.chunks(ROWS_PER_STATEMENT) {
        let mut insert =
            QueryBuilder::new("INSERT INTO batch_jobs (batch_id, position, job_id, job) ");
        insert.push_values(
            chunk.iter().zip(&mut positions),
            |mut row, (job, position)| {
                row.push_bind(batch_id)
                    .push_bind(position)
                    .push_bind(job.job_id.as_str())
                    .push_bind(job.job.as_slice());
            },
        );
        insert.build().execute(&mut *tx).await?;
    }
    let count = batch.jobs + new.len() as i64;
    sqlx::query("UPDATE batches SET jobs = ?, stored_bytes = stored_bytes + ? WHERE id = ?")
        .bind(count)
        .bind(bytes)
        .bind(batch_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(count)
}

pub(super) async fn seal(pool: &SqlitePool, batch_id: &str) -> Result<BatchRecord, StoreError> {
    let sealed: Option<BatchRecord> = sqlx::query_as(
        "UPDATE batches SET \
           state = CASE WHEN last_sequence = jobs THEN ? ELSE ? END, \
           finish_ms = CASE WHEN last_sequence = jobs THEN ? ELSE finish_ms END \
         WHERE id = ? AND state = ? RETURNING *",
    )
    .bind(state::DONE)
    .bind(state::RUNNING)
    .bind(now_ms())
    .bind(batch_id)
    .bind(state::OPEN)
    .fetch_optional(pool)
    .await?;
    match sealed {
        Some(batch) => Ok(batch),
        None => sealed_already(get(pool, batch_id).await?, batch_id),
    }
}

pub(super) async fn get(
    pool: &SqlitePool,
    batch_id: &str,
) -> Result<Option<BatchRecord>, StoreError> {
    Ok(sqlx::query_as("SELECT * FROM batches WHERE id = ?")
        .bind(batch_id)
        .fetch_optional(pool)
        .await?)
}

pub(super) async fn list(
    pool: &SqlitePool,
    limit: i64,
    after: Option<(i64, String)>,
) -> Result<Vec<BatchRecord>, StoreError> {
    let (create_ms, id) = after.unwrap_or((i64::MAX, String::new()));
    let unbounded = id.is_empty();
    Ok(sqlx::query_as(
        "SELECT * FROM batches WHERE ? OR (create_ms, id) < (?, ?) \
         ORDER BY create_ms DESC, id DESC LIMIT ?",
    )
    .bind(unbounded)
    .bind(create_ms)
    .bind(id)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

pub(super) async fn results_after(
    pool: &SqlitePool,
    batch_id: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<StoredResult>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT sequence, position, event FROM batch_results \
         WHERE batch_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
    )
    .bind(batch_id)
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

pub(super) async fn cancel(
    pool: &SqlitePool,
    batch_id: &str,
    cancelled_event: &(dyn Fn(&str) -> Vec<u8> + Sync),
) -> Result<BatchRecord, StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let batch: Option<BatchRecord> = sqlx::query_as("SELECT * FROM batches WHERE id = ?")
        .bind(batch_id)
        .fetch_optional(&mut *tx)
        .await?;
    let batch = batch.ok_or_else(|| StoreError::NotFound(batch_id.to_string()))?;
    if batch.state == state::DONE || batch.state == state::CANCELLED {
        return Ok(batch);
    }
    let open: Vec<(i64, String)> = sqlx::query_as(
        "SELECT position, job_id FROM batch_jobs WHERE batch_id = ? ORDER BY position",
    )
    .bind(batch_id)
    .fetch_all(&mut *tx)
    .await?;
    for ((position, job_id), sequence) in open.iter().zip(batch.last_sequence + 1..) {
        sqlx::query(
            "INSERT INTO batch_results (batch_id, sequence, position, event) VALUES (?, ?, ?, ?)",
        )
        .bind(batch_id)
        .bind(sequence)
        .bind(position)
        .bind(cancelled_event(job_id))
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query("DELETE FROM batch_jobs WHERE batch_id = ?")
        .bind(batch_id)
        .execute(&mut *tx)
        .await?;
    let n = open.len() as i64;
    let batch: BatchRecord = sqlx::query_as(
        "UPDATE batches SET state = ?, finish_ms = ?, cancelled = cancelled + ?, \
         last_sequence = last_sequence + ? WHERE id = ? RETURNING *",
    )
    .bind(state::CANCELLED)
    .bind(now_ms())
    .bind(n)
    .bind(n)
    .bind(batch_id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(batch)
}

pub(super) async fn delete(pool: &SqlitePool, batch_id: &str) -> Result<bool, StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    sqlx::query(
        "INSERT INTO deleted_batches (request_id, batch_id, deleted_ms) \
         SELECT request_id, id, ?2 FROM batches WHERE id = ?1 \
         ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(batch_id)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    let done = sqlx::query("DELETE FROM batches WHERE id = ?")
        .bind(batch_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

pub(super) async fn claim(
    pool: &SqlitePool,
    owner: &str,
    limit: i64,
    lease_until_ms: i64,
) -> Result<Vec<ClaimedJob>, StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    // Expired leases first (their jobs have waited longest), then queued jobs.
    let mut claimed: Vec<ClaimedJob> = sqlx::query_as(
        "UPDATE batch_jobs SET lease_owner = ?, lease_expires_ms = ?, attempts = attempts + 1 \
         WHERE rowid IN (SELECT rowid FROM batch_jobs \
                         WHERE state = 1 AND lease_expires_ms < ? LIMIT ?) \
         RETURNING batch_id, position, job_id, job, attempts, runs",
    )
    .bind(owner)
    .bind(lease_until_ms)
    .bind(now_ms())
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?;
    let rest = limit - claimed.len() as i64;
    if rest > 0 {
        let queued: Vec<ClaimedJob> = sqlx::query_as(
            "UPDATE batch_jobs SET state = 1, lease_owner = ?, lease_expires_ms = ?, \
               attempts = attempts + 1 \
             WHERE rowid IN (SELECT rowid FROM batch_jobs WHERE state = 0 LIMIT ?) \
             RETURNING batch_id, position, job_id, job, attempts, runs",
        )
        .bind(owner)
        .bind(lease_until_ms)
        .bind(rest)
        .fetch_all(&mut *tx)
        .await?;
        claimed.extend(queued);
    }
    tx.commit().await?;
    Ok(claimed)
}

pub(super) async fn record_run(
    pool: &SqlitePool,
    owner: &str,
    batch_id: &str,
    position: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE batch_jobs SET runs = runs + 1 WHERE batch_id = ? AND position = ? AND lease_owner = ?")
        .bind(batch_id)
        .bind(position)
        .bind(owner)
        .execute(pool)
        .await?;
    Ok(())
}

pub(super) async fn renew(
    pool: &SqlitePool,
    owner: &str,
    lease_until_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE batch_jobs SET lease_expires_ms = ? WHERE state = 1 AND lease_owner = ?")
        .bind(lease_until_ms)
        .bind(owner)
        .execute(pool)
        .await?;
    Ok(())
}

pub(super) async fn release(
    pool: &SqlitePool,
    owner: &str,
    jobs: &[(String, i64)],
) -> Result<(), StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    for (batch_id, position) in jobs {
        sqlx::query(
            "UPDATE batch_jobs SET state = 0, lease_owner = NULL, lease_expires_ms = 0, \
               attempts = MAX(attempts - 1, 0) \
             WHERE batch_id = ? AND position = ? AND state = 1 AND lease_owner = ?",
        )
        .bind(batch_id)
        .bind(position)
        .bind(owner)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

pub(super) async fn write_results(
    pool: &SqlitePool,
    batch_id: &str,
    results: &[NewResult],
) -> Result<usize, StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let batch: Option<BatchRecord> = sqlx::query_as("SELECT * FROM batches WHERE id = ?")
        .bind(batch_id)
        .fetch_optional(&mut *tx)
        .await?;
    let Some(batch) = batch else {
        // Deleted meanwhile: nothing to answer.
        return Ok(0);
    };
    // A few multi-row statements instead of two per result: each statement is a round trip to
    // the connection's thread.
    let mut open = HashSet::with_capacity(results.len());
    for chunk in results.chunks(ROWS_PER_STATEMENT) {
        // Only a job that still has no result gets one.
        let mut delete = QueryBuilder::new("DELETE FROM batch_jobs WHERE batch_id = ");
        delete.push_bind(batch_id).push(" AND position IN (");
        let mut positions = delete.separated(", ");
        for result in chunk {
            positions.push_bind(result.position);
        }
        delete.push(") RETURNING position");
        let deleted: Vec<i64> = delete.build_query_scalar().fetch_all(&mut *tx).await?;
        open.extend(deleted);
    }
    // In the order given; a position given twice is answered once.
    let fresh: Vec<&NewResult> = results
        .iter()
        .filter(|r| open.remove(&r.position))
        .collect();
    let mut sequence = batch.last_sequence;
    let mut counts = [0_i64; 3];
    for chunk in fresh.chunks(ROWS_PER_STATEMENT) {
        let mut insert =
            QueryBuilder::new("INSERT INTO batch_results (batch_id, sequence, position, event) ");
        insert.push_values(chunk, |mut row, result| {
            sequence += 1;
            row.push_bind(batch_id)
                .push_bind(sequence)
                .push_bind(result.position)
                .push_bind(result.event.as_slice());
        });
        insert.build().execute(&mut *tx).await?;
    }
    for result in &fresh {
        counts[match result.outcome {
            Outcome::Ok => 0,
            Outcome::Failed => 1,
            Outcome::Cancelled => 2,
        }] += 1;
    }
    let stored = (sequence - batch.last_sequence) as usize;
    if stored == 0 {
        return Ok(0);
    }
    sqlx::query(
        "UPDATE batches SET last_sequence = ?1, ok = ok + ?2, failed = failed + ?3, \
           cancelled = cancelled + ?4, \
           finish_ms = CASE WHEN state = ?5 AND ?1 = jobs THEN ?6 ELSE finish_ms END, \
           state = CASE WHEN state = ?5 AND ?1 = jobs THEN ?7 ELSE state END \
         WHERE id = ?8",
    )
    .bind(sequence)
    .bind(counts[0])
    .bind(counts[1])
    .bind(counts[2])
    .bind(state::RUNNING)
    .bind(now_ms())
    .bind(state::DONE)
    .bind(batch_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(stored)
}

pub(super) async fn stopped(
    pool: &SqlitePool,
    batch_ids: &[String],
) -> Result<Vec<String>, StoreError> {
    let mut present = Vec::with_capacity(batch_ids.len());
    for id in batch_ids {
        let row: Option<(String, i32)> =
            sqlx::query_as("SELECT id, state FROM batches WHERE id = ?")
                .bind(id)
                .fetch_optional(pool)
                .await?;
        present.extend(row);
    }
    Ok(stopped_of(batch_ids, &present))
}

pub(super) async fn expire(pool: &SqlitePool, before_ms: i64) -> Result<u64, StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    sqlx::query("DELETE FROM deleted_batches WHERE deleted_ms < ?")
        .bind(before_ms)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO deleted_batches (request_id, batch_id, deleted_ms) \
         SELECT request_id, id, ?2 FROM batches WHERE finish_ms > 0 AND finish_ms < ?1 \
         ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(before_ms)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    let done = sqlx::query("DELETE FROM batches WHERE finish_ms > 0 AND finish_ms < ?")
        .bind(before_ms)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected())
}

pub(super) async fn job_counts(pool: &SqlitePool) -> Result<JobCounts, StoreError> {
    let (queued, running): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE state = 0), count(*) FILTER (WHERE state = 1) \
         FROM batch_jobs",
    )
    .fetch_one(pool)
    .await?;
    let (done,): (i64,) = sqlx::query_as("SELECT COALESCE(sum(last_sequence), 0) FROM batches")
        .fetch_one(pool)
        .await?;
    Ok(JobCounts {
        queued,
        running,
        done,
    })
}
