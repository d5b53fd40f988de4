// The alerts' card on the overview (open, critical, not acknowledged) and the page an alert channel named in an attention item opens.
import { count, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

function AlertsCard({ summary: a }: { summary: { open: number; critical: number; unacknowledged: number } }) {
  if (!a.open) return <p>No open alerts.</p>;
  return (
    <>
      <p class={a.critical ? 'bad' : 'warn'}><strong>{count(a.open, 'open alert')}</strong>{a.critical ? <>, {a.critical} critical</> : null}</p>
      {a.unacknowledged > 0 && <p class="muted">{a.unacknowledged} not acknowledged yet</p>}
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'alerts', title: 'Alerts', href: '/alerts', order: 60, component: AlertsCard }];

export const resourcePaths: ResourcePaths = { 'alert-channel': () => '/alert-channels' };
