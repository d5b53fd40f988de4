// Who owns a hostname: the claims stored in PostgreSQL (routes, and what saved stacks name), and how a conflict is told to a caller.
import type { Db, Principal, PluginContext } from '../../sdk/index.ts';
import type { EdgeStore } from './store.ts';
import type { HostnameConflict } from './types.ts';

export function createOwners(ctx: PluginContext, store: EdgeStore) {
  /** the hostnames of `hostnames` another owner than `owner` holds, with that owner */
  async function conflicts(owner: string, hostnames: readonly string[], q?: Db): Promise<{ hostname: string; owner: string }[]> {
    const owners = await store.owners([...new Set(hostnames)], q);
    return [...owners].filter(([, o]) => o !== owner).map(([hostname, o]) => ({ hostname, owner: o }));
  }

  /**
   * the conflicts as `viewer` may learn them: the owner is named only when the viewer may see it (a stack hidden by its
   * access list is not revealed); without a viewer (a job, whose readers are many) no owner is named
   */
  async function told(found: readonly { hostname: string; owner: string }[], viewer?: Principal): Promise<HostnameConflict[]> {
    if (!found.length) return [];
    const visible = viewer ? await ctx.visibility.filter(viewer, found.map((c) => c.owner), 'read') : () => false;
    return found.map((c) => visible(c.owner)
      ? { hostname: c.hostname, owner: c.owner, message: `the hostname ${c.hostname} belongs to ${c.owner}` }
      : { hostname: c.hostname, owner: null, message: `the hostname ${c.hostname} is taken by another owner` });
  }

  return { conflicts, told };
}
export type Owners = ReturnType<typeof createOwners>;
