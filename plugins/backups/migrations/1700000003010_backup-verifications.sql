-- Up Migration
-- when a test restore last proved each database snapshot of a backup (POST /backups/{name}/verify)
CREATE TABLE backup_verifications (
  backup text NOT NULL REFERENCES backups(name) ON DELETE CASCADE,
  snapshot text NOT NULL,
  verified_at timestamptz NOT NULL,
  PRIMARY KEY (backup, snapshot)
);

-- Down Migration
DROP TABLE backup_verifications;
