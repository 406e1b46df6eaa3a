-- Durable batches (SQLite). Times are milliseconds since the Unix epoch.

-- One row per batch; its counters change in the same transaction as the rows they count, so a
-- batch is never half-counted.
CREATE TABLE batches (
    id            TEXT PRIMARY KEY,
    -- The create's idempotency key: a retried create finds its batch here.
    request_id    TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    -- orbit.v1.BatchState numbers: 1 open, 2 running, 3 done, 4 cancelled.
    state         INTEGER NOT NULL,
    create_ms     INTEGER NOT NULL,
    finish_ms     INTEGER NOT NULL DEFAULT 0,
    -- Jobs stored: the next job's position.
    jobs          INTEGER NOT NULL DEFAULT 0,
    stored_bytes  INTEGER NOT NULL DEFAULT 0,
    ok            INTEGER NOT NULL DEFAULT 0,
    failed        INTEGER NOT NULL DEFAULT 0,
    cancelled     INTEGER NOT NULL DEFAULT 0,
    -- Results committed; the next result's sequence number is this plus one. Result writers take
    -- this row's lock first, so sequences follow commit order without gaps.
    last_sequence INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX batches_by_creation ON batches (create_ms, id);
CREATE INDEX batches_finished ON batches (finish_ms) WHERE finish_ms > 0;

-- Jobs without a final result. A job's row is deleted in the transaction that stores its result.
CREATE TABLE batch_jobs (
    batch_id         TEXT NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    -- The caller's id, for the CANCELLED result a cancel writes without decoding the job.
    job_id           TEXT NOT NULL,
    -- The encoded orbit.v1.Job.
    job              BLOB NOT NULL,
    -- 0 queued, 1 leased (claimed by lease_owner until lease_expires_ms).
    state            INTEGER NOT NULL DEFAULT 0,
    lease_owner      TEXT,
    lease_expires_ms INTEGER NOT NULL DEFAULT 0,
    -- Claims so far; a job claimed more than --max-attempts times is failed instead of run.
    attempts         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (batch_id, position)
);
CREATE INDEX batch_jobs_queued ON batch_jobs (state) WHERE state = 0;
CREATE INDEX batch_jobs_leased ON batch_jobs (lease_expires_ms) WHERE state = 1;

-- Final events, one per job: the unique (batch_id, position) is what makes "answered exactly
-- once" hold whatever crashes in between.
CREATE TABLE batch_results (
    batch_id TEXT NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    sequence INTEGER NOT NULL,
    position INTEGER NOT NULL,
    -- The encoded orbit.v1.JobEvent (result or error, with the caller's id).
    event    BLOB NOT NULL,
    PRIMARY KEY (batch_id, sequence),
    UNIQUE (batch_id, position)
);
