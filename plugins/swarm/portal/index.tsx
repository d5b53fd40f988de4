// The swarm plugin's portal page: the swarm's nodes with role, availability, state, resources and tasks (admins; hidden while the plugin is off).
import { api, Empty, Loading, ok, PageTitle, Status, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

function Nodes() {
  const list = useLoad(() => ok(api.GET('/api/v1/nodes', { params: { query: { limit: 500 } } })), [], 10_000);
  return (
    <>
      <PageTitle title="Swarm nodes" />
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No nodes.</Empty> : (
        <table>
          <thead><tr><th scope="col">Node</th><th scope="col">Role</th><th scope="col">Availability</th><th scope="col">State</th><th scope="col">Address</th><th scope="col">Engine</th><th scope="col">CPUs</th><th scope="col">Memory</th><th scope="col">Tasks running</th></tr></thead>
          <tbody>{list.data.map((n) => (
            <tr data-testid={`node-${n.hostname}`}>
              <td>{n.hostname}</td><td>{n.role}{n.leader ? ' (leader)' : ''}</td><td><Status value={n.availability} /></td><td><Status value={n.state} /></td>
              <td>{n.address ?? '—'}</td><td>{n.engineVersion ?? '—'}</td><td>{n.resources.cpus}</td><td>{gib(n.resources.memoryBytes)}</td>
              <td>{n.tasks.running} of {n.tasks.total}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

export const pages: PortalPage[] = [{ path: '/nodes', title: 'Nodes', nav: 75, scope: 'nodes:read', component: Nodes }];
