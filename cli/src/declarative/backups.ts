// The backup kind: targets, repository (url, credentials by reference), password (kept by the server when not given), schedule, retention, consistency.
import type { Client } from '../client.ts';
import { CliError, exitCodes } from '../errors.ts';
import { guarded } from './conflicts.ts';
import { expected, resolveSecrets, same } from './compare.ts';
import type { Change, KindHandler, Listed } from './model.ts';

const path = (name: string) => `/api/v1/backups/${encodeURIComponent(name)}`;
interface Repository { url: string; env?: Record<string, unknown>; sshKey?: unknown }

export const backupKind: KindHandler = {
  kind: 'backup',
  fields: ['targets', 'repository', 'password', 'schedule', 'retention', 'consistency'],

  async list(client) {
    const { body } = await client.any<any[]>('get', '/api/v1/backups', { query: { limit: 1000 } });
    return new Map(body.map((b) => [b.name, b as Listed]));
  },

  async plan(client, declared, resolve, current) {
    const { name, spec } = { name: declared.name, spec: declared.spec! };
    if (typeof spec.targets !== 'object' || spec.targets === null) throw new CliError(`${declared.file}: backup ${name} needs targets`, exitCodes.refused);
    const repo = spec.repository as Repository | undefined;
    const env = resolveSecrets(repo?.env, resolve, `backup ${name} repository.env`);
    const sshKey = repo?.sshKey === undefined ? undefined : resolve(repo.sshKey, `backup ${name} repository.sshKey`);
    const password = spec.password === undefined ? null : resolve(spec.password, `backup ${name} password`);
    const wanted = { schedule: spec.schedule ?? null, retention: spec.retention ?? null, consistency: spec.consistency ?? 'live' };
    const had = current?.repository as { default: boolean; url: string | null; env: string[]; sshKey: boolean } | undefined;
    const fields: string[] = [];
    if (!current || !same(spec.targets, current.targets)) fields.push('targets');
    const repoChanged = repo ? !had || had.default || had.url !== repo.url || !same([...Object.keys(repo.env ?? {})].sort(), had.env) || (repo.sshKey !== undefined) !== had.sshKey : Boolean(had && !had.default);
    if (!current ? repo !== undefined : repoChanged) fields.push('repository');
    for (const key of ['schedule', 'retention', 'consistency'] as const) if (!current ? spec[key] !== undefined : !same(wanted[key], current[key])) fields.push(key);
    // a password cannot be read back: it is written with the first definition, or with any other change
    if (!current && password !== null) fields.push('password');
    if (current && !fields.length) return null;
    // the API replaces the repository with its credentials as a whole: a write needs the values of those the server has
    if (repo && (env.kept.length || (repo.sshKey !== undefined && sshKey === null))) {
      throw new CliError(`backup ${name}: ${[...env.kept, ...(sshKey === null && repo.sshKey !== undefined ? ['sshKey'] : [])].join(', ')} ${current ? 'must be given to change the backup' : 'have no value'}: the API replaces the repository's credentials as a whole`,
        exitCodes.refused, 'give their values with ${env:NAME} or ${file:path}');
    }
    const body = {
      targets: spec.targets, ...wanted,
      ...(repo ? { repository: { url: repo.url, ...(Object.keys(env.given).length ? { env: env.given } : {}), ...(sshKey ? { sshKey } : {}) } } : {}),
      ...(password !== null ? { password } : {}),
    };
    const marker = current ? current.updatedAt : null;
    return {
      kind: 'backup', name, action: current ? 'update' : 'create', fields,
      apply: async () => { await guarded('backup', name, () => client.any('put', path(name), { body, headers: expected(marker) })); },
    };
  },

  remove(client, listed): Change {
    return {
      kind: 'backup', name: listed.name, action: 'delete', fields: [],
      apply: async () => { await guarded('backup', listed.name, () => client.any('delete', path(listed.name), { headers: expected(listed.updatedAt) })); },
    };
  },

  async export(client: Client, name: string) {
    const b = (await client.any('get', path(name))).body;
    const spec: Record<string, unknown> = { targets: b.targets };
    if (!b.repository.default) {
      spec.repository = { url: b.repository.url, ...(b.repository.env.length ? { env: Object.fromEntries(b.repository.env.map((k: string) => [k, null])) } : {}), ...(b.repository.sshKey ? { sshKey: null } : {}) };
    }
    if (b.schedule !== null) spec.schedule = b.schedule;
    if (b.retention !== null) spec.retention = b.retention;
    spec.consistency = b.consistency;
    return { kind: 'backup' as const, name, spec };
  },
};
