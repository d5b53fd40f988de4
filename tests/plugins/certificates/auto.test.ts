// Automatic HTTPS against a real pebble and the real edge: a routed hostname gets a certificate with no call, a request or upload wins, renewal, redirects, a failure's alert, removal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { eventually } from '../../helpers/harness.ts';
import { addUser, launch, shot, signedIn } from '../portal/helpers.ts';
import { freePort, makeCert, routeHosts, servedSerial, startAcmeEnv, startCertServer, stripZeros, waitJob, type AcmeEnv, type CertServer } from './helpers.ts';

let env: AcmeEnv;
let s: CertServer;
let root: string;

before(async () => {
  const httpPort = await freePort();
  env = await startAcmeEnv({ httpPort });
  s = await startCertServer({
    httpPort,
    // auto is not set: an account email switches it on
    certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile, email: 'admin@dwtest.test', sweepIntervalMs: 1000, retryMinMs: 600_000, autoIntervalMs: 3_600_000 },
    edge: { httpsRedirectExcept: ['plain.ok.dwtest.test'] },
    extra: {
      alerts: {}, portal: {}, git: { options: { pollIntervalMs: 3_600_000 } }, backups: {},
      sites: { options: { previewDomain: 'preview.bad.dwtest.test', checkIntervalMs: 3_600_000 } },
    },
  });
  root = await env.root();
});
let browser: Browser | undefined;
after(async () => {
  await browser?.close();
  await s?.close();
  await env?.stop();
});

async function sql(text: string, params: unknown[] = []): Promise<any[]> {
  const c = new pg.Client({ connectionString: s.databaseUrl });
  await c.connect();
  try { return (await c.query(text, params)).rows; } finally { await c.end(); }
}

const certificate = async (name: string) => {
  const r = await s.api('GET', `/api/v1/certificates/${name}`);
  return r.status === 200 ? r.body : null;
};
async function serialServed(host: string): Promise<string | null> {
  const got = await servedSerial(s.httpsPort, host, root);
  return 'serial' in got ? stripZeros(got.serial) : null;
}
function plainGet(host: string, path = '/x?y=1'): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: s.httpPort, path, headers: { host }, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}
const valid = (name: string) => eventually(async () => {
  const c = await certificate(name);
  return c?.status === 'valid' ? c : null;
}, 60_000, `${name} valid`);

test('a routed hostname gets a certificate with no call: origin auto, served by the edge, plain HTTP redirected; renewed like the others', async () => {
  const host = 'auto.ok.dwtest.test';
  await routeHosts(s, 'auto', [host]);
  const cert = await valid(host);
  assert.equal(cert.origin, 'auto');
  assert.equal(cert.source, 'acme');
  assert.equal(cert.challenge, 'http-01');
  assert.deepEqual(cert.domains, [host]);
  assert.deepEqual(cert.usedBy, [host]);
  const listed = (await s.api('GET', '/api/v1/certificates')).body;
  assert.equal(listed.find((c: any) => c.name === host)?.origin, 'auto');
  assert.equal(await eventually(() => serialServed(host), 15_000, 'HTTPS'), stripZeros(cert.serial));
  const plain = await eventually(async () => { const r = await plainGet(host); return r.status === 308 ? r : null; }, 15_000, 'the redirect');
  assert.equal(plain.location, `https://${host}:${s.httpsPort}/x?y=1`);
  const jobs = (await s.api('GET', '/api/v1/jobs?limit=100')).body;
  assert.ok(jobs.some((j: any) => j.type === 'certificates.issue' && j.resource === `certificate:${host}` && j.actor.kind === 'system'));

  await sql(`UPDATE certificates SET renew_after = now() - interval '1 second' WHERE name = $1`, [host]);
  const renewed = await eventually(async () => { const c = await certificate(host); return c && c.serial !== cert.serial && c.status === 'valid' ? c : null; }, 60_000, 'the renewal');
  assert.equal(renewed.origin, 'auto');
  assert.equal(await eventually(async () => ((await serialServed(host)) === stripZeros(renewed.serial) ? true : null), 15_000, 'the renewed serial'), true);
});

test('the redirect can be turned off per hostname: both ports serve it', async () => {
  const host = 'plain.ok.dwtest.test';
  await routeHosts(s, 'plain', [host]);
  const cert = await valid(host);
  assert.equal(await eventually(() => serialServed(host), 15_000, 'HTTPS'), stripZeros(cert.serial));
  assert.equal((await plainGet(host, '/')).status, 200);
});

test('a requested certificate wins: under the same name it becomes a request, under another the automatic one goes', async () => {
  const same = 'same.ok.dwtest.test';
  await routeHosts(s, 'same', [same]);
  await valid(same);
  const r = await s.api('POST', '/api/v1/certificates/request', { body: { domains: [same] } });
  assert.equal(r.status, 202, r.text);
  assert.equal((await waitJob(s, r.body.jobId)).status, 'succeeded');
  assert.equal((await certificate(same)).origin, 'request');

  const other = 'other.ok.dwtest.test';
  await routeHosts(s, 'other', [other]);
  await valid(other);
  const req = await s.api('POST', '/api/v1/certificates/request', { body: { name: 'mine', domains: [other] } });
  assert.equal((await waitJob(s, req.body.jobId)).status, 'succeeded');
  const mine = await certificate('mine');
  await eventually(async () => ((await certificate(other)) === null ? true : null), 15_000, 'the automatic certificate removed');
  assert.deepEqual(mine.usedBy, [other]);
  assert.equal(await eventually(async () => ((await serialServed(other)) === stripZeros(mine.serial) ? true : null), 15_000, 'the requested serial served'), true);
});

test('an upload wins: over the automatic certificate\'s own name (200), and its hostname gets no new one', async () => {
  const host = 'upl.ok.dwtest.test';
  await routeHosts(s, 'upl', [host]);
  await valid(host);
  const own = await makeCert({ cn: host, domains: [host] });
  const up = await s.api('POST', '/api/v1/certificates/upload', { body: { name: host, certificate: own.certificate, key: own.key } });
  assert.equal(up.status, 200, up.text);
  assert.equal(up.body.origin, 'upload');
  assert.equal(up.body.source, 'upload');
  await routeHosts(s, 'upl', [host]); // a route change: a pass that must leave the upload alone
  await new Promise((r) => setTimeout(r, 500));
  const after = await certificate(host);
  assert.equal(after.origin, 'upload');
  assert.equal(after.serial, up.body.serial);
});

test('a failure raises an alert naming the hostname and the reason; the hostname\'s removal takes the certificate and resolves the alert', async () => {
  const host = 'nowhere.bad.dwtest.test';
  await routeHosts(s, 'bad', [host]);
  const failed = await eventually(async () => { const c = await certificate(host); return c?.status === 'failed' ? c : null; }, 60_000, 'the failure');
  assert.equal(failed.origin, 'auto');
  const alert = await eventually(async () => (await s.api('GET', '/api/v1/alerts')).body.find((a: any) => a.kind === 'certificate-auto-failed' && a.status === 'open') ?? null, 15_000, 'the alert');
  assert.equal(alert.resource, `certificate:${host}`);
  assert.match(alert.message, new RegExp(`automatic HTTPS for ${host.replace(/\./g, '\\.')} failed: .*could not resolve`, 'i'));
  assert.equal(alert.severity, 'critical');
  // a failed first issuance waits for its backoff: route changes start no second attempt
  await routeHosts(s, 'bad', [host]);
  await new Promise((r) => setTimeout(r, 500));
  const attempts = (await s.api('GET', '/api/v1/jobs?limit=100')).body.filter((j: any) => j.resource === `certificate:${host}`);
  assert.equal(attempts.length, 1);

  const r = await s.api('PUT', '/api/v1/edge-client/routes/site:bad', { body: { routes: [] } });
  assert.equal(r.status, 200);
  await eventually(async () => ((await certificate(host)) === null ? true : null), 15_000, 'the certificate removed');
  await eventually(async () => (await s.api('GET', '/api/v1/alerts')).body.find((a: any) => a.kind === 'certificate-auto-failed' && a.status === 'resolved') ?? null, 15_000, 'the alert resolved');
});

test('readers see the origin and never a chain or key', async () => {
  const reader = await s.token('viewer', ['certificates:read']);
  const list = await s.api('GET', '/api/v1/certificates', { token: reader });
  assert.equal(list.status, 200);
  assert.ok(list.body.some((c: any) => c.origin === 'auto'));
  assert.ok(list.body.every((c: any) => !('chain' in c) && !JSON.stringify(c).includes('PRIVATE KEY')));
});

test('the site page shows each hostname\'s HTTPS state: served by an automatic certificate, or why it failed', async () => {
  const r = await s.api('PUT', '/api/v1/sites/docs', { body: { hostnames: ['docs.ok.dwtest.test', 'docs.bad.dwtest.test'] } });
  assert.ok([200, 201].includes(r.status), r.text);
  await valid('docs.ok.dwtest.test');
  await eventually(async () => ((await certificate('docs.bad.dwtest.test'))?.status === 'failed' ? true : null), 60_000, 'the failure');
  await addUser(s, 'vera', 'viewer');
  browser = await launch();
  const page = await signedIn(browser, s, 'vera');
  await page.goto('/sites/docs');
  const states = page.getByTestId('https-state');
  await eventually(async () => ((await states.count()) === 2 ? true : null), 15_000, 'two HTTPS states');
  const texts = await states.allTextContents();
  assert.ok(texts.some((t) => /HTTPS \(automatic, until \d{4}-\d\d-\d\d\)/.test(t)), texts.join(' | '));
  assert.ok(texts.some((t) => /HTTPS: failed: .*docs\.bad\.dwtest\.test/.test(t)), texts.join(' | '));
  await shot(page, 'site-https-state');
});
