// The sync of a site from its source, as a job: fetch the branch head, build it in a container when asked, publish a new commit, record the outcome.
import { cp, rm } from 'node:fs/promises';
import { diskFull, Problem, Type, type Actor, type JobHandle, type JobRun, type ContextWith } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import type { Credentials, GitApi } from '../git/index.ts';
import type { Files } from './files.ts';
import type { Sites } from './sites.ts';
import type { Build, SiteStore } from './store.ts';

export const syncType = 'sites.sync';
export const resourceOf = (name: string) => `site:${name}`;

/**
 * The build command in a throwaway container over a copy of the tree, as this process's user; no host shell anywhere.
 * Answers the workspace: what the container left in it is untrusted (the output folder may be a link out of it).
 */
async function runBuild(runtime: DockerRuntime, files: Files, site: string, tree: string, build: Build, job: JobRun<unknown>, timeoutMs: number): Promise<{ workspace: string; cleanup(): Promise<void> }> {
  const docker = runtime.docker;
  const work = await files.stagingDir();
  const cleanup = () => rm(work, { recursive: true, force: true });
  try {
    await cp(tree, work, { recursive: true, verbatimSymlinks: true });
    const present = await docker.getImage(build.image).inspect().then(() => true, () => false);
    if (!present) {
      const refusal = await runtime.registryRefusal(build.image);
      if (refusal) throw new Error(`the build image ${build.image} is not present locally and cannot be pulled: ${refusal}`);
      // as a deploy pulls: the registry's token service checked right before the engine is asked, the saved login used
      await runtime.pullImage(build.image, job);
    }
    job.log(`building with ${build.image}: ${JSON.stringify(build.command)}`);
    const container = await docker.createContainer({
      Image: build.image, Cmd: build.command, WorkingDir: '/src',
      User: `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`,
      Env: ['HOME=/tmp'],
      Labels: { 'dockwright.installation': runtime.installationId, 'dockwright.site': site, 'dockwright.role': 'site-build' },
      HostConfig: { Binds: [`${work}:/src`], AutoRemove: false, CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'] },
    });
    try {
      await container.start();
      const stop = () => void container.kill().catch(() => undefined);
      job.signal.addEventListener('abort', stop, { once: true });
      if (job.signal.aborted) stop();
      const timer = setTimeout(stop, timeoutMs);
      const { StatusCode } = await container.wait() as { StatusCode: number };
      clearTimeout(timer);
      const logs = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
      // the engine frames each chunk with an 8-byte header when no TTY is attached
      let at = 0;
      const text: string[] = [];
      while (at + 8 <= logs.length) { const n = logs.readUInt32BE(at + 4); text.push(logs.subarray(at + 8, at + 8 + n).toString('utf8')); at += 8 + n; }
      for (const line of text.join('').split('\n').slice(-200)) if (line) job.log(line);
      if (job.signal.aborted) throw new Error('the build was canceled');
      if (StatusCode !== 0) throw new Error(`the build command exited with status ${StatusCode}`);
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
    return { workspace: work, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

export function syncJob(deps: { ctx: ContextWith<'events' | 'secrets'>; store: SiteStore; files: Files; sites: Sites; git: GitApi; runtime: () => DockerRuntime | null; buildTimeoutMs: number }) {
  const { ctx, store, files, sites, git } = deps;
  const handle: JobHandle<{ site: string }> = ctx.jobs.define({
    type: syncType,
    input: Type.Object({ site: Type.String() }),
    async run(job) {
      const name = job.input.site;
      const row = await sites.rowOf(name);
      if (!row.source) throw new Error(`site "${name}" is upload-only: it has no source to sync`);
      const source = row.source;
      try {
        const credentials = row.credentialsSealed ? JSON.parse(ctx.secrets.open(row.credentialsSealed)) as Credentials : null;
        for (const s of git.secretsOf(credentials)) job.redact(s);
        job.log(`fetching ${source.display} (${source.branch})`);
        const { commit, subject, tree } = await git.checkoutHead(name, { url: source.url, branch: source.branch, credentials }, job.signal);
        job.log(`head ${commit.slice(0, 12)} ${subject}`);
        if (commit === row.syncedCommit && row.version > 0) {
          // nothing new: the sync still succeeded, so lastDeploy advances with the version already served
          const lastDeploy = { at: new Date().toISOString(), version: row.version, commit };
          await store.recordSync(name, { lastError: null, lastDeploy });
          job.log(`version ${row.version} already serves this commit`);
          ctx.events.emit('site.synced', { site: name, version: row.version, commit, jobId: job.id });
          return { version: row.version, commit, changed: false };
        }
        let folder = await sites.folderIn(tree, source.path);
        let within = tree;
        let cleanup = async () => undefined as unknown;
        if (source.build) {
          const runtime = deps.runtime();
          if (!runtime) throw new Error('this site has a build, and builds need the docker plugin');
          const built = await runBuild(runtime, files, name, folder, source.build, job as JobRun<unknown>, deps.buildTimeoutMs);
          cleanup = built.cleanup;
          within = built.workspace;
          folder = await sites.folderIn(built.workspace, source.build.output, 'build').catch(async (err) => { await cleanup(); throw err; });
        }
        let published;
        try {
          const manifest = await files.ingest(folder, { move: false, within, skipped: (path, target) => job.log(`not published: ${path}, a symbolic link to ${target} out of the published folder`) });
          try {
            published = await sites.publish(name, manifest, { origin: 'commit', actor: job.actor, commit });
          } finally {
            files.release(Object.values(manifest));
          }
        } finally {
          await cleanup();
        }
        await store.recordSync(name, { lastError: null, syncedCommit: commit });
        job.log(`published version ${published.version}: ${published.fileCount} files, ${published.bytes} bytes`);
        ctx.events.emit('site.synced', { site: name, version: published.version, commit, jobId: job.id });
        return { ...published, commit, changed: true };
      } catch (err) {
        const error = diskFull(err)?.detail ?? (err instanceof Problem ? err.detail : (err as Error).message);
        await store.recordSync(name, { lastError: error }).catch(() => undefined);
        ctx.events.emit('site.sync.failed', { site: name, jobId: job.id, error });
        throw err;
      }
    },
  });

  return {
    /** a sync of the site, or the one already queued */
    start: (name: string, actor: Actor) => handle.enqueue({ site: name }, { actor, resource: resourceOf(name), serialKey: resourceOf(name), attachToQueued: true }),
    /** every site with a source, checked on the schedule */
    async checkAll(): Promise<void> {
      for (const row of await store.list()) {
        if (row.source) await handle.enqueue({ site: row.name }, { actor: { kind: 'system', name: 'sites-check' }, resource: resourceOf(row.name), serialKey: resourceOf(row.name), attachToQueued: true });
      }
    },
  };
}
export type SyncJob = ReturnType<typeof syncJob>;
