-- Up Migration
CREATE TABLE stacks (
  name text PRIMARY KEY,
  revision integer NOT NULL,
  compose text NOT NULL,
  -- the variables, sealed as one JSON object: values may be secrets
  env_sealed text NOT NULL,
  template text,
  settings jsonb NOT NULL DEFAULT '{}',
  -- service names of the compose file, kept so status needs no parse
  services text[] NOT NULL DEFAULT '{}',
  autoupdate boolean NOT NULL DEFAULT false,
  access jsonb NOT NULL DEFAULT '[]',
  desired text NOT NULL DEFAULT 'none' CHECK (desired IN ('none', 'running', 'stopped')),
  deployed_revision integer,
  deployed_at timestamptz,
  last_deploy_job uuid,
  last_job uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE stack_webhook_calls (
  id bigserial PRIMARY KEY,
  stack text NOT NULL REFERENCES stacks(name) ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT now(),
  address text NOT NULL,
  job_id uuid,
  outcome text NOT NULL
);
CREATE INDEX stack_webhook_calls_recent ON stack_webhook_calls (stack, id DESC);

-- Down Migration
DROP TABLE stack_webhook_calls, stacks;
