// The swarm's card on the overview (nodes, managers, down) and the page a node named in an attention item opens.
import { count, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

function SwarmCard({ summary: s }: { summary: { swarm: boolean; nodes?: number; managers?: number; down?: number } }) {
  if (!s.swarm) return <p class="muted">This engine is not part of a swarm.</p>;
  return (
    <>
      <p><strong>{count(s.nodes ?? 0, 'node')}</strong>, {count(s.managers ?? 0, 'manager')}</p>
      {s.down ? <p class="bad"><strong>{s.down}</strong> down</p> : <p class="muted">All ready.</p>}
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'swarm', title: 'Swarm', href: '/nodes', order: 70, component: SwarmCard }];

export const resourcePaths: ResourcePaths = { node: () => '/nodes' };
