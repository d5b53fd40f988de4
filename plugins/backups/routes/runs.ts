// The backup endpoints for runs and what they made: run now, the snapshots, and the files in a snapshot.
import { defineRoute, JobAcceptedSchema, Nullable, problem, reply, Type, type AnyRoute } from '../../../sdk/index.ts';
import { cleanPath, listFiles, resolveSnapshot, snapshotView } from '../snapshots.ts';
import { snapshotsOf } from '../run.ts';
import { Params, readRepo, SnapshotRef, SnapshotSchema, type BackupRouteKit, type RouteDeps } from './kit.ts';

export function runRoutes(deps: RouteDeps, { rowOf, repoOf }: BackupRouteKit): AnyRoute[] {
  const { store } = deps;
  return [
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
  ];
}
