// The backups' card on the overview (plans, failing, missed) and the page a backup named in an attention item opens.
import { count, enc, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

function BackupsCard({ summary: b }: { summary: { total: number; failing: number; missed: number } }) {
  if (!b.total) return <p>No backups yet.</p>;
  const healthy = !b.failing && !b.missed;
  return (
    <>
      <p><strong>{count(b.total, 'backup')}</strong>{healthy ? ', all ran as planned' : ''}</p>
      {b.failing > 0 && <p class="bad"><strong>{b.failing}</strong> failed at the last run</p>}
      {b.missed > 0 && <p class="warn"><strong>{b.missed}</strong> missed a scheduled run</p>}
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'backups', title: 'Backups', href: '/backups', order: 50, component: BackupsCard }];

export const resourcePaths: ResourcePaths = { backup: (name) => `/backups/${enc(name)}` };
