// A stack's git source: set it, fetch its branch head, pin and unpin a commit, and create a stack from a repository.
import { problem, type Db } from '../../sdk/index.ts';
import { readCompose } from './workspace.ts';
import { gitProblem, type CreateStack, type GitSource, type SourceContext } from './source-context.ts';

export function gitSources({ store, workspace, lock, settings, remoteOf, gitRow, sealedOf, creating }: SourceContext) {
  /** fetches the branch head; records what was seen (or the error) on the source */
  async function check(stack: string, signal?: AbortSignal) {
    return lock(stack, async () => {
      const row = await gitRow(stack);
      try {
        const head = await workspace.fetchHead(stack, remoteOf(row), signal);
        const [info, compose] = await Promise.all([workspace.info(stack, head), workspace.composeIn(stack, head, row.composePath)]);
        const error = compose ? null : `commit ${head.slice(0, 12)} has ${row.composePath ? `no ${row.composePath}` : 'no compose file at its root'}`;
        await store.set(stack, { remoteHead: head, remoteSubject: info.subject, lastCheckedAt: new Date().toISOString(), lastError: error });
        return { head: info, compose, error };
      } catch (err) {
        const p = gitProblem(err, `checking ${row.url}`);
        await store.set(stack, { lastCheckedAt: new Date().toISOString(), lastError: p.detail });
        throw p;
      }
    });
  }

  return {
    check,

    /** pins to a commit of the repository (abbreviated ids are resolved); answers the full id */
    async pin(stack: string, id: string): Promise<string> {
      return lock(stack, async () => {
        const row = await gitRow(stack);
        let full: string;
        try {
          full = await workspace.findCommit(stack, remoteOf(row), id, settings.pinSearchDepth);
        } catch (err) {
          throw gitProblem(err, `looking for commit ${id} in ${row.url}`);
        }
        await store.set(stack, { pinnedCommit: full });
        return full;
      });
    },

    async unpin(stack: string): Promise<void> {
      await lock(stack, async () => {
        await gitRow(stack);
        await store.set(stack, { pinnedCommit: null, lastTriggeredCommit: null });
      });
    },

    /** sets (or replaces) the git source; the working tree of a different repository starts afresh */
    async setGit(stack: string, next: GitSource) {
      return lock(stack, async () => {
        const before = await store.get(stack);
        const sameRepo = before?.kind === 'git' && before.url === next.url;
        // kept credentials are only ever sent to the repository they were given for
        const sealed = next.credentials === undefined
          ? (sameRepo ? { credentialsSealed: before.credentialsSealed, credentialsKind: before.credentialsKind } : { credentialsSealed: null, credentialsKind: null })
          : sealedOf(next.credentials, next.deployKey);
        const row = await store.put(stack, {
          kind: 'git', url: next.url, branch: next.branch, composePath: next.composePath, ...sealed,
          ...(next.autodeploy !== undefined ? { autodeploy: next.autodeploy } : {}),
          pinnedCommit: sameRepo ? before.pinnedCommit : null,
          deployedCommit: before?.deployedCommit ?? null, deployedAt: before?.deployedAt ?? null,
          remoteHead: sameRepo && before.branch === next.branch ? before.remoteHead : null,
          remoteSubject: sameRepo && before.branch === next.branch ? before.remoteSubject : null,
        });
        if (!sameRepo) await workspace.removeRepo(stack);
        if (before?.kind === 'upload') await workspace.pruneUploads(stack, []);
        return row;
      });
    },

    /** a new stack from the branch head of a repository: fetched and checked out first; any failure leaves nothing */
    async createGit(stack: string, next: GitSource, create: CreateStack, alsoWithin?: (tx: Db) => Promise<void>) {
      return lock(stack, () => creating(stack, async () => {
        const remote = { url: next.url, branch: next.branch, credentials: next.credentials ?? null };
        let head: string, tree: string, compose: { path: string; text: string }, subject: string;
        try {
          head = await workspace.fetchHead(stack, remote);
          subject = (await workspace.info(stack, head)).subject;
          tree = await workspace.checkout(stack, head);
        } catch (err) {
          throw gitProblem(err, `fetching ${next.url}`);
        }
        try {
          compose = await readCompose(tree, next.composePath);
        } catch (err) {
          throw problem(422, `commit ${head.slice(0, 12)} of ${next.url}: ${(err as Error).message}; nothing was created`, { code: 'compose-missing' });
        }
        return create(compose.text, tree, async (tx) => {
          await store.put(stack, {
            kind: 'git', url: next.url, branch: next.branch, composePath: next.composePath, ...sealedOf(next.credentials ?? null, next.deployKey),
            ...(next.autodeploy !== undefined ? { autodeploy: next.autodeploy } : {}),
            remoteHead: head, remoteSubject: subject, lastCheckedAt: new Date().toISOString(),
          }, tx);
          await alsoWithin?.(tx);
        });
      }));
    },
  };
}
