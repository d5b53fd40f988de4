-- Up Migration
-- the template a stack was made from: its provenance, the names of its inputs (never their values: those are the
-- stack's own variables) and the template's compose file as deployed, the base of a later three-way update
CREATE TABLE template_stacks (
  stack text PRIMARY KEY,
  source text NOT NULL,
  template_id text NOT NULL,
  version text NOT NULL,
  variables text[] NOT NULL,
  hidden text[] NOT NULL,
  base text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE template_stacks;
