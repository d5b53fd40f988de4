-- Up Migration
CREATE TABLE alerts (
  id bigserial PRIMARY KEY,
  -- kind + resource: at most one open alert per key, a repeat counts on it
  key text NOT NULL,
  kind text NOT NULL,
  severity text NOT NULL CHECK (severity IN ('critical', 'warning', 'info')),
  resource text,
  message text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}',
  count integer NOT NULL DEFAULT 1,
  first_seen timestamptz NOT NULL DEFAULT now(),
  last_seen timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  acknowledged_at timestamptz,
  acknowledged_by jsonb
);
CREATE UNIQUE INDEX alerts_open_key ON alerts (key) WHERE resolved_at IS NULL;
CREATE INDEX alerts_resolved ON alerts (resolved_at);

CREATE TABLE alert_channels (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL,
  -- the settings that are not secret, as given; secrets (URLs with tokens, passwords) sealed in secrets_sealed
  config jsonb NOT NULL,
  secrets_sealed text,
  events text[] NOT NULL DEFAULT '{}',
  min_severity text NOT NULL DEFAULT 'info',
  consecutive_failures integer NOT NULL DEFAULT 0,
  failing_since timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by jsonb NOT NULL
);

CREATE TABLE alert_deliveries (
  id uuid PRIMARY KEY,
  channel_id uuid NOT NULL REFERENCES alert_channels (id) ON DELETE CASCADE,
  alert_id bigint REFERENCES alerts (id) ON DELETE SET NULL,
  -- raised, resolved, test or digest
  event text NOT NULL,
  message jsonb NOT NULL,
  -- pending (a job delivers it), held (over the channel's rate limit, waits for the digest), delivered, digested, failed
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  job_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX alert_deliveries_open ON alert_deliveries (channel_id, status) WHERE status IN ('pending', 'held');
