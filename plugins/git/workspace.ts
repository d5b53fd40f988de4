// The trees of each stack under the plugin's data folder: a shallow git checkout per stack, uploaded trees, a staging area.
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isWithin, realExisting } from '../../sdk/index.ts';
import { GitError, type Credentials, type Git } from './git.ts';

export const composeCandidates = ['compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml'];
const maxComposeBytes = 512 * 1024;

export interface Remote { url: string; branch: string; credentials: Credentials | null }
export interface CommitInfo { commit: string; subject: string; author: string; date: string }

/** a git failure that is the caller's mistake rather than the repository host's */
export class NotFound extends Error {}

export function createWorkspace(root: () => string, git: Git) {
  const stackDir = (stack: string) => join(root(), 'stacks', stack);
  const repoDir = (stack: string) => join(stackDir(stack), 'repo');
  // the repository lives beside the tree, not in it: containers may mount the tree, and a writable .git (its config,
  // its attributes) would let them choose what the next git command runs or where it sends the credentials
  const gitDir = (stack: string) => join(stackDir(stack), 'git');
  const at = (stack: string) => [`--git-dir=${gitDir(stack)}`, `--work-tree=${repoDir(stack)}`];
  const refOf = (branch: string) => `refs/remotes/source/${branch}`;

  /** the repository of the stack (created on first use); answers the git options that address it */
  async function ensureRepo(stack: string): Promise<string[]> {
    if (!existsSync(join(gitDir(stack), 'HEAD'))) {
      await rm(gitDir(stack), { recursive: true, force: true });
      await rm(repoDir(stack), { recursive: true, force: true });
      await mkdir(repoDir(stack), { recursive: true });
      await git(['init', '--quiet', '--bare', '--', gitDir(stack)]);
    }
    return at(stack);
  }

  const has = async (repo: string[], commit: string) => git([...repo, 'cat-file', '-e', `${commit}^{commit}`]).then(() => true, () => false);

  async function fetch(repo: string[], remote: Remote, what: string, depth: number, signal?: AbortSignal) {
    await git([...repo, 'fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', `--depth=${depth}`, '--', remote.url, what],
      { remote: remote.url, credentials: remote.credentials, signal });
  }

  return {
    repoDir,
    uploadsDir: (stack: string) => join(stackDir(stack), 'uploads'),
    /** a fresh path in the staging area (not created) */
    staging: async () => {
      const dir = join(root(), 'staging');
      await mkdir(dir, { recursive: true });
      return join(dir, randomBytes(8).toString('hex'));
    },

    /** fetches the branch head (shallow) and answers its commit */
    async fetchHead(stack: string, remote: Remote, signal?: AbortSignal, depth = 1): Promise<string> {
      const repo = await ensureRepo(stack);
      try {
        await fetch(repo, remote, `+refs/heads/${remote.branch}:${refOf(remote.branch)}`, depth, signal);
      } catch (err) {
        if (err instanceof GitError && /couldn't find remote ref/i.test(err.stderr)) throw new NotFound(`the repository has no branch "${remote.branch}"`);
        throw err;
      }
      return (await git([...repo, 'rev-parse', '--verify', '--quiet', `${refOf(remote.branch)}^{commit}`])).trim();
    },

    /** fetches a ref of the remote (`refs/pull/7/head`, `refs/heads/x`; shallow) and answers its commit; NotFound when the remote has no such ref */
    async fetchRef(stack: string, remote: Remote, ref: string, signal?: AbortSignal): Promise<string> {
      const repo = await ensureRepo(stack);
      try {
        await fetch(repo, remote, `+${ref}:refs/remotes/source/fetched`, 1, signal);
      } catch (err) {
        if (err instanceof GitError && /couldn't find remote ref/i.test(err.stderr)) throw new NotFound(`the repository has no ${ref}`);
        throw err;
      }
      return (await git([...repo, 'rev-parse', '--verify', '--quiet', 'refs/remotes/source/fetched^{commit}'])).trim();
    },

    /** the full id of a commit given in full or abbreviated, fetching it (or more history of the branch) when it is not here yet */
    async findCommit(stack: string, remote: Remote, id: string, searchDepth: number, signal?: AbortSignal): Promise<string> {
      const repo = await ensureRepo(stack);
      const resolveHere = async () => (await git([...repo, 'rev-parse', '--verify', '--quiet', `${id}^{commit}`]).catch(() => '')).trim();
      let found = await resolveHere();
      if (!found && (id.length === 40 || id.length === 64)) {
        await fetch(repo, remote, id, 1, signal).catch(() => undefined);
        found = await resolveHere();
      }
      if (!found) {
        await fetch(repo, remote, `+refs/heads/${remote.branch}:${refOf(remote.branch)}`, searchDepth, signal);
        found = await resolveHere();
      }
      if (!found) throw new NotFound(`commit ${id} is not in the repository (searched the last ${searchDepth} commits of ${remote.branch}${id.length < 40 ? '; give the full id of an older commit' : ''})`);
      return found;
    },

    /** makes sure the commit is here (a pinned commit after the checkout was removed, say) */
    async ensureCommit(stack: string, remote: Remote, commit: string, searchDepth: number, signal?: AbortSignal): Promise<void> {
      const repo = await ensureRepo(stack);
      if (await has(repo, commit)) return;
      await fetch(repo, remote, commit, 1, signal).catch(() => undefined);
      if (await has(repo, commit)) return;
      await fetch(repo, remote, `+refs/heads/${remote.branch}:${refOf(remote.branch)}`, searchDepth, signal);
      if (!(await has(repo, commit))) throw new NotFound(`commit ${commit} is no longer in the repository`);
    },

    async info(stack: string, commit: string): Promise<CommitInfo> {
      const out = await git([...at(stack), 'log', '-1', '--format=%H%x00%s%x00%an%x00%cI', commit, '--']);
      const [full, subject, author, date] = out.replace(/\n$/, '').split('\0');
      return { commit: full, subject, author, date };
    },

    /** which compose file the commit holds: the given path or the first candidate; null when there is none */
    async composeIn(stack: string, commit: string, path: string | null): Promise<string | null> {
      const wanted = path ? [path] : composeCandidates;
      const out = await git([...at(stack), 'ls-tree', '--name-only', commit, '--', ...wanted]);
      const present = new Set(out.split('\n').filter(Boolean));
      return wanted.find((p) => present.has(p)) ?? null;
    },

    /** the text of a file of the commit (at most the compose file's limit); null when the commit does not hold it */
    async fileAt(stack: string, commit: string, path: string): Promise<string | null> {
      const text = await git([...at(stack), 'show', `${commit}:${path}`]).catch(() => null);
      return text !== null && text.length <= maxComposeBytes ? text : null;
    },

    /** the working tree at this commit, exactly: no leftovers of an earlier checkout */
    async checkout(stack: string, commit: string, signal?: AbortSignal): Promise<string> {
      const dir = repoDir(stack);
      await mkdir(dir, { recursive: true });
      await git([...at(stack), 'checkout', '--quiet', '--force', '--detach', commit, '--'], { cwd: dir, signal });
      await git([...at(stack), 'clean', '--quiet', '-ffdx'], { cwd: dir, signal });
      return dir;
    },

    async removeRepo(stack: string) {
      await rm(repoDir(stack), { recursive: true, force: true });
      await rm(gitDir(stack), { recursive: true, force: true });
    },

    /** removes everything of the stack: repository, checkout, uploads (a creation that was refused) */
    removeStack: (stack: string) => rm(stackDir(stack), { recursive: true, force: true }),

    /** removes every uploaded tree of the stack but these */
    async pruneUploads(stack: string, keep: readonly string[]) {
      const dir = join(stackDir(stack), 'uploads');
      const names = await readdir(dir).catch(() => [] as string[]);
      await Promise.all(names.filter((n) => !keep.includes(n)).map((n) => rm(join(dir, n), { recursive: true, force: true })));
    },

    /** removes the folders of stacks that no longer have a source, and staging leftovers of an earlier process */
    async prune(withSource: ReadonlySet<string>, staging: boolean) {
      const names = await readdir(join(root(), 'stacks')).catch(() => [] as string[]);
      await Promise.all(names.filter((n) => !withSource.has(n)).map((n) => rm(stackDir(n), { recursive: true, force: true })));
      if (staging) await rm(join(root(), 'staging'), { recursive: true, force: true });
    },
  };
}
export type Workspace = ReturnType<typeof createWorkspace>;

/** the compose file of a tree: the given path or the first candidate, read only when it is a regular file inside the tree */
export async function readCompose(tree: string, path: string | null): Promise<{ path: string; text: string }> {
  const wanted = path ? [path] : composeCandidates;
  for (const rel of wanted) {
    const full = join(tree, rel);
    if (!existsSync(full)) continue;
    if (!isWithin(tree, full)) throw new NotFound(`the compose file ${rel} leads outside the source tree`);
    const real = realExisting(full);
    const stat = lstatSync(real);
    if (!stat.isFile()) throw new NotFound(`${rel} is not a file`);
    if (stat.size > maxComposeBytes) throw new NotFound(`the compose file ${rel} is larger than ${maxComposeBytes} bytes`);
    return { path: rel, text: await readFile(real, 'utf8') };
  }
  throw new NotFound(path ? `the source tree has no ${path}` : `the source tree has none of ${composeCandidates.join(', ')} at its root`);
}
