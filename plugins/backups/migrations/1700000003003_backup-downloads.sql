-- Up Migration
-- one-time download paths of database dumps: the id kept only as its hash, for the actor who asked, until used or expired
CREATE TABLE backup_downloads (
  id_hash text PRIMARY KEY,
  backup text NOT NULL REFERENCES backups(name) ON DELETE CASCADE,
  snapshot text NOT NULL,
  file text NOT NULL,
  actor text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE backup_downloads;
