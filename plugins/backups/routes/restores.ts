// The backup restore endpoint: files into stacks, volumes or folders, and database dumps into services, new stacks or downloads.
import { JobAcceptedSchema, defineRoute, problem, reply, Type, type AnyRoute, type Principal } from '../../../sdk/index.ts';
import { planRestore } from '../restore.ts';
import { cleanPath, resolveSnapshot } from '../snapshots.ts';
import type { BackupRow } from '../store.ts';
import { snapshotsOf } from '../run.ts';
import { dumpsFor, preflightService } from '../db-restore.ts';
import { Params, readRepo, SnapshotRef, type BackupRouteKit, type RouteDeps } from './kit.ts';

const RestoreBody = Type.Object({
  snapshot: Type.Optional(SnapshotRef),
  paths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 100, description: 'folders or files of the snapshot (as GET …/files names them); default: everything' })),
  target: Type.String({ pattern: '^(stack|site|folder|service|download|stack:[a-z0-9][a-z0-9-]{0,62}|volume:[A-Za-z0-9][A-Za-z0-9_.-]{0,127})$', description: '"stack" (back into the stacks\' own volumes), "site" (back into the sites: the published version as a new version, and the draft; needs the sites plugin), "volume:<name>" (a new volume), "folder" (under DATA_DIR/restores) "service" (a database dump into the running service named by stack and service, in place) "download" (one-time download paths of the service\'s dumps, in the job\'s result) or "stack:<new name>" (a new stack made from the source stack\'s compose file, deployed, its service restored)' }),
  stack: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'a database restore: the stack of the service' })),
  service: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$', description: 'a database restore: the service whose dump is restored' })),
  overwrite: Type.Optional(Type.Boolean({ description: 'replace data that is there; without it a restore never overwrites' })),
}, { additionalProperties: false });

export function restoreRoutes(deps: RouteDeps, { rowOf, repoOf }: BackupRouteKit): AnyRoute[] {
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

  return [
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
