// A stack's source as a service: set, check, pin, upload, the tree a deploy runs from, the view in answers, and polling.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Problem, problem, type Actor, type Db, type KeyedLock, type Logger, type SecretsApi } from '../../sdk/index.ts';
import type { StacksApi, StackSource } from '../stacks/index.ts';
import { ArchiveRefused, extractArchive, type ArchiveLimits } from './archive.ts';
import { GitError, secretsOf, type Credentials } from './git.ts';
import type { Delivery, SourceRow, SourceStore, UploadInfo } from './store.ts';
import { NotFound, readCompose, type Remote, type Workspace } from './workspace.ts';

export interface SourceSettings { pinSearchDepth: number; archive: ArchiveLimits }

/** what makes the stack once its tree is ready (StacksApi.createFromTree): the compose text, the tree, and the source's own write */
export type CreateStack = (compose: string, workdir: string, within: (tx: Db) => Promise<void>) => Promise<{ warnings: { path: string; message: string }[] }>;
export interface GitSource {
  url: string; branch: string; composePath: string | null; autodeploy?: boolean; credentials: Credentials | null | undefined;
  /** the credentials are the stack's own deploy key: shown as such, and replaced with it when a new one is made */
  deployKey?: boolean;
}

type PrepareIo = Parameters<StackSource['prepare']>[1];

/** what a git failure means to a caller: their mistake (422) or the repository host's (502); never with a secret in it */
export function gitProblem(err: unknown, what: string): Problem {
  if (err instanceof NotFound) return problem(422, err.message, { code: 'source-not-found' });
  // the outbound policy refused the host (422) or its name did not resolve (502): already said well
  if (err instanceof Problem) return err;
  if (err instanceof GitError) return problem(502, `${what}: ${err.message}`, { code: 'git-failed' });
  return problem(500, `${what} failed: ${(err as Error).message}`);
}

export function createSources(deps: {
  store: SourceStore; workspace: Workspace; lock: KeyedLock; secrets: SecretsApi; stacks: StacksApi; log: Logger; settings: SourceSettings;
}) {
  const { store, workspace, lock, secrets, stacks, log, settings } = deps;

  const credentialsOf = (row: SourceRow): Credentials | null => (row.credentialsSealed ? JSON.parse(secrets.open(row.credentialsSealed)) as Credentials : null);
  const remoteOf = (row: SourceRow): Remote => ({ url: row.url!, branch: row.branch!, credentials: credentialsOf(row) });

  async function gitRow(stack: string): Promise<SourceRow> {
    const row = await store.get(stack);
    if (!row) throw problem(404, `stack "${stack}" has no source; PUT /api/v1/stacks/${stack}/source sets one`, { code: 'no-source' });
    if (row.kind !== 'git') throw problem(409, `the source of stack "${stack}" is an uploaded archive, not a git repository`, { code: 'not-git' });
    return row;
  }

  function view(row: SourceRow, lastPush: Delivery | null) {
    return {
      stack: row.stack,
      kind: row.kind,
      url: row.url,
      branch: row.branch,
      path: row.composePath,
      autodeploy: row.autodeploy,
      credentials: row.credentialsKind ? { kind: row.credentialsKind } : null,
      pinnedCommit: row.pinnedCommit,
      remoteHead: row.remoteHead,
      remoteSubject: row.remoteSubject,
      deployedCommit: row.deployedCommit,
      deployedAt: row.deployedAt,
      lastCheckedAt: row.lastCheckedAt,
      lastError: row.lastError,
      upload: row.upload,
      lastPush: lastPush && {
        deliveryId: lastPush.deliveryId, provider: lastPush.provider, event: lastPush.event, ref: lastPush.ref, commit: lastPush.afterCommit,
        outcome: lastPush.outcome, reason: lastPush.reason, jobId: lastPush.jobId, at: lastPush.receivedAt,
      },
      updatedAt: row.updatedAt,
    };
  }
  const viewOf = async (stack: string) => {
    const row = await store.get(stack);
    return row && view(row, (await store.deliveries(stack, 1))[0] ?? null);
  };

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

  const sealedOf = (credentials: Credentials | null, deployKey = false) => (credentials
    ? { credentialsSealed: secrets.seal(JSON.stringify(credentials)), credentialsKind: deployKey ? 'deploy-key' as const : credentials.kind }
    : { credentialsSealed: null, credentialsKind: null });

  /** the archive unpacked into `staging` and its compose file found; a refusal says nothing was changed */
  async function stageArchive(staging: string, archive: Buffer, opts: { composePath: string | null; strip: number }) {
    let extracted;
    try {
      extracted = await extractArchive(archive, staging, { ...settings.archive, strip: opts.strip });
    } catch (err) {
      if (err instanceof ArchiveRefused) throw problem(err.status, `${err.message}; nothing was changed`, { code: 'archive-refused' });
      throw err;
    }
    let compose: { path: string; text: string };
    try {
      compose = await readCompose(staging, opts.composePath);
    } catch (err) {
      const hint = opts.strip === 0 ? ' (if the archive holds one top folder, ?strip=1 takes the tree from inside it)' : '';
      throw problem(422, `${(err as Error).message}${hint}; nothing was changed`, { code: 'compose-missing' });
    }
    const upload: UploadInfo = {
      id: `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`, format: extracted.format,
      sha256: createHash('sha256').update(archive).digest('hex'), bytes: extracted.bytes, files: extracted.files, at: new Date().toISOString(),
    };
    return { upload, compose };
  }

  /** runs a creation: when it fails before the stack's source was saved, the trees it wrote go */
  async function creating<T>(stack: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(await store.get(stack))) await workspace.removeStack(stack);
      throw err;
    }
  }

  const source: StackSource = {
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

  return {
    source,
    view,
    viewOf,
    check,
    credentialsOf,

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

    async remove(stack: string): Promise<boolean> {
      return lock(stack, async () => {
        const removed = await store.remove(stack);
        await workspace.removeRepo(stack);
        await workspace.pruneUploads(stack, []);
        return removed;
      });
    },

    /** checks the archive, writes it beside the current tree, then switches the stack to it; on refusal nothing changes */
    async upload(stack: string, archive: Buffer, opts: { composePath: string | null; strip: number }) {
      const staging = await workspace.staging();
      try {
        const { upload, compose } = await stageArchive(staging, archive, opts);
        return await lock(stack, async () => {
          const before = await store.get(stack);
          await workspace.pruneUploads(stack, before?.upload ? [before.upload.id] : []);
          const target = join(workspace.uploadsDir(stack), upload.id);
          await mkdir(dirname(target), { recursive: true });
          await rename(staging, target);
          const row = await store.put(stack, {
            kind: 'upload', upload, composePath: opts.composePath === null ? null : compose.path,
            deployedCommit: before?.deployedCommit ?? null, deployedAt: before?.deployedAt ?? null,
            ...(before ? { autodeploy: before.autodeploy } : {}),
          });
          // the previous tree stays until the next upload: a deploy may be reading it right now
          if (before?.kind === 'git') await workspace.removeRepo(stack);
          return row;
        });
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },

    /** a new stack from the archive: its tree in place, then the stack and its source in one transaction; on any refusal nothing is left */
    async createUploaded(stack: string, archive: Buffer, opts: { composePath: string | null; strip: number }, create: CreateStack) {
      const staging = await workspace.staging();
      try {
        const { upload, compose } = await stageArchive(staging, archive, opts);
        return await lock(stack, () => creating(stack, async () => {
          const target = join(workspace.uploadsDir(stack), upload.id);
          await mkdir(dirname(target), { recursive: true });
          await rename(staging, target);
          return create(compose.text, target, async (tx) => {
            await store.put(stack, { kind: 'upload', upload, composePath: opts.composePath === null ? null : compose.path }, tx);
          });
        }));
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
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
export type Sources = ReturnType<typeof createSources>;
