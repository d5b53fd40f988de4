-- Up Migration
CREATE TABLE stack_sources (
  stack text PRIMARY KEY REFERENCES stacks(name) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('git', 'upload')),
  url text,
  branch text,
  -- the compose file inside the tree; NULL: the first of compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml
  compose_path text,
  -- a token or deploy key, sealed; never answered
  credentials_sealed text,
  credentials_kind text CHECK (credentials_kind IN ('token', 'ssh-key')),
  autodeploy boolean NOT NULL DEFAULT true,
  pinned_commit text,
  remote_head text,
  remote_subject text,
  last_checked_at timestamptz,
  last_error text,
  deployed_commit text,
  deployed_at timestamptz,
  -- the head the poller (or a push) last queued a deploy for: a failing commit is not retried every interval
  last_triggered_commit text,
  upload jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE push_deliveries (
  id bigserial PRIMARY KEY,
  stack text NOT NULL REFERENCES stacks(name) ON DELETE CASCADE,
  delivery_id text,
  provider text NOT NULL,
  event text NOT NULL,
  ref text,
  after_commit text,
  address text NOT NULL,
  outcome text NOT NULL,
  reason text,
  job_id uuid,
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stack, delivery_id)
);
CREATE INDEX push_deliveries_recent ON push_deliveries (stack, id DESC);

-- Down Migration
DROP TABLE push_deliveries, stack_sources;
