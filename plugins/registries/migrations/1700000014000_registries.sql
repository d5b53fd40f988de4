-- Up Migration
CREATE TABLE registry_logins (
  -- the normalised host[:port]; docker.io for Docker Hub
  host text PRIMARY KEY,
  username text NOT NULL,
  -- the password or token, sealed with the installation's secret key; never answered
  password_sealed text NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  added_by jsonb NOT NULL,
  last_used_at timestamptz
);

-- Down Migration
DROP TABLE registry_logins;
