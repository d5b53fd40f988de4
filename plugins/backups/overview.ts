// What the backups plugin adds to the overview: how many backups the viewer sees, failing and missed, and an attention item for each.
import type { AttentionItem, OverviewContributor, Principal } from '../../sdk/index.ts';
import { resourceOf } from './routes.ts';
import type { BackupRow } from './store.ts';

export function backupsOverview(seenBy: (viewer: Principal) => Promise<BackupRow[]>): OverviewContributor {
  return {
    scope: 'backups:read',
    async summary(viewer) {
      const rows = await seenBy(viewer);
      return { total: rows.length, failing: rows.filter((r) => r.lastRun?.status === 'failed').length, missed: rows.filter((r) => r.missedSlot).length };
    },
    async attention(viewer) {
      return (await seenBy(viewer)).flatMap((r): AttentionItem[] => [
        ...(r.lastRun?.status === 'failed' ? [{ severity: 'critical' as const, kind: 'backup-failed', resource: resourceOf(r.name), message: `the last run of backup ${r.name} failed: ${r.lastRun.error ?? ''}`, since: r.lastRun.finishedAt }] : []),
        ...(r.missedSlot ? [{ severity: 'warning' as const, kind: 'backup-missed', resource: resourceOf(r.name), message: `backup ${r.name} did not run at ${r.missedSlot} (schedule ${r.schedule})`, since: r.missedSlot }] : []),
      ]);
    },
  };
}
