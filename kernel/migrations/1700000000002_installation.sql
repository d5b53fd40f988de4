-- Up Migration
-- One id per database, shared by every instance serving it: what this installation creates outside the database is labelled with it.
CREATE TABLE installation (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO installation DEFAULT VALUES;

-- Down Migration
DROP TABLE installation;
