// The backup endpoints of /api/v1: definitions, runs, snapshots, files and restores.
import { randomBytes } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { defineRoute, streamReply, pageOf, isWithin, JobAcceptedSchema, Nullable, parseCron, problem, reply, Type, type Actor, type AnyRoute, type Job, type Principal } from '../../sdk/index.ts';
import { planRestore, type RestoreDeps } from './restore.ts';
import type { Repository } from './restic.ts';
import { checkBackend } from './backend.ts';
import { cleanPath, listFiles, resolveSnapshot, snapshotView, type ReadDeps } from './snapshots.ts';
import { nextSlot } from './schedule.ts';
import type { BackupRow, BackupStore, Definition } from './store.ts';
import type { BackupTarget } from './targets.ts';
import { snapshotsOf } from './run.ts';
import { backupTag, checkExpected, expectedOf } from './etag.ts';
import { dumpsFor, preflightService, type DbRestoreDeps } from './db-restore.ts';
import { backupPlan, PlanEntrySchema } from './db-target.ts';
import { dumpStream, type Downloads } from './db-download.ts';

export const BackupName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'lowercase letters, digits and -' });
const Params = Type.Object({ name: BackupName });
const SnapshotRef = Type.String({ pattern: '^(latest|[0-9a-f]{4,64})$', description: '"latest" or a snapshot id (or a unique prefix of one)' });
const Count = Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 }));

/** restic backends that never run a program of the URL's choosing (rclone does) */
const remoteSchemes = /^(sftp|rest|s3|b2|azure|gs|swift):/;
/** what a repository's environment may set: backend credentials, never restic's own switches (RESTIC_PASSWORD_COMMAND runs a program) */
const allowedEnv = /^(AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|DEFAULT_REGION)|B2_ACCOUNT_(ID|KEY)|AZURE_ACCOUNT_(NAME|KEY|SAS)|GOOGLE_(PROJECT_ID|ACCESS_TOKEN)|OS_[A-Z_]+|ST_(AUTH|USER|KEY)|RESTIC_REST_(USERNAME|PASSWORD))$/;

export const resourceOf = (name: string) => `backup:${name}`;

export interface RouteDeps {
  store: BackupStore;
  targets: ReadonlyMap<string, BackupTarget>;
  restore: RestoreDeps;
  read: ReadDeps;
  repositoryRoots: readonly string[];
  startRun(name: string, actor: Actor): Promise<Job & { attached: boolean }>;
  startRestore(input: { backup: string; snapshot: string; paths: string[]; target: string; overwrite: boolean; stack?: string; service?: string }, actor: Actor): Promise<Job>;
  /** whether a restore of this backup is queued or running */
  restoreOpen(name: string): Promise<boolean>;
  dbRestore: DbRestoreDeps;
  downloads: Downloads;
  /** makes the stack `into` from the source stack's current compose file (412 when it exists, as a create would) */
  createStackFrom(source: string, into: string, principal: Principal): Promise<void>;
  /** an entry of the activity log (reads that hand out data: downloads) */
  audit(entry: { actor: Actor; action: string; resource: string; result: string; detail?: Record<string, unknown> }): Promise<void>;
  /** which of these backups the caller may see (`read`) or run and restore (`act`): the access lists of the stacks they hold */
  visible(principal: Principal, names: readonly string[], need: 'read' | 'act'): Promise<(name: string) => boolean>;
}

const Num = Nullable(Type.Number());
const SnapshotSchema = Type.Object({
  id: Type.String(), shortId: Type.String(), time: Type.String(), hostname: Type.String(), sources: Type.Array(Type.String()),
  kind: Type.Union([Type.Literal('files'), Type.Literal('database')], { description: 'files: folders (volumes, the sites); database: one dump of a service' }),
  stack: Nullable(Type.String()), service: Nullable(Type.String()), strategy: Nullable(Type.String()),
  database: Nullable(Type.String({ description: 'the database dumped; null for the roles (globals) of a postgres server' })),
  file: Nullable(Type.String({ description: "the dump's path in the snapshot" })),
  release: Nullable(Type.String({ description: "the stack's revision when the dump was made" })),
  verifiedAt: Nullable(Type.String({ description: 'when a test restore last proved the dump (null until verified)' })),
});
const Kept = Type.Optional(Type.Integer());
export const BackupViewSchema = Type.Object({
  name: Type.String(),
  targets: Type.Record(Type.String(), Type.Unknown()),
  repository: Type.Object({ default: Type.Boolean(), url: Nullable(Type.String()), env: Type.Array(Type.String()), sshKey: Type.Boolean({ description: 'whether an ssh key is kept for the sftp repository (never the key)' }), initialized: Type.Boolean() }),
  schedule: Nullable(Type.String()),
  nextRun: Nullable(Type.String()),
  retention: Nullable(Type.Object({ last: Kept, hourly: Kept, daily: Kept, weekly: Kept, monthly: Kept, yearly: Kept })),
  consistency: Type.Union([Type.Literal('live'), Type.Literal('stop')]),
  lastRun: Nullable(Type.Object({
    jobId: Type.String(), status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]), at: Type.String(), finishedAt: Type.String(),
    snapshot: Nullable(Type.String()), files: Num, bytesAdded: Num, totalBytes: Num, durationMs: Type.Number(), error: Nullable(Type.String()), scheduled: Type.Boolean(),
  })),
  snapshots: Num,
  missed: Nullable(Type.Object({ slot: Type.String() })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** the answer of a write: a password Dockwright generated is in it, this once (like a token) */
const WrittenSchema = Type.Object({
  ...BackupViewSchema.properties,
  password: Type.Optional(Type.String({ description: 'the repository password Dockwright generated, shown this once (only when the request gave none and the backup is new): keep it to open the repository with restic elsewhere' })),
});

export function backupView(row: BackupRow) {
  let nextRun: string | null = null;
  if (row.schedule) nextRun = nextSlot(row.schedule, new Date())?.toISOString() ?? null;
  return {
    name: row.name,
    targets: row.targets,
    repository: { default: row.repositorySealed === null, url: row.repositoryDisplay, env: row.repositoryEnvNames, sshKey: row.repositorySshKeySealed !== null, initialized: row.initialized },
    schedule: row.schedule,
    nextRun,
    retention: row.retention,
    consistency: row.consistency,
    lastRun: row.lastRun,
    snapshots: row.snapshotCount,
    missed: row.missedSlot ? { slot: row.missedSlot } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const KnownTargets = Type.Object({
  stacks: Type.Optional(Type.Array(Type.String(), { description: 'the named volumes of these stacks', maxItems: 100 })),
  sites: Type.Optional(Type.Boolean({ description: "every site's kept versions and its draft (the sites plugin's target)" })),
  database: Type.Optional(Type.Boolean({ description: "Dockwright's own database as a pg_dump (needs the scope admin)" })),
  databases: Type.Optional(Type.Array(Type.Unknown(), { description: 'dumps of databases in stack services: [{ stack, service, strategy?, database?, hooks?: { pre?, post?, timeoutSeconds? } }]; strategies postgres (pg_dump -Fc per database and pg_dumpall --globals-only), mysql and mariadb (mariadb-dump/mysqldump --single-transaction --routines --events --triggers per database); default: suggested from the image (GET /stacks/{name}/backup-plan)' })),
}, { additionalProperties: Type.Unknown(), description: 'what to back up; other plugins add target kinds' });

const Body = Type.Object({
  targets: KnownTargets,
  repository: Type.Optional(Type.Object({
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'a local folder (below an allowed root) or a restic backend URL: sftp:, rest:, s3:, b2:, azure:, gs:, swift:. Its hosts must pass the outbound policy (outbound.allow), else 422' }),
    env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' }), Type.String({ maxLength: 8192 }), { maxProperties: 20, description: 'backend credentials (AWS_ACCESS_KEY_ID, B2_ACCOUNT_KEY, …); sealed at rest, never answered' })),
    sshKey: Type.Optional(Type.String({ minLength: 1, maxLength: 16384, description: 'an sftp repository: the private key ssh logs in with (PEM or OpenSSH format); sealed at rest, never answered. Without it, the keys of the user Dockwright runs as' })),
  }, { additionalProperties: false })),
  password: Type.Optional(Type.String({ minLength: 8, maxLength: 1024, description: 'the repository password (set your own to open the repository with plain restic elsewhere); sealed at rest; generated when not given, and then answered this once' })),
  schedule: Type.Optional(Type.Union([Type.String({ maxLength: 200, description: 'cron of 5 fields or a nickname (@daily), server time; schedules are minute-grained, 6 fields (seconds) are refused' }), Type.Null()])),
  retention: Type.Optional(Type.Union([Type.Object({ last: Count, hourly: Count, daily: Count, weekly: Count, monthly: Count, yearly: Count }, { additionalProperties: false, minProperties: 1 }), Type.Null()])),
  consistency: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('stop')], { description: "stop: the stacks' containers are stopped while the snapshot is taken and started again afterwards" })),
}, { additionalProperties: false });

const RestoreBody = Type.Object({
  snapshot: Type.Optional(SnapshotRef),
  paths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 100, description: 'folders or files of the snapshot (as GET …/files names them); default: everything' })),
  target: Type.String({ pattern: '^(stack|site|folder|service|download|stack:[a-z0-9][a-z0-9-]{0,62}|volume:[A-Za-z0-9][A-Za-z0-9_.-]{0,127})$', description: '"stack" (back into the stacks\' own volumes), "site" (back into the sites: the published version as a new version, and the draft; needs the sites plugin), "volume:<name>" (a new volume), "folder" (under DATA_DIR/restores) "service" (a database dump into the running service named by stack and service, in place) "download" (one-time download paths of the service\'s dumps, in the job\'s result) or "stack:<new name>" (a new stack made from the source stack\'s compose file, deployed, its service restored)' }),
  stack: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'a database restore: the stack of the service' })),
  service: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$', description: 'a database restore: the service whose dump is restored' })),
  overwrite: Type.Optional(Type.Boolean({ description: 'replace data that is there; without it a restore never overwrites' })),
}, { additionalProperties: false });

export function backupRoutes(deps: RouteDeps): AnyRoute[] {
  const { store } = deps;
  /** the backup, when the caller may see it (404 otherwise, as for one that does not exist), and act on it when asked (403) */
  const rowOf = async (name: string, principal: Principal, need: 'read' | 'act' = 'read') => {
    const row = await store.get(name);
    if (!row || !(await deps.visible(principal, [name], 'read'))(name)) throw problem(404, `no backup "${name}"`);
    if (need === 'act' && !(await deps.visible(principal, [name], 'act'))(name)) throw problem(403, `your role on the stacks of backup "${name}" does not allow acting on it`, { code: 'stack-role' });
    return row;
  };
  const repoOf = (row: BackupRow): Repository => store.repositoryOf(row);

  /** a dump back into its running service: every refusal (400, 403, 404, 409, 422) before the job is queued */
  async function restoreService(row: BackupRow, body: typeof RestoreBody.static, principal: Principal) {
    if (!body.stack || !body.service) throw problem(400, `a database restore (target ${body.target}) names its stack and service`, { errors: [{ path: body.stack ? '/body/service' : '/body/stack', message: 'required with target "service"' }] });
    if (body.paths?.length) throw problem(400, 'a database restore takes whole dumps: leave paths out', { errors: [{ path: '/body/paths', message: 'not with target "service"' }] });
    if (!principal.can('stacks:deploy')) throw problem(403, 'restoring into a service needs the scope stacks:deploy', { code: 'missing-scope' });
    await deps.dbRestore.stacks.access(body.stack, principal, 'deploy');
    if (!row.initialized) throw problem(404, `backup "${row.name}" has no snapshot yet`);
    const all = await readRepo(() => snapshotsOf(deps.read, repoOf(row), row.name));
    const dumps = dumpsFor(all, row.name, body.stack, body.service, body.snapshot ?? 'latest');
    if (body.target === 'download') {
      const job = await deps.startRestore({ backup: row.name, snapshot: body.snapshot ?? 'latest', paths: [], target: 'download', overwrite: false, stack: body.stack, service: body.service }, principal.actor);
      return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
    }
    await preflightService(deps.dbRestore, dumps, body.stack, body.service, principal);
    if (await deps.restoreOpen(row.name)) throw problem(409, `a restore of backup "${row.name}" is queued or running; wait for it to end`, { code: 'restore-running' });
    if (body.target.startsWith('stack:')) await deps.createStackFrom(body.stack, body.target.slice('stack:'.length), principal);
    const input = { backup: row.name, snapshot: body.snapshot ?? 'latest', paths: [], target: body.target, overwrite: true, stack: body.stack, service: body.service };
    const job = await deps.startRestore(input, principal.actor);
    return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
  }

  async function definitionOf(body: typeof Body.static, principal: Principal, before: BackupRow | null): Promise<Definition> {
    const targets = Object.fromEntries(Object.entries(body.targets).filter(([, v]) => v !== undefined));
    const errors: { path: string; message: string }[] = [];
    for (const [key, value] of Object.entries(targets)) {
      const target = deps.targets.get(key);
      if (!target) throw problem(422, `no backup target "${key}"${key === 'sites' ? ': the sites plugin is not enabled' : ''} (known: ${[...deps.targets.keys()].join(', ')})`, { code: 'unknown-target' });
      for (const e of Value.Errors(target.schema, value)) errors.push({ path: `/body/targets/${key}${e.path}`, message: e.message });
    }
    if (errors.length) throw problem(400, 'the targets do not fit their schema', { errors });
    const chosen = Object.entries(targets).filter(([key, value]) => !deps.targets.get(key)!.empty?.(value));
    if (!chosen.length) throw problem(422, 'a backup needs at least one target with something in it', { code: 'no-target' });
    for (const [key, value] of chosen) await deps.targets.get(key)!.check(value, principal);
    if (body.schedule) {
      let comes: boolean;
      try {
        comes = parseCron(body.schedule).nextRun() !== null;
      } catch (err) {
        throw problem(400, `schedule is not a cron expression of 5 fields: ${(err as Error).message}`, { errors: [{ path: '/body/schedule', message: (err as Error).message }] });
      }
      if (!comes) throw problem(400, `schedule "${body.schedule}" never comes`, { errors: [{ path: '/body/schedule', message: 'never comes' }] });
    }
    let repository: Definition['repository'] = null;
    if (body.repository) {
      const { url } = body.repository;
      const env = body.repository.env ?? {};
      const badEnv = Object.keys(env).filter((k) => !allowedEnv.test(k));
      if (badEnv.length) throw problem(422, `repository.env may hold backend credentials only; not ${badEnv.join(', ')}`, { code: 'repository-refused' });
      if (url.startsWith('/')) {
        if (!deps.repositoryRoots.some((root) => isWithin(root, url))) throw problem(422, `a local repository must lie below ${deps.repositoryRoots.length ? deps.repositoryRoots.join(' or ') : 'an allowed root (plugins.backups.options.repositoryRoots; none is set)'}; leave repository out for the default folder`, { code: 'repository-refused' });
      } else if (!remoteSchemes.test(url) || /\s/.test(url) || /(^|[:@/])-/.test(url.slice(url.indexOf(':') + 1))) {
        throw problem(422, 'repository.url must be a local folder or a restic URL of sftp, rest, s3, b2, azure, gs or swift', { code: 'repository-refused' });
      }
      const sshKey = body.repository.sshKey ?? null;
      if (sshKey !== null) {
        if (!url.startsWith('sftp:')) throw problem(422, 'repository.sshKey is for sftp repositories', { code: 'repository-refused', errors: [{ path: '/body/repository/sshKey', message: 'not an sftp repository' }] });
        if (!/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\r?\n[\s\S]+\r?\n-----END [A-Z0-9 ]*PRIVATE KEY-----\s*$/.test(`${sshKey.trim()}\n`)) {
          throw problem(400, 'repository.sshKey must be a private key in PEM or OpenSSH format (-----BEGIN … PRIVATE KEY-----)', { errors: [{ path: '/body/repository/sshKey', message: 'not a private key' }] });
        }
      }
      // the outbound policy: a backend on a loopback, private or metadata address is refused before anything is stored
      if (!url.startsWith('/')) await checkBackend(deps.read.outbound, url, env);
      repository = { url, env, sshKey };
    }
    const password = body.password ?? (before ? store.passwordOf(before) : randomBytes(32).toString('base64url'));
    return { targets, repository, password, schedule: body.schedule ?? null, retention: body.retention ?? null, consistency: body.consistency ?? 'live' };
  }

  return [
    defineRoute({
      method: 'GET', path: '/backups', scopes: ['backups:read'], page: true,
      summary: 'List backups with their last run, next scheduled run and snapshot count', response: BackupViewSchema,
      handler: async ({ page, principal }) => {
        const { shown, next } = pageOf(await store.page(page.cursor, page.limit + 1), page.limit, (r) => r.name);
        // hidden backups are left out, so a page may hold fewer than limit; the cursor still moves past them
        const visible = await deps.visible(principal, shown.map((r) => r.name), 'read');
        return { items: shown.filter((r) => visible(r.name)).map(backupView), next };
      },
    }),
    defineRoute({
      method: 'GET', path: '/backups/:name/downloads/:id', scopes: ['backups:run'], params: Type.Object({ name: BackupName, id: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}$' }) }),
      summary: 'A database dump, streamed: a one-time path a restore with target "download" made for the caller', errors: [403, 404, 502],
      activity: false, response: Type.String({ description: 'the dump (application/octet-stream); each download is in the activity log (backup.download)' }),
      handler: async ({ params, principal }) => {
        const row = await rowOf(params.name, principal, 'act');
        // used up here: a second request, another caller or an expired path finds nothing
        const found = await deps.downloads.take(row.name, params.id, principal.actor);
        if (!found) throw problem(404, 'no such download (each path works once, for the one who asked for it, for an hour)');
        await deps.audit({ actor: principal.actor, action: 'backup.download', resource: resourceOf(row.name), result: 'ok', detail: { snapshot: found.snapshot, file: found.file } });
        const name = found.file.slice(found.file.lastIndexOf('/') + 1);
        return streamReply(dumpStream(deps.read, repoOf(row), found.snapshot, found.file), 'application/octet-stream', { 'Content-Disposition': `attachment; filename="${row.name}-${found.snapshot.slice(0, 8)}-${name.replace(/[^A-Za-z0-9._%-]/g, '_')}"`, 'Cache-Control': 'no-store' });
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/backup-plan', scopes: ['backups:read'], params: Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) }),
      summary: "A backup strategy per service of the stack, suggested from its image and environment, and why", errors: [404],
      response: Type.Object({ services: Type.Array(PlanEntrySchema) }),
      handler: async ({ params, principal }) => {
        // a stack hidden from the caller answers as one that does not exist
        await deps.dbRestore.stacks.access(params.name, principal, 'read');
        return { services: await backupPlan(deps.dbRestore.runtime, params.name) };
      },
    }),
    defineRoute({
      method: 'GET', path: '/backups/:name', scopes: ['backups:read'], params: Params, summary: 'One backup definition with its last run (its ETag: send it as If-Match with PUT or DELETE)', response: BackupViewSchema,
      handler: async ({ params, principal }) => { const row = await rowOf(params.name, principal); return reply(200, backupView(row), { ETag: backupTag(row.updatedAt) }); },
    }),
    defineRoute({
      method: 'PUT', path: '/backups/:name', scopes: ['backups:write'], params: Params, body: Body, errors: [403, 404, 412, 422], successes: [201], response: WrittenSchema,
      summary: 'Define (or replace) a backup: targets, repository, password, schedule, retention, consistency (optional If-Match: its ETag as read; If-None-Match: * creates only; else 412)',
      activity: 'backup.write', resource: 'backup:{name}',
      handler: async ({ params, body, principal, headers }) => {
        const before = await store.get(params.name);
        // one that exists hidden from the caller is not theirs to learn of or replace
        if (before) await rowOf(params.name, principal, 'act');
        checkExpected(params.name, before, expectedOf(headers));
        const definition = await definitionOf(body, principal, before);
        const created = await store.put(params.name, definition, new Date());
        const generated = body.password === undefined && !before ? { password: definition.password } : {};
        return reply(created ? 201 : 200, { ...backupView((await store.get(params.name))!), ...generated });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/backups/:name', scopes: ['backups:write'], params: Params, errors: [412],
      summary: 'Remove a backup definition (its repository and snapshots are kept; optional If-Match: its ETag as read, else 412)', activity: 'backup.delete', resource: 'backup:{name}',
      response: Type.Object({ removed: Type.String() }),
      handler: async ({ params, principal, headers }) => {
        checkExpected(params.name, await rowOf(params.name, principal, 'act'), expectedOf(headers));
        if (!(await store.remove(params.name))) throw problem(404, `no backup "${params.name}"`);
        return { removed: params.name };
      },
    }),
    defineRoute({
      method: 'POST', path: '/backups/:name/run', scopes: ['backups:run'], params: Params, status: 202,
      summary: 'Run a backup now (202 with the job; while a run is queued or running, that run)', activity: 'backup.run', resource: 'backup:{name}',
      response: JobAcceptedSchema,
      handler: async ({ params, principal }) => {
        await rowOf(params.name, principal, 'act');
        const job = await deps.startRun(params.name, principal.actor);
        return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
    defineRoute({
      method: 'GET', path: '/backups/:name/snapshots', scopes: ['backups:read'], params: Params, page: true, errors: [422, 502],
      summary: "The backup's snapshots in its repository, newest first",
      response: SnapshotSchema,
      handler: async ({ params, page, principal }) => {
        const row = await rowOf(params.name, principal);
        if (!row.initialized) return { items: [] };
        const all = (await readRepo(() => snapshotsOf(deps.read, repoOf(row), row.name))).reverse().map(snapshotView);
        if (all.length !== row.snapshotCount) await store.setSnapshotCount(row.name, all.length);
        const from = Number(page.cursor ?? 0) || 0;
        return { items: all.slice(from, from + page.limit), next: from + page.limit < all.length ? String(from + page.limit) : undefined };
      },
    }),
    defineRoute({
      method: 'GET', path: '/backups/:name/files', scopes: ['backups:read'], params: Params, page: true, errors: [422, 502],
      query: Type.Object({ snapshot: Type.Optional(SnapshotRef), path: Type.Optional(Type.String({ maxLength: 4096, description: 'a folder of the snapshot (default /)' })) }),
      summary: 'The files in a folder of a snapshot (latest by default)',
      response: Type.Object({
        name: Type.String(), path: Type.String(), type: Type.String(), size: Nullable(Type.Number()), mtime: Type.String(), permissions: Nullable(Type.String()), snapshot: Type.String(),
      }),
      handler: async ({ params, query, page, principal }) => {
        const row = await rowOf(params.name, principal);
        if (!row.initialized) throw problem(404, `backup "${row.name}" has no snapshot yet`);
        const repo = repoOf(row);
        const snapshot = await readRepo(() => resolveSnapshot(deps.read, repo, row.name, query.snapshot ?? 'latest'));
        const files = await readRepo(() => listFiles(deps.read, repo, snapshot, cleanPath(query.path ?? '/')));
        const from = Number(page.cursor ?? 0) || 0;
        return { items: files.slice(from, from + page.limit).map((f) => ({ ...f, snapshot: snapshot.id })), next: from + page.limit < files.length ? String(from + page.limit) : undefined };
      },
    }),
    defineRoute({
      method: 'POST', path: '/backups/:name/restore', scopes: ['backups:run'], params: Params, body: RestoreBody, status: 202, errors: [403, 409, 412, 422, 502],
      summary: 'Restore a snapshot (202 with the job) into the stacks\' volumes, a new volume or a folder under DATA_DIR/restores',
      activity: 'backup.restore', resource: 'backup:{name}', response: JobAcceptedSchema,
      handler: async ({ params, body, principal }) => {
        const row = await rowOf(params.name, principal, 'act');
        if (body.target === 'service' || body.target === 'download' || body.target.startsWith('stack:')) return restoreService(row, body, principal);
        if (body.stack !== undefined || body.service !== undefined) throw problem(400, 'stack and service name the service of a database restore (target "service")', { errors: [{ path: '/body/stack', message: 'only with target "service"' }] });
        if (body.target === 'stack' && !principal.can('stacks:deploy')) throw problem(403, 'restoring into stacks needs the scope stacks:deploy', { code: 'missing-scope' });
        if (!row.initialized) throw problem(404, `backup "${row.name}" has no snapshot yet`);
        const repo = repoOf(row);
        const snapshot = await readRepo(() => resolveSnapshot(deps.read, repo, row.name, body.snapshot ?? 'latest'));
        const input = { backup: row.name, snapshot: snapshot.id, paths: (body.paths ?? []).map(cleanPath), target: body.target, overwrite: body.overwrite ?? false };
        await planRestore(deps.restore, input, snapshot, 'check', principal);
        const job = await deps.startRestore(input, principal.actor);
        return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
  ];
}

/** a repository that cannot be read is the backend's failure (502), not ours; problems pass through */
async function readRepo<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if ((err as { status?: number }).status) throw err;
    throw problem(502, (err as Error).message, { code: 'repository-unreadable' });
  }
}
