-- Up Migration
-- one row per certificate name: what was asked (domains, challenge), what is held (chain, sealed key) and how renewal goes
CREATE TABLE certificates (
  name text PRIMARY KEY,
  domains text[] NOT NULL,
  source text NOT NULL CHECK (source IN ('acme', 'upload')),
  challenge text CHECK (challenge IN ('http-01', 'dns-01')),
  chain text,
  key_sealed text,
  issuer text,
  serial text,
  not_before timestamptz,
  not_after timestamptz,
  renew_after timestamptz,
  -- pending: first issuance under way; failed: the last issuance or renewal failed (a held chain keeps being served)
  state text NOT NULL CHECK (state IN ('pending', 'issued', 'failed')),
  last_error text,
  last_attempt_at timestamptz,
  failures integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- the last expiry event sent (expiring / expired / valid), so each is sent once per state change
  notified text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- the renewal sweep reads only the due ones
CREATE INDEX certificates_renewal ON certificates (renew_after) WHERE source = 'acme';

-- one ACME account per directory URL, its key sealed
CREATE TABLE certificate_accounts (
  directory_url text PRIMARY KEY,
  key_sealed text NOT NULL,
  account_url text,
  created_at timestamptz NOT NULL DEFAULT now()
);
