// The stack kind: compose (inline or composeFile), variables, access list and autoupdate planned against the server and written with If-Match on the stack's revision.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { looksSecret } from '../../../sdk/secret-names.ts';
import type { Client } from '../client.ts';
import { CliError, exitCodes } from '../errors.ts';
import { conflict, guarded } from './conflicts.ts';
import type { Change, Declared, KindHandler, Listed, Resolver } from './model.ts';

interface AccessEntry { principal: string; role: string }
const sameAccess = (a: AccessEntry[], b: AccessEntry[]) => JSON.stringify(sortAccess(a)) === JSON.stringify(sortAccess(b));
const sortAccess = (list: AccessEntry[]) => list.map((e) => ({ principal: e.principal, role: e.role })).sort((x, y) => x.principal.localeCompare(y.principal));
const sameValues = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

function composeOf(declared: Declared): string | undefined {
  const spec = declared.spec!;
  if (spec.compose !== undefined && spec.composeFile !== undefined) throw new CliError(`${declared.file}: stack ${declared.name} has both compose and composeFile`, exitCodes.refused);
  if (typeof spec.compose === 'string') return spec.compose;
  if (spec.compose !== undefined) throw new CliError(`${declared.file}: stack ${declared.name}: compose is the file's text (a string); use composeFile for a path`, exitCodes.refused);
  if (typeof spec.composeFile !== 'string') return undefined;
  const path = resolve(dirname(declared.file), spec.composeFile);
  try { return readFileSync(path, 'utf8'); } catch { throw new CliError(`${declared.file}: stack ${declared.name}: cannot read composeFile ${spec.composeFile}`, exitCodes.refused); }
}

/** the variables to write: literals and references resolved; a name without a value keeps the server's (it must have one) */
function variablesOf(declared: Declared, resolveValue: Resolver, server: Record<string, string> | undefined): Record<string, string> | undefined {
  const spec = declared.spec!.variables;
  if (spec === undefined) return undefined;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new CliError(`${declared.file}: stack ${declared.name}: variables is a mapping of names to values`, exitCodes.refused);
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(spec)) {
    const value = resolveValue(raw, `stack ${declared.name} variable ${key}`);
    if (value !== null) { out[key] = value; continue; }
    if (server?.[key] === undefined) throw new CliError(`${declared.file}: stack ${declared.name} declares ${key} without a value, and the server has none`, exitCodes.refused, `give it a value, e.g. ${key}: \${env:${key}}`);
    out[key] = server[key]!;
  }
  return out;
}

export const stackKind: KindHandler = {
  kind: 'stack',
  fields: ['compose', 'composeFile', 'variables', 'access', 'autoupdate'],

  async list(client) {
    const { body } = await client.json('get', '/api/v1/stacks', { query: { limit: 1000 } });
    return new Map(body.map((s) => [s.name, { name: s.name, revision: s.revision, autoupdate: s.autoupdate } as Listed]));
  },

  async plan(client, declared, resolveValue, current) {
    const spec = declared.spec!;
    const name = declared.name;
    const compose = composeOf(declared);
    const access = spec.access as AccessEntry[] | undefined;
    const autoupdate = spec.autoupdate as boolean | undefined;
    if (autoupdate !== undefined && typeof autoupdate !== 'boolean') throw new CliError(`${declared.file}: stack ${name}: autoupdate is true or false`, exitCodes.refused);
    if (access !== undefined && !Array.isArray(access)) throw new CliError(`${declared.file}: stack ${name}: access is a list of { principal, role }`, exitCodes.refused);
    if (!current) {
      if (compose === undefined) throw new CliError(`${declared.file}: the new stack ${name} needs compose or composeFile`, exitCodes.refused);
      const variables = variablesOf(declared, resolveValue, undefined);
      const fields = ['compose', ...(variables && Object.keys(variables).length ? ['variables'] : []), ...(access?.length ? ['access'] : []), ...(autoupdate ? ['autoupdate'] : [])];
      return { kind: 'stack', name, action: 'create', fields, apply: () => writeStack(client, name, 0, { compose, variables, access, autoupdate }) };
    }
    const revision = current.revision as number;
    const snapshot = (await client.json('get', '/api/v1/stacks/{name}/revisions/{id}', { params: { name, id: revision } })).body;
    if (spec.variables !== undefined && snapshot.redacted.length) throw new CliError(`stack ${name}: the values of ${snapshot.redacted.join(', ')} are hidden from this token`, exitCodes.refused, 'plan and apply variables with a token that has stacks:write');
    const variables = variablesOf(declared, resolveValue, snapshot.values);
    const serverAccess = access === undefined ? undefined : (await client.json('get', '/api/v1/stacks/{name}/access', { params: { name } })).body as AccessEntry[];
    const want = {
      compose: compose !== undefined && compose !== snapshot.compose ? compose : undefined,
      variables: variables && !sameValues(variables, snapshot.values) ? variables : undefined,
      access: access && serverAccess && !sameAccess(access, serverAccess) ? access : undefined,
      autoupdate: autoupdate !== undefined && autoupdate !== current.autoupdate ? autoupdate : undefined,
    };
    const fields = Object.entries(want).filter(([, v]) => v !== undefined).map(([k]) => k);
    if (!fields.length) return null;
    return { kind: 'stack', name, action: 'update', fields, apply: () => writeStack(client, name, revision, want, { access: serverAccess, autoupdate: current.autoupdate as boolean }) };
  },

  remove(client, listed): Change {
    return {
      kind: 'stack', name: listed.name, action: 'delete', fields: [],
      apply: async () => { await guarded('stack', listed.name, () => client.json('delete', '/api/v1/stacks/{name}', { params: { name: listed.name }, headers: { 'if-match': `"${listed.revision}"` } })); },
    };
  },

  async export(client, name) {
    const stack = (await client.json('get', '/api/v1/stacks/{name}', { params: { name } })).body;
    const snapshot = (await client.json('get', '/api/v1/stacks/{name}/revisions/{id}', { params: { name, id: stack.revision } })).body;
    const access = (await client.json('get', '/api/v1/stacks/{name}/access', { params: { name } })).body as AccessEntry[];
    const spec: Record<string, unknown> = { compose: snapshot.compose };
    // a secret is exported as a declared name without a value: apply keeps the server's
    const names = Object.keys(snapshot.values).sort();
    if (names.length) spec.variables = Object.fromEntries(names.map((k) => [k, looksSecret(k) || snapshot.redacted.includes(k) ? null : snapshot.values[k]]));
    if (access.length) spec.access = sortAccess(access);
    spec.autoupdate = stack.autoupdate;
    return { kind: 'stack', name, spec };
  },
};

interface Wanted { compose?: string; variables?: Record<string, string>; access?: AccessEntry[]; autoupdate?: boolean }

/** the writes, each with If-Match on the revision the last one left (0: If-None-Match: *, a create); access and autoupdate (no revision of their own) after a re-read that finds them as planned */
async function writeStack(client: Client, name: string, planned: number, want: Wanted, seen?: { access?: AccessEntry[]; autoupdate: boolean }): Promise<void> {
  let revision = planned;
  const at = (): Record<string, string> => (revision === 0 ? { 'if-none-match': '*' } : { 'if-match': `"${revision}"` });
  if (want.compose !== undefined) {
    revision = (await guarded('stack', name, () => client.json('put', '/api/v1/stacks/{name}/compose', { params: { name }, body: { content: want.compose!, message: 'dw apply' }, headers: at() }))).body.revision;
  }
  if (want.variables !== undefined) {
    revision = (await guarded('stack', name, () => client.json('put', '/api/v1/stacks/{name}/env', { params: { name }, body: { values: want.variables!, message: 'dw apply' }, headers: at() }))).body.revision;
  }
  if (want.access === undefined && want.autoupdate === undefined) return;
  if (seen) {
    const now = (await client.json('get', '/api/v1/stacks/{name}', { params: { name } })).body;
    if (now.revision !== revision) throw conflict('stack', name, `revision ${now.revision}, expected ${revision}`);
    if (want.autoupdate !== undefined && now.autoupdate !== seen.autoupdate) throw conflict('stack', name, 'autoupdate');
    if (want.access !== undefined && !sameAccess((await client.json('get', '/api/v1/stacks/{name}/access', { params: { name } })).body as AccessEntry[], seen.access ?? [])) throw conflict('stack', name, 'access list');
  }
  if (want.access !== undefined) await client.json('post', '/api/v1/stacks/{name}/access', { params: { name }, body: { entries: want.access as never } });
  if (want.autoupdate !== undefined) await client.json('put', '/api/v1/stacks/{name}/autoupdate', { params: { name }, body: { enabled: want.autoupdate } });
}
