// The overview page: what needs attention (each item linked to the page that fixes it), a card per plugin in sentences, recent deploys, the host, and the first steps of an empty installation.
import type { ComponentChildren } from 'preact';
import { overviewCards } from 'dockwright:pages';
import { api, bytes, can, Empty, enc, Link, Loading, ok, PageTitle, Status, Time, useLoad, words, type OverviewCard } from '../../../sdk/portal/kit.tsx';
import { actorText, took } from './jobs.tsx';
import { resourceHref } from './resources.ts';
import { HistoryPlots } from '../../../sdk/portal/history.tsx';

type Overview = NonNullable<ReturnType<typeof useOverview>['data']>;
type Attention = Overview['attention'][number];

const useOverview = () => useLoad(() => ok(api.GET('/api/v1/overview')), [], 5000);

function AttentionList({ items }: { items: Attention[] }) {
  if (!items.length) return <Empty>Nothing needs attention.</Empty>;
  return (
    <ul class="attention" data-testid="attention">
      {items.map((a) => {
        const href = resourceHref(a.resource);
        return (
          <li class={`sev-${a.severity}`}>
            <Status value={a.severity} /> <span class="message">{a.message}</span>
            {a.since && <span class="muted"> · since <Time at={a.since} /></span>}
            {href && <> <Link href={href} class="fix">Open {a.resource!.replace(/:.*/, '')} <span aria-hidden="true">→</span></Link></>}
          </li>
        );
      })}
    </ul>
  );
}

/** the card of a plugin the portal has no card for (a plugin from npm): its summary as labelled values */
function PlainCard({ summary }: { summary: unknown }) {
  if (!summary || typeof summary !== 'object') return <p>{words(summary)}</p>;
  return <>{Object.entries(summary as Record<string, unknown>).map(([k, v]) => <p>{k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}: <strong>{words(v)}</strong></p>)}</>;
}

function Card({ title, href, children, testid }: { title: string; href?: string; children: ComponentChildren; testid?: string }) {
  return (
    <section class="card-tile" aria-label={title} data-testid={testid}>
      <h3>{href ? <Link href={href}>{title}</Link> : title}</h3>
      {children}
    </section>
  );
}

function HostCard({ host }: { host: Overview['host'] }) {
  const used = (free: number, total: number) => Math.round(100 * (1 - free / Math.max(total, 1)));
  return (
    <Card title="This server" testid="host">
      <p><strong>{bytes(host.memory.freeBytes)}</strong> of {bytes(host.memory.totalBytes)} memory free</p>
      {host.disk && <p class={used(host.disk.freeBytes, host.disk.totalBytes) > 90 ? 'bad' : ''}><strong>{bytes(host.disk.freeBytes)}</strong> of {bytes(host.disk.totalBytes)} free on the data folder's disk</p>}
    </Card>
  );
}

const kernelCards: OverviewCard[] = [
  {
    owner: 'jobs', title: 'Jobs', href: '/jobs', order: 80,
    component: ({ summary: s }: { summary: { queued: number; running: number; failedLast24h: number } }) => (
      <>
        <p>{s.running || s.queued ? <><strong>{s.running}</strong> running, <strong>{s.queued}</strong> waiting</> : 'No job is running.'}</p>
        <p class={s.failedLast24h ? 'bad' : 'muted'}>{s.failedLast24h ? <><strong>{s.failedLast24h}</strong> failed in the last 24 hours</> : 'None failed in the last 24 hours.'}</p>
      </>
    ),
  },
];

function RecentDeploys() {
  const deploys = useLoad(() => ok(api.GET('/api/v1/jobs', { params: { query: { type: 'stacks.deploy', limit: 5 } } })), [], 5000);
  if (!deploys.data?.length) return null;
  return (
    <section aria-labelledby="recent-deploys">
      <h2 id="recent-deploys">Recent deploys</h2>
      <table data-testid="recent-deploys">
        <thead><tr><th scope="col">Stack</th><th scope="col">Outcome</th><th scope="col">By</th><th scope="col">Started</th><th scope="col">Took</th></tr></thead>
        <tbody>{deploys.data.map((j) => {
          const stack = j.resource?.replace(/^stack:/, '') ?? '';
          return (
            <tr><td><Link href={`/stacks/${enc(stack)}`}>{stack}</Link></td><td><Link href={`/jobs/${j.id}`}><Status value={j.status} /></Link></td>
              <td>{actorText(j.actor)}</td><td><Time at={j.startedAt ?? j.createdAt} /></td><td>{took(j)}</td></tr>
          );
        })}</tbody>
      </table>
    </section>
  );
}

/** an installation with no stack yet: the way to the first one */
function FirstSteps() {
  return (
    <section class="first-steps" aria-labelledby="first-steps" data-testid="first-steps">
      <h2 id="first-steps">Deploy your first stack</h2>
      <p>A stack is a compose file that Dockwright deploys on this server's Docker engine: paste one, point at a git repository, or upload an archive with a Dockerfile.</p>
      <p><Link href="/stacks-new" class="button primary">New stack</Link>{can('sites:write') && <> or <Link href="/sites-new">publish a static site</Link></>}</p>
    </section>
  );
}

export function OverviewPage() {
  const overview = useOverview();
  const o = overview.data;
  const cards = [...kernelCards, ...overviewCards].sort((a, b) => a.order - b.order);
  const known = new Set(cards.map((c) => c.owner));
  const stacks = o?.summary.stacks as { total?: number } | undefined;
  return (
    <>
      <PageTitle title="Overview" />
      <Loading what={overview} />
      {o && (
        <>
          {stacks?.total === 0 && can('stacks:write') && <FirstSteps />}
          <section aria-labelledby="attention">
            <h2 id="attention">Needs attention</h2>
            <AttentionList items={o.attention} />
          </section>
          <section aria-labelledby="summary">
            <h2 id="summary">At a glance</h2>
            <div class="tiles" data-testid="summary">
              {cards.filter((c) => o.summary[c.owner] != null).map((c) => <Card title={c.title} href={c.href} testid={`card-${c.owner}`}><c.component summary={o.summary[c.owner]} /></Card>)}
              {Object.entries(o.summary).filter(([owner, v]) => !known.has(owner) && v != null).map(([owner, v]) => <Card title={owner} testid={`card-${owner}`}><PlainCard summary={v} /></Card>)}
              <HostCard host={o.host} />
            </div>
          </section>
          {can('metrics:read') && <HistoryPlots scope="host" title="Host" />}
          {can('jobs:read') && <RecentDeploys />}
        </>
      )}
    </>
  );
}
