// plan, apply and export over every kind: the declarations against what the server has, prune limited to the kinds the files declare and never touching protected names.
import { RequestRefused, type Client } from '../client.ts';
import { CliError, exitCodes } from '../errors.ts';
import { readDeclarations, resolverFor } from './files.ts';
import { kinds, type Change, type Declared, type Kind, type KindHandler, type Listed } from './model.ts';
import { stackKind } from './stacks.ts';
import { siteKind } from './sites.ts';
import { backupKind } from './backups.ts';
import { channelKind } from './channels.ts';

export const handlers: Partial<Record<Kind, KindHandler>> = { stack: stackKind, site: siteKind, backup: backupKind, 'alert-channel': channelKind };

function handlerOf(kind: Kind): KindHandler {
  const handler = handlers[kind];
  if (!handler) throw new CliError(`this dw cannot plan ${kind} resources yet`, exitCodes.refused, 'remove them from the files, or use a newer dw');
  return handler;
}

export const fieldsOf = (kind: Kind): readonly string[] => handlers[kind]?.fields ?? [];

/** a protected entry's name may hold * (any characters): `prod-*` */
const matcher = (pattern: string) => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

/** runs fn over items, `width` at a time, keeping the order of the results */
async function pooled<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) { const i = next++; out[i] = await fn(items[i]!); }
  }));
  return out;
}

export async function makePlan(client: Client, paths: string[], opts: { prune: boolean }): Promise<Change[]> {
  const declared = readDeclarations(paths, fieldsOf);
  const declaredKinds = kinds.filter((k) => declared.some((d) => d.kind === k));
  const listed = new Map<Kind, Map<string, Listed>>();
  for (const kind of declaredKinds) listed.set(kind, await handlerOf(kind).list(client));
  const managed = declared.filter((d) => d.spec !== undefined && !(d.protected && d.name.includes('*')));
  const changes = (await pooled(managed, 8, (d: Declared) => handlerOf(d.kind).plan(client, d, resolverFor(d.file), listed.get(d.kind)!.get(d.name)))).filter((c): c is Change => c !== null);
  if (opts.prune) {
    for (const kind of declaredKinds) {
      const mine = declared.filter((d) => d.kind === kind);
      const protectedNames = mine.filter((d) => d.protected).map((d) => matcher(d.name));
      for (const item of listed.get(kind)!.values()) {
        if (mine.some((d) => d.name === item.name) || protectedNames.some((p) => p.test(item.name))) continue;
        changes.push(handlerOf(kind).remove(client, item));
      }
    }
  }
  return changes;
}

const sign = { create: '+', update: '~', delete: '-' } as const;

export function describePlan(changes: Change[]): string {
  if (!changes.length) return 'No changes: the server matches the files.';
  const count = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  return [...changes.map((c) => `${sign[c.action]} ${c.kind} ${c.name}${c.fields.length ? `: ${c.fields.join(', ')}` : ''}`),
    `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`].join('\n');
}

export const changeView = (c: Change) => ({ kind: c.kind, name: c.name, action: c.action, fields: c.fields });

/** the changes in order (creates and updates, then deletes), one at a time: the first failure stops the rest */
export async function applyPlan(changes: Change[], applied: (c: Change) => void): Promise<void> {
  const ordered = [...changes.filter((c) => c.action !== 'delete'), ...changes.filter((c) => c.action === 'delete')];
  for (const change of ordered) {
    await change.apply();
    applied(change);
  }
}

export async function exportAll(client: Client, names: string[], only: Kind[] | undefined): Promise<{ kind: Kind; name: string; spec: Record<string, unknown> }[]> {
  const out: { kind: Kind; name: string; spec: Record<string, unknown> }[] = [];
  for (const kind of only ?? kinds) {
    const handler = handlers[kind];
    if (!handler) continue;
    let listed: Map<string, Listed>;
    try { listed = await handler.list(client); } catch (err) {
      // a kind whose plugin this server has switched off has nothing to export
      if (err instanceof RequestRefused && err.status === 404 && !only) continue;
      throw err;
    }
    const present = [...listed.keys()].sort();
    const wanted = names.length ? names.filter((n) => present.includes(n)) : present;
    out.push(...(await pooled(wanted, 8, (n) => handler.export(client, n))));
  }
  if (names.length) {
    const missing = names.filter((n) => !out.some((d) => d.name === n));
    if (missing.length) throw new CliError(`nothing named ${missing.join(', ')} to export`, exitCodes.refused, '`dw stacks` lists the stacks');
  }
  return out;
}
