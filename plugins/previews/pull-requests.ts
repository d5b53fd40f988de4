// Pull requests handed over by the git plugin's push receiver: opened, reopened and synchronize make the preview pr-<number>, closed removes it.
import { Problem } from '../../sdk/index.ts';
import type { PullRequestReceiver } from '../git/api.ts';
import type { Previews } from './core.ts';
import type { PreviewStore } from './store.ts';

interface Side { sha?: unknown; ref?: unknown; repo?: { full_name?: unknown } | null }
interface PullRequestPayload { action?: unknown; number?: unknown; pull_request?: { number?: unknown; head?: Side; base?: Side } }

const commitPattern = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const branchPattern = /^(?!.*(\.\.|\/\/|@\{|\.lock$|\/$))[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/;

export function pullRequestReceiver(previews: Previews, store: PreviewStore): PullRequestReceiver {
  return async ({ stack, payload, actor }) => {
    const p = payload as PullRequestPayload;
    const ignored = (reason: string) => ({ outcome: 'ignored', reason, jobId: null });
    const action = typeof p.action === 'string' ? p.action : '';
    const number = Number(p.number ?? p.pull_request?.number);
    if (!Number.isInteger(number) || number < 1 || number > 2_147_483_647) return ignored('the payload names no pull request number');
    const key = `pr-${number}`;
    if (action === 'closed') {
      const job = await previews.remove(stack, key, actor);
      return job ? { outcome: 'removed', reason: null, jobId: job.id } : ignored(`pull request #${number} has no preview`);
    }
    if (!['opened', 'reopened', 'synchronize'].includes(action)) return ignored(`the pull request action "${action}" changes no preview: opened, reopened and synchronize deploy one, closed removes it`);
    const settings = await store.settings(stack);
    if (!settings.enabled) return ignored(`previews are not enabled for stack ${stack}`);
    const head = p.pull_request?.head;
    const base = p.pull_request?.base;
    const from = typeof head?.repo?.full_name === 'string' ? head.repo.full_name : null;
    const into = typeof base?.repo?.full_name === 'string' ? base.repo.full_name : null;
    if (from !== into && !settings.fromForks) return ignored(`pull request #${number} comes from the fork ${from ?? '(a deleted repository)'}; previews of forks are off (fromForks)`);
    const commit = typeof head?.sha === 'string' && commitPattern.test(head.sha) ? head.sha : null;
    const branch = typeof head?.ref === 'string' && branchPattern.test(head.ref) && from === into ? head.ref : null;
    try {
      // refs/pull/<n>/head where the remote has it (GitHub, Gitea), else the head branch of the same repository
      const done = await previews.deploy(stack, key, { pullRequest: number, ref: `refs/pull/${number}/head`, fallbackBranch: branch, commit }, actor);
      return done.outcome === 'limit' ? ignored(done.reason) : { outcome: 'deployed', reason: done.job.attached ? 'attached to the queued deploy of the preview' : null, jobId: done.job.id };
    } catch (err) {
      // a refusal (previews off, a key too long, a removal under way) is the delivery's outcome, not a failure of the receiver
      if (err instanceof Problem && err.status < 500) return ignored(err.detail);
      throw err;
    }
  };
}
