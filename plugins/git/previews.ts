// The source trees of previews: the stack's repository fetched at a pull request's ref or a commit, one checkout per preview beside the stack's own.
import { join } from 'node:path';
import { Problem, type SecretsApi } from '../../sdk/index.ts';
import { GitError, secretsOf, type Credentials } from './git.ts';
import type { SourceStore } from './store.ts';
import { NotFound, readCompose, type Workspace } from './workspace.ts';

/** what a preview is built from: a ref (`refs/pull/7/head`, `refs/heads/x`), else `branch`, else the stack's branch; at `commit` when given */
export interface PreviewWant { ref?: string | null; branch?: string | null; commit?: string | null }
export interface PreviewTree { workdir: string; compose: string; commit: string | null }
type Io = { log(line: string): void; redact(secret: string): void; signal?: AbortSignal };

/** `workspace`: the previews' own checkouts; `stacks`: the stacks' workspace (their uploaded trees) */
export function previewTrees(deps: { store: SourceStore; workspace: Workspace; stacks: Workspace; secrets: SecretsApi; searchDepth: number }) {
  const { store, workspace, secrets } = deps;
  const dirOf = (stack: string, key: string) => `${stack}.${key}`;

  async function at(stack: string, key: string, want: PreviewWant, io: Io): Promise<PreviewTree | null> {
    const row = await store.get(stack);
    if (!row) return null;
    if (row.kind === 'upload') {
      // an uploaded tree has no refs: the preview runs the stack's current upload with its own variables
      const tree = join(deps.stacks.uploadsDir(stack), row.upload!.id);
      const compose = await readCompose(tree, row.composePath);
      io.log(`source: the uploaded archive of ${stack} (${row.upload!.id}), compose file ${compose.path}`);
      return { workdir: tree, compose: compose.text, commit: null };
    }
    const credentials = row.credentialsSealed ? JSON.parse(secrets.open(row.credentialsSealed)) as Credentials : null;
    for (const s of secretsOf(credentials)) io.redact(s);
    const dir = dirOf(stack, key);
    try {
      const refs = [want.ref, want.branch ? `refs/heads/${want.branch}` : null, want.ref || want.branch ? null : `refs/heads/${row.branch}`].filter((r): r is string => Boolean(r));
      let fetched: string | null = null;
      for (const ref of refs) {
        fetched = await workspace.fetchRef(dir, { url: row.url!, branch: row.branch!, credentials }, ref, io.signal).catch((err) => {
          if (err instanceof NotFound) { io.log(`source: ${err.message}`); return null; }
          throw err;
        });
        if (fetched) { io.log(`source: fetched ${ref} of ${row.url}: ${fetched}`); break; }
      }
      if (!fetched && !want.commit) throw new NotFound(`the repository has none of ${refs.join(', ')}`);
      const commit = want.commit ?? fetched!;
      if (want.commit) await workspace.ensureCommit(dir, { url: row.url!, branch: want.branch ?? row.branch!, credentials }, want.commit, deps.searchDepth, io.signal);
      const info = await workspace.info(dir, commit);
      const tree = await workspace.checkout(dir, commit, io.signal);
      const compose = await readCompose(tree, row.composePath);
      io.log(`source: commit ${info.commit.slice(0, 12)} "${info.subject}" by ${info.author}, compose file ${compose.path}`);
      return { workdir: tree, compose: compose.text, commit: info.commit };
    } catch (err) {
      if (err instanceof GitError || err instanceof NotFound || err instanceof Problem) throw new Error(err.message);
      throw err;
    }
  }

  return {
    at,
    remove: (stack: string, key: string) => workspace.removeRepo(dirOf(stack, key)),
  };
}
