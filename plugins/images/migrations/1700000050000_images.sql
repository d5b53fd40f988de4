-- Up Migration
-- the images this installation has used (by a container of its stacks, a release, a site build): what the images list
-- shows and pruning may remove, so that images of other software on the same engine are never touched
CREATE TABLE images_known (
  id text PRIMARY KEY,
  first_seen timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE images_known;
