-- Up Migration
-- the open console sessions of every instance serving this database: the caps per user and per installation count
-- these rows; an instance renews its rows' heartbeat every few seconds, and a row not renewed for the lease (its
-- instance was killed) no longer counts and is deleted
CREATE TABLE containers_console_sessions (
  id uuid PRIMARY KEY,
  instance text NOT NULL,
  username text NOT NULL,
  started timestamptz NOT NULL DEFAULT clock_timestamp(),
  heartbeat timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX containers_console_sessions_username ON containers_console_sessions (username);
CREATE INDEX containers_console_sessions_instance ON containers_console_sessions (instance);

-- Down Migration
DROP TABLE containers_console_sessions;
