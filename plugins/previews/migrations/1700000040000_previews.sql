-- Up Migration
-- a stack's preview settings; the variables sealed as one JSON object: values may be secrets
CREATE TABLE preview_settings (
  stack text PRIMARY KEY,
  enabled boolean NOT NULL DEFAULT false,
  hostname text,
  max_active integer NOT NULL DEFAULT 5,
  idle_days integer NOT NULL DEFAULT 7,
  from_forks boolean NOT NULL DEFAULT false,
  variables_sealed text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- one row per preview, from its creation until its removal job has removed everything of it
CREATE TABLE previews (
  stack text NOT NULL,
  key text NOT NULL,
  pull_request integer,
  ref text,
  -- the head branch of a pull request: fetched when the remote has no refs/pull/<n>/head
  fallback_branch text,
  commit text,
  -- what the last deploy ran (commit null when the source has no commits)
  deployed_commit text,
  variables_sealed text,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'deploying', 'running', 'failed', 'removing')),
  hostnames text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  -- the last create or update asked for: idle previews are measured from it
  updated_at timestamptz NOT NULL DEFAULT now(),
  deployed_at timestamptz,
  last_job uuid,
  PRIMARY KEY (stack, key)
);

-- Down Migration
DROP TABLE previews;
DROP TABLE preview_settings;
