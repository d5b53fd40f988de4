// The verbs on jobs, sites and backups: jobs get/wait, sites upload (--publish), backups run/verify/restore.
import { statSync } from 'node:fs';
import { usageError } from '../errors.ts';
import { waitForJob } from '../jobs.ts';
import { timeoutOf, waitOptions, type Verb } from '../verbs.ts';
import { startedJob } from './stacks.ts';

const need = (args: string[], i: number, what: string) => {
  const value = args[i];
  if (!value) throw usageError(`missing ${what}`);
  return value;
};

export const resourceVerbs: Verb[] = [
  {
    words: ['jobs', 'get'], summary: 'A job: status, error and output', usage: '<id>',
    async run(ctx) {
      const id = need(ctx.args, 0, 'job id');
      const { body } = await ctx.client().json('get', '/api/v1/jobs/{id}', { params: { id } });
      ctx.out.result(body, () => `${body.id} ${body.type} ${body.status}${body.error ? `: ${body.error}` : ''}\n${body.output}`);
    },
  },
  {
    words: ['jobs', 'wait'], summary: "Wait for a job (streaming its output) and exit with its outcome", usage: '<id>',
    options: { timeout: waitOptions.timeout!, quiet: { type: 'boolean', short: 'q' } },
    async run(ctx) {
      const id = need(ctx.args, 0, 'job id');
      const timeout = timeoutOf(ctx.values);
      const done = await waitForJob(ctx.client(), id, { timeout, stream: !ctx.values.quiet }, ctx.out);
      ctx.out.result(done, () => `job ${done.id} ${done.status}`);
    },
  },
  {
    words: ['sites', 'upload'], summary: 'Upload a folder as the site: a draft, or published at once with --publish', usage: '<name> <dir>',
    options: { publish: { type: 'boolean' } },
    async run(ctx) {
      const name = need(ctx.args, 0, 'site name');
      const dir = need(ctx.args, 1, 'folder');
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw usageError(`${dir} is not a folder`);
      const { archiveFolder } = await import('../tar.ts');
      const { archive, files } = archiveFolder(dir);
      const { body } = await ctx.client().any('put', `/api/v1/sites/${encodeURIComponent(name)}/content`, {
        query: { draft: ctx.values.publish ? undefined : 1 }, raw: new Uint8Array(archive), headers: { 'content-type': 'application/gzip' },
      });
      ctx.out.result(body, () => (ctx.values.publish ? `${name}: published version ${body.version ?? '?'} (${files} files)` : `${name}: draft of ${files} files${body.draft?.previewUrl ? ` at ${body.draft.previewUrl}` : ''} (publish with --publish)`));
    },
  },
  {
    words: ['backups', 'run'], summary: 'Run a backup now', usage: '<name>', options: waitOptions,
    async run(ctx) {
      const name = need(ctx.args, 0, 'backup name');
      await startedJob(ctx, (await ctx.client().json('post', '/api/v1/backups/{name}/run', { params: { name } })).body);
    },
  },
  {
    words: ['backups', 'verify'], summary: 'Test-restore the latest snapshot into a throwaway container', usage: '<name>', options: waitOptions,
    async run(ctx) {
      const name = need(ctx.args, 0, 'backup name');
      await startedJob(ctx, (await ctx.client().any('post', `/api/v1/backups/${encodeURIComponent(name)}/verify`)).body);
    },
  },
  {
    words: ['backups', 'restore'], summary: 'Restore a snapshot (--target stack|volume:<name>|folder|service|stack:<new>|download)', usage: '<name>',
    options: { ...waitOptions, snapshot: { type: 'string' }, target: { type: 'string' }, path: { type: 'string', multiple: true }, stack: { type: 'string' }, service: { type: 'string' }, overwrite: { type: 'boolean' } },
    async run(ctx) {
      const name = need(ctx.args, 0, 'backup name');
      if (!ctx.values.target) throw usageError('--target is required', 'e.g. --target stack (back into the stacks\' volumes) or --target folder');
      const body = {
        snapshot: (ctx.values.snapshot as string | undefined) ?? 'latest', target: ctx.values.target as string,
        paths: ctx.values.path as string[] | undefined, stack: ctx.values.stack, service: ctx.values.service, overwrite: ctx.values.overwrite || undefined,
      };
      await startedJob(ctx, (await ctx.client().any('post', `/api/v1/backups/${encodeURIComponent(name)}/restore`, { body })).body);
    },
  },
];
