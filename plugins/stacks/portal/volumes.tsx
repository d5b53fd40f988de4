// The stacks plugin's volumes page: the installation's named volumes with their stack, sizes on demand, and removing an unused one after a confirmation.
import { useState } from 'preact/hooks';
import { api, bytes, can, Empty, enc, Link, Loading, naturally, ok, PageTitle, ProblemBox, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

function Volumes() {
  const [sized, setSized] = useState(false);
  const list = useLoad(async () => (await ok(api.GET('/api/v1/volumes', { params: { query: sized ? { size: '1' } : {} } }))).sort((a, b) => naturally(a.name, b.name)), [sized], 15_000);
  const [confirming, setConfirming] = useState<string>();
  const [said, setSaid] = useState('');
  const act = useAction();
  const remove = async (name: string) => {
    setConfirming(undefined);
    if (await act.run(() => ok(api.DELETE('/api/v1/volumes/{name}', { params: { path: { name } } })).then(() => true))) { setSaid(`Volume ${name} is removed.`); list.reload(); }
  };
  return (
    <>
      <PageTitle title="Volumes">{!sized && <button type="button" onClick={() => setSized(true)}>Measure sizes</button>}</PageTitle>
      <p class="muted">The named volumes of this installation's stacks. A volume outlives its containers and its stack; removing one loses its data.</p>
      {said && <p role="status">{said}</p>}
      <ProblemBox problem={act.problem} />
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No volumes.</Empty> : (
        <table data-testid="volumes">
          <thead><tr><th scope="col">Volume</th><th scope="col">Stack</th><th scope="col">Driver</th><th scope="col">Created</th><th scope="col">Size</th><th scope="col">Used by</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{list.data.map((v) => (
            <tr>
              <td><code>{v.name}</code></td>
              <td>{v.stackExists ? <Link href={`/stacks/${enc(v.stack)}`}>{v.stack}</Link> : <>{v.stack} <span class="muted">(deleted)</span></>}</td>
              <td>{v.driver}</td><td><Time at={v.createdAt} /></td>
              <td>{sized ? bytes(v.size) : <span class="muted">not measured</span>}</td>
              <td>{v.containers === null ? <span class="muted">—</span> : `${v.containers} container${v.containers === 1 ? '' : 's'}`}</td>
              <td>{can('stacks:write') && (confirming === v.name
                ? <span role="alert">Remove {v.name} and its data? <button type="button" class="danger" onClick={() => remove(v.name)}>Yes, remove {v.name}</button> <button type="button" onClick={() => setConfirming(undefined)}>Cancel</button></span>
                : <button type="button" class="danger" onClick={() => setConfirming(v.name)} aria-label={`Remove volume ${v.name}…`}>Remove…</button>)}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

export const volumePages: PortalPage[] = [{ path: '/volumes', title: 'Volumes', nav: 25, group: 'containers', scope: 'stacks:read', component: Volumes }];
