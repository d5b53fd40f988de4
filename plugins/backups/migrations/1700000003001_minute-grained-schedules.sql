-- Up Migration
-- schedules are minute-grained now: a six-field schedule (seconds first) loses its seconds field. The tick came once a
-- minute, at the minute, so the schedule keeps running when it ran, and its nextRun says so
UPDATE backups SET schedule = regexp_replace(btrim(schedule), '^\S+\s+', '')
 WHERE array_length(regexp_split_to_array(btrim(schedule), '\s+'), 1) = 6;

-- Down Migration
-- nothing to undo: both versions read five fields alike
