// The edge plugin's portal page: the edge's state and ports, every hostname with its owner, certificate, state and a link that opens it, and what the edge refused.
import { Empty, enc, Link, Loading, PageTitle, Status, Time, type PortalPage } from '../../../sdk/portal/kit.tsx';
import { hostUrl, useEdge, type EdgeView } from '../../../sdk/portal/edge.tsx';
export { overviewCards, resourcePaths } from './overview.tsx';

/** `stack:web` → a link to the stack's page; owners without a page are named */
function Owner({ owner }: { owner: string }) {
  const [kind, name] = [owner.slice(0, owner.indexOf(':')), owner.slice(owner.indexOf(':') + 1)];
  if (kind === 'stack' || kind === 'site') return <Link href={`/${kind}s/${enc(name)}`}>{kind} {name}</Link>;
  return <code>{owner}</code>;
}

/** where a route sends its requests, in words */
function target(r: EdgeView['routes'][number]): string {
  const t = r.target as { service?: string; port?: number; basicAuth?: { username: string } };
  if (r.kind === 'proxy') return `service ${t.service} port ${t.port}`;
  return `files${t.basicAuth ? ` (asks for user ${t.basicAuth.username})` : ''}`;
}

function Edge() {
  const edge = useEdge();
  const e = edge.data;
  return (
    <>
      <PageTitle title="Edge">{e && <Status value={e.running ? 'running' : e.state} />}</PageTitle>
      <Loading what={edge} />
      {e && (
        <>
          <dl class="summary">
            <div><dt>State</dt><dd><Status value={e.state} /> {e.reason && <span class="error-text">{e.reason}</span>}</dd></div>
            <div><dt>Listens on</dt><dd>HTTP port {e.ports.http}, HTTPS port {e.ports.https}</dd></div>
            <div><dt>Caddy</dt><dd>{e.mode === 'managed' ? `run by Dockwright${e.pid ? ` (pid ${e.pid})` : ''}` : `external, admin API ${e.admin}`}{e.startedAt && <>, since <Time at={e.startedAt} /></>}</dd></div>
            <div><dt>Configuration</dt><dd>{e.pushes} pushed{e.lastApplied && <>, last <Time at={e.lastApplied} /></>}{e.restartNeeded && <div class="error-text">{e.restartNeeded}</div>}</dd></div>
          </dl>
          {e.refused && <p class="problem" role="alert">Caddy refused the configuration of <Time at={e.refused.at} /> and keeps the previous one: {e.refused.error}</p>}
          <h2>Hostnames</h2>
          {e.hostnames.length === 0 ? <Empty>No hostname is held: label a stack's service with dockwright.http.host, or give a site hostnames.</Empty> : (
            <table data-testid="edge-hostnames">
              <thead><tr><th scope="col">Hostname</th><th scope="col">Owner</th><th scope="col">Serves</th><th scope="col">Certificate</th><th scope="col">State</th></tr></thead>
              <tbody>{e.hostnames.map((h) => {
                const routes = e.routes.filter((r) => r.hostname === h.hostname);
                const https = routes.some((r) => r.https);
                return (
                  <tr>
                    <td>{routes.length ? <a href={hostUrl(h.hostname, https, e.ports)} target="_blank" rel="noreferrer">{hostUrl(h.hostname, https, e.ports)}</a> : <code>{h.hostname}</code>}</td>
                    <td><Owner owner={h.owner} /></td>
                    <td>{routes.length ? routes.map((r) => <div>{r.path !== '/' && <code>{r.path} </code>}{target(r)}</div>) : <span class="muted">nothing now</span>}</td>
                    <td>{h.certificate ? <><Link href={`/certificates/${enc(h.certificate.name)}`}>{h.certificate.name}</Link> <span class="muted">until <Time at={h.certificate.notAfter} /></span></> : <span class="muted">none: plain HTTP</span>}</td>
                    <td><Status value={routes.length ? 'routed' : 'reserved'} /> <span class="muted">since <Time at={h.claimedAt} /></span></td>
                  </tr>
                );
              })}</tbody>
            </table>
          )}
          {e.refusedRoutes.length > 0 && (
            <>
              <h2>Refused routes</h2>
              <ul class="attention">{e.refusedRoutes.map((r) => <li><Owner owner={r.owner} />: <span class="error-text">{r.message}</span> <Time at={r.at} /></li>)}</ul>
            </>
          )}
        </>
      )}
    </>
  );
}

export const pages: PortalPage[] = [{ path: '/edge', title: 'Edge', nav: 35, group: 'edge', scope: 'edge:read', component: Edge }];
