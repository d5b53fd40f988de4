-- Up Migration
-- the private key ssh logs in with for an sftp repository: sealed, never answered
ALTER TABLE backups ADD COLUMN repository_ssh_key_sealed text;

-- Down Migration
ALTER TABLE backups DROP COLUMN repository_ssh_key_sealed;
