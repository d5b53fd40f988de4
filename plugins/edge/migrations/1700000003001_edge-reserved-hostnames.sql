-- Up Migration
-- a hostname the owner's saved definition names (a stack's compose file): the owner keeps it while nothing routes it,
-- so a stack that is stopped or not yet deployed still holds its hostnames; the row goes when neither holds it
ALTER TABLE edge_hostnames ADD COLUMN reserved boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE edge_hostnames DROP COLUMN reserved;
