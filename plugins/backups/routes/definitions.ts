// The backup definition endpoints: list, read, define (or replace) and remove a backup.
import { randomBytes } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { defineRoute, pageOf, isWithin, parseCron, problem, reply, Type, type AnyRoute, type Principal } from '../../../sdk/index.ts';
import { checkBackend } from '../backend.ts';
import type { BackupRow, Definition } from '../store.ts';
import { backupTag, checkExpected, expectedOf } from '../etag.ts';
import { backupView, BackupViewSchema, Params, type BackupRouteKit, type RouteDeps } from './kit.ts';

const Count = Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 }));

/** restic backends that never run a program of the URL's choosing (rclone does) */
const remoteSchemes = /^(sftp|rest|s3|b2|azure|gs|swift):/;
/** what a repository's environment may set: backend credentials, never restic's own switches (RESTIC_PASSWORD_COMMAND runs a program) */
const allowedEnv = /^(AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|DEFAULT_REGION)|B2_ACCOUNT_(ID|KEY)|AZURE_ACCOUNT_(NAME|KEY|SAS)|GOOGLE_(PROJECT_ID|ACCESS_TOKEN)|OS_[A-Z_]+|ST_(AUTH|USER|KEY)|RESTIC_REST_(USERNAME|PASSWORD))$/;

/** the answer of a write: a password Dockwright generated is in it, this once (like a token) */
const WrittenSchema = Type.Object({
  ...BackupViewSchema.properties,
  password: Type.Optional(Type.String({ description: 'the repository password Dockwright generated, shown this once (only when the request gave none and the backup is new): keep it to open the repository with restic elsewhere' })),
});

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

export function definitionRoutes(deps: RouteDeps, { rowOf }: BackupRouteKit): AnyRoute[] {
  const { store } = deps;
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
  ];
}
