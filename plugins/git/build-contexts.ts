// Build contexts given as git URLs (`build: https://host/repo.git#ref:dir`): fetched through the outbound policy into a cache per repository, each build checking out a tree of its own.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { keyedLock, type OutboundApi } from '../../sdk/index.ts';
import type { GitContextFetcher } from '../docker/api.ts';
import { GitError, secretsOf, type Git } from './git.ts';
import { checkRemote } from './remote.ts';

export function gitBuildContexts(deps: { git: Git; root: () => string; allowedLocalRoots: readonly string[]; outbound: OutboundApi }): GitContextFetcher {
  const { git } = deps;
  // one fetch and checkout at a time per repository: they share its object store and index
  const lock = keyedLock();

  return async (context, io, use) => {
    const remote = await checkRemote({ url: context.url }, deps.allowedLocalRoots, deps.outbound).catch((err: Error) => {
      throw new Error(`the build context ${context.url.replace(/\/\/[^@/]*@/, '//')} is not fetched: ${err.message}`);
    });
    for (const secret of secretsOf(remote.credentials)) io.redact?.(secret);
    const key = createHash('sha256').update(remote.url).digest('hex').slice(0, 32);
    const gitDir = join(deps.root(), 'repos', key);
    const tree = join(deps.root(), 'trees', randomBytes(8).toString('hex'));
    const ref = context.ref ?? 'HEAD';
    const named = `${remote.display}${context.ref ? `#${context.ref}` : ''}`;
    try {
      const commit = await lock(key, async () => {
        if (!existsSync(join(gitDir, 'HEAD'))) {
          await mkdir(gitDir, { recursive: true });
          await git(['init', '--quiet', '--bare', '--', gitDir]);
        }
        const repo = [`--git-dir=${gitDir}`];
        // a full commit id is fetched as itself; anything else as the ref the remote names so
        const byId = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(ref);
        const wanted = byId ? ref : `+${ref}:refs/fetched/build`;
        try {
          await git([...repo, 'fetch', '--quiet', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', '--depth=1', '--', remote.url, wanted],
            { remote: remote.url, credentials: remote.credentials, signal: io.signal });
        } catch (err) {
          if (err instanceof GitError && /couldn't find remote ref|not our ref|no such remote ref/i.test(err.stderr)) throw new Error(`the repository ${remote.display} has no ref ${ref}`);
          throw err;
        }
        const id = (await git([...repo, 'rev-parse', '--verify', '--quiet', `${byId ? ref : 'refs/fetched/build'}^{commit}`])).trim();
        await mkdir(tree, { recursive: true });
        await git([...repo, `--work-tree=${tree}`, 'checkout', '--quiet', '--force', '--detach', id, '--'], { cwd: tree, signal: io.signal });
        return id;
      });
      io.log(`build context: ${named}${context.dir ? `, folder ${context.dir}` : ''} at commit ${commit.slice(0, 12)}`);
      return await use(tree, commit);
    } catch (err) {
      if (err instanceof GitError) throw new Error(`fetching the build context ${named} failed: ${err.message}`);
      throw err;
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  };
}
