// The backups plugin: restic backups of stack volumes, Dockwright's database and other plugins' targets — definitions, runs, schedules, retention, files and proven restores.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineJob, definePlugin, keyedLock, problem, Type, type Actor, type Principal } from '../../sdk/index.ts';
import { dockerPlugin } from '../docker/api.ts';
import { stacksPlugin } from '../stacks/api.ts';
import { backupTargets, type BackupsApi } from './api.ts';
import { databaseTarget } from './database-target.ts';
import { databasesTarget } from './db-target.ts';
import { runServiceRestore, type DbRestoreDeps } from './db-restore.ts';
import { createDownloads, runDownload } from './db-download.ts';
import { createUploads } from './db-upload.ts';
import { uploadRoutes } from './upload-routes.ts';
import { runRestore, sweepStaging, type RestoreDeps } from './restore.ts';
import { backupRoutes, resourceOf } from './routes.ts';
import { runBackup, type RunDeps } from './run.ts';
import { tick } from './schedule.ts';
import { resolveSnapshot } from './snapshots.ts';
import { stacksTarget } from './stack-target.ts';
import { stoppedJournal } from './stopped-journal.ts';
import { createStore, type BackupRow } from './store.ts';
import type { BackupTarget } from './targets.ts';
import { problems } from './problems.ts';
import { createVerifications } from './db-verify.ts';
import { backupsOverview } from './overview.ts';
import { setUpVerification } from './verify-setup.ts';

export type { BackupTarget, Prepared, Source, TargetIo } from './targets.ts';
export type { BackupsApi } from './api.ts';

const Options = Type.Object({
  restic: Type.String({ default: 'restic', description: 'the restic binary' }),
  pgDump: Type.String({ default: 'pg_dump', description: 'the pg_dump binary (of the database server\'s major version or newer)' }),
  repositoryRoots: Type.Array(Type.String({ pattern: '^/' }), { default: [], description: 'folders below which a definition may keep a local repository of its own; the default folder in DATA_DIR needs none' }),
  scheduleTickMs: Type.Integer({ minimum: 1000, maximum: 60_000, default: 60_000, description: 'how often schedules are looked at: at most a minute, so every slot of a (minute-grained) schedule is run' }),
  missedWindowMs: Type.Integer({ minimum: 0, default: 3_600_000, description: 'a scheduled run not started within this time after its slot is missed' }),
  progressIntervalMs: Type.Integer({ minimum: 0, default: 2000, description: 'at most one progress line per interval in the job output' }),
  stopTimeoutSeconds: Type.Integer({ minimum: 0, default: 10, description: 'grace time of containers stopped for a snapshot or a restore' }),
  readyTimeoutMs: Type.Integer({ minimum: 1000, default: 120_000, description: 'how long a database started for a restore may take to accept connections (or be healthy)' }),
  verifyEveryHours: Type.Number({ minimum: 0, default: 0, description: 'verify each backup with database dumps when its last verification is older than this (a test restore, POST /backups/{name}/verify); 0: only when asked' }),
  unverifiedAfterHours: Type.Number({ minimum: 0, default: 168, description: 'alert backup-unverified when no snapshot of a backup with database dumps was verified for this long; 0: never' }),
  verifyCheckMs: Type.Integer({ minimum: 1000, default: 3_600_000, description: 'how often the verify schedule and the unverified alert are looked at' }),
  uploadLimitBytes: Type.Integer({ minimum: 1, default: 10 * 1024 ** 3, description: 'the largest database dump PUT /backups/{name}/uploads takes (streamed to DATA_DIR, never held in memory)' }),
  uploadTtlMs: Type.Integer({ minimum: 1000, default: 3_600_000, description: 'how long an uploaded dump is kept for its restore before it is removed' }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'backups',
  problems,
  version: '1.0.0',
  services: ['db', 'databaseUrl', 'secrets', 'events', 'outbound', 'activity'],
  extensionPoints: [backupTargets],
  description: 'Backups with restic: stack volumes, the database, targets of other plugins; schedules, retention, files, restores',
  requires: [dockerPlugin, stacksPlugin],
  options: Options,
  setup(ctx): BackupsApi {
    const o = ctx.options;
    const runtime = ctx.deps.docker;
    const stacks = ctx.deps.stacks;
    ctx.scopes.define({
      'backups:read': { description: 'read backup definitions, their snapshots and files', role: 'viewer' },
      'backups:write': { description: 'define, change and remove backups', role: 'operator' },
      'backups:run': { description: 'run backups and restore them', role: 'operator' },
    });
    ctx.migrations.from(new URL('./migrations', import.meta.url));

    const dataDir = ctx.dataDir;
    const store = createStore(ctx.db, ctx.secrets, (name) => join(dataDir, 'repositories', name));
    const targets = new Map<string, BackupTarget>();
    const addTarget = (target: BackupTarget) => {
      if (!/^[a-z][a-z0-9-]*$/.test(target.key)) throw new Error(`backup target key "${target.key}" must match ^[a-z][a-z0-9-]*$`);
      if (targets.has(target.key)) throw new Error(`backup target "${target.key}" is registered twice`);
      targets.set(target.key, target);
    };
    const journal = stoppedJournal(join(dataDir, 'stopped'));
    addTarget(stacksTarget({ runtime, stacks, stopSeconds: o.stopTimeoutSeconds, journal }));
    addTarget(databaseTarget({ databaseUrl: ctx.databaseUrl, pgDump: o.pgDump }));
    addTarget(databasesTarget({ runtime, stacks }));
    ctx.onStart(() => ctx.extensions.of(backupTargets).forEach(addTarget));

    const verifications = createVerifications(ctx.db);
    const read = { resticBin: o.restic, cacheDir: join(dataDir, 'cache'), outbound: ctx.outbound, sshDir: join(dataDir, 'ssh'), verifiedAt: verifications.of };
    const runDeps: RunDeps = {
      store, targets, ...read, stageDir: join(dataDir, 'stage'), progressIntervalMs: o.progressIntervalMs, log: ctx.log,
      emit: (event, payload) => ctx.events.emit(event, payload),
    };
    // DATA_DIR/restores: beside the plugins' folders, where an admin looks for what was restored
    const restoreDeps: RestoreDeps = { store, targets, runtime, stacks, ...read, restoresDir: join(dataDir, '..', '..', 'restores'), stopSeconds: o.stopTimeoutSeconds };

    const runJob = ctx.jobs.define(defineJob({
      type: 'backups.run', input: Type.Object({ backup: Type.String(), scheduled: Type.Boolean() }),
      run: (job) => runBackup(runDeps, job),
    }));
    const downloads = createDownloads(ctx.db);
    const deployAndWait = async (stack: string, actor: Actor): Promise<string | null> => {
      const started = await stacks.deploy(stack, actor);
      for (;;) {
        const job = await ctx.jobs.get(started.id);
        if (job?.done) return job.status === 'succeeded' ? null : job.error ?? job.status;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    const uploads = createUploads(join(dataDir, 'uploads'), o.uploadTtlMs);
    const dbRestoreDeps: DbRestoreDeps = { store, runtime, stacks, ...read, stopSeconds: o.stopTimeoutSeconds, readyTimeoutMs: o.readyTimeoutMs, deployAndWait, uploads };
    const createStackFrom = async (source: string, into: string, principal: Principal) => {
      if (!principal.can('stacks:write')) throw problem(403, 'restoring into a new stack needs the scope stacks:write', { code: 'missing-scope' });
      const content = await stacks.content(source);
      if (!content) throw problem(404, `no stack "${source}"`);
      const workdir = await mkdtemp(join(tmpdir(), 'dw-restore-stack-'));
      try {
        await stacks.createFromTree(into, principal, { compose: content.compose, workdir, message: `made from stack ${source} by a database restore` }, async () => undefined);
      } finally {
        await rm(workdir, { recursive: true, force: true });
      }
    };
    const restoreJob = ctx.jobs.define(defineJob({
      type: 'backups.restore',
      input: Type.Object({
        backup: Type.String(), snapshot: Type.String(), paths: Type.Array(Type.String()), target: Type.String(), overwrite: Type.Boolean(),
        stack: Type.Optional(Type.String()), service: Type.Optional(Type.String()), upload: Type.Optional(Type.String()),
      }),
      run: (job) => (job.input.target === 'service' || job.input.target.startsWith('stack:')
        ? runServiceRestore(dbRestoreDeps, job)
        : job.input.target === 'download' ? runDownload({ store, downloads, ...read }, job) : runRestore(restoreDeps, job, (repo) => resolveSnapshot(read, repo, job.input.backup, job.input.snapshot))),
    }));

    // a restore whose process was killed leaves its staging folder: swept at start (jobs no longer running) and when
    // such a job is marked failed later (taken over from an instance that is gone)
    const sweep = (leftover: (jobId: string) => Promise<boolean>, when: string) => void sweepStaging(restoreDeps, leftover)
      .then((removed) => { if (removed.length) ctx.log.warn({ removed }, `removed the staging folders of interrupted restores (${when})`); })
      .catch((err) => ctx.log.error({ err }, `sweeping the staging folders of interrupted restores failed (${when})`));
    ctx.onStart(() => sweep(async (id) => (await ctx.jobs.get(id))?.done === true, 'start'));
    ctx.events.on('job.failed', (p) => {
      if (p.type === restoreJob.type) sweep(async (id) => id === p.jobId, 'job failed');
      if (p.type === runJob.type) restartLeft(async (id) => id === p.jobId, 'job failed');
    });
    // containers a run stopped and did not start again (its process died): started at start, and when such a run is marked failed
    const restartLeft = (over: (runId: string) => Promise<boolean>, when: string) => void journal.restartLeft(runtime, over)
      .then((started) => { if (started.length) ctx.log.warn({ started }, `started the containers an interrupted backup had stopped (${when})`); })
      .catch((err) => ctx.log.error({ err }, `starting the containers an interrupted backup had stopped failed (${when})`));
    ctx.onStart(() => restartLeft(async (id) => (await ctx.jobs.get(id))?.done !== false, 'start'));

    // one run per backup: a run asked for while one is queued or running is that run
    const serial = keyedLock();
    const startRun = (name: string, actor: Actor, scheduled = false) => serial(name, async () => {
      const open = (await ctx.jobs.open(resourceOf(name))).find((j) => j.type === runJob.type);
      if (open) return { ...open, attached: true };
      return runJob.enqueue({ backup: name, scheduled }, { actor, resource: resourceOf(name), serialKey: resourceOf(name), attachToQueued: true });
    });
    const startRestore = (input: Parameters<typeof restoreJob.enqueue>[0], actor: Actor) =>
      restoreJob.enqueue(input, { actor, resource: resourceOf(input.backup), serialKey: resourceOf(input.backup) });

    // a backup is as visible as what it holds: hidden from a caller who may not see one of its stacks (their access lists),
    // and so are its runs, restores, activity and alerts; one that no longer exists is for admins
    const resourcesOf = (row: BackupRow) => Object.entries(row.targets).flatMap(([key, value]) => targets.get(key)?.resources?.(value) ?? []);
    const visibleBackups = async (principal: Principal, names: readonly string[], need: 'read' | 'act') => {
      const wanted = new Set(names);
      const rows = (await store.all()).filter((r) => wanted.has(r.name));
      const may = await ctx.visibility.filter(principal, rows.flatMap(resourcesOf), need);
      const shown = new Set(rows.filter((r) => resourcesOf(r).every(may)).map((r) => r.name));
      if (principal.role === 'admin') for (const name of names) if (!rows.some((r) => r.name === name)) shown.add(name);
      return shown;
    };
    ctx.visibility.add({ prefix: resourceOf(''), visible: visibleBackups });
    const visible = async (principal: Principal, names: readonly string[], need: 'read' | 'act') => {
      const test = await ctx.visibility.filter(principal, names.map(resourceOf), need);
      return (name: string) => test(resourceOf(name));
    };

    const restoreOpen = async (name: string) => (await ctx.jobs.open(resourceOf(name))).some((j) => j.type === restoreJob.type);
    const fromUploads = uploadRoutes({ store, uploads, dbRestore: dbRestoreDeps, limitBytes: o.uploadLimitBytes, visible, restoreOpen, createStackFrom, startRestore });
    for (const route of backupRoutes({ store, targets, restore: restoreDeps, read, repositoryRoots: o.repositoryRoots, startRun, startRestore, visible, restoreOpen, dbRestore: dbRestoreDeps, downloads, createStackFrom,
      audit: (entry) => ctx.activity.record(entry) })) ctx.routes.add(fromUploads.withUploads(route));
    fromUploads.routes.forEach((route) => ctx.routes.add(route));
    ctx.schedule.every('uploads', Math.min(60_000, o.uploadTtlMs), async () => { await uploads.sweep(); });

    setUpVerification(ctx, { store, runtime, verifications, readyTimeoutMs: o.readyTimeoutMs, ...read, serial, visible }, o);

    ctx.schedule.every('schedules', o.scheduleTickMs, () => tick({
      store, missedWindowMs: o.missedWindowMs,
      start: (name) => startRun(name, { kind: 'system', name: 'schedule' }, true),
      emit: (event, payload) => ctx.events.emit(event, payload),
    }));

    const seenBy = async (viewer: Principal) => {
      const rows = await store.all();
      const test = await visible(viewer, rows.map((r) => r.name), 'read');
      return rows.filter((r) => test(r.name));
    };
    ctx.overview.add(backupsOverview(seenBy));

    return {};
  },
});
