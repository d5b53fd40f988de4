-- Up Migration
CREATE TABLE sites (
  name text PRIMARY KEY,
  hostnames text[] NOT NULL,
  -- { url, display, branch, path, build?: { image, command, output } }; credentials apart, sealed
  source jsonb,
  credentials_sealed text,
  -- the published version (0 before the first publish) and the number the next publish takes
  version integer NOT NULL DEFAULT 0,
  next_version integer NOT NULL DEFAULT 1,
  -- { at, version, commit } of the last successful sync or publish
  last_deploy jsonb,
  last_error text,
  -- the commit the last successful sync published
  synced_commit text,
  -- what the edge checks the preview password against (a hash, never the token)
  preview_hash jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- immutable numbered versions; manifest: { "<path>": { "sha256": "…", "size": n } }
CREATE TABLE site_versions (
  site text NOT NULL REFERENCES sites (name) ON DELETE CASCADE,
  number integer NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  actor jsonb NOT NULL,
  origin text NOT NULL CHECK (origin IN ('commit', 'upload', 'draft', 'restore')),
  commit text,
  restored_from integer,
  file_count integer NOT NULL,
  bytes bigint NOT NULL,
  manifest jsonb NOT NULL,
  PRIMARY KEY (site, number)
);

CREATE TABLE site_drafts (
  site text PRIMARY KEY REFERENCES sites (name) ON DELETE CASCADE,
  manifest jsonb NOT NULL,
  based_on integer NOT NULL,
  -- the folder the draft link points to now
  dir text NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);
