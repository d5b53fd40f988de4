-- Up Migration
CREATE TABLE backups (
  name text PRIMARY KEY,
  -- the selection per target key: { "stacks": ["app"], "database": true }
  targets jsonb NOT NULL,
  -- the restic repository URL (it may carry credentials), its extra environment (JSON) and password: sealed, never answered
  repository_sealed text,
  repository_env_sealed text,
  password_sealed text NOT NULL,
  -- the repository URL with credentials masked, for answers; NULL: the default folder in DATA_DIR
  repository_display text,
  repository_env_names text[] NOT NULL DEFAULT '{}',
  initialized boolean NOT NULL DEFAULT false,
  schedule text,
  retention jsonb,
  consistency text NOT NULL DEFAULT 'live' CHECK (consistency IN ('live', 'stop')),
  -- the last schedule slot handled (run or missed): slots before a definition exists are never missed
  schedule_slot timestamptz,
  missed_slot timestamptz,
  last_run jsonb,
  snapshot_count integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
