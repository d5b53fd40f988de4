// Who owns a hostname: the claims stored in PostgreSQL (routes, and what saved stacks name), the namespaces plugins reserve, and how a conflict is told to a caller.
import type { Db, Principal, ContextWith } from '../../sdk/index.ts';
import type { EdgeStore } from './store.ts';
import type { HostnameConflict, HostnameNamespace } from './types.ts';

export interface Conflict { hostname: string; owner: string; purpose?: string }

/** a conflict in words, naming its owner or not */
export function phrase(c: Conflict, named: boolean): string {
  if (c.purpose) return `the hostname ${c.hostname} is reserved for ${c.purpose} of ${named ? c.owner : 'another owner'}`;
  return named ? `the hostname ${c.hostname} belongs to ${c.owner}` : `the hostname ${c.hostname} is taken by another owner`;
}

export function createOwners(ctx: ContextWith<never>, store: EdgeStore) {
  const namespaces: HostnameNamespace[] = [];

  /** the owner a namespace reserves this hostname for: `<prefix><label>.<domain>`, one label below the domain */
  function reservedFor(hostname: string): { owner: string; purpose: string } | null {
    for (const n of namespaces) {
      if (!hostname.endsWith(`.${n.domain}`)) continue;
      const label = hostname.slice(0, -(n.domain.length + 1));
      if (!label.includes('.') && label.startsWith(n.prefix) && label.length > n.prefix.length) return { owner: n.owner(label.slice(n.prefix.length)), purpose: n.purpose };
    }
    return null;
  }

  /** the hostnames of `hostnames` another owner than `owner` holds (a stored claim first, else a namespace), with that owner */
  async function conflicts(owner: string, hostnames: readonly string[], q?: Db): Promise<Conflict[]> {
    const unique = [...new Set(hostnames)];
    const stored = await store.owners(unique, q);
    return unique.flatMap((hostname): Conflict[] => {
      const held = stored.get(hostname);
      if (held !== undefined) return held === owner ? [] : [{ hostname, owner: held }];
      const reserved = reservedFor(hostname);
      return reserved && reserved.owner !== owner ? [{ hostname, ...reserved }] : [];
    });
  }

  /**
   * the conflicts as `viewer` may learn them: the owner is named only when the viewer may see it (a stack hidden by its
   * access list is not revealed); without a viewer (a job, whose readers are many) no owner is named
   */
  async function told(found: readonly Conflict[], viewer?: Principal): Promise<HostnameConflict[]> {
    if (!found.length) return [];
    const visible = viewer ? await ctx.visibility.filter(viewer, found.map((c) => c.owner), 'read') : () => false;
    return found.map((c) => {
      const named = visible(c.owner);
      return { hostname: c.hostname, owner: named ? c.owner : null, message: phrase(c, named) };
    });
  }

  return {
    conflicts, told,
    reserveNamespace(namespace: HostnameNamespace): void {
      namespaces.push(Object.freeze({ ...namespace }));
    },
  };
}
export type Owners = ReturnType<typeof createOwners>;
