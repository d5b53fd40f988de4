// The stacks' card on the overview (how many run, and which need a look) and the page a stack named in an attention item opens.
import { count, enc, Link, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

/** the states in the order they matter, as people say them */
const states: [status: string, words: string, tone: string][] = [
  ['failed', 'failed to deploy', 'bad'], ['down', 'down', 'bad'], ['partial', 'partly running', 'warn'], ['deploying', 'deploying', ''],
  ['running', 'running', 'good'], ['stopped', 'stopped', ''], ['never-deployed', 'never deployed', ''], ['unknown', 'state unknown', 'warn'],
];

function StacksCard({ summary }: { summary: Record<string, number> }) {
  if (!summary.total) return <p>No stacks yet. <Link href="/stacks-new">Create one</Link>.</p>;
  return (
    <>
      <p><strong>{count(summary.total, 'stack')}</strong></p>
      <ul class="counts">{states.filter(([s]) => summary[s]).map(([s, words, tone]) => <li class={tone}><strong>{summary[s]}</strong> {words}</li>)}</ul>
    </>
  );
}

function PreviewsCard({ summary }: { summary: { total: number } }) {
  return <p>{summary.total ? <><strong>{count(summary.total, 'preview')}</strong> of pull requests running</> : 'No pull request previews.'}</p>;
}

export const overviewCards: OverviewCard[] = [
  { owner: 'stacks', title: 'Stacks', href: '/stacks', order: 10, component: StacksCard },
  { owner: 'previews', title: 'Previews', order: 15, component: PreviewsCard },
];

export const resourcePaths: ResourcePaths = { stack: (name) => `/stacks/${enc(name)}` };
