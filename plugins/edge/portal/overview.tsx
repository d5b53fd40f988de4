// The edge's card on the overview (serving or not, how many hostnames) and the page the edge named in an attention item opens.
import { count, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

function EdgeCard({ summary: { edge } }: { summary: { edge: { state: string; mode: string; routes: number } } }) {
  const serving = edge.state === 'running';
  return (
    <>
      <p class={serving ? '' : 'bad'}>{serving ? <>Serving <strong>{count(edge.routes, 'route')}</strong></> : <>Not serving: Caddy is <strong>{edge.state}</strong></>}</p>
      <p class="muted">{edge.mode === 'managed' ? 'Caddy started and kept running by Dockwright' : `Caddy ${edge.mode}`}</p>
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'edge', title: 'Edge', href: '/edge', order: 30, component: EdgeCard }];

export const resourcePaths: ResourcePaths = { edge: () => '/edge' };
