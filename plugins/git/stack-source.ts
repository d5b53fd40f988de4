// The stacks plugin's view of a git or uploaded source: whether a stack has one, its tree and compose file, and the tree a deploy runs from.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Problem } from '../../sdk/index.ts';
import type { StackSource } from '../stacks/index.ts';
import { GitError, secretsOf } from './git.ts';
import { NotFound, readCompose } from './workspace.ts';
import type { SourceContext } from './source-context.ts';

type PrepareIo = Parameters<StackSource['prepare']>[1];

export function stackSourceOf({ store, workspace, lock, settings, remoteOf }: SourceContext): StackSource {
  return {
    async hasSource(stack) {
      return (await store.get(stack)) !== null;
    },
    async current(stack) {
      const row = await store.get(stack);
      if (!row) return null;
      const tree = row.kind === 'upload' ? join(workspace.uploadsDir(stack), row.upload!.id) : workspace.repoDir(stack);
      return existsSync(tree) ? { workdir: tree } : null;
    },
    async composeFile(stack) {
      const row = await store.get(stack);
      if (!row) return null;
      if (row.kind === 'upload') {
        const up = row.upload!;
        const found = await readCompose(join(workspace.uploadsDir(stack), up.id), row.composePath).catch(() => null);
        return found && { text: found.text, origin: { kind: 'upload', path: found.path, at: up.at, sha256: up.sha256 } };
      }
      const commit = row.pinnedCommit ?? row.deployedCommit ?? row.remoteHead;
      if (!commit) return null;
      const path = await workspace.composeIn(stack, commit, row.composePath).catch(() => null);
      const text = path && await workspace.fileAt(stack, commit, path);
      if (text === null || !path) return null;
      const subject = commit === row.remoteHead ? row.remoteSubject : null;
      return { text, origin: { kind: 'git', path, url: row.url!, branch: row.branch!, commit, subject } };
    },
    async prepare(stack, io: PrepareIo, at) {
      return lock(stack, async () => {
        const row = await store.get(stack);
        if (!row) return null;
        if (row.kind === 'upload') {
          const up = row.upload!;
          const tree = join(workspace.uploadsDir(stack), up.id);
          const compose = await readCompose(tree, row.composePath).catch((err) => { throw new Error((err as Error).message); });
          io.log(`source: the ${up.format} archive uploaded at ${up.at} (${up.files} files, sha256 ${up.sha256.slice(0, 16)}…), compose file ${compose.path}`);
          return { workdir: tree, compose: compose.text };
        }
        const remote = remoteOf(row);
        for (const s of secretsOf(remote.credentials)) io.redact(s);
        try {
          let commit: string;
          // a given commit (a rollback to a release) or the pinned one: fetched as far as the pin search goes, as a preview's
          const wanted = at?.commit ?? row.pinnedCommit;
          if (wanted) {
            await workspace.ensureCommit(stack, remote, wanted, settings.pinSearchDepth, io.signal);
            commit = wanted;
            io.log(at?.commit ? `source: ${row.url} at ${commit}, the commit asked for` : `source: ${row.url} pinned to ${commit}`);
          } else {
            commit = await workspace.fetchHead(stack, remote, io.signal);
            io.log(`source: fetched ${row.branch} of ${row.url}: ${commit}`);
          }
          const info = await workspace.info(stack, commit);
          if (!wanted) await store.set(stack, { remoteHead: commit, remoteSubject: info.subject, lastCheckedAt: new Date().toISOString(), lastError: null });
          const tree = await workspace.checkout(stack, commit, io.signal);
          const compose = await readCompose(tree, row.composePath);
          io.log(`source: commit ${commit.slice(0, 12)} "${info.subject}" by ${info.author}, compose file ${compose.path}`);
          return { workdir: tree, compose: compose.text, commit };
        } catch (err) {
          const message = err instanceof GitError || err instanceof NotFound || err instanceof Problem ? err.message : `preparing the source failed: ${(err as Error).message}`;
          await store.set(stack, { lastError: message });
          throw new Error(message);
        }
      });
    },
  };
}
