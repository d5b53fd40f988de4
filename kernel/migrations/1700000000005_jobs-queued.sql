-- Up Migration
-- The claim's own index: the queued jobs of each type in age order. Without it, a claim on a table that grew since its
-- last ANALYZE ANDs jobs_open with a whole scan of jobs_resource (type is its second column): a cost that grows with
-- every job ever run, and halved the no-op job rate within three bursts of 2,000.
CREATE INDEX jobs_queued ON jobs (type, seq) WHERE status = 'queued';

-- Down Migration
DROP INDEX jobs_queued;
