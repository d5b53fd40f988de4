// The releases plugin's portal page: a stack's releases with Rollback (a confirmation that shows the difference), and its available updates.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, can, Empty, enc, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, shortId, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

interface ServiceImage { service: string; image: string; digest: string | null; imageId?: string | null; origin: string }
interface Changes {
  revision: { from: number; to: number } | null; added: string[]; removed: string[];
  changed: { service: string; from: Omit<ServiceImage, 'service' | 'origin'>; to: Omit<ServiceImage, 'service' | 'origin'> }[];
  commit: { from: string | null; to: string | null } | null; compose: { changed: boolean; services: string[] }; variables: string[];
}
interface Release { number: number; createdAt: string; actor: { kind: string; name?: string }; kind: string; rolledBackTo: number | null; revision: number; services: ServiceImage[]; changes: Changes }

/** an image as a person tells it apart: its digest, else (built here) its image id */
const short = (digest: string | null, imageId?: string | null) => (digest ? shortId(digest) : imageId ? `image ${shortId(imageId)}` : 'no digest');

/** what a release changed from the one before, in a few lines (variable names only, never values) */
function ChangeList({ changes, first }: { changes: Changes; first: boolean }) {
  const lines: ComponentChildren[] = [];
  if (first) return <span class="muted">first release</span>;
  for (const c of changes.changed) {
    const from = c.from.image === c.to.image ? short(c.from.digest, c.from.imageId) : `${c.from.image} ${short(c.from.digest, c.from.imageId)}`;
    lines.push(<><code>{c.service}</code>: {c.from.digest === null && c.to.digest === null && c.from.image === c.to.image ? 'rebuilt, ' : 'image '}{from} → {c.to.image === c.from.image ? '' : `${c.to.image} `}{short(c.to.digest, c.to.imageId)}</>);
  }
  if (changes.added.length) lines.push(<>services added: {changes.added.join(', ')}</>);
  if (changes.removed.length) lines.push(<>services removed: {changes.removed.join(', ')}</>);
  if (changes.compose.services.length) lines.push(<>compose changed for {changes.compose.services.join(', ')}</>);
  else if (changes.compose.changed) lines.push(<>compose file changed</>);
  if (changes.variables.length) lines.push(<>variables: {changes.variables.join(', ')}</>);
  if (changes.commit) lines.push(<>commit <code>{changes.commit.from?.slice(0, 12) ?? 'none'}</code> → <code>{changes.commit.to?.slice(0, 12) ?? 'none'}</code></>);
  if (!lines.length) return <span class="muted">nothing changed (deployed again)</span>;
  return <ul class="changes">{lines.map((l) => <li>{l}</li>)}</ul>;
}

/** what a rollback from `current` to `target` changes, per service */
function Difference({ current, target }: { current: Release; target: Release }) {
  const names = [...new Set([...current.services, ...target.services].map((s) => s.service))].sort();
  return (
    <table>
      <thead><tr><th scope="col">Service</th><th scope="col">Runs now (release {current.number})</th><th scope="col">After the rollback (release {target.number})</th></tr></thead>
      <tbody>{names.map((n) => {
        const [from, to] = [current.services.find((s) => s.service === n), target.services.find((s) => s.service === n)];
        const same = from && to && from.image === to.image && from.digest === to.digest && from.imageId === to.imageId;
        return (
          <tr><th scope="row">{n}</th>
            <td>{from ? <><code>{from.image}</code> <span class="muted">{short(from.digest, from.imageId)}</span></> : <span class="muted">absent</span>}</td>
            <td>{to ? <><code>{to.image}</code> <span class="muted">{short(to.digest, to.imageId)}</span>{same && <span class="muted"> (unchanged)</span>}</> : <span class="muted">removed</span>}</td></tr>
        );
      })}</tbody>
      {current.revision !== target.revision && <caption>Compose file and variables of revision {target.revision} instead of {current.revision}</caption>}
    </table>
  );
}

function Releases({ params }: { params: Record<string, string> }) {
  const name = params.name;
  const path = { params: { path: { name } } };
  const list = useLoad(async () => (await ok(api.GET('/api/v1/stacks/{name}/releases', { params: { path: { name }, query: { limit: 50 } } }))) as unknown as Release[], [name]);
  const updates = useLoad(() => ok(api.GET('/api/v1/stacks/{name}/updates', path)), [name]);
  const [confirm, setConfirm] = useState<Release>();
  const [job, setJob] = useState<string>();
  const act = useAction();
  const started = (out: { id: string } | undefined) => { if (out) { setJob(out.id); setConfirm(undefined); } };
  const rollback = async () => started(await act.run(() => ok(api.POST('/api/v1/stacks/{name}/rollback', { ...path, body: { release: confirm!.number } }))));
  const check = async () => started(await act.run(() => ok(api.POST('/api/v1/stacks/{name}/updates/check', path))));
  const update = async () => started(await act.run(() => ok(api.POST('/api/v1/stacks/{name}/update', { ...path, body: {} }))));
  const current = list.data?.[0];
  return (
    <>
      <PageTitle title={`Releases of ${name}`}><Link href={`/stacks/${enc(name)}`}>Back to the stack</Link></PageTitle>
      <section aria-labelledby="updates-title">
        <h2 id="updates-title">Updates</h2>
        <Loading what={updates} />
        {updates.data && (updates.data.checkedAt === null ? <Empty>Not checked yet.</Empty> : (
          <table>
            <caption>Checked <Time at={updates.data.checkedAt} /></caption>
            <thead><tr><th scope="col">Service</th><th scope="col">Runs</th><th scope="col">Why</th><th scope="col">Policy</th><th scope="col">Newest</th><th scope="col">Update</th></tr></thead>
            <tbody>{updates.data.services.map((s) => (
              <tr><th scope="row">{s.service}</th><td><code>{s.image}</code> <span class="muted">{short(s.digest)}</span></td>
                <td>{s.origin === 'update' ? 'an update on top of its compose file' : 'its compose file'}</td><td>{s.policy}</td>
                <td>{s.candidate ? <><code>{s.candidate.tag}</code> <span class="muted">{short(s.candidate.digest)}</span></> : '—'}{s.error && <span class="error-text"> {s.error}</span>}</td>
                <td>{s.available ? <strong>available</strong> : 'up to date'}</td></tr>
            ))}</tbody>
          </table>
        ))}
        {can('stacks:deploy') && <p>
          <button type="button" onClick={check} disabled={act.busy}>Check now</button>{' '}
          {updates.data?.services.some((s) => s.available) && <button type="button" class="primary" onClick={update} disabled={act.busy}>Apply updates</button>}
        </p>}
      </section>
      {job && <JobOutput id={job} onDone={() => { list.reload(); updates.reload(); }} />}
      <section aria-labelledby="releases-title">
        <h2 id="releases-title">Releases</h2>
        <Loading what={list} />
        {list.data && (list.data.length === 0 ? <Empty>No release yet: each successful deploy records one.</Empty> : (
          <table>
            <thead><tr><th scope="col">Release</th><th scope="col">When</th><th scope="col">By</th><th scope="col">What</th><th scope="col">Changes</th><th scope="col">Images</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>{list.data.map((r) => (
              <tr><td>#{r.number}</td><td><Time at={r.createdAt} /></td><td>{r.actor.name ?? r.actor.kind}</td>
                <td>{r.kind}{r.rolledBackTo && ` to #${r.rolledBackTo}`} <span class="muted">revision {r.revision}</span></td>
                <td data-testid={`changes-${r.number}`}><ChangeList changes={r.changes} first={r === list.data![list.data!.length - 1] && r.number === 1} /></td>
                <td>{r.services.map((s) => <div><code>{s.service}</code>: <code>{s.image}</code> <span class="muted">{short(s.digest, s.imageId)}</span></div>)}</td>
                <td>{can('stacks:deploy') && r !== current && <button type="button" aria-label={`Roll back to release ${r.number}`} onClick={() => setConfirm(r)}>Rollback</button>}</td></tr>
            ))}</tbody>
          </table>
        ))}
      </section>
      {confirm && current && (
        <section class="card" role="dialog" aria-labelledby="confirm-title">
          <h2 id="confirm-title">Roll back to release {confirm.number}?</h2>
          <p>Every image is deployed pinned by digest, as release {confirm.number} ran it.</p>
          <Difference current={current} target={confirm} />
          <button type="button" class="primary" onClick={rollback} disabled={act.busy}>Roll back</button>{' '}
          <button type="button" onClick={() => setConfirm(undefined)}>Cancel</button>
        </section>
      )}
      <ProblemBox problem={act.problem} />
    </>
  );
}

// before the stacks plugin's /stacks/:name/:tab in the portal's routing (plugins are gathered by name)
export const pages: PortalPage[] = [{ path: '/stacks/:name/releases', title: 'Releases', scope: 'stacks:read', component: Releases }];
