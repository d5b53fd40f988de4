// The jobs table: every statement of the job runner and its liveness, and the reads of jobs through the cache of finished ones.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { compareText, type Actor, type Db, type Job } from '../../sdk/index.ts';
import { Batcher } from './batch.ts';
import { FinishedJobs } from './finished.ts';

export interface JobRow {
  id: string; type: string; resource: string | null; serial_key: string | null; status: Job['status'];
  input: unknown; output: string; result: unknown; error: string | null; actor: Actor;
  created_at: string; started_at: string | null; finished_at: string | null;
}

/** a job to queue */
export interface NewJob { type: string; resource: string | null; serialKey: string | null; input: unknown; actor: Actor }

/** what a job's finish writes: its end, its output and result, and its activity entry's detail */
export interface FinishRecord { id: string; status: Job['status']; output: string; result: string; error: string | null; detail: string }

export interface JobFilter {
  status?: string; type?: string; resource?: string; before?: number; limit: number;
  /** only these types (`only`) or every type but these (`except`) */
  types?: { only?: readonly string[]; except?: readonly string[] };
}

/** the channel on which every instance announces the jobs it finished, so a wait on another instance answers at once */
export const jobsDoneChannel = 'dockwright_jobs_done';
/** the channel on which a cancel reaches the instance that runs the job */
export const jobsCancelChannel = 'dockwright_jobs_cancel';

const columns = 'id, type, resource, serial_key, status, input, output, result, error, actor, created_at, started_at, finished_at';
/** a deploy's output runs to kilobytes: a list of stacks shows none of it */
const withoutOutput = columns.replace('output', "'' AS output");
/** the finished statement's jobs announced on the done channel (the statement's CTE `name` returns their ids) */
const announce = (name: string) => `announced AS (SELECT pg_notify('${jobsDoneChannel}', string_agg(id::text, ',')) FROM ${name} HAVING count(*) > 0)`;
const doneStatuses = new Set(['succeeded', 'failed', 'canceled']);

export function toJob(row: JobRow): Job {
  return {
    id: row.id, type: row.type, resource: row.resource, status: row.status, done: doneStatuses.has(row.status),
    output: row.output, result: row.result ?? null, error: row.error, actor: row.actor,
    createdAt: row.created_at, startedAt: row.started_at, finishedAt: row.finished_at,
  };
}

/**
 * The UPDATE of a claim, its values quoted in (it shares a round trip with the advisory lock, so it takes no parameters):
 * the oldest queued jobs of these types, read through an index of open jobs (jobs_queued or jobs_open, as the planner
 * chooses), whatever the history of the types.
 */
export function claimUpdate(types: readonly string[], instance: string, leaseMs: number, max: number): string {
  return `UPDATE jobs SET status = 'running', started_at = now(), instance = ${pg.escapeLiteral(instance)},
              lease_until = now() + make_interval(secs => ${leaseMs / 1000})
        WHERE id IN (
          SELECT j.id FROM jobs j
           WHERE j.status = 'queued' AND j.type IN (${types.map((t) => pg.escapeLiteral(t)).join(', ')})
             AND (j.serial_key IS NULL OR NOT EXISTS (
               SELECT 1 FROM jobs o WHERE o.serial_key = j.serial_key
                  AND (o.status = 'running' OR (o.status = 'queued' AND o.seq < j.seq))))
           ORDER BY j.seq LIMIT ${Math.floor(max)})
       RETURNING ${columns}`;
}

/** the statements of running jobs: claims, finishes, output, leases, and the jobs of instances that are gone */
class RunStatements {
  constructor(protected readonly db: Db) {}

  /**
   * Claims up to `max` of the oldest queued jobs whose serial key has nothing running and nothing older queued (so a batch
   * never holds two jobs of one key), oldest first. The advisory lock makes one claimer at a time across processes; the
   * UPDATE runs after it with a snapshot of its own. Both go in one round trip (one implicit transaction), so no value is
   * a parameter: the job types are quoted literals.
   * The claim's commit does not wait for the disk: were PostgreSQL itself to crash before it is written, the job is
   * queued again and runs after the restart (its finish, which is durable, always comes after its claim in the log).
   */
  async claim(conn: Db, types: readonly string[], instance: string, leaseMs: number, max: number): Promise<JobRow[]> {
    const { rows } = await conn.query<JobRow>(
      `SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(hashtext('dockwright.jobs.claim'));
       ${claimUpdate(types, instance, leaseMs, max)}`);
    return rows.sort((a, b) => compareText(a.created_at, b.created_at));
  }

  /**
   * The finishes of a batch and their activity entries in one statement, so in one transaction of its own (one round trip,
   * no BEGIN and COMMIT around it): a job is never done without its record. Only jobs still running on this instance end.
   */
  async finish(conn: Db, finishes: readonly FinishRecord[], instance: string): Promise<JobRow[]> {
    const column = <K extends keyof FinishRecord>(key: K) => finishes.map((f) => f[key]);
    const { rows } = await conn.query<JobRow>(
      `WITH f AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::jsonb[]) AS f(id, status, output, result, error, detail)
       ), done AS (
         UPDATE jobs j SET status = f.status, output = f.output, result = f.result, error = f.error, finished_at = now(), lease_until = NULL
           FROM f WHERE j.id = f.id AND j.status = 'running' AND j.instance = $7 RETURNING ${columns.split(', ').map((c) => `j.${c}`).join(', ')}
       ), recorded AS (
         INSERT INTO activity (actor, action, resource, result, detail)
         SELECT done.actor, 'job.' || done.type, done.resource, done.status, f.detail FROM done JOIN f ON f.id = done.id
       ), ${announce('done')}
       SELECT done.* FROM done LEFT JOIN announced ON true`,
      [column('id'), column('status'), column('output'), column('result'), column('error'), column('detail'), instance]);
    return rows;
  }

  /** a running job's output so far (best effort: its finish writes it whole) */
  async saveOutput(id: string, output: string): Promise<void> {
    await this.db.query(`UPDATE jobs SET output = $2 WHERE id = $1 AND status = 'running'`, [id, output]);
  }

  /** extends the leases of these jobs while they run on this instance; answers the ids whose lease it still holds */
  async renewLeases(ids: readonly string[], instance: string, leaseMs: number): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE jobs SET lease_until = now() + make_interval(secs => $3) WHERE id = ANY($1::uuid[]) AND status = 'running' AND instance = $2 RETURNING id`,
      [ids, instance, leaseMs / 1000]);
    return new Set(rows.map((r) => r.id));
  }

  async runsOn(id: string, instance: string): Promise<boolean> {
    const { rows } = await this.db.query(`SELECT 1 FROM jobs WHERE id = $1 AND status = 'running' AND instance = $2`, [id, instance]);
    return rows.length > 0;
  }

  /**
   * Marks failed ("interrupted by restart") every running job of another instance that is gone: its lease expired, or its
   * instance no longer holds its liveness lock and its lease runs out within `lockGraceSecs`.
   */
  async failGone(instance: string, lockGraceSecs: number): Promise<JobRow[]> {
    const { rows } = await this.db.query<JobRow>(
      `WITH gone AS (
         SELECT j.id FROM jobs j
          WHERE j.status = 'running' AND j.instance IS DISTINCT FROM $1
            AND (j.instance IS NULL OR j.lease_until IS NULL OR j.lease_until < now()
              -- without its lock, an instance that also missed two renewals is gone (a live one whose lock connection
              -- dropped, say in a database restart, takes the lock again and renews before that)
              OR (j.lease_until < now() + make_interval(secs => $2) AND NOT EXISTS (
                SELECT 1 FROM pg_locks l
                 WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
                   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtext('dockwright.instance:' || j.instance::text)::bigint)))
          FOR UPDATE SKIP LOCKED
       ), failed AS (
         UPDATE jobs SET status = 'failed', error = 'interrupted by restart', finished_at = now(), lease_until = NULL
          WHERE id IN (SELECT id FROM gone) AND status = 'running' RETURNING ${columns}
       ), recorded AS (
         INSERT INTO activity (actor, action, resource, result, detail)
         SELECT '{"kind":"system","name":"restart"}'::jsonb, 'job.' || type, resource, 'failed', jsonb_build_object('jobId', id, 'error', 'interrupted by restart') FROM failed
       ), ${announce('failed')}
       SELECT failed.* FROM failed LEFT JOIN announced ON true`, [instance, lockGraceSecs]);
    return rows;
  }

  /** queues again the jobs claimed by this instance, but for `held`, whose lease expired; answers their ids */
  async requeueExpired(instance: string, held: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE jobs SET status = 'queued', instance = NULL, started_at = NULL, lease_until = NULL
        WHERE status = 'running' AND instance = $1 AND lease_until < now() AND NOT (id = ANY($2::uuid[])) RETURNING id`,
      [instance, held]);
    return rows.map((r) => r.id);
  }
}

/** the queue and its reads: jobs inserted, read, listed and canceled; running them is RunStatements' */
export class JobStore extends RunStatements {
  /**
   * Finished jobs read or finished lately. A finished job never changes again (every update of a job is conditioned on it
   * being queued or running), so what is kept is never stale: lists that show each resource's last jobs (a page of
   * stacks), reads of a job and waits for one ask the database only about the jobs still under way.
   */
  readonly finished = new FinishedJobs();
  /** inserts of jobs: while one batch is written the next gathers */
  private readonly inserts = new Batcher<NewJob, JobRow>((jobs) => this.insertMany(jobs));

  /** queues a job (with the others queued meanwhile, in one statement) */
  insert(job: NewJob): Promise<JobRow> {
    return this.inserts.add(job);
  }

  /** the queued job of this type and serial key, or a new one when there is none (one at a time per key across instances) */
  async insertUnlessQueued(job: NewJob & { serialKey: string }): Promise<{ row: JobRow; attached: boolean }> {
    return this.db.tx(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`dockwright.jobs:${job.serialKey}`]);
      const { rows } = await tx.query<JobRow>(
        `SELECT ${columns} FROM jobs WHERE type = $1 AND serial_key = $2 AND status = 'queued' ORDER BY seq LIMIT 1`, [job.type, job.serialKey]);
      if (rows[0]) return { row: rows[0], attached: true };
      return { row: (await this.insertMany([job], tx))[0], attached: false };
    });
  }

  private async insertMany(jobs: NewJob[], conn: Db = this.db): Promise<JobRow[]> {
    const ids = jobs.map(() => randomUUID());
    const { rows } = await conn.query<JobRow>(
      `INSERT INTO jobs (id, type, resource, serial_key, status, input, actor)
       SELECT id, type, resource, serial_key, 'queued', input, actor
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS v(id, type, resource, serial_key, input, actor, n)
        ORDER BY n
       RETURNING ${columns}`,
      [ids, jobs.map((j) => j.type), jobs.map((j) => j.resource), jobs.map((j) => j.serialKey),
        jobs.map((j) => JSON.stringify(j.input ?? null)), jobs.map((j) => JSON.stringify(j.actor))]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)!);
  }

  async get(id: string): Promise<Job | null> {
    return (await this.getMany([id])).get(id) ?? null;
  }

  async latest(type: string, resource: string): Promise<Job | null> {
    const { rows } = await this.db.query<JobRow>(`SELECT ${columns} FROM jobs WHERE resource = $1 AND type = $2 ORDER BY seq DESC LIMIT 1`, [resource, type]);
    return rows[0] ? toJob(rows[0]) : null;
  }

  /** finished jobs come from memory (see `finished`): only those still under way, or not seen lately, are read */
  async getMany(ids: readonly string[], opts: { output?: boolean } = {}): Promise<Map<string, Job>> {
    const found = new Map<string, Job>();
    const output = opts.output !== false;
    const asked = ids.filter((id) => {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
      const job = this.finished.get(id, output);
      if (job) found.set(id, job);
      return !job;
    });
    if (!asked.length) return found;
    const { rows } = await this.db.query<JobRow>(`SELECT ${output ? columns : withoutOutput} FROM jobs WHERE id = ANY($1::uuid[])`, [asked]);
    for (const row of rows) {
      const job = toJob(row);
      this.finished.add(job, output);
      found.set(job.id, output ? job : this.finished.get(job.id, false) ?? job);
    }
    return found;
  }

  async open(resource: string): Promise<Job[]> {
    const { rows } = await this.db.query<JobRow>(`SELECT ${columns} FROM jobs WHERE resource = $1 AND status IN ('queued', 'running') ORDER BY seq`, [resource]);
    return rows.map(toJob);
  }

  async list(filter: JobFilter): Promise<(Job & { seq: number })[]> {
    // a list answer carries the last 2 KiB of each output; GET /jobs/{id} has all of it
    const { rows } = await this.db.query<JobRow & { seq: number }>(
      `SELECT seq, ${columns.replace('output', 'right(output, 2048) AS output')} FROM jobs
        WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR resource = $3)
          AND ($4::bigint IS NULL OR seq < $4)
          AND ($6::text[] IS NULL OR type = ANY($6)) AND ($7::text[] IS NULL OR NOT (type = ANY($7)))
        ORDER BY seq DESC LIMIT $5`,
      [filter.status ?? null, filter.type ?? null, filter.resource ?? null, filter.before ?? null, filter.limit,
        filter.types?.only ?? null, filter.types?.except ?? null]);
    return rows.map((r) => ({ ...toJob(r), seq: r.seq }));
  }

  /** cancels the job if it is still queued (announced to every instance); undefined when it is not */
  async cancelQueued(id: string): Promise<JobRow | undefined> {
    const { rows } = await this.db.query<JobRow>(
      `WITH c AS (UPDATE jobs SET status = 'canceled', finished_at = now(), error = 'canceled' WHERE id = $1 AND status = 'queued' RETURNING ${columns}),
            ${announce('c')}
       SELECT c.* FROM c LEFT JOIN announced ON true`, [id]);
    return rows[0];
  }

  /** asks the instances, through the database, to stop the job if it runs */
  async askToCancel(id: string): Promise<void> {
    await this.db.query(`SELECT pg_notify('${jobsCancelChannel}', id::text) FROM jobs WHERE id = $1 AND status = 'running'`, [id]);
  }

  /** fails the queued jobs of types no enabled plugin runs; answers their ids */
  async failUnknownTypes(types: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE jobs SET status = 'failed', error = 'no enabled plugin runs jobs of type ' || type, finished_at = now()
        WHERE status = 'queued' AND NOT (type = ANY($1)) RETURNING id`, [types]);
    return rows.map((r) => r.id);
  }

}
