//! The store on PostgreSQL: shared by every replica. Claims take rows with `FOR UPDATE SKIP
//! LOCKED`, so replicas claiming at once never wait for each other nor take the same job; result
//! writers lock the batch row (`FOR UPDATE`) before numbering results. Row sets travel as arrays
//! (`UNNEST`), one statement per group.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

use super::{
    BatchLimits, BatchRecord, ClaimedJob, JobCounts, NewJob, NewResult, Outcome, StoreError,
    StoredResult, deleted_already, new_jobs, now_ms, sealed_already, state, stopped_of,
};

/// Connections per replica: the claim loop, the result writer, the lease renewer, and RPCs.
const MAX_CONNECTIONS: u32 = 8;

pub(super) async fn connect(url: &str) -> Result<PgPool, StoreError> {
    Ok(PgPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        // A database that is away fails an operation in seconds (and the caller retries), instead
        // of holding it for the default 30 s.
        .acquire_timeout(Duration::from_secs(3))
        .connect(url)
        .await?)
}

pub(super) async fn ping(pool: &PgPool) -> Result<(), StoreError> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}

pub(super) async fn open_batch(
    pool: &PgPool,
    new_id: &str,
    request_id: &str,
    name: &str,
) -> Result<BatchRecord, StoreError> {
    // Not for a request id of a deleted batch: the guard and the insert are one statement.
    sqlx::query(
        "INSERT INTO batches (id, request_id, name, state, create_ms) \
         SELECT $1, $2, $3, $4, $5 \
         WHERE NOT EXISTS (SELECT 1 FROM deleted_batches WHERE request_id = $6) \
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
    let batch: Option<BatchRecord> = sqlx::query_as("SELECT * FROM batches WHERE request_id = $1")
        .bind(request_id)
        .fetch_optional(pool)
        .await?;
    match batch {
        Some(batch) => Ok(batch),
        None => {
            let gone: Option<String> =
                sqlx::query_scalar("SELECT batch_id FROM deleted_batches WHERE request_id = $1")
                    .bind(request_id)
                    .fetch_optional(pool)
                    .await?;
            Err(deleted_already(request_id, gone))
        }
    }
}

pub(super) async fn append_jobs(
    pool: &PgPool,
    batch_id: &str,
    first: i64,
    jobs: &[NewJob],
    limits: BatchLimits,
) -> Result<i64, StoreError> {
    let mut tx = pool.begin().await?;
    let batch: Option<BatchRecord> =
        sqlx::query_as("SELECT * FROM batches WHERE id = $1 FOR UPDATE")
            .bind(batch_id)
            .fetch_optional(&mut *tx)
            .await?;
    let batch = batch.ok_or_else(|| StoreError::NotFound(batch_id.to_string()))?;
    let new = new_jobs(&batch, first, jobs, limits)?;
    if new.is_empty() {
        return Ok(batch.jobs);
    }
    let positions: Vec<i64> = (batch.jobs..batch.jobs + new.len() as i64).collect();
    let ids: Vec<&str> = new.iter().map(|j| j.job_id.as_str()).collect();
    let bodies: Vec<&[u8]> = new.iter().map(|j| j.job.as_slice()).collect();
    let bytes: i64 = new.iter().map(|j| j.job.len() as i64).sum();
    sqlx::query(
        "INSERT INTO batch_jobs (batch_id, position, job_id, job) \
         SELECT $1, p, i, j FROM UNNEST($2::bigint[], $3::text[], $4::bytea[]) AS t (p, i, j)",
    )
    .bind(batch_id)
    .bind(&positions)
    .bind(&ids)
    .bind(&bodies)
    .execute(&mut *tx)
    .await?;
    let count = batch.jobs + new.len() as i64;
    sqlx::query("UPDATE batches SET jobs = $2, stored_bytes = stored_bytes + $3 WHERE id = $1")
        .bind(batch_id)
        .bind(count)
        .bind(bytes)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(count)
}

pub(super) async fn seal(pool: &PgPool, batch_id: &str) -> Result<BatchRecord, StoreError> {
    let sealed: Option<BatchRecord> = sqlx::query_as(
        "UPDATE batches SET \
           state = CASE WHEN last_sequence = jobs THEN $2 ELSE $3 END, \
           finish_ms = CASE WHEN last_sequence = jobs THEN $4 ELSE finish_ms END \
         WHERE id = $1 AND state = $5 RETURNING *",
    )
    .bind(batch_id)
    .bind(state::DONE)
    .bind(state::RUNNING)
    .bind(now_ms())
    .bind(state::OPEN)
    .fetch_optional(pool)
    .await?;
    match sealed {
        Some(batch) => Ok(batch),
        None => sealed_already(get(pool, batch_id).await?, batch_id),
    }
}

pub(super) async fn get(pool: &PgPool, batch_id: &str) -> Result<Option<BatchRecord>, StoreError> {
    Ok(sqlx::query_as("SELECT * FROM batches WHERE id = $1")
        .bind(batch_id)
        .fetch_optional(pool)
        .await?)
}

pub(super) async fn list(
    pool: &PgPool,
    limit: i64,
    after: Option<(i64, String)>,
) -> Result<Vec<BatchRecord>, StoreError> {
    let (create_ms, id) = after.unwrap_or((i64::MAX, String::new()));
    let unbounded = id.is_empty();
    Ok(sqlx::query_as(
        "SELECT * FROM batches WHERE $1 OR (create_ms, id) < ($2, $3) \
         ORDER BY create_ms DESC, id DESC LIMIT $4",
    )
    .bind(unbounded)
    .bind(create_ms)
    .bind(id)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

pub(super) async fn results_after(
    pool: &PgPool,
    batch_id: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<StoredResult>, StoreError> {
    Ok(sqlx::query_as(
        "SELECT sequence, position, event FROM batch_results \
         WHERE batch_id = $1 AND sequence > $2 ORDER BY sequence LIMIT $3",
    )
    .bind(batch_id)
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

pub(super) async fn cancel(
    pool: &PgPool,
    batch_id: &str,
    cancelled_event: &(dyn Fn(&str) -> Vec<u8> + Sync),
) -> Result<BatchRecord, StoreError> {
    let mut tx = pool.begin().await?;
    let batch: Option<BatchRecord> =
        sqlx::query_as("SELECT * FROM batches WHERE id = $1 FOR UPDATE")
            .bind(batch_id)
            .fetch_optional(&mut *tx)
            .await?;
    let batch = batch.ok_or_else(|| StoreError::NotFound(batch_id.to_string()))?;
    if batch.state == state::DONE || batch.state == state::CANCELLED {
        return Ok(batch);
    }
    let mut open: Vec<(i64, String)> =
        sqlx::query_as("DELETE FROM batch_jobs WHERE batch_id = $1 RETURNING position, job_id")
            .bind(batch_id)
            .fetch_all(&mut *tx)
            .await?;
    open.sort_unstable();
    let n = open.len() as i64;
    let sequences: Vec<i64> = (batch.last_sequence + 1..=batch.last_sequence + n).collect();
    let positions: Vec<i64> = open.iter().map(|(p, _)| *p).collect();
    let events: Vec<Vec<u8>> = open.iter().map(|(_, id)| cancelled_event(id)).collect();
    sqlx::query(
        "INSERT INTO batch_results (batch_id, sequence, position, event) \
         SELECT $1, s, p, e FROM UNNEST($2::bigint[], $3::bigint[], $4::bytea[]) AS t (s, p, e)",
    )
    .bind(batch_id)
    .bind(&sequences)
    .bind(&positions)
    .bind(&events)
    .execute(&mut *tx)
    .await?;
    let batch: BatchRecord = sqlx::query_as(
        "UPDATE batches SET state = $2, finish_ms = $3, cancelled = cancelled + $4, \
         last_sequence = last_sequence + $4 WHERE id = $1 RETURNING *",
    )
    .bind(batch_id)
    .bind(state::CANCELLED)
    .bind(now_ms())
    .bind(n)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(batch)
}

pub(super) async fn delete(pool: &PgPool, batch_id: &str) -> Result<bool, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO deleted_batches (request_id, batch_id, deleted_ms) \
         SELECT request_id, id, $2 FROM batches WHERE id = $1 \
         ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(batch_id)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    let done = sqlx::query("DELETE FROM batches WHERE id = $1")
        .bind(batch_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected() > 0)
}

pub(super) async fn claim(
    pool: &PgPool,
    owner: &str,
    limit: i64,
    lease_until_ms: i64,
) -> Result<Vec<ClaimedJob>, StoreError> {
    // A claim need not wait for the log flush (tens of ms on a slow disk, once per claim): if
    // PostgreSQL itself crashes before the flush, the claim is lost and the jobs are claimed again,
    // maybe while this replica still runs them, and the unique result key keeps one answer each.
    // The attempts counter may then miss one run; a job that kills its replica still reaches
    // `--max-attempts` on the next runs.
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL synchronous_commit = off")
        .execute(&mut *tx)
        .await?;
    // Expired leases first (their jobs have waited longest), then queued jobs; two statements
    // because each can use its own partial index.
    let mut claimed: Vec<ClaimedJob> = sqlx::query_as(
        "UPDATE batch_jobs AS j SET lease_owner = $1, lease_expires_ms = $3, \
           attempts = j.attempts + 1 \
         FROM (SELECT batch_id, position FROM batch_jobs \
               WHERE state = 1 AND lease_expires_ms < $4 LIMIT $2 FOR UPDATE SKIP LOCKED) AS picked \
         WHERE j.batch_id = picked.batch_id AND j.position = picked.position \
         RETURNING j.batch_id, j.position, j.job_id, j.job, j.attempts, j.runs",
    )
    .bind(owner)
    .bind(limit)
    .bind(lease_until_ms)
    .bind(now_ms())
    .fetch_all(&mut *tx)
    .await?;
    let rest = limit - claimed.len() as i64;
    if rest > 0 {
        let queued: Vec<ClaimedJob> = sqlx::query_as(
            "UPDATE batch_jobs AS j SET state = 1, lease_owner = $1, lease_expires_ms = $3, \
               attempts = j.attempts + 1 \
             FROM (SELECT batch_id, position FROM batch_jobs \
                   WHERE state = 0 LIMIT $2 FOR UPDATE SKIP LOCKED) AS picked \
             WHERE j.batch_id = picked.batch_id AND j.position = picked.position \
             RETURNING j.batch_id, j.position, j.job_id, j.job, j.attempts, j.runs",
        )
        .bind(owner)
        .bind(rest)
        .bind(lease_until_ms)
        .fetch_all(&mut *tx)
        .await?;
        claimed.extend(queued);
    }
    tx.commit().await?;
    Ok(claimed)
}

pub(super) async fn record_run(
    pool: &PgPool,
    owner: &str,
    batch_id: &str,
    position: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE batch_jobs SET runs = runs + 1 WHERE batch_id = $1 AND position = $2 AND lease_owner = $3")
        .bind(batch_id)
        .bind(position)
        .bind(owner)
        .execute(pool)
        .await?;
    Ok(())
}

pub(super) async fn renew(
    pool: &PgPool,
    owner: &str,
    lease_until_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE batch_jobs SET lease_expires_ms = $2 WHERE state = 1 AND lease_owner = $1")
        .bind(owner)
        .bind(lease_until_ms)
        .execute(pool)
        .await?;
    Ok(())
}

pub(super) async fn release(
    pool: &PgPool,
    owner: &str,
    jobs: &[(String, i64)],
) -> Result<(), StoreError> {
    let batches: Vec<&str> = jobs.iter().map(|(b, _)| b.as_str()).collect();
    let positions: Vec<i64> = jobs.iter().map(|(_, p)| *p).collect();
    sqlx::query(
        "UPDATE batch_jobs AS j SET state = 0, lease_owner = NULL, lease_expires_ms = 0, \
           attempts = GREATEST(j.attempts - 1, 0) \
         FROM UNNEST($2::text[], $3::bigint[]) AS r (b, p) \
         WHERE j.batch_id = r.b AND j.position = r.p AND j.state = 1 AND j.lease_owner = $1",
    )
    .bind(owner)
    .bind(&batches)
    .bind(&positions)
    .execute(pool)
    .await?;
    Ok(())
}

pub(super) async fn write_results(
    pool: &PgPool,
    batch_id: &str,
    results: &[NewResult],
) -> Result<usize, StoreError> {
    let mut tx = pool.begin().await?;
    // The batch row's lock orders result commits: sequence numbers follow commit order.
    let batch: Option<BatchRecord> =
        sqlx::query_as("SELECT * FROM batches WHERE id = $1 FOR UPDATE")
            .bind(batch_id)
            .fetch_optional(&mut *tx)
            .await?;
    let Some(batch) = batch else {
        // Deleted meanwhile: nothing to answer.
        return Ok(0);
    };
    let wanted: Vec<i64> = results.iter().map(|r| r.position).collect();
    let open: Vec<(i64,)> = sqlx::query_as(
        "DELETE FROM batch_jobs WHERE batch_id = $1 AND position = ANY($2) RETURNING position",
    )
    .bind(batch_id)
    .bind(&wanted)
    .fetch_all(&mut *tx)
    .await?;
    let open: std::collections::HashSet<i64> = open.into_iter().map(|(p,)| p).collect();
    let fresh: Vec<&NewResult> = results
        .iter()
        .filter(|r| open.contains(&r.position))
        .collect();
    if fresh.is_empty() {
        return Ok(0);
    }
    let last = batch.last_sequence + fresh.len() as i64;
    let sequences: Vec<i64> = (batch.last_sequence + 1..=last).collect();
    let positions: Vec<i64> = fresh.iter().map(|r| r.position).collect();
    let events: Vec<&[u8]> = fresh.iter().map(|r| r.event.as_slice()).collect();
    sqlx::query(
        "INSERT INTO batch_results (batch_id, sequence, position, event) \
         SELECT $1, s, p, e FROM UNNEST($2::bigint[], $3::bigint[], $4::bytea[]) AS t (s, p, e)",
    )
    .bind(batch_id)
    .bind(&sequences)
    .bind(&positions)
    .bind(&events)
    .execute(&mut *tx)
    .await?;
    let count = |o: Outcome| fresh.iter().filter(|r| r.outcome == o).count() as i64;
    sqlx::query(
        "UPDATE batches SET last_sequence = $2, ok = ok + $3, failed = failed + $4, \
           cancelled = cancelled + $5, \
           finish_ms = CASE WHEN state = $6 AND $2 = jobs THEN $7 ELSE finish_ms END, \
           state = CASE WHEN state = $6 AND $2 = jobs THEN $8 ELSE state END \
         WHERE id = $1",
    )
    .bind(batch_id)
    .bind(last)
    .bind(count(Outcome::Ok))
    .bind(count(Outcome::Failed))
    .bind(count(Outcome::Cancelled))
    .bind(state::RUNNING)
    .bind(now_ms())
    .bind(state::DONE)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(fresh.len())
}

pub(super) async fn stopped(
    pool: &PgPool,
    batch_ids: &[String],
) -> Result<Vec<String>, StoreError> {
    let present: Vec<(String, i32)> =
        sqlx::query_as("SELECT id, state FROM batches WHERE id = ANY($1)")
            .bind(batch_ids)
            .fetch_all(pool)
            .await?;
    Ok(stopped_of(batch_ids, &present))
}

pub(super) async fn expire(pool: &PgPool, before_ms: i64) -> Result<u64, StoreError> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM deleted_batches WHERE deleted_ms < $1")
        .bind(before_ms)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO deleted_batches (request_id, batch_id, deleted_ms) \
         SELECT request_id, id, $2 FROM batches WHERE finish_ms > 0 AND finish_ms < $1 \
         ON CONFLICT (request_id) DO NOTHING",
    )
    .bind(before_ms)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    let done = sqlx::query("DELETE FROM batches WHERE finish_ms > 0 AND finish_ms < $1")
        .bind(before_ms)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(done.rows_affected())
}

pub(super) async fn job_counts(pool: &PgPool) -> Result<JobCounts, StoreError> {
    let (queued, running): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE state = 0), count(*) FILTER (WHERE state = 1) \
         FROM batch_jobs",
    )
    .fetch_one(pool)
    .await?;
    let (done,): (i64,) =
        sqlx::query_as("SELECT COALESCE(sum(last_sequence), 0)::bigint FROM batches")
            .fetch_one(pool)
            .await?;
    Ok(JobCounts {
        queued,
        running,
        done,
    })
}
