// What the stacks plugin adds to the overview: counts of stacks by status, and an attention item for each failed deploy and each stack whose services should run but do not.
import type { AttentionItem, OverviewContributor } from '../../sdk/index.ts';
import { canSee } from './access.ts';
import { resourceOf, type Core } from './core.ts';
import type { StackStore } from './store.ts';
import { stackView, statusOf } from './view.ts';

export function stacksOverview(store: StackStore, core: Core): OverviewContributor {
  return {
    scope: 'stacks:read',
    async summary(viewer) {
      const rows = (await store.all()).filter((r) => canSee(viewer, r.access, r.name));
      const live = await core.live(rows);
      const counts: Record<string, number> = { total: rows.length };
      for (const r of rows) {
        const status = statusOf(r, live);
        counts[status] = (counts[status] ?? 0) + 1;
      }
      return counts;
    },
    async attention(viewer) {
      const rows = (await store.all()).filter((r) => canSee(viewer, r.access, r.name));
      const live = await core.live(rows);
      return rows.flatMap((r): AttentionItem[] => {
        const view = stackView(r, live);
        if (view.status === 'failed') {
          return [{ severity: 'critical', kind: 'deploy-failed', resource: resourceOf(r.name), message: `the last deploy of ${r.name} failed: ${view.lastDeploy?.error ?? ''}`, since: view.lastDeploy?.finishedAt ?? undefined }];
        }
        if (r.desired === 'running' && (view.status === 'partial' || view.status === 'down')) {
          const down = view.services.filter((s) => s.declared && !s.containers.some((c) => c.state === 'running')).map((s) => s.name);
          return [{ severity: 'warning', kind: 'services-down', resource: resourceOf(r.name), message: `${r.name}: ${down.length ? down.join(', ') : 'services'} should run but ${down.length === 1 ? 'is' : 'are'} not running` }];
        }
        return [];
      });
    },
  };
}
