-- Up Migration
ALTER TABLE users ADD COLUMN teams text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE users DROP COLUMN teams;
