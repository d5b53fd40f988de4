-- Up Migration
-- CI federation (RFC 8693 token exchange): trust policies naming an issuer, an audience and subject/claim patterns;
-- the short tokens they were exchanged for (only their hashes); the JWT ids seen, refused a second time until they expire.
CREATE TABLE federation_policies (
  id uuid PRIMARY KEY,
  issuer text NOT NULL,
  audience text NOT NULL,
  subject text NOT NULL,
  claims jsonb NOT NULL DEFAULT '{}',
  scopes text[] NOT NULL,
  -- null: every stack the scopes reach; otherwise only these
  stacks text[],
  ttl_seconds integer NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX federation_policies_issuer ON federation_policies (issuer);

CREATE TABLE federation_tokens (
  id uuid PRIMARY KEY,
  policy_id uuid NOT NULL REFERENCES federation_policies (id) ON DELETE CASCADE,
  hash text NOT NULL UNIQUE,
  subject text NOT NULL,
  scopes text[] NOT NULL,
  stacks text[],
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX federation_tokens_expires ON federation_tokens (expires_at);

CREATE TABLE federation_jti (
  issuer text NOT NULL,
  jti text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (issuer, jti)
);
CREATE INDEX federation_jti_expires ON federation_jti (expires_at);

-- Down Migration
DROP TABLE federation_jti;
DROP TABLE federation_tokens;
DROP TABLE federation_policies;
