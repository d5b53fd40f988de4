// A stack's source as one service: its git side, uploads, the tree a deploy runs from and polling (each in a file of its own) joined with the view in answers and removal.
import { sourceContext, type SourceDeps } from './source-context.ts';
import { gitSources } from './git-sources.ts';
import { sourcePolling } from './source-polling.ts';
import { sourceView } from './source-view.ts';
import { stackSourceOf } from './stack-source.ts';
import { uploadSources } from './upload-sources.ts';

export { gitProblem, type CreateStack, type GitSource, type SourceSettings } from './source-context.ts';

export function createSources(deps: SourceDeps) {
  const cx = sourceContext(deps);
  const { store, workspace, lock } = cx;
  const git = gitSources(cx);
  const viewOf = async (stack: string) => {
    const row = await store.get(stack);
    return row && sourceView(row, (await store.deliveries(stack, 1))[0] ?? null);
  };

  return {
    source: stackSourceOf(cx),
    view: sourceView,
    viewOf,
    check: git.check,
    credentialsOf: cx.credentialsOf,
    pin: git.pin,
    unpin: git.unpin,
    setGit: git.setGit,
    async remove(stack: string): Promise<boolean> {
      return lock(stack, async () => {
        const removed = await store.remove(stack);
        await workspace.removeRepo(stack);
        await workspace.pruneUploads(stack, []);
        return removed;
      });
    },
    ...uploadSources(cx),
    createGit: git.createGit,
    ...sourcePolling(cx, git.check),
  };
}
export type Sources = ReturnType<typeof createSources>;
