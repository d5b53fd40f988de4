// Restores from an uploaded dump: PUT /backups/{name}/uploads (the dump streamed to disk) and the `upload` field of POST /backups/{name}/restore, whose handling this adds around that route.
import { defineRoute, problem, reply, Type, type AnyRoute, type Job, type Principal, type TSchema } from '../../sdk/index.ts';
import { uploadSource, type DbRestoreDeps } from './db-restore.ts';
import { uploadIdPattern, type Uploads } from './db-upload.ts';
import type { BackupStore } from './store.ts';

export interface UploadRouteDeps {
  store: BackupStore;
  uploads: Uploads;
  dbRestore: DbRestoreDeps;
  /** the largest dump an upload takes, in bytes */
  limitBytes: number;
  visible(principal: Principal, names: readonly string[], need: 'read' | 'act'): Promise<(name: string) => boolean>;
  restoreOpen(name: string): Promise<boolean>;
  createStackFrom(source: string, into: string, principal: Principal): Promise<void>;
  startRestore(input: { backup: string; snapshot: string; paths: string[]; target: string; overwrite: boolean; stack: string; service: string; upload: string }, actor: Principal['actor']): Promise<Job>;
}

const Params = Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }) });
const UploadId = Type.String({ pattern: uploadIdPattern, description: 'an upload of this backup by the caller (PUT …/uploads): restored into the service named by stack and service (target "service" or "stack:<new name>")' });

export function uploadRoutes(deps: UploadRouteDeps): { routes: AnyRoute[]; withUploads(route: AnyRoute): AnyRoute } {
  /** the backup when the caller may see it (404 as for a missing one) and act on it (403) */
  const rowOf = async (name: string, principal: Principal) => {
    const row = await deps.store.get(name);
    if (!row || !(await deps.visible(principal, [name], 'read'))(name)) throw problem(404, `no backup "${name}"`);
    if (!(await deps.visible(principal, [name], 'act'))(name)) throw problem(403, `your role on the stacks of backup "${name}" does not allow acting on it`, { code: 'stack-role' });
    return row;
  };

  const upload = defineRoute({
    method: 'PUT', path: '/backups/:name/uploads', scopes: ['backups:run'], params: Params, upload: 'stream', status: 201, errors: [400, 403, 404, 413],
    summary: 'Upload a database dump (the body, streamed to disk) to restore with POST …/restore { upload }; it expires after an hour',
    activity: 'backup.upload', resource: 'backup:{name}',
    response: Type.Object({ id: Type.String(), bytes: Type.Integer(), expiresAt: Type.String({ format: 'date-time' }) }),
    handler: async ({ params, principal, bodyStream, headers }) => {
      try {
        await rowOf(params.name, principal);
        if (Number(headers['content-length']) > deps.limitBytes) throw problem(413, `the dump is larger than the upload limit of ${deps.limitBytes} bytes`);
      } catch (err) {
        bodyStream!.resume(); // refused before reading: the body is drained, not kept
        throw err;
      }
      return reply(201, await deps.uploads.receive(params.name, bodyStream!, deps.limitBytes, principal.actor));
    },
  });

  /** a restore from an upload: every refusal (400, 403, 404, 409, 422) before the job is queued */
  async function restoreUpload(name: string, body: { upload: string; target: string; stack?: string; service?: string; snapshot?: string; paths?: string[] }, principal: Principal) {
    const row = await rowOf(name, principal);
    if (body.target !== 'service' && !body.target.startsWith('stack:')) throw problem(400, 'an upload is restored into a service: target "service" or "stack:<new name>"', { errors: [{ path: '/body/target', message: 'not with upload' }] });
    if (body.snapshot !== undefined || body.paths?.length) throw problem(400, 'a restore takes an upload or a snapshot, not both', { errors: [{ path: body.snapshot !== undefined ? '/body/snapshot' : '/body/paths', message: 'not with upload' }] });
    if (!body.stack || !body.service) throw problem(400, 'a restore from an upload names its stack and service', { errors: [{ path: body.stack ? '/body/service' : '/body/stack', message: 'required with upload' }] });
    if (!principal.can('stacks:deploy')) throw problem(403, 'restoring into a service needs the scope stacks:deploy', { code: 'missing-scope' });
    await deps.dbRestore.stacks.access(body.stack, principal, 'deploy');
    const found = await deps.uploads.find(row.name, body.upload, principal.actor);
    if (!found) throw problem(404, `no upload "${body.upload}" of backup "${row.name}" (unknown, expired, or another caller's)`);
    await uploadSource(deps.dbRestore, found, body.stack, body.service);
    if (await deps.restoreOpen(row.name)) throw problem(409, `a restore of backup "${row.name}" is queued or running; wait for it to end`, { code: 'restore-running' });
    if (body.target.startsWith('stack:')) await deps.createStackFrom(body.stack, body.target.slice('stack:'.length), principal);
    const job = await deps.startRestore({ backup: row.name, snapshot: 'upload', paths: [], target: body.target, overwrite: true, stack: body.stack, service: body.service, upload: body.upload }, principal.actor);
    return reply(202, { ...job, jobId: job.id }, { Location: `/api/v1/jobs/${job.id}` });
  }

  /** POST /backups/{name}/restore taking `upload` beside its own fields; without one, the route as it was */
  function withUploads(route: AnyRoute): AnyRoute {
    if (route.method !== 'POST' || route.path !== '/backups/:name/restore' || !route.body) return route;
    const own = route.body as TSchema & { properties: Record<string, TSchema> };
    return {
      ...route,
      body: Type.Object({ ...own.properties, upload: Type.Optional(UploadId) }, { additionalProperties: false }),
      handler: (req) => {
        const body = req.body as { upload?: string; target: string };
        return body.upload === undefined ? route.handler(req) : restoreUpload((req.params as { name: string }).name, body as typeof body & { upload: string }, req.principal);
      },
    };
  }
  return { routes: [upload], withUploads };
}
