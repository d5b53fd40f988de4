-- Up Migration
ALTER TABLE users ADD COLUMN password_hash text;

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  hash text NOT NULL UNIQUE,
  csrf text NOT NULL,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Down Migration
DROP TABLE sessions;
ALTER TABLE users DROP COLUMN password_hash;
