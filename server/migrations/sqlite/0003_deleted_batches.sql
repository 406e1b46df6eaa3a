-- The request ids of deleted batches (by DeleteBatch or past --batch-retention), kept for one more
-- retention period: a create retried with the request id of a batch that is gone is refused
-- (FAILED_PRECONDITION) instead of quietly running every job again as a new batch.
CREATE TABLE deleted_batches (
    request_id TEXT PRIMARY KEY,
    batch_id   TEXT NOT NULL,
    deleted_ms INTEGER NOT NULL
);
CREATE INDEX deleted_batches_by_time ON deleted_batches (deleted_ms);
