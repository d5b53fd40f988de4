// Helpers of the edge tests: a server with docker, stacks and the edge on free high ports, and HTTP through the edge with a Host header.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { startServer, eventually, type StartOptions, type TestServer } from '../../helpers/harness.ts';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../docker/helpers.ts';

export { cleanupProjects, freePort, uniqueName } from '../docker/helpers.ts';
export { act, createStack, waitJob } from '../stacks/helpers.ts';

export interface EdgeServer extends TestServer { httpPort: number; httpsPort: number }

/** a server with the docker, stacks and edge plugins (and the edge's test client); `plugins` adds more (alerts, swarm…) */
export async function startEdgeServer(opts: { edge?: Record<string, unknown>; plugins?: Record<string, unknown> } & Omit<StartOptions, 'plugins'> = {}): Promise<EdgeServer> {
  const { edge = {}, plugins = {}, ...rest } = opts;
  const httpPort = (edge.httpPort as number | undefined) ?? await freePort();
  const httpsPort = (edge.httpsPort as number | undefined) ?? await freePort();
  const s = await startServer({
    ...rest,
    config: { rateLimit: { perMinute: 100_000 }, ...rest.config },
    plugins: {
      docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } },
      stacks: {},
      edge: { options: { httpPort, httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000, ...edge } },
      'edge-client': { path: 'tests/fixtures/edge-client/index.ts' },
      ...plugins,
    },
  });
  return Object.assign(s, { httpPort, httpsPort });
}

export interface Answer { status: number; body: string; headers: Record<string, string | string[] | undefined> }

/**
 * GET through the edge on 127.0.0.1 with this Host (no keep-alive); https with SNI = host, trusting `ca`. It waits up to
 * 20 s for a byte, longer than the edge's 15 s of tries on its upstreams, so what it reports is the edge's own answer.
 */
export function viaEdge(port: number, host: string, path = '/', tls?: { ca: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host }, agent: false as const, timeout: 20_000, ...(tls ? { servername: host, ca: tls.ca } : {}) };
    const req = (tls ? httpsRequest : request)(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** what the edge's Caddy logged at warn or error level since `sinceMs` (its reverse proxy's failures), for a failing test's message */
export function edgeComplaints(dataDir: string, sinceMs: number): string {
  let text = '';
  try { text = readFileSync(join(dataDir, 'plugins', 'edge', 'logs', 'caddy.log'), 'utf8'); } catch { return '(no Caddy log)'; }
  const lines = text.split('\n').flatMap((line) => {
    try {
      const e = JSON.parse(line) as { level: string; ts: number; logger?: string; msg?: string; error?: string; request?: { host?: string; uri?: string }; duration?: number };
      // every load warns that automatic HTTPS is off (certificates are Dockwright's): that is no complaint
      if (e.ts * 1000 < sinceMs || (e.level !== 'warn' && e.level !== 'error') || /automatic HTTPS is completely disabled/.test(e.msg ?? '')) return [];
      return [`${new Date(e.ts * 1000).toISOString()} ${e.level} ${e.logger ?? ''}: ${e.msg ?? ''} ${e.error ?? ''} ${e.request?.uri ?? ''} ${e.duration ?? ''}`.trim()];
    } catch { return []; }
  });
  return lines.length ? lines.join('\n') : '(Caddy logged no warning or error)';
}

/** what requests through the edge met: `failed` is anything but a 200 (`at` counts from `since`), `served` the versions that answered */
export interface Traffic { since: number; sent: number; failed: { at: number; what: string }[]; slow: { sent: number; ok: number; failed: string[] }; served: Set<string> }

/**
 * Requests through the edge while `during` runs: a GET of /cgi-bin/env every 30 ms (about 33 per second, each on a new
 * connection, not waiting for the one before) and, with `slowPath`, a slow one every 400 ms; bounded by `maxMs`
 */
export async function underTraffic<T>(port: number, host: string, during: () => Promise<T>, opts: { slowPath?: string; maxMs?: number } = {}): Promise<{ value: T; traffic: Traffic }> {
  const since = Date.now();
  const traffic: Traffic = { since, sent: 0, failed: [], slow: { sent: 0, ok: 0, failed: [] }, served: new Set() };
  const inFlight = new Set<Promise<void>>();
  let stop = false;
  const fire = (path: string, slow: boolean) => {
    const p = viaEdge(port, host, path).then((a) => {
      if (a.status !== 200) throw new Error(`${a.status} ${a.body.trim().slice(0, 100)}`);
      if (!slow) traffic.served.add(/^message=(\S*)/m.exec(a.body)?.[1] ?? '?');
      else if (/^slow /.test(a.body)) traffic.slow.ok++;
      else throw new Error(`not the slow answer: ${a.body.slice(0, 100)}`);
    }).catch((err: Error) => {
      if (slow) traffic.slow.failed.push(err.message);
      else traffic.failed.push({ at: Date.now() - since, what: err.message });
    }).finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const loop = (async () => {
    for (let i = 0; !stop && Date.now() - since < (opts.maxMs ?? 120_000); i++) {
      fire('/cgi-bin/env', false);
      traffic.sent++;
      if (opts.slowPath && i % 13 === 0) { fire(opts.slowPath, true); traffic.slow.sent++; }
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  try {
    return { value: await during(), traffic };
  } finally {
    stop = true;
    await loop;
    await Promise.all([...inFlight]);
  }
}

/** a failed traffic check's message: when the requests began, the job's output (its lines' times), what Caddy complained of */
export const trafficReport = (s: TestServer, what: string, traffic: Traffic, jobOutput: string) =>
  `${what}: ${traffic.failed.length} of ${traffic.sent} requests failed (from ${new Date(traffic.since).toISOString()}):\n${jobOutput}\nthe edge's Caddy said:\n${edgeComplaints(s.dataDir, traffic.since)}`;

/** waits until the edge answers this host/path as `ok` says (polling every 25 ms) */
export function edgeAnswers(port: number, host: string, path: string, ok: (a: Answer) => boolean, timeoutMs = 20_000, tls?: { ca: string }): Promise<Answer> {
  return eventually(async () => {
    const a = await viaEdge(port, host, path, tls).catch(() => null);
    return a && ok(a) ? a : null;
  }, timeoutMs, `${host}${path} through the edge`, 25);
}

export async function edgeRunning(s: TestServer, timeoutMs = 15_000): Promise<any> {
  return eventually(async () => {
    const r = await s.api('GET', '/api/v1/edge');
    return r.body.state === 'running' ? r.body : null;
  }, timeoutMs, 'the edge to run', 25);
}

export const webCompose = (host: string, message = 'one', extraLabels = '') => `services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "${message}" }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
${extraLabels}`;

/**
 * busybox httpd that boots in `bootSeconds`, with a CGI that answers after 2 s (/cgi-bin/slow) beside the image's
 * /cgi-bin/env; `service` is indented YAML added to the service (healthcheck, deploy, ports…)
 */
export const bootingCompose = (host: string, message: string, opts: { bootSeconds?: number; service?: string; labels?: string } = {}) => `services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "${message}" }
    stop_grace_period: 3s
    command:
      - sh
      - -c
      - |
        echo "booting $$MESSAGE"
        cat > /www/cgi-bin/slow <<'EOF'
        #!/bin/sh
        sleep 2
        echo "Content-Type: text/plain"
        echo
        echo "slow $$MESSAGE"
        EOF
        chmod 755 /www/cgi-bin/slow
        sleep ${opts.bootSeconds ?? 4}
        exec httpd -f -p 8080 -h /www
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
${opts.labels ?? ''}${opts.service ?? '    healthcheck: { test: ["CMD", "wget", "-q", "-O", "-", "http://127.0.0.1:8080/"], interval: 500ms, timeout: 2s, retries: 3, start_period: 30s }\n'}`;

/** a self-signed certificate for `host`, made with openssl in a new folder under `under` */
export async function selfSigned(host: string, under: string): Promise<{ certificate: string; key: string }> {
  const dir = mkdtempSync(join(under, 'cert-'));
  await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${host}`,
    '-addext', `subjectAltName=DNS:${host}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]);
  return { certificate: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
}
