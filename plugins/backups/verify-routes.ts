// The verification endpoint of /api/v1 (POST /backups/{name}/verify): a test restore of the backup's latest database dumps, as a job.
import { defineRoute, JobAcceptedSchema, problem, reply, Type, type Actor, type AnyRoute, type Job, type Principal } from '../../sdk/index.ts';
import type { BackupStore } from './store.ts';

export interface VerifyRouteDeps {
  store: BackupStore;
  visible(principal: Principal, names: readonly string[], need: 'read' | 'act'): Promise<(name: string) => boolean>;
  startVerify(name: string, actor: Actor): Promise<Job>;
}

/** whether a backup's definition holds database dumps (the only kind a verification restores) */
export const hasDatabases = (targets: Record<string, unknown>) => Array.isArray(targets.databases) && targets.databases.length > 0;

export function verifyRoutes(deps: VerifyRouteDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST', path: '/backups/:name/verify', scopes: ['backups:run'], status: 202, errors: [403, 404, 422],
      params: Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) }),
      summary: "Verify the backup's latest database dumps (202 with the job): each restored into a throwaway container of the image it was made with, on an internal network, its tables and row counts checked, verifiedAt recorded per snapshot, everything made removed",
      activity: 'backup.verify', resource: 'backup:{name}', response: JobAcceptedSchema,
      handler: async ({ params, principal }) => {
        const row = await deps.store.get(params.name);
        // hidden from the caller: answered as one that does not exist
        if (!row || !(await deps.visible(principal, [params.name], 'read'))(params.name)) throw problem(404, `no backup "${params.name}"`);
        if (!(await deps.visible(principal, [params.name], 'act'))(params.name)) throw problem(403, `your role on the stacks of backup "${row.name}" does not allow acting on it`, { code: 'stack-role' });
        if (!hasDatabases(row.targets)) throw problem(422, `backup "${row.name}" holds no database dumps (targets.databases): there is nothing to test-restore`, { code: 'nothing-to-verify' });
        if (!row.initialized) throw problem(404, `backup "${row.name}" has no snapshot yet`);
        const job = await deps.startVerify(row.name, principal.actor);
        return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
      },
    }),
  ];
}
