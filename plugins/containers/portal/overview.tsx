// The Docker engine's card on the overview (reachable or not, containers running, the engine's disk) and the pages a container or the engine named in an attention item opens.
import { bytes, count, enc, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

interface EngineSummary {
  engine: { reachable: boolean; version?: string; endpoint: string; eventsFollowed: boolean; disk?: { path: string; freeBytes: number; totalBytes: number } | null };
  containers: { running: number; stopped: number };
}

function EngineCard({ summary: { engine, containers } }: { summary: EngineSummary }) {
  if (!engine.reachable) {
    return <p class="bad">The Docker engine does not answer at <code>{engine.endpoint}</code>: stacks can neither deploy nor show their containers.</p>;
  }
  return (
    <>
      <p><strong>{count(containers.running, 'container')}</strong> running{containers.stopped ? <>, {containers.stopped} stopped</> : null}</p>
      <p class="muted">Docker {engine.version}{engine.eventsFollowed ? ', states followed live' : ', states read on each visit'}</p>
      {engine.disk && <p><strong>{bytes(engine.disk.freeBytes)}</strong> of {bytes(engine.disk.totalBytes)} free on the engine's disk</p>}
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'docker', title: 'Containers', href: '/containers', order: 20, component: EngineCard }];

export const resourcePaths: ResourcePaths = { container: (name) => `/containers/${enc(name)}`, docker: () => '/containers' };
