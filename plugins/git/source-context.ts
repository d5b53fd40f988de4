// What the source services share: their dependencies and settings, a source's credentials sealed and opened, git failures as problems, and a creation that leaves nothing behind.
import { Problem, problem, type Db, type KeyedLock, type Logger, type SecretsApi } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/index.ts';
import type { ArchiveLimits } from './archive.ts';
import { GitError, type Credentials } from './git.ts';
import type { SourceRow, SourceStore } from './store.ts';
import { NotFound, type Remote, type Workspace } from './workspace.ts';

export interface SourceSettings { pinSearchDepth: number; archive: ArchiveLimits }

/** what makes the stack once its tree is ready (StacksApi.createFromTree): the compose text, the tree, and the source's own write */
export type CreateStack = (compose: string, workdir: string, within: (tx: Db) => Promise<void>) => Promise<{ warnings: { path: string; message: string }[] }>;
export interface GitSource {
  url: string; branch: string; composePath: string | null; autodeploy?: boolean; credentials: Credentials | null | undefined;
  /** the credentials are the stack's own deploy key: shown as such, and replaced with it when a new one is made */
  deployKey?: boolean;
}

/** what a git failure means to a caller: their mistake (422) or the repository host's (502); never with a secret in it */
export function gitProblem(err: unknown, what: string): Problem {
  if (err instanceof NotFound) return problem(422, err.message, { code: 'source-not-found' });
  // the outbound policy refused the host (422) or its name did not resolve (502): already said well
  if (err instanceof Problem) return err;
  if (err instanceof GitError) return problem(502, `${what}: ${err.message}`, { code: 'git-failed' });
  return problem(500, `${what} failed: ${(err as Error).message}`);
}

/** the 404 of a stack without a source, saying how to set one */
export const noSource = (stack: string): Problem => problem(404, `stack "${stack}" has no source; PUT /api/v1/stacks/${stack}/source sets one`, { code: 'no-source' });

export interface SourceDeps {
  store: SourceStore; workspace: Workspace; lock: KeyedLock; secrets: SecretsApi; stacks: StacksApi; log: Logger; settings: SourceSettings;
}

/** the dependencies with the helpers every source service uses */
export type SourceContext = ReturnType<typeof sourceContext>;

export function sourceContext(deps: SourceDeps) {
  const { store, workspace, secrets } = deps;

  const credentialsOf = (row: SourceRow): Credentials | null => (row.credentialsSealed ? JSON.parse(secrets.open(row.credentialsSealed)) as Credentials : null);
  const remoteOf = (row: SourceRow): Remote => ({ url: row.url!, branch: row.branch!, credentials: credentialsOf(row) });

  async function gitRow(stack: string): Promise<SourceRow> {
    const row = await store.get(stack);
    if (!row) throw noSource(stack);
    if (row.kind !== 'git') throw problem(409, `the source of stack "${stack}" is an uploaded archive, not a git repository`, { code: 'not-git' });
    return row;
  }

  const sealedOf = (credentials: Credentials | null, deployKey = false) => (credentials
    ? { credentialsSealed: secrets.seal(JSON.stringify(credentials)), credentialsKind: deployKey ? 'deploy-key' as const : credentials.kind }
    : { credentialsSealed: null, credentialsKind: null });

  /** runs a creation: when it fails before the stack's source was saved, the trees it wrote go */
  async function creating<T>(stack: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(await store.get(stack))) await workspace.removeStack(stack);
      throw err;
    }
  }

  return { ...deps, credentialsOf, remoteOf, gitRow, sealedOf, creating };
}
