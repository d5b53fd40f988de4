-- Up Migration
CREATE TABLE tasks (
  stack text NOT NULL,
  name text NOT NULL,
  service text NOT NULL,
  -- argv (a JSON array of strings), or a JSON string run by the container's sh -c
  command jsonb NOT NULL,
  schedule text NOT NULL,
  timezone text NOT NULL DEFAULT 'UTC',
  mode text NOT NULL CHECK (mode IN ('exec', 'run')),
  overlap text NOT NULL CHECK (overlap IN ('forbid', 'queue', 'replace')),
  timeout_ms integer NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  -- from the stack's compose file (x-dockwright.tasks): changed only with it
  declared boolean NOT NULL DEFAULT false,
  -- the ETag of the task: bumped on every change of its definition
  version integer NOT NULL DEFAULT 1,
  -- the slot the scheduler waits for; a claim moves it on (compare-and-swap: one instance runs a slot)
  next_run_at timestamptz,
  -- the longest gap between slots (read at each write): no success for twice it is overdue
  interval_ms bigint,
  last_success_at timestamptz,
  last_run_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stack, name)
);
CREATE INDEX tasks_next_run_at ON tasks (next_run_at) WHERE enabled;

CREATE TABLE task_runs (
  id uuid PRIMARY KEY,
  stack text NOT NULL,
  task text NOT NULL,
  job uuid,
  trigger text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'skipped', 'timed-out')),
  reason text,
  exit_code integer,
  -- the slot a scheduled run stands for: one run per slot, whichever instance claims it
  slot timestamptz,
  -- head and tail of the output (secret values masked), at most 1 MiB
  output text NOT NULL DEFAULT '',
  -- a replace run asks the running one to stop
  stop_requested boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  ended_at timestamptz
);
CREATE INDEX task_runs_task ON task_runs (stack, task, created_at DESC);
-- one running run per task, across instances
CREATE UNIQUE INDEX task_runs_one_running ON task_runs (stack, task) WHERE status = 'running';
CREATE UNIQUE INDEX task_runs_one_per_slot ON task_runs (stack, task, slot) WHERE slot IS NOT NULL;

-- Down Migration
DROP TABLE task_runs;
DROP TABLE tasks;
