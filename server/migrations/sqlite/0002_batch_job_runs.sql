-- Runs of a job that are known to have started: counted only for a job claimed again after its
-- holder lost it (a crash, a kill, an expired lease), just before such a job starts. A job that
-- was merely held by a replica that died (claimed ahead, never started) so spends no attempt;
-- one whose every run dies is failed after --max-attempts.
ALTER TABLE batch_jobs ADD COLUMN runs INTEGER NOT NULL DEFAULT 0;
