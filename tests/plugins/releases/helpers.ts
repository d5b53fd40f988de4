// Helpers of the releases tests: a server with stacks, alerts, registries and releases; semver-tagged variants of the test image pushed to the local registry.
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { docker } from '../docker/helpers.ts';

export { act, createStack, waitJob } from '../stacks/helpers.ts';
export { cleanupProjects, containerOf, docker, uniqueName } from '../docker/helpers.ts';

export const registry = process.env.REGISTRY_OPEN ?? '127.0.0.1:5000';

/** a server with stacks, alerts, registries and releases; `plugins` adds more (git…) */
export function startReleasesServer(opts: Omit<StartOptions, 'plugins'> & { plugins?: Record<string, unknown> } = {}): Promise<TestServer> {
  const { plugins = {}, ...rest } = opts;
  return startServer({
    ...rest,
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      containers: {}, stacks: {}, alerts: {}, registries: {}, releases: {},
      ...plugins,
    },
  });
}

async function follow(stream: NodeJS.ReadableStream): Promise<void> {
  await new Promise((resolve, reject) => docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve(null))));
}

/**
 * A variant of the local test image (a file /version holding `version`, and `cmd` as its command), pushed as `ref`
 * (with `login` to its registry, when given); the local tag is dropped so a deploy has to pull. Answers the registry's digest.
 */
export async function publishVariant(ref: string, version: string, cmd: string[] = ['sleep', '3600'], base?: string, login?: { username: string; password: string }): Promise<string> {
  await localVariant(ref, version, cmd, base);
  let digest = '';
  const stream = await docker.getImage(ref).push({ authconfig: { serveraddress: ref.slice(0, ref.indexOf('/')), ...login } } as Record<string, unknown>) as unknown as NodeJS.ReadableStream;
  await new Promise((resolve, reject) => docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve(null)), (e: { aux?: { Digest?: string } }) => { digest = e.aux?.Digest ?? digest; }));
  await docker.getImage(ref).remove().catch(() => undefined);
  if (!digest) throw new Error(`no digest from the push of ${ref}`);
  return digest;
}

/** a variant of the local test image (its own image id) tagged `ref` on the engine only */
export async function localVariant(ref: string, version: string, cmd: string[] = ['sleep', '3600'], base = 'dockwright-test/busybox:1'): Promise<void> {
  const c = await docker.createContainer({ Image: base, Cmd: ['sh', '-c', `echo ${version} > /version`] });
  await c.start();
  await c.wait();
  const [repo, tag] = [ref.slice(0, ref.lastIndexOf(':')), ref.slice(ref.lastIndexOf(':') + 1)];
  await c.commit({ repo, tag, changes: [`CMD ${JSON.stringify(cmd)}`] } as never);
  await c.remove({ force: true });
}

/** the repository digests of the image a container runs */
export async function runningDigests(containerId: string): Promise<string[]> {
  const info = await docker.getContainer(containerId).inspect();
  return (await docker.getImage(info.Image).inspect()).RepoDigests ?? [];
}

export { follow };
