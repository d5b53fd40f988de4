-- Up Migration
-- Several instances on one database: a running job names its instance and holds a lease that instance renews.
ALTER TABLE jobs ADD COLUMN instance uuid, ADD COLUMN lease_until timestamptz;
CREATE INDEX jobs_running ON jobs (lease_until) WHERE status = 'running';

-- The per-token request budget of each aligned one-minute window, handed out to instances in chunks.
CREATE TABLE rate_budgets (
  key text NOT NULL,
  win bigint NOT NULL,
  used integer NOT NULL DEFAULT 0,
  last_grant integer NOT NULL DEFAULT 0,
  PRIMARY KEY (key, win)
);

-- Down Migration
DROP TABLE rate_budgets;
ALTER TABLE jobs DROP COLUMN lease_until, DROP COLUMN instance;
