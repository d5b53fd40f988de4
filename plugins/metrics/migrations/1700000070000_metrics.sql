-- Up Migration
-- what a series is about: the host, or one container (its stack and service kept so a stack's series outlive its containers)
CREATE TABLE metric_sources (
  id serial PRIMARY KEY,
  scope text NOT NULL UNIQUE,
  stack text,
  service text,
  name text,
  last_seen timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX metric_sources_stack ON metric_sources (stack) WHERE stack IS NOT NULL;
-- one row per source and time, its metrics in the order of plugins/metrics/series.ts: 10 s for 24 h, 1 min for 7 days, 15 min for 90 days
CREATE TABLE metric_points_10s (source integer NOT NULL, t timestamptz NOT NULL, v real[] NOT NULL, PRIMARY KEY (source, t));
CREATE TABLE metric_points_1m (source integer NOT NULL, t timestamptz NOT NULL, v real[] NOT NULL, PRIMARY KEY (source, t));
CREATE TABLE metric_points_15m (source integer NOT NULL, t timestamptz NOT NULL, v real[] NOT NULL, PRIMARY KEY (source, t));
-- alert rules (built-in ones carry builtin = true and may be disabled, not deleted) and silences
CREATE TABLE metric_rules (
  id text PRIMARY KEY,
  builtin boolean NOT NULL DEFAULT false,
  spec jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE metric_silences (
  id uuid PRIMARY KEY,
  scope text NOT NULL,
  until timestamptz NOT NULL,
  reason text NOT NULL,
  created_by jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE metric_silences, metric_rules, metric_points_15m, metric_points_1m, metric_points_10s, metric_sources;
