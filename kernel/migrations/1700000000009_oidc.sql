-- Up Migration
-- Sign-in with identity providers (OIDC): accounts linked by (issuer, subject) only; sign-ins under way (state, PKCE
-- verifier, nonce) bound to the browser that began them; nonces seen, refused again; the role and teams OIDC granted,
-- kept apart from those an admin gave.
CREATE TABLE oidc_identities (
  issuer text NOT NULL,
  subject text NOT NULL,
  provider text NOT NULL,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz,
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX oidc_identities_user ON oidc_identities (user_id);

CREATE TABLE oidc_flows (
  state text PRIMARY KEY,
  provider text NOT NULL,
  verifier text NOT NULL,
  nonce text NOT NULL,
  -- the hash of the browser's flow cookie: a callback from another browser is refused
  browser text NOT NULL,
  -- linking to the signed-in user who began it (null: a sign-in)
  link_user_id integer REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);

CREATE TABLE oidc_nonces (
  nonce text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);

-- true: the user's role was given by a provider's mapping (recomputed at each sign-in); false: by an admin
ALTER TABLE users ADD COLUMN oidc_role boolean NOT NULL DEFAULT false;
-- the teams a provider's mappings gave (removed at a sign-in that no longer maps them); an admin's are the others
ALTER TABLE users ADD COLUMN oidc_teams text[] NOT NULL DEFAULT '{}';

-- Down Migration
ALTER TABLE users DROP COLUMN oidc_teams;
ALTER TABLE users DROP COLUMN oidc_role;
DROP TABLE oidc_nonces;
DROP TABLE oidc_flows;
DROP TABLE oidc_identities;
