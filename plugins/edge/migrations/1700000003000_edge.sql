-- Up Migration
-- one owner per hostname: the owner's routes come and go with it
CREATE TABLE edge_hostnames (
  hostname text PRIMARY KEY,
  owner text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX edge_hostnames_owner ON edge_hostnames (owner);

CREATE TABLE edge_routes (
  hostname text NOT NULL REFERENCES edge_hostnames (hostname) ON DELETE CASCADE,
  path text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('proxy', 'static')),
  -- proxy: { project, service, port }; static: { root }
  target jsonb NOT NULL,
  PRIMARY KEY (hostname, path)
);

CREATE TABLE edge_certificates (
  name text PRIMARY KEY,
  domains text[] NOT NULL,
  certificate text NOT NULL,
  key_sealed text NOT NULL,
  not_after timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- routes an owner asked for but could not get (a stack deployed with a hostname another owner holds)
CREATE TABLE edge_refusals (
  owner text PRIMARY KEY,
  message text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);

-- one row: the change counter the running edge follows, and the last configuration Caddy refused
CREATE TABLE edge_state (
  id integer PRIMARY KEY CHECK (id = 1),
  generation bigint NOT NULL DEFAULT 0,
  refused jsonb
);
INSERT INTO edge_state (id) VALUES (1);
