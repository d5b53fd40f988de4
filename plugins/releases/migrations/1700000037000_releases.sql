-- Up Migration
-- one row per successful deploy of a stack: what ran, pinned by digest, numbered per stack from 1
CREATE TABLE stack_releases (
  stack text NOT NULL,
  number integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  actor jsonb NOT NULL,
  job_id uuid,
  -- deploy, rollback or update
  kind text NOT NULL,
  rolled_back_to integer,
  revision integer NOT NULL,
  commit text,
  -- the compose text deployed, and its variables sealed with the installation's key (they may be secret)
  compose text NOT NULL,
  variables_sealed text NOT NULL,
  -- [{ service, image, digest, imageId, policy, monitorSeconds, origin }]
  services jsonb NOT NULL,
  PRIMARY KEY (stack, number)
);

-- the last update check of a stack, per service, and the candidates already alerted
CREATE TABLE stack_update_checks (
  stack text PRIMARY KEY,
  checked_at timestamptz NOT NULL DEFAULT now(),
  job_id uuid,
  services jsonb NOT NULL
);

-- images an update put on top of the compose file: kept by later deploys until the compose file's image of that service changes
CREATE TABLE stack_image_updates (
  stack text NOT NULL,
  service text NOT NULL,
  -- the image the compose file named when the update was applied
  compose_image text NOT NULL,
  image text NOT NULL,
  digest text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  job_id uuid,
  PRIMARY KEY (stack, service)
);

-- Down Migration
DROP TABLE stack_image_updates;
DROP TABLE stack_update_checks;
DROP TABLE stack_releases;
