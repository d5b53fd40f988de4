// The ACME client trusts what Node trusts (a directory whose CA comes only through NODE_EXTRA_CA_CERTS issues, with or without a caFile beside it); an issued certificate's renewal window honours renewBefore; DNS providers other plugins contribute answer dns-01.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, startChild, startServer, type TestServer } from '../../helpers/harness.ts';
import { freePort, makeCert, servedSerial, startAcmeEnv, stripZeros, type AcmeEnv } from './helpers.ts';

let env: AcmeEnv;
let s: TestServer;
let admin: string;
let httpPort: number;
let dir: string;
let unrelatedCa: string;

// the in-process server only prepares the database and the token: the edge and the ACME client run in the child
before(async () => {
  httpPort = await freePort();
  env = await startAcmeEnv({ httpPort });
  s = await startServer({ plugins: {} });
  admin = await s.token('admin', ['*']);
  dir = mkdtempSync(join(tmpdir(), 'dw-trust-'));
  unrelatedCa = join(dir, 'unrelated-ca.pem');
  writeFileSync(unrelatedCa, (await makeCert({ cn: 'Unrelated CA', ca: true })).certificate);
});
after(async () => {
  await s?.close();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
  if (s) rmSync(`${s.dataDir}-child`, { recursive: true, force: true });
});

/** renewAfter is notBefore + (1 - renewBefore) × lifetime, within a second */
function assertWindow(cert: { notBefore: string; notAfter: string; renewAfter: string }, renewBefore: number): void {
  const start = Date.parse(cert.notBefore);
  const lifetime = Date.parse(cert.notAfter) - start;
  assert.ok(lifetime > 3_600_000, `a real lifetime: ${cert.notBefore} … ${cert.notAfter}`);
  const expected = start + (1 - renewBefore) * lifetime;
  assert.ok(Math.abs(Date.parse(cert.renewAfter) - expected) <= 1000, `renewAfter ${cert.renewAfter}, expected ${new Date(expected).toISOString()} (renewBefore ${renewBefore})`);
}

/** a child server whose Node trusts pebble's CA through NODE_EXTRA_CA_CERTS: requests a certificate for `host` and answers the finished job */
async function issueInChild(name: string, host: string, certificates: Record<string, unknown>, more: { plugins?: Record<string, unknown>; challenge?: string; domain?: string } = {}): Promise<{ job: any; detail: any }> {
  const httpsPort = await freePort();
  const child = await startChild({
    databaseUrl: s.databaseUrl, dataDir: `${s.dataDir}-child`, // one data dir: the sealing key of the ACME account the children share rateLimit: { perMinute: 100_000 },
    plugins: {
      docker: { options: { reconcile: false } },
      stacks: {},
      edge: { options: { httpPort, httpsPort, pollIntervalMs: 100, resyncIntervalMs: 60_000 } },
      'edge-client': { path: 'tests/fixtures/edge-client/index.ts' },
      certificates: { options: { directoryUrl: env.directoryUrl, sweepIntervalMs: 3_600_000, pollMinMs: 50, pollMaxMs: 500, pollAttempts: 40, dnsPropagationMs: 0, ...certificates } },
      ...more.plugins,
    },
  }, { NODE_EXTRA_CA_CERTS: env.caFile });
  try {
    const root = mkdtempSync(join(dir, `${name}-`));
    writeFileSync(join(root, 'index.html'), `hello from ${name}\n`);
    const routed = await call(child.url, 'PUT', `/api/v1/edge-client/routes/site:${name}`, { token: admin, body: { routes: [{ kind: 'static', hostname: host, root }] } });
    assert.equal(routed.status, 200, routed.text);
    const r = await call(child.url, 'POST', '/api/v1/certificates/request', { token: admin, body: { name, domains: [more.domain ?? host], ...(more.challenge ? { challenge: more.challenge } : {}) } });
    assert.equal(r.status, 202, r.text);
    const job = await eventually(async () => {
      const w = await call(child.url, 'GET', `/api/v1/jobs/${r.body.jobId}/wait?timeout=5`, { token: admin });
      return w.body?.done ? w.body : null;
    }, 60_000, `job ${r.body.jobId}`);
    const served = job.status === 'succeeded' ? await eventually(async () => {
      const got = await servedSerial(httpsPort, host, await env.root());
      return 'serial' in got ? got : null;
    }, 20_000, 'the edge to serve the certificate') : null;
    const detail = await call(child.url, 'GET', `/api/v1/certificates/${name}`, { token: admin });
    if (served) assert.equal(stripZeros(served.serial), stripZeros(detail.body.serial));
    return { job, detail: detail.body };
  } finally {
    await child.kill('SIGTERM');
  }
}

test('NODE_EXTRA_CA_CERTS alone (no caFile): the directory is trusted and the certificate issues; the default window opens with a third of the lifetime left', async () => {
  const { job, detail } = await issueInChild('extra-only', 'extra-only.ok.dwtest.test', {});
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  assertWindow(detail, 1 / 3);
});

test('NODE_EXTRA_CA_CERTS with an unrelated caFile: caFile adds to Node\'s store instead of replacing NODE_EXTRA_CA_CERTS; a configured renewBefore sets the window', async () => {
  const { job, detail } = await issueInChild('extra-and-file', 'extra-and-file.ok.dwtest.test', { caFile: unrelatedCa, renewBefore: 0.1 });
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  assertWindow(detail, 0.1);
});

for (const via of ['point', 'api'] as const) {
  test(`a DNS provider another plugin contributes (${via === 'point' ? 'extension point dnsProviders' : 'deprecated addDnsProvider'}) answers a dns-01 wildcard`, async () => {
    const plugins = { 'dns-provider': { path: 'tests/fixtures/dns-provider/index.ts', options: { via, rfc2136: env.rfc2136 } } };
    const { job, detail } = await issueInChild(`dns-${via}`, `x.${via}.ok.dwtest.test`, {}, { plugins, challenge: 'dns-01', domain: `*.${via}.ok.dwtest.test` });
    assert.equal(job.status, 'succeeded', job.error ?? job.output);
    assert.match(job.output, new RegExp(`published through test provider via ${via}`));
    assert.equal(detail.challenge, 'dns-01');
  });
}
