-- Up Migration
CREATE TABLE users (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tokens (
  id uuid PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  prefix text NOT NULL,
  hash text NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE jobs (
  seq bigserial UNIQUE,
  id uuid PRIMARY KEY,
  type text NOT NULL,
  resource text,
  serial_key text,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
  input jsonb NOT NULL,
  output text NOT NULL DEFAULT '',
  result jsonb,
  error text,
  actor jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX jobs_open ON jobs (seq) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_resource ON jobs (resource, type, seq DESC);
CREATE INDEX jobs_recent ON jobs (seq DESC);

CREATE TABLE schedule_runs (
  name text NOT NULL,
  slot timestamptz NOT NULL,
  PRIMARY KEY (name, slot)
);

CREATE TABLE activity (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor jsonb NOT NULL,
  action text NOT NULL,
  resource text,
  result text NOT NULL,
  detail jsonb
);
CREATE INDEX activity_resource ON activity (resource, id DESC);

CREATE TABLE revision_heads (
  kind text NOT NULL,
  key text NOT NULL,
  revision integer NOT NULL,
  PRIMARY KEY (kind, key)
);

CREATE TABLE revisions (
  kind text NOT NULL,
  key text NOT NULL,
  revision integer NOT NULL,
  snapshot jsonb NOT NULL,
  author jsonb NOT NULL,
  message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, key, revision)
);

CREATE TABLE action_tokens (
  kind text NOT NULL,
  resource text NOT NULL,
  hash text,
  sealed_secret text,
  last_taken_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, resource)
);

-- Down Migration
DROP TABLE action_tokens, revisions, revision_heads, activity, schedule_runs, jobs, tokens, users;
