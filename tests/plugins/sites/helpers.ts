// Helpers of the sites tests: a server with the edge (a real Caddy on free ports), git and sites, archives of a site, reads through the edge.
import { startServer, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { freePort } from '../docker/helpers.ts';
import { tar, tgz, zip, type TestEntry } from '../git/archives.ts';

export { edgeAnswers, edgeRunning, viaEdge } from '../edge/helpers.ts';
export { tar, tgz, zip, type TestEntry };

export interface SitesServer extends TestServer { httpPort: number }

/** `more`: further plugins beside the sites' own (the portal, say) */
export async function startSitesServer(opts: { sites?: Record<string, unknown>; git?: Record<string, unknown>; more?: Record<string, unknown> } & Omit<StartOptions, 'plugins'> = {}): Promise<SitesServer> {
  const { sites = {}, git = {}, more = {}, ...rest } = opts;
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const s = await startServer({
    ...rest,
    config: { rateLimit: { perMinute: 100_000 }, ...rest.config },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      git: { options: { pollIntervalMs: 3_600_000, ...git } },
      edge: { options: { httpPort, httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
      backups: { options: { progressIntervalMs: 0 } },
      sites: { options: { previewDomain: 'preview.test', checkIntervalMs: 3_600_000, ...sites } },
      'event-recorder': { path: 'tests/fixtures/event-recorder/index.ts', options: { events: ['site.synced', 'site.sync.failed'] } },
      ...more,
    },
  });
  return Object.assign(s, { httpPort });
}

/** the files of a site as archive entries */
export const entries = (files: Record<string, string>): TestEntry[] => Object.entries(files).map(([name, content]) => ({ name, content }));

/** every file of version `n` names it, so a response mixing two versions shows */
export function versionFiles(n: number, count = 3): Record<string, string> {
  const files: Record<string, string> = { 'index.html': `<p>version ${n}</p>\n` };
  for (let i = 0; i < count; i++) files[`assets/f${i}.txt`] = `version ${n} file ${i}\n`;
  return files;
}

export interface Got { status: number; body: string; headers: Record<string, string | string[] | undefined> }

/** GET through the edge with this Host and extra headers, on a keep-alive agent when given */
export async function getVia(port: number, host: string, path: string, headers: Record<string, string> = {}, agent?: import('node:http').Agent): Promise<Got> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host, ...headers }, agent: agent ?? false, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
