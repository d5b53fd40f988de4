// Polling git sources: each stack that follows its branch deploys a new head when one is found.
import type { Actor } from '../../sdk/index.ts';
import type { SourceContext } from './source-context.ts';

export function sourcePolling({ store, stacks, log }: SourceContext, check: (stack: string) => Promise<{ head: { commit: string } }>) {
  return {
    /** one round of polling: each git stack with autodeploy, not pinned and deployed from git before, deploys a new head */
    async poll(actor: Actor): Promise<void> {
      const rows = (await store.all()).filter((r) => r.kind === 'git' && r.autodeploy && !r.pinnedCommit && r.deployedCommit);
      const queue = [...rows];
      const worker = async () => {
        for (let row = queue.shift(); row; row = queue.shift()) {
          try {
            const { head } = await check(row.stack);
            const now = await store.get(row.stack);
            if (!now || now.pinnedCommit || head.commit === now.deployedCommit || head.commit === now.lastTriggeredCommit) continue;
            await store.set(row.stack, { lastTriggeredCommit: head.commit });
            const job = await stacks.deploy(row.stack, actor, true);
            log.info({ stack: row.stack, commit: head.commit, jobId: job.id }, 'new commit found by polling: deploying');
          } catch (err) {
            log.warn({ stack: row.stack, err: (err as Error).message }, 'polling the git source failed');
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(4, rows.length) }, worker));
    },
  };
}
