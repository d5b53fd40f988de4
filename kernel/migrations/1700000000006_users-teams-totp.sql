-- Up Migration
-- Users managed through the API: disabled accounts, one-time passwords, two-factor sign-in (TOTP) and named teams.
ALTER TABLE users
  ADD COLUMN disabled boolean NOT NULL DEFAULT false,
  -- set by an admin's one-time password: the next sign-in must choose a new one
  ADD COLUMN must_change_password boolean NOT NULL DEFAULT false,
  -- the authenticator's secret, sealed with the kernel's secrets (AES-256-GCM); null until an enrolment is confirmed
  ADD COLUMN totp_secret text,
  -- a secret handed out for enrolment, sealed, until a code confirms it
  ADD COLUMN totp_pending text,
  ADD COLUMN totp_enrolled_at timestamptz,
  -- the last 30-second time step whose code was accepted: a code signs in once
  ADD COLUMN totp_last_step bigint;

-- the one-time recovery codes of a user's enrolment, as SHA-256 hashes (each holds 80 random bits)
CREATE TABLE recovery_codes (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  hash text NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, hash)
);

-- teams by name; membership stays users.teams, which every principal already carries
CREATE TABLE teams (
  name text PRIMARY KEY,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO teams (name) SELECT DISTINCT unnest(teams) FROM users ON CONFLICT DO NOTHING;
CREATE INDEX users_teams ON users USING gin (teams);

-- Down Migration
DROP INDEX users_teams;
DROP TABLE teams, recovery_codes;
ALTER TABLE users DROP COLUMN totp_last_step, DROP COLUMN totp_enrolled_at, DROP COLUMN totp_pending, DROP COLUMN totp_secret,
  DROP COLUMN must_change_password, DROP COLUMN disabled;
