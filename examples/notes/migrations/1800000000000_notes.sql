-- Up Migration
CREATE TABLE notes_entries (name text PRIMARY KEY, text text NOT NULL, revision integer NOT NULL);

-- Down Migration
DROP TABLE notes_entries;
