// Stack access lists: which users and teams may see, deploy or manage a stack, on top of their token scopes and role.
import { Type } from '../../sdk/index.ts';
import { problem, type Principal } from '../../sdk/index.ts';

export const AccessEntrySchema = Type.Object({
  principal: Type.String({ pattern: '^(user|team):[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'user:<name> or team:<name>' }),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('manager')]),
}, { additionalProperties: false });
/** how an entry is shown: `removed` once its user or team was removed */
export const AccessEntryViewSchema = Type.Object({
  principal: AccessEntrySchema.properties.principal, role: AccessEntrySchema.properties.role,
  removed: Type.Optional(Type.Boolean({ description: 'the user or team was removed: the entry grants nothing, also to a later one of the same name, and keeps the list (and so the stack) closed to everyone else' })),
});
export type AccessEntry = { principal: string; role: 'viewer' | 'operator' | 'manager'; removed?: boolean };

/** what a caller wants to do with a stack */
export type Need = 'read' | 'deploy' | 'write';

const rank = { viewer: 0, operator: 1, manager: 2 } as const;
const needs: Record<Need, number> = { read: 0, deploy: 1, write: 2 };

/**
 * The caller's role on one stack: a token limited to some stacks (CI federation) reaches only those, unlimited there
 * (its scopes still gate); admins and everyone on a stack with an empty list are not limited by it; otherwise the best
 * entry naming the user or one of their teams, or none (the stack is invisible to them).
 */
export function stackRole(principal: Principal, access: readonly AccessEntry[], name: string): keyof typeof rank | 'unlimited' | null {
  if (principal.stacks) return principal.stacks.includes(name) ? 'unlimited' : null;
  if (principal.role === 'admin' || access.length === 0) return 'unlimited';
  const user = principal.user;
  if (!user) return null;
  const names = new Set([`user:${user.name}`, ...user.teams.map((t) => `team:${t}`)]);
  let best: keyof typeof rank | null = null;
  for (const entry of access) if (!entry.removed && names.has(entry.principal) && (best === null || rank[entry.role] > rank[best])) best = entry.role;
  return best;
}

export function canSee(principal: Principal, access: readonly AccessEntry[], name: string): boolean {
  return stackRole(principal, access, name) !== null;
}

/** a token limited to some stacks is told 403 for any other, whether it exists or not (nothing about it is revealed) */
export function assertWithinLimit(principal: Principal, name: string): void {
  if (principal.stacks && !principal.stacks.includes(name)) {
    throw problem(403, `this token may reach only the stacks of its trust policy; "${name}" is not one of them`, { code: 'stack-outside-token' });
  }
}

/** 404 when the stack is invisible to the caller (its existence is not revealed), 403 when their role on it is too low. */
export function assertAccess(principal: Principal, name: string, access: readonly AccessEntry[], need: Need): void {
  assertWithinLimit(principal, name);
  const role = stackRole(principal, access, name);
  if (role === null) throw problem(404, `no stack "${name}"`);
  if (role !== 'unlimited' && rank[role] < needs[need]) {
    throw problem(403, `your role on stack "${name}" is ${role}; ${need === 'write' ? 'manager' : 'operator'} is needed to ${need} it`, { code: 'stack-role' });
  }
}

/** may this caller change the stack (and so see its secret values): the write scope, and manager on its list (or no limit) */
export function mayWrite(principal: Principal, access: readonly AccessEntry[], name: string): boolean {
  const role = stackRole(principal, access, name);
  return principal.can('stacks:write') && (role === 'unlimited' || role === 'manager');
}
