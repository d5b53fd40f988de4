// The stack verbs: list, get, compose, env set/unset, deploy/stop/pull/rollback (with --wait), logs (-f) and releases.
import { readFileSync } from 'node:fs';
import { RequestRefused, type Client, type Job } from '../client.ts';
import { CliError, usageError } from '../errors.ts';
import { waitForJob } from '../jobs.ts';
import { table, type Output } from '../output.ts';
import { timeoutOf, waitOptions, type Context, type Verb } from '../verbs.ts';

const need = (args: string[], i: number, what: string) => {
  const value = args[i];
  if (!value) throw usageError(`missing ${what}`);
  return value;
};

/** a job started by a write: printed, or followed to its end with --wait (exit code: its outcome) */
export async function startedJob(ctx: Context, job: Job & { attached?: boolean }): Promise<void> {
  if (!ctx.values.wait) {
    ctx.out.result(job, () => `job ${job.id} ${job.attached ? 'attached (a queued one)' : job.status}: dw jobs wait ${job.id}`);
    return;
  }
  const done = await waitForJob(ctx.client(), job.id, { timeout: timeoutOf(ctx.values), stream: true }, ctx.out);
  ctx.out.result(done, () => `job ${done.id} ${done.status}`);
}

function action(verb: 'deploy' | 'stop' | 'pull', summary: string): Verb {
  return {
    words: ['stack', verb], summary, usage: '<name>', options: waitOptions,
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const path = `/api/v1/stacks/{name}/${verb}` as '/api/v1/stacks/{name}/deploy';
      const { body } = await ctx.client().json('post', path, { params: { name } });
      await startedJob(ctx, body);
    },
  };
}

/** the variables after a change, written with If-Match so a concurrent edit is refused, never overwritten */
async function changeEnv(client: Client, name: string, change: (values: Record<string, string>) => void, message: string) {
  const { body } = await client.json('get', '/api/v1/stacks/{name}/env', { params: { name } });
  if (body.redacted.length) throw new CliError(`the values of ${body.redacted.join(', ')} are hidden from this token, so they cannot be written back`, 2, 'use a token with stacks:write');
  const values = { ...body.values };
  change(values);
  return (await client.json('put', '/api/v1/stacks/{name}/env', { params: { name }, body: { values, message }, headers: { 'if-match': `"${body.revision}"` } })).body;
}

/** KEY=VALUE, or KEY alone: the value of that name in dw's own environment (keeps a secret out of argv and shell history) */
function assignments(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const key = eq < 0 ? arg : arg.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw usageError(`not a variable name: ${key}`, 'write KEY=VALUE, or KEY to take the value from the environment variable of that name');
    const value = eq < 0 ? process.env[key] : arg.slice(eq + 1);
    if (value === undefined) throw usageError(`${key} has no value: it is not set in this environment`, `export ${key}=… first, or write ${key}=VALUE`);
    out[key] = value;
  }
  if (!Object.keys(out).length) throw usageError('name at least one variable');
  return out;
}

async function printLogs(ctx: Context, name: string, service: string | undefined) {
  const client = ctx.client();
  const containers = (await client.json('get', '/api/v1/containers', { params: {}, query: { stack: name } })).body
    .filter((c) => !service || c.service === service);
  if (!containers.length) throw new CliError(`no containers of ${name}${service ? ` for service ${service}` : ''}`, 2, 'deploy it first (`dw stack deploy`), or check the service name');
  const prefix = containers.length > 1;
  await Promise.all(containers.map(async (c) => {
    const res = await client.send('get', `/api/v1/containers/${encodeURIComponent(c.id)}/logs`, {
      query: { follow: ctx.values.follow ? 1 : undefined, tail: (ctx.values.tail as string | undefined) ?? '200' }, headers: { accept: 'text/plain, application/problem+json' },
    });
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of res.body) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop()!;
      for (const line of lines) writeLine(ctx.out, prefix ? `${c.service ?? c.name} | ` : '', line);
    }
    if (rest) writeLine(ctx.out, prefix ? `${c.service ?? c.name} | ` : '', rest);
  }));
}

const writeLine = (out: Output, prefix: string, line: string) => out.progress(`${prefix}${line}\n`);

export const stackVerbs: Verb[] = [
  {
    words: ['stacks'], summary: 'List the stacks this token may see', usage: '',
    async run(ctx) {
      const { body } = await ctx.client().json('get', '/api/v1/stacks', { query: { limit: 1000 } });
      ctx.out.result(body, () => table(['NAME', 'STATUS', 'REVISION', 'SERVICES'], body.map((s) => [s.name, s.status, s.revision, s.services.length])));
    },
  },
  {
    words: ['stack', 'get'], summary: "A stack's status, revision and services", usage: '<name>',
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const { body } = await ctx.client().json('get', '/api/v1/stacks/{name}', { params: { name } });
      ctx.out.result(body, () => [`${body.name}  ${body.status}  revision ${body.revision}`,
        table(['SERVICE', 'STATE', 'CONTAINERS'], body.services.map((s) => [s.name, s.containers.map((c) => c.state).join(',') || 'none', s.containers.length]))].join('\n'));
    },
  },
  {
    words: ['stack', 'compose'], summary: 'Print the compose file, or replace it with --file (creates the stack when it is missing)', usage: '<name>',
    options: { file: { type: 'string', short: 'f' }, message: { type: 'string', short: 'm' } },
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const client = ctx.client();
      if (!ctx.values.file) {
        const { body } = await client.json('get', '/api/v1/stacks/{name}/compose', { params: { name } });
        ctx.out.result(body, () => body.content);
        return;
      }
      let content: string;
      try { content = readFileSync(ctx.values.file as string, 'utf8'); } catch (err) { throw usageError(`cannot read ${String(ctx.values.file)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`); }
      const message = ctx.values.message as string | undefined;
      let ifMatch: Record<string, string>;
      try {
        const { body } = await client.json('get', '/api/v1/stacks/{name}', { params: { name } });
        ifMatch = { 'if-match': `"${body.revision}"` };
      } catch (err) {
        if (!(err instanceof RequestRefused) || err.status !== 404) throw err;
        ifMatch = { 'if-none-match': '*' };
      }
      const { body } = await client.json('put', '/api/v1/stacks/{name}/compose', { params: { name }, body: { content, message }, headers: ifMatch });
      ctx.out.result(body, () => [`${body.name}: revision ${body.revision}`, ...body.warnings.map((w) => `warning: ${w.path}: ${w.message}`)].join('\n'));
    },
  },
  {
    words: ['stack', 'env'], summary: "List a stack's variables (secret-looking values hidden without stacks:write)", usage: '<name>',
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const { body } = await ctx.client().json('get', '/api/v1/stacks/{name}/env', { params: { name } });
      ctx.out.result(body, () => Object.entries(body.values).map(([k, v]) => `${k}=${body.redacted.includes(k) ? '(hidden)' : v}`).join('\n'));
    },
  },
  {
    words: ['stack', 'env', 'set'], summary: 'Set variables: KEY=VALUE, or KEY to take the value from your environment', usage: '<name> <KEY[=VALUE]…>',
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const set = assignments(ctx.args.slice(1));
      const body = await changeEnv(ctx.client(), name, (values) => Object.assign(values, set), `dw: set ${Object.keys(set).join(', ')}`);
      ctx.out.result({ name: body.name, revision: body.revision, set: Object.keys(set) }, () => `${name}: revision ${body.revision} (set ${Object.keys(set).join(', ')})`);
    },
  },
  {
    words: ['stack', 'env', 'unset'], summary: 'Remove variables', usage: '<name> <KEY…>',
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const keys = ctx.args.slice(1);
      if (!keys.length) throw usageError('name at least one variable to unset');
      const body = await changeEnv(ctx.client(), name, (values) => { for (const k of keys) delete values[k]; }, `dw: unset ${keys.join(', ')}`);
      ctx.out.result({ name: body.name, revision: body.revision, unset: keys }, () => `${name}: revision ${body.revision} (unset ${keys.join(', ')})`);
    },
  },
  action('deploy', 'Deploy the stack (--wait: stream the job and exit with its outcome)'),
  action('stop', 'Stop the stack'),
  action('pull', "Pull the stack's images"),
  {
    words: ['stack', 'rollback'], summary: 'Roll back to the previous release, or to --release N', usage: '<name>',
    options: { ...waitOptions, release: { type: 'string' } },
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const release = ctx.values.release === undefined ? undefined : Number(ctx.values.release);
      if (release !== undefined && !Number.isInteger(release)) throw usageError('--release takes a release number (`dw stack releases` lists them)');
      const { body } = await ctx.client().json('post', '/api/v1/stacks/{name}/rollback', { params: { name }, body: release === undefined ? {} : { release } });
      await startedJob(ctx, body);
    },
  },
  {
    words: ['stack', 'logs'], summary: "The stack's container logs (-f follows them)", usage: '<name> [service]',
    options: { follow: { type: 'boolean', short: 'f' }, tail: { type: 'string' } },
    async run(ctx) { await printLogs(ctx, need(ctx.args, 0, 'stack name'), ctx.args[1]); },
  },
  {
    words: ['stack', 'releases'], summary: "The stack's releases, newest first", usage: '<name>',
    async run(ctx) {
      const name = need(ctx.args, 0, 'stack name');
      const { body } = await ctx.client().json('get', '/api/v1/stacks/{name}/releases', { params: { name } });
      ctx.out.result(body, () => table(['RELEASE', 'KIND', 'REVISION', 'CREATED'], body.map((r) => [r.number, r.kind, r.revision, r.createdAt])));
    },
  },
];
