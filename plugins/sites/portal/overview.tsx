// The sites' card on the overview and the page a site named in an attention item opens.
import { count, enc, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

function SitesCard({ summary: { sites } }: { summary: { sites: { total: number; failing: number } } }) {
  if (!sites.total) return <p>No static sites yet.</p>;
  return (
    <>
      <p><strong>{count(sites.total, 'site')}</strong>{sites.failing ? '' : ', all in sync'}</p>
      {sites.failing > 0 && <p class="bad"><strong>{sites.failing}</strong> failed to sync</p>}
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'sites', title: 'Sites', href: '/sites', order: 25, component: SitesCard }];

export const resourcePaths: ResourcePaths = { site: (name) => `/sites/${enc(name)}` };
