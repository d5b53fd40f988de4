-- Up Migration
-- Settings admins change at run time (GET/PATCH /settings), by the config file's dotted path, over the config file's base.
-- Their revision is revision_heads' ('settings', 'installation'); a change is announced on the channel dockwright_settings.
CREATE TABLE settings (
  path text PRIMARY KEY,
  -- the value as JSON; a secret setting's is {"sealed": "..."} (AES-256-GCM with the kernel's secrets)
  value jsonb NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE settings;
