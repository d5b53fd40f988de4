// Helpers of the git tests: real bare repositories with commits made here, a server with the git plugin, signed push calls.
import { execFile } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { docker } from '../stacks/helpers.ts';

export { act, busybox, cleanupProjects, createStack, docker, uniqueName, waitJob } from '../stacks/helpers.ts';

const run = promisify(execFile);
const identity = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' };

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: { ...process.env, ...identity, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  return stdout.trim();
}

/** a bare repository (what the server fetches from) and a working copy the test commits in */
export class TestRepo {
  private constructor(readonly bare: string, readonly work: string) {}

  static async create(root: string, name: string): Promise<TestRepo> {
    const bare = join(root, `${name}.git`);
    const work = join(root, `${name}-work`);
    await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
    await run('git', ['init', '--quiet', '--initial-branch=main', work]);
    return new TestRepo(bare, work);
  }

  /** writes (or with null removes) files, commits and pushes to the branch; answers the commit id */
  async commit(files: Record<string, string | null>, message: string, branch = 'main'): Promise<string> {
    const branches = await git(this.work, 'branch', '--list', branch);
    const current = await git(this.work, 'rev-parse', '--abbrev-ref', 'HEAD').catch(() => 'main');
    if (current !== branch) await git(this.work, 'checkout', '--quiet', ...(branches ? [] : ['-b']), branch);
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.work, path);
      if (content === null) unlinkSync(full);
      else {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
    await git(this.work, 'add', '--all');
    await git(this.work, 'commit', '--quiet', '--allow-empty', '-m', message);
    await git(this.work, 'push', '--quiet', this.bare, `HEAD:refs/heads/${branch}`);
    const id = await git(this.work, 'rev-parse', 'HEAD');
    if (branch !== 'main') await git(this.work, 'checkout', '--quiet', 'main');
    return id;
  }

  async tag(name: string): Promise<void> {
    await git(this.work, 'tag', name);
    await git(this.work, 'push', '--quiet', this.bare, `refs/tags/${name}`);
  }
}

/** a folder for repositories, removed with rm() */
export function repoRoot(): { root: string; rm(): void } {
  const root = mkdtempSync(join(tmpdir(), 'dw-git-repos-'));
  return { root, rm: () => rmSync(root, { recursive: true, force: true }) };
}

export function startGitServer(allowedLocalRoots: string[], git: Record<string, unknown> = {}, config: Record<string, unknown> = {}, more: Partial<StartOptions> = {}): Promise<TestServer> {
  return startServer({
    ...more,
    // the tests poll the API for deploys to land: the per-token limit is the kernel's business, not theirs
    config: { rateLimit: { perMinute: 100_000 }, ...config },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 60_000, reconcile: false } },
      containers: {},
      stacks: {},
      git: { options: { allowedLocalRoots, pollIntervalMs: 1000, ...git } },
    },
  });
}

/** a compose file whose one service takes its variables from an env file of the tree */
export const envCompose = (file = 'app.env') => `services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    env_file: ${file}
`;

/** the environment of the stack's app container, as the engine has it */
export async function appEnv(stack: string): Promise<Record<string, string>> {
  const [c] = await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${stack}`, 'dockwright.service=app'] } });
  if (!c) throw new Error(`stack ${stack} has no app container`);
  const info = await docker.getContainer(c.Id).inspect();
  return Object.fromEntries((info.Config.Env ?? []).map((e: string) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

export const sign = (secret: string, body: string | Buffer) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export const pushPayload = (ref: string, after: string) => ({
  ref, before: '0'.repeat(40), after, created: false, deleted: false, forced: false,
  repository: { full_name: 'test/repo', default_branch: 'main' }, pusher: { name: 'test' },
});

export interface PushCall { event?: string; delivery?: string; secret?: string | null; signature?: string; headers?: Record<string, string>; body?: string }

/** a call signed the way GitHub signs it: HMAC-SHA256 over the exact bytes sent, hex, with the sha256= prefix */
export async function pushCall(s: TestServer, stack: string, payload: unknown, opts: PushCall = {}) {
  const body = opts.body ?? JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json', 'x-github-event': opts.event ?? 'push', 'x-github-delivery': opts.delivery ?? randomUUID(),
    'user-agent': 'GitHub-Hookshot/test', ...opts.headers,
  };
  if (opts.signature !== undefined) headers['x-hub-signature-256'] = opts.signature;
  else if (opts.secret) headers['x-hub-signature-256'] = sign(opts.secret, body);
  const res = await fetch(`${s.url}/api/stacks/${stack}/github`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text, text, headers: res.headers };
}

/** sets the git source and insists on success */
export async function setSource(s: TestServer, stack: string, body: Record<string, unknown>) {
  const res = await s.api('PUT', `/api/v1/stacks/${stack}/source`, { body });
  if (res.status !== 200) throw new Error(`PUT source of ${stack}: ${res.status} ${res.text}`);
  return res.body;
}

/** the deploy jobs of a stack, newest first */
export async function deployJobs(s: TestServer, stack: string): Promise<any[]> {
  return (await s.api('GET', `/api/v1/jobs?resource=stack:${stack}&type=stacks.deploy`)).body;
}
