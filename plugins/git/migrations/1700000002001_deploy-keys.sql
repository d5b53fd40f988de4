-- Up Migration
-- the SSH key pair made for a stack name (the stack may not exist yet): the public half shown, the private half sealed, never answered
CREATE TABLE stack_deploy_keys (
  stack text PRIMARY KEY,
  public_key text NOT NULL,
  fingerprint text NOT NULL,
  private_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- when a source write first took the key; a key never taken expires
  used_at timestamptz
);
ALTER TABLE stack_sources DROP CONSTRAINT stack_sources_credentials_kind_check;
ALTER TABLE stack_sources ADD CONSTRAINT stack_sources_credentials_kind_check CHECK (credentials_kind IN ('token', 'ssh-key', 'deploy-key'));

-- Down Migration
UPDATE stack_sources SET credentials_kind = 'ssh-key' WHERE credentials_kind = 'deploy-key';
ALTER TABLE stack_sources DROP CONSTRAINT stack_sources_credentials_kind_check;
ALTER TABLE stack_sources ADD CONSTRAINT stack_sources_credentials_kind_check CHECK (credentials_kind IN ('token', 'ssh-key'));
DROP TABLE stack_deploy_keys;
