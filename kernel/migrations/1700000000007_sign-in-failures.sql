-- Up Migration
-- Failed sign-ins per account and per address, shared by every instance: a window starts at its first failure and
-- lasts a minute. An attempt counts here before its password or code is checked and is taken back when it was right.
CREATE TABLE sign_in_failures (
  key text PRIMARY KEY,
  -- when the window began, in milliseconds since the epoch (the database's clock)
  started bigint NOT NULL,
  used integer NOT NULL
);

-- Down Migration
DROP TABLE sign_in_failures;
