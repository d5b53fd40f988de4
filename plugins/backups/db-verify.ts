// Test restores of database dumps (POST /backups/{name}/verify): each service's latest dumps restored into a throwaway container of the recorded image on an internal network of its own, checked (tables and row counts), the verification recorded per snapshot, and everything made removed again.
import { randomBytes } from 'node:crypto';
import type { Db, JobRun } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { execFrom, execText } from './db-exec.ts';
import { mysqlCommand, mysqlName, postgresCommand, type Credentials, type Strategy } from './db-strategies.ts';
import { dumpOf, type DumpInfo } from './db-restore.ts';
import { serviceContainer } from './db-target.ts';
import { restic, secretsOf, type Repository, type ResticEnv, type ResticSnapshot } from './restic.ts';
import { snapshotsOf } from './run.ts';
import type { BackupStore } from './store.ts';

/** the label of everything a verification makes (its value: the job's id), by which leftovers are found and removed */
export const verifyLabel = 'dev.dockwright.backups.verify';

export interface VerifyDeps extends ResticEnv {
  store: BackupStore;
  runtime: DockerRuntime;
  verifications: Verifications;
  readyTimeoutMs: number;
  emit(event: string, payload: Record<string, unknown>): void;
}

/** when each snapshot was last proved by a test restore */
export function createVerifications(db: Db) {
  return {
    async record(backup: string, snapshots: readonly string[], at: Date): Promise<void> {
      for (const snapshot of snapshots) {
        await db.query(`INSERT INTO backup_verifications (backup, snapshot, verified_at) VALUES ($1, $2, $3)
          ON CONFLICT (backup, snapshot) DO UPDATE SET verified_at = EXCLUDED.verified_at`, [backup, snapshot, at]);
      }
    },
    async of(backup: string): Promise<Map<string, string>> {
      const { rows } = await db.query<{ snapshot: string; verified_at: Date | string }>('SELECT snapshot, verified_at FROM backup_verifications WHERE backup = $1', [backup]);
      return new Map(rows.map((r) => [r.snapshot, new Date(r.verified_at).toISOString()]));
    },
    /** the newest verification of each backup that has one */
    async latest(): Promise<Map<string, Date>> {
      const { rows } = await db.query<{ backup: string; at: Date | string }>('SELECT backup, max(verified_at) AS at FROM backup_verifications GROUP BY backup');
      return new Map(rows.map((r) => [r.backup, new Date(r.at)]));
    },
  };
}
export type Verifications = ReturnType<typeof createVerifications>;

/** the dumps a verification takes: per service, the databases of its newest run (roles aside: they go in first) */
export function latestDumps(all: readonly ResticSnapshot[]): { dumps: DumpInfo[]; globals: DumpInfo | undefined }[] {
  const dumps = all.map(dumpOf).filter((d): d is DumpInfo => d !== null);
  const services = [...new Set(dumps.map((d) => `${d.stack}/${d.service}`))].sort();
  return services.map((key) => {
    const mine = dumps.filter((d) => `${d.stack}/${d.service}` === key);
    const run = mine.filter((d) => d.part === 'database').at(-1)?.run;
    return { dumps: mine.filter((d) => d.part === 'database' && d.run === run), globals: mine.find((d) => d.part === 'globals' && d.run === run) };
  }).filter((s) => s.dumps.length);
}

interface TableCount { table: string; rows: number }
export interface Verified { stack: string; service: string; database: string; snapshot: string; image: string; tables: TableCount[] }

const postgresCounts = `SELECT format('%I.%I', schemaname, tablename) || '|' || (xpath('/row/c/text()', query_to_xml(format('SELECT count(*) AS c FROM %I.%I', schemaname, tablename), false, true, '')))[1]::text
  FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`;

/** the image the throwaway runs: the one the dump recorded (by id), else the service's current one */
async function imageFor(runtime: DockerRuntime, dump: DumpInfo, log: (l: string) => void): Promise<string> {
  if (dump.image && await runtime.docker.getImage(dump.image).inspect().then(() => true, () => false)) return dump.image;
  const now = await serviceContainer(runtime, dump.stack, dump.service);
  if (!now) throw new Error(`the image ${dump.image ?? '(not recorded)'} of the dump is gone and stack ${dump.stack} has no service ${dump.service} to take one from`);
  log(`the image ${dump.image ?? '(not recorded)'} of the dump is gone: using the service's current image ${now.image} (${now.imageId})`);
  return now.imageId;
}

/** one service's dumps restored into a throwaway server and counted; the container, its volumes and its network removed in any case */
async function verifyService(deps: VerifyDeps, repo: Repository, job: JobRun<{ backup: string }>, set: { dumps: DumpInfo[]; globals: DumpInfo | undefined }): Promise<Verified[]> {
  const { docker } = deps.runtime;
  const first = set.dumps[0];
  const strategy: Strategy = first.strategy;
  const where = `service ${first.service} of stack ${first.stack}`;
  if (!['postgres', 'mysql', 'mariadb'].includes(strategy)) throw new Error(`${where}: a ${strategy} dump cannot be verified in this version`);
  const image = await imageFor(deps.runtime, first, job.log);
  const password = randomBytes(24).toString('base64url');
  job.redact(password);
  const postgres = strategy === 'postgres';
  const creds: Credentials = postgres ? { user: 'postgres', password, passwordFile: null, database: 'postgres' } : { user: 'root', password, passwordFile: null, database: '' };
  const suffix = `${job.id.replace(/[^a-zA-Z0-9]/g, '').slice(0, 12)}-${randomBytes(3).toString('hex')}`;
  const labels = { [verifyLabel]: job.id };
  let networkId: string | null = null;
  let containerId: string | null = null;
  try {
    // internal: no route out, no published port; only the exec's of this job reach the server
    networkId = (await docker.createNetwork({ Name: `dw-verify-${suffix}`, Internal: true, Labels: labels, CheckDuplicate: true })).id;
    const env = postgres ? [`POSTGRES_PASSWORD=${password}`, 'POSTGRES_USER=postgres', 'POSTGRES_DB=postgres'] : [`MARIADB_ROOT_PASSWORD=${password}`, `MYSQL_ROOT_PASSWORD=${password}`];
    const container = await docker.createContainer({
      name: `dw-verify-${suffix}`, Image: image, Env: env, Labels: labels,
      HostConfig: { NetworkMode: `dw-verify-${suffix}`, PublishAllPorts: false, RestartPolicy: { Name: 'no' } },
    });
    containerId = container.id;
    await container.start();
    job.log(`${where}: a throwaway server of image ${image.slice(0, 19)} started on an internal network`);
    await awaitReady(deps, containerId, postgres, creds, job.signal);
    const clientCommand = (database: string, argv: string[]) => ({ container: containerId!, ...(postgres ? postgresCommand(creds, database, argv) : mysqlCommand(creds, 'client', argv)) });
    const stream = (dump: DumpInfo, spec: ReturnType<typeof clientCommand>, what: string) => restic(repo, ['dump', dump.snapshot.id, dump.file], deps, {
      signal: job.signal, stdout: (out) => execFrom(docker, spec, out, what, job.signal).then(() => undefined),
    });
    if (set.globals && postgres) await stream(set.globals, clientCommand('postgres', ['psql', '-X', '-q', '-w', '-v', 'ON_ERROR_STOP=0', '-d', 'postgres']), 'the roles');
    const out: Verified[] = [];
    for (const dump of set.dumps) {
      const database = dump.database!;
      let tables: TableCount[];
      if (postgres) {
        await execText(docker, clientCommand('postgres', ['createdb', '-w', '--', database]), `createdb ${database}`, job.signal).catch(() => undefined);
        await stream(dump, clientCommand(database, ['pg_restore', '-w', '--single-transaction', '--exit-on-error', '-d', database]), `pg_restore of ${database}`);
        const listed = await execText(docker, clientCommand(database, ['psql', '-X', '-w', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', postgresCounts]), `counting the rows of ${database}`, job.signal);
        tables = listed.split('\n').filter(Boolean).map((l) => { const at = l.lastIndexOf('|'); return { table: l.slice(0, at), rows: Number(l.slice(at + 1)) }; });
      } else {
        await execText(docker, clientCommand('', [`--execute=CREATE DATABASE IF NOT EXISTS ${mysqlName(database)}`]), `creating ${database}`, job.signal);
        await stream(dump, clientCommand('', [`--database=${database}`]), `the restore of ${database}`);
        const names = (await execText(docker, clientCommand('', ['--batch', '--skip-column-names', `--database=${database}`, '--execute=SHOW FULL TABLES WHERE Table_type = \'BASE TABLE\'']), `listing the tables of ${database}`, job.signal))
          .split('\n').filter(Boolean).map((l) => l.split('\t')[0]);
        tables = [];
        for (const name of names) {
          const count = await execText(docker, clientCommand('', ['--batch', '--skip-column-names', `--execute=SELECT COUNT(*) FROM ${mysqlName(database)}.${mysqlName(name)}`]), `counting ${name}`, job.signal);
          tables.push({ table: name, rows: Number(count.trim()) });
        }
      }
      if (tables.some((t) => !Number.isFinite(t.rows))) throw new Error(`${where}: the row counts of ${database} could not be read`);
      for (const t of tables) job.log(`${where}: ${database}: table ${t.table}: ${t.rows} rows`);
      job.log(`${where}: ${database} (snapshot ${dump.snapshot.short_id}) restored: ${tables.length} table${tables.length === 1 ? '' : 's'}, ${tables.reduce((n, t) => n + t.rows, 0)} rows`);
      out.push({ stack: dump.stack, service: dump.service, database, snapshot: dump.snapshot.id, image, tables });
    }
    return out;
  } finally {
    if (containerId) await docker.getContainer(containerId).remove({ force: true, v: true }).catch((err: Error) => job.log(`removing the throwaway container failed: ${err.message}`));
    if (networkId) await docker.getNetwork(networkId).remove().catch((err: Error) => job.log(`removing the throwaway network failed: ${err.message}`));
  }
}

/** waits until the throwaway server answers its own probe (its first start initialises the data folder) */
async function awaitReady(deps: VerifyDeps, id: string, postgres: boolean, creds: Credentials, signal: AbortSignal): Promise<void> {
  const probe = postgres ? postgresCommand(creds, 'postgres', ['pg_isready', '-q']) : mysqlCommand(creds, 'admin', ['ping']);
  const deadline = Date.now() + deps.readyTimeoutMs;
  for (;;) {
    signal.throwIfAborted();
    const info = await deps.runtime.docker.getContainer(id).inspect();
    if (!info.State.Running) throw new Error(`the throwaway server stopped (exit ${info.State.ExitCode}) before it was ready`);
    if (await execText(deps.runtime.docker, { container: id, ...probe }, 'the readiness probe', signal).then(() => true, () => false)) return;
    if (Date.now() > deadline) throw new Error(`the throwaway server was not ready within ${Math.round(deps.readyTimeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export async function runVerify(deps: VerifyDeps, job: JobRun<{ backup: string; scheduled: boolean }>): Promise<unknown> {
  const { backup } = job.input;
  const started = Date.now();
  try {
    const row = await deps.store.get(backup);
    if (!row) throw new Error(`backup ${backup} no longer exists`);
    const repo = deps.store.repositoryOf(row);
    for (const secret of secretsOf(repo)) job.redact(secret);
    const sets = latestDumps(await snapshotsOf(deps, repo, backup, job.signal));
    if (!sets.length) throw new Error(`backup ${backup} has no database dump to verify`);
    const verified: Verified[] = [];
    for (const set of sets) verified.push(...await verifyService(deps, repo, job, set));
    const at = new Date();
    await deps.verifications.record(backup, verified.map((v) => v.snapshot), at);
    const durationMs = Date.now() - started;
    job.log(`verified ${verified.length} database dump(s) in ${(durationMs / 1000).toFixed(1)} s`);
    deps.emit('backup.verified', { backup, jobId: job.id });
    return { verifiedAt: at.toISOString(), durationMs, verified };
  } catch (err) {
    deps.emit('backup.verify.failed', { backup, jobId: job.id });
    throw err;
  }
}

/** removes what verifications of jobs that no longer run left behind (a process killed mid-verification) */
export async function sweepVerifications(runtime: DockerRuntime, stillRunning: (jobId: string) => Promise<boolean>): Promise<number> {
  const filters = JSON.stringify({ label: [verifyLabel] });
  let removed = 0;
  for (const c of await runtime.docker.listContainers({ all: true, filters })) {
    if (await stillRunning(c.Labels[verifyLabel])) continue;
    await runtime.docker.getContainer(c.Id).remove({ force: true, v: true }).then(() => { removed++; }, () => undefined);
  }
  for (const n of await runtime.docker.listNetworks({ filters })) {
    if (await stillRunning(n.Labels?.[verifyLabel] ?? '')) continue;
    await runtime.docker.getNetwork(n.Id).remove().then(() => { removed++; }, () => undefined);
  }
  return removed;
}
