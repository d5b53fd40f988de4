-- Up Migration
-- the catalogues an admin added: where each is read from, its pin, and what its last read gave (the templates of the
-- last good read, the entries that could not be read, the error of the last attempt)
CREATE TABLE template_sources (
  name text PRIMARY KEY,
  url text,
  git jsonb,
  sha256 text,
  format text NOT NULL,
  templates jsonb NOT NULL DEFAULT '[]',
  invalid jsonb NOT NULL DEFAULT '[]',
  error text,
  commit text,
  fetched_at timestamptz,
  checked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE template_sources;
