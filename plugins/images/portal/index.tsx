// The images plugin's portal page: this installation's images with their size and users, the disk they take, and a prune that keeps what rollback needs.
import { useState } from 'preact/hooks';
import { api, bytes, can, Empty, enc, JobOutput, Link, Loading, ok, PageTitle, ProblemBox, shortId, Time, useAction, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';
export { overviewCards } from './overview.tsx';

type Image = Awaited<ReturnType<typeof loadImages>>[number];
const loadImages = () => ok(api.GET('/api/v1/images', { params: { query: { limit: 1000 } } }));

function UsedBy({ image }: { image: Image }) {
  const { stacks, releases, sites } = image.usedBy;
  const parts = [
    ...stacks.map((s) => <Link href={`/stacks/${enc(s)}`}>stack {s}</Link>),
    ...sites.map((s) => <Link href={`/sites/${enc(s)}`}>site {s}</Link>),
  ];
  const released = releases.map((r) => `${r.stack} #${r.number}`);
  return (
    <>
      {parts.length ? parts.map((p, i) => <>{i ? ', ' : ''}{p}</>) : null}
      {released.length ? <div class="muted">releases: {released.join(', ')}</div> : null}
      {!parts.length && !released.length && <span class="muted">nothing</span>}
    </>
  );
}

function Images() {
  const list = useLoad(loadImages, [], 10_000);
  const act = useAction();
  const [job, setJob] = useState<string | null>(null);
  const prune = async () => {
    const answer = await act.run(() => ok(api.POST('/api/v1/images/prune', {})));
    if (answer) setJob(answer.jobId);
  };
  const images = list.data ?? [];
  const total = images.reduce((n, i) => n + i.size, 0);
  const reclaimable = images.filter((i) => !i.kept).reduce((n, i) => n + i.size, 0);
  return (
    <>
      <PageTitle title="Images">
        {can('images:write') && <button type="button" class="primary" disabled={act.busy || reclaimable === 0} onClick={prune}>Prune unused images</button>}
      </PageTitle>
      <Loading what={list} />
      {list.data && (
        <p data-testid="images-disk">{images.length} images take {bytes(total)} on the engine; {bytes(reclaimable)} can be reclaimed.
          A prune keeps every image a container uses and those of each stack's last releases, so rollback keeps working.</p>
      )}
      {job && <JobOutput id={job} onDone={() => list.reload()} />}
      <ProblemBox problem={act.problem} />
      {list.data && (images.length === 0 ? <Empty>No images yet: they appear once a stack is deployed.</Empty> : (
        <table data-testid="images">
          <thead><tr><th scope="col">Image</th><th scope="col">Id</th><th scope="col">Size</th><th scope="col">Created</th><th scope="col">Used by</th><th scope="col">Prune</th></tr></thead>
          <tbody>{images.map((i) => (
            <tr>
              <td>{i.tags.length ? i.tags.map((t) => <div><code>{t}</code></div>) : <span class="muted">untagged</span>}</td>
              <td><code title={i.id}>{shortId(i.id)}</code></td>
              <td>{bytes(i.size)}</td>
              <td><Time at={i.created} /></td>
              <td><UsedBy image={i} /></td>
              <td>{i.kept ? <span class="muted">kept</span> : <span class="status status-warning">removed by a prune</span>}</td>
            </tr>
          ))}</tbody>
        </table>
      ))}
    </>
  );
}

export const pages: PortalPage[] = [{ path: '/images', title: 'Images', nav: 27, group: 'containers', scope: 'images:read', component: Images }];
