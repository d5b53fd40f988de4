// Helpers of the previews tests: a server with git, the edge, alerts and previews; GitHub-shaped signed pull_request deliveries; what the engine holds of a project.
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { docker, freePort } from '../docker/helpers.ts';
import { git, pushCall, type TestRepo } from '../git/helpers.ts';

export interface PreviewServer extends TestServer { httpPort: number }

export async function startPreviewServer(allowedLocalRoots: string[], more: Omit<StartOptions, 'plugins'> & { previews?: Record<string, unknown>; portal?: boolean } = {}): Promise<PreviewServer> {
  const { previews = {}, portal = false, ...rest } = more;
  const httpPort = await freePort();
  const s = await startServer({
    ...rest,
    config: { rateLimit: { perMinute: 100_000 }, ...rest.config },
    plugins: {
      docker: { options: { stopTimeoutSeconds: 1, healthTimeoutMs: 60_000, reconcile: false } },
      containers: {},
      stacks: {},
      git: { options: { allowedLocalRoots, pollIntervalMs: 3_600_000 } },
      edge: { options: { httpPort, httpsPort: await freePort(), pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
      alerts: {},
      previews: { options: { webhookWindowSeconds: 1, ...previews } },
      ...(portal ? { portal: {} } : {}),
    },
  });
  return Object.assign(s, { httpPort });
}

/** a web service answering message=<MESSAGE>-<EXTRA> at /cgi-bin/env, published on `port`, with a named volume and the stack's hostname */
export const previewCompose = (host: string, port: number) => `services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "\${MESSAGE}-\${EXTRA:-none}" }
    ports: ["${port}:8080"]
    volumes: [data:/data]
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
volumes:
  data: {}
`;

/** the body GitHub sends with a pull_request event */
export const pullRequest = (action: string, number: number, sha: string, opts: { branch?: string; fork?: boolean } = {}) => ({
  action, number,
  pull_request: {
    number, state: action === 'closed' ? 'closed' : 'open', merged: false,
    head: { sha, ref: opts.branch ?? 'feature', repo: { full_name: opts.fork ? 'someone/fork' : 'test/repo' } },
    base: { sha: '0'.repeat(40), ref: 'main', repo: { full_name: 'test/repo' } },
  },
  repository: { full_name: 'test/repo' },
});

export const deliver = (s: TestServer, stack: string, secret: string, payload: unknown) => pushCall(s, stack, payload, { secret, event: 'pull_request' });

/** points refs/pull/<n>/head of the bare repository at a commit, as GitHub keeps it */
export const setPullRef = (repo: TestRepo, n: number, commit: string) => git(repo.work, 'push', '--quiet', '--force', repo.bare, `${commit}:refs/pull/${n}/head`);

/** what the engine holds of a project: containers (any state), networks and volumes */
export async function leftovers(project: string): Promise<{ containers: string[]; networks: string[]; volumes: string[] }> {
  const filters = { label: [`dockwright.project=${project}`] };
  return {
    containers: (await docker.listContainers({ all: true, filters })).map((c) => c.Names[0]),
    networks: (await docker.listNetworks({ filters })).map((n) => n.Name),
    volumes: ((await docker.listVolumes({ filters })).Volumes ?? []).map((v) => v.Name),
  };
}
