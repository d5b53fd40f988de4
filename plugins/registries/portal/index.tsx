// The registries plugin's portal page: saved registry logins (never their passwords), add and remove.
import { useState } from 'preact/hooks';
import { api, can, Empty, Loading, ok, PageTitle, ProblemBox, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

function Registries() {
  const list = useLoad(() => ok(api.GET('/api/v1/registries', { params: { query: { limit: 500 } } })), []);
  const [host, setHost] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const add = async (e: Event) => {
    e.preventDefault();
    if (await act.run(() => ok(api.POST('/api/v1/registries', { body: { host, username, password } })))) { setHost(''); setUsername(''); setPassword(''); list.reload(); }
  };
  const remove = async (h: string) => { if (await act.run(() => ok(api.DELETE('/api/v1/registries/{host}', { params: { path: { host: h } } })).then(() => true))) list.reload(); };
  return (
    <>
      <PageTitle title="Registry logins" />
      <Loading what={list} />
      {list.data && (list.data.length === 0 ? <Empty>No registry logins: public images only.</Empty> : (
        <table>
          <thead><tr><th scope="col">Registry</th><th scope="col">User</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>{list.data.map((r) => (
            <tr><td><code>{r.host}</code></td><td>{r.username}</td><td><Time at={r.addedAt} /> by {r.addedBy.name ?? r.addedBy.kind}</td><td><Time at={r.lastUsedAt} /></td>
              <td>{can('registries:write') && <button type="button" aria-label={`Remove login for ${r.host}`} onClick={() => remove(r.host)}>Remove</button>}</td></tr>
          ))}</tbody>
        </table>
      ))}
      {can('registries:write') && (
        <form class="card" onSubmit={add}>
          <h2>Add a login</h2>
          <label>Registry host<input required value={host} placeholder="registry.example.com" onInput={(e) => setHost(e.currentTarget.value)} /></label>
          <label>User name<input required value={username} autoComplete="off" onInput={(e) => setUsername(e.currentTarget.value)} /></label>
          <label>Password or token<input required type="password" autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
          <button type="submit" class="primary" disabled={act.busy}>Save login</button>
        </form>
      )}
      <ProblemBox problem={act.problem} />
    </>
  );
}

export const pages: PortalPage[] = [{ path: '/registries', title: 'Registries', nav: 28, group: 'containers', scope: 'registries:read', component: Registries }];
