// The database endpoints of backups: a stack's suggested backup plan and the one-time download of a dump.
import { defineRoute, streamReply, problem, Type, type AnyRoute } from '../../../sdk/index.ts';
import { backupPlan, PlanEntrySchema } from '../db-target.ts';
import { dumpStream } from '../db-download.ts';
import { BackupName, resourceOf, type BackupRouteKit, type RouteDeps } from './kit.ts';

export function databaseRoutes(deps: RouteDeps, { rowOf, repoOf }: BackupRouteKit): AnyRoute[] {
  return [
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
  ];
}
