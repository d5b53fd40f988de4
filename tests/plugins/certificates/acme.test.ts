// ACME issuance against a real pebble and bind9: HTTP-01 through the real edge, DNS-01 wildcards over RFC 2136, a CA refusal, renewal with backoff, no secret anywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { eventually } from '../../helpers/harness.ts';
import type { Logger } from '../../../sdk/index.ts';
import { freePort, makeCert, routeHosts, servedSerial, startAcmeEnv, startCertServer, stripZeros, waitJob, type AcmeEnv, type CertServer } from './helpers.ts';

let env: AcmeEnv;
let s: CertServer;
let root: string;
const logged: string[] = [];
const events: { name: string; payload: Record<string, unknown> }[] = [];

function capturingLogger(bindings: object = {}): Logger {
  const write = (obj: object | string, msg?: string) => { logged.push(JSON.stringify({ bindings, obj: obj instanceof Error ? obj.message : obj, msg })); };
  return { info: write, warn: write, error: write, debug: write, child: (b) => capturingLogger({ ...bindings, ...b }) };
}

async function sql(text: string, params: unknown[] = []): Promise<void> {
  const c = new pg.Client({ connectionString: s.databaseUrl });
  await c.connect();
  try { await c.query(text, params); } finally { await c.end(); }
}

before(async () => {
  const httpPort = await freePort();
  env = await startAcmeEnv({ httpPort });
  s = await startCertServer({
    httpPort, log: capturingLogger(),
    certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile, email: 'admin@dwtest.test', auto: false, sweepIntervalMs: 1000, retryMinMs: 600_000, dns: { rfc2136: env.rfc2136 } },
  });
  for (const name of ['certificate.renewed', 'certificate.renewal.failed', 'certificate.expiring', 'certificate.expired', 'certificate.valid']) {
    s.app.services.events.on(name, (payload) => { events.push({ name, payload }); });
  }
  root = await env.root();
});
after(async () => {
  await s?.close();
  await env?.stop();
});

const request = (body: Record<string, unknown>) => s.api('POST', '/api/v1/certificates/request', { body });
async function serialServed(host: string): Promise<string | null> {
  const got = await servedSerial(s.httpsPort, host, root);
  return 'serial' in got ? stripZeros(got.serial) : null;
}

test('two names over HTTP-01: a job showing each step, a valid certificate, served by the edge and verified with pebble\'s root', async () => {
  const hosts = ['a.ok.dwtest.test', 'b.ok.dwtest.test'];
  await routeHosts(s, 'two', hosts);
  const r = await request({ name: 'two', domains: hosts });
  assert.equal(r.status, 202, r.text);
  assert.ok(r.body.jobId);
  assert.equal(r.headers.get('location'), `/api/v1/jobs/${r.body.jobId}`);
  const pending = await s.api('GET', '/api/v1/certificates/two');
  assert.ok(['pending', 'valid'].includes(pending.body.status));
  const job = await waitJob(s, r.body.jobId);
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  for (const step of ['account:', 'order:', 'authorization a.ok.dwtest.test', 'authorization b.ok.dwtest.test', 'challenge a.ok.dwtest.test: valid', 'finalize:', 'download:', 'edge: serving']) {
    assert.ok(job.output.includes(step), `the output shows "${step}":\n${job.output}`);
  }
  const cert = (await s.api('GET', '/api/v1/certificates/two')).body;
  assert.equal(cert.status, 'valid');
  assert.equal(cert.source, 'acme');
  assert.equal(cert.challenge, 'http-01');
  assert.deepEqual([...cert.domains].sort(), hosts);
  assert.deepEqual([...cert.usedBy].sort(), hosts);
  assert.match(cert.issuer, /Pebble/i);
  assert.ok(Date.parse(cert.renewAfter) > Date.now() && Date.parse(cert.renewAfter) < Date.parse(cert.notAfter));
  for (const host of hosts) assert.equal(await eventually(() => serialServed(host), 15_000, `${host} over HTTPS`), stripZeros(cert.serial));
});

test('a failing challenge: the job fails with the CA\'s reason, no certificate is stored or served, and the overview says so', async () => {
  const r = await request({ name: 'nowhere', domains: ['nowhere.bad.dwtest.test'] });
  assert.equal(r.status, 202);
  const job = await waitJob(s, r.body.jobId);
  assert.equal(job.status, 'failed');
  assert.match(job.error, /refused the http-01 challenge of nowhere\.bad\.dwtest\.test: .*could not resolve/i);
  const cert = (await s.api('GET', '/api/v1/certificates/nowhere')).body;
  assert.equal(cert.status, 'failed');
  assert.equal(cert.chain, null);
  assert.equal(cert.serial, null);
  assert.match(cert.lastError, /nowhere\.bad\.dwtest\.test/);
  const edge = (await s.api('GET', '/api/v1/edge')).body;
  assert.ok(!edge.certificates.some((c: any) => c.name === 'nowhere'));
  const overview = JSON.stringify((await s.api('GET', '/api/v1/overview')).body);
  assert.ok(overview.includes('certificate-failed'), overview);
});

test('request refusals: a wildcard over http-01 (422), bad domains (400), a name holding an upload (409), scopes (403)', async () => {
  const wild = await request({ domains: ['*.ok.dwtest.test'] });
  assert.equal(wild.status, 422);
  assert.match(wild.body.errors[0].message, /dns-01/);
  const noProvider = await request({ domains: ['x.elsewhere.test'], challenge: 'dns-01' });
  assert.equal(noProvider.status, 422);
  assert.equal((await request({ domains: ['not a host'] })).status, 400);
  assert.equal((await request({ domains: [] })).status, 400);
  assert.equal((await request({ domains: ['a.ok.dwtest.test'], challenge: 'tls-alpn-01' })).status, 400);
  const own = await makeCert({ cn: 'held.ok.dwtest.test', domains: ['held.ok.dwtest.test'] });
  assert.equal((await s.api('POST', '/api/v1/certificates/upload', { body: { name: 'held', certificate: own.certificate, key: own.key } })).status, 201);
  const taken = await request({ name: 'held', domains: ['held.ok.dwtest.test'] });
  assert.equal(taken.status, 409);
  assert.equal((await s.api('POST', '/api/v1/certificates/upload', { body: { name: 'two', certificate: own.certificate, key: own.key } })).status, 409, 'an upload over an ACME name');
  assert.equal((await s.api('DELETE', '/api/v1/certificates/held')).status, 204);
  const reader = await s.token('viewer', ['certificates:read']);
  assert.equal((await s.api('POST', '/api/v1/certificates/request', { token: reader, body: { domains: ['a.ok.dwtest.test'] } })).status, 403);
});

test('two requests of one name at once: one issuance at a time, both answer 202, the certificate ends valid', async () => {
  const body = { name: 'twice', domains: ['twice.ok.dwtest.test'] };
  const [a, b] = await Promise.all([request(body), request(body)]);
  assert.equal(a.status, 202);
  assert.equal(b.status, 202);
  for (const id of new Set([a.body.jobId, b.body.jobId])) assert.equal((await waitJob(s, id)).status, 'succeeded');
  assert.equal((await s.api('GET', '/api/v1/certificates/twice')).body.status, 'valid');
});

test('a wildcard over DNS-01 (RFC 2136 with TSIG into bind9): issued and served for a name below it', async () => {
  await routeHosts(s, 'wild', ['x.wild.ok.dwtest.test']);
  const r = await request({ domains: ['*.wild.ok.dwtest.test'], challenge: 'dns-01' });
  assert.equal(r.status, 202, r.text);
  const job = await waitJob(s, r.body.jobId);
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  assert.match(job.output, /dns-01 TXT _acme-challenge\.wild\.ok\.dwtest\.test published through rfc2136/);
  const cert = (await s.api('GET', '/api/v1/certificates/wildcard.wild.ok.dwtest.test')).body;
  assert.deepEqual(cert.domains, ['*.wild.ok.dwtest.test']);
  assert.deepEqual(cert.usedBy, ['x.wild.ok.dwtest.test']);
  assert.equal(await eventually(() => serialServed('x.wild.ok.dwtest.test'), 15_000, 'the wildcard over HTTPS'), stripZeros(cert.serial));
  assert.ok(!job.output.includes(env.rfc2136.keySecret));
});

test('renewal: a due certificate renews on the schedule and the edge serves the new serial without a failed request; a failing one backs off and says why', async () => {
  const before = (await s.api('GET', '/api/v1/certificates/two')).body;
  // HTTPS requests keep going while the renewal reaches Caddy: none may fail
  let traffic = true;
  const failures: string[] = [];
  let answered = 0;
  const load = (async () => {
    while (traffic) {
      const got = await servedSerial(s.httpsPort, 'a.ok.dwtest.test', root);
      if ('error' in got) failures.push(got.error); else answered++;
    }
  })();
  await sql(`UPDATE certificates SET renew_after = now() - interval '1 second' WHERE name = 'two'`);
  const renewed = await eventually(async () => {
    const c = (await s.api('GET', '/api/v1/certificates/two')).body;
    return c.serial !== before.serial ? c : null;
  }, 60_000, 'the renewal');
  assert.equal(renewed.status, 'valid');
  assert.ok(Date.parse(renewed.renewAfter) > Date.now());
  assert.equal(await eventually(async () => ((await serialServed('a.ok.dwtest.test')) === stripZeros(renewed.serial) ? renewed.serial : null), 15_000, 'the new serial over HTTPS'), renewed.serial);
  traffic = false;
  await load;
  assert.deepEqual(failures, [], `${failures.length} of ${failures.length + answered} requests failed during the renewal`);
  assert.ok(answered > 0);
  await eventually(async () => events.some((e) => e.name === 'certificate.renewed' && e.payload.certificate === 'two'), 10_000, 'the renewed event');
  const jobs = (await s.api('GET', '/api/v1/jobs?limit=100')).body;
  assert.ok(jobs.some((j: any) => j.type === 'certificates.issue' && j.resource === 'certificate:two' && j.actor.kind === 'system'));

  // a renewal the CA refuses: the old certificate stays served, the failure is reported once, then it backs off
  await sql(`UPDATE certificates SET domains = ARRAY['gone.bad.dwtest.test'], renew_after = now() - interval '1 second' WHERE name = 'two'`);
  const failed = await eventually(async () => {
    const c = (await s.api('GET', '/api/v1/certificates/two')).body;
    return c.lastError ? c : null;
  }, 60_000, 'the failed renewal');
  assert.equal(failed.serial, renewed.serial);
  assert.equal(failed.status, 'valid');
  assert.ok(Date.parse(failed.nextAttemptAt) > Date.now() + 500_000, `backoff: ${failed.nextAttemptAt}`);
  await eventually(async () => events.some((e) => e.name === 'certificate.renewal.failed' && e.payload.certificate === 'two' && /gone\.bad/.test(String(e.payload.error))), 10_000, 'the renewal.failed event');
  assert.ok(JSON.stringify((await s.api('GET', '/api/v1/overview')).body).includes('certificate-renewal-failed'));
  await new Promise((r) => setTimeout(r, 2500)); // two more sweeps: none may try again inside the backoff
  const attempts = (await s.api('GET', '/api/v1/jobs?limit=100')).body.filter((j: any) => j.resource === 'certificate:two' && j.status === 'failed');
  assert.equal(attempts.length, 1);
  assert.equal(await serialServed('a.ok.dwtest.test'), stripZeros(renewed.serial));
});

test('secrets never appear: no key in answers, job output or logs; keys are sealed at rest', async () => {
  const answers = [
    (await s.api('GET', '/api/v1/certificates')).text,
    (await s.api('GET', '/api/v1/certificates/two')).text,
    (await s.api('GET', '/api/v1/jobs?limit=100')).text,
  ].join('\n');
  assert.ok(!/PRIVATE KEY/.test(answers));
  assert.ok(!answers.includes(env.rfc2136.keySecret));
  const all = logged.join('\n');
  assert.ok(!/PRIVATE KEY/.test(all));
  assert.ok(!all.includes(env.rfc2136.keySecret));
  const c = new pg.Client({ connectionString: s.databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT key_sealed FROM certificates WHERE key_sealed IS NOT NULL UNION ALL SELECT key_sealed FROM certificate_accounts`);
    assert.ok(rows.length >= 3);
    for (const r of rows) assert.ok(!r.key_sealed.includes('PRIVATE KEY'));
  } finally { await c.end(); }
});

test('a restart in the middle of an issuance: after it the certificate is issued or failed with a reason, never pending for ever', async () => {
  const r = await request({ name: 'restart', domains: ['restart.ok.dwtest.test'] });
  assert.equal(r.status, 202);
  await s.stop();
  const first = s;
  const second = await startCertServer({
    httpPort: first.httpPort, reuse: { databaseUrl: first.databaseUrl, dataDir: first.dataDir }, log: capturingLogger(),
    certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile, sweepIntervalMs: 1000, dns: { rfc2136: env.rfc2136 } },
  });
  s = Object.assign(second, { close: async () => { await second.stop(); await first.close(); } });
  const settled = await eventually(async () => {
    const c = (await s.api('GET', '/api/v1/certificates/restart')).body;
    return c.status === 'pending' ? null : c;
  }, 60_000, 'the interrupted issuance to settle');
  console.log(`after the restart: ${settled.status} ${settled.lastError ?? ''}`);
  if (settled.status === 'failed') assert.ok(settled.lastError);
  else assert.equal(settled.status, 'valid');
  const job = (await s.api('GET', `/api/v1/jobs/${r.body.jobId}`)).body;
  assert.ok(job.done, 'the job does not stay running');

  // what a crash before the job was written leaves: a pending certificate without a job
  await sql(`INSERT INTO certificates (name, domains, source, challenge, state, updated_at) VALUES ('crashed', ARRAY['crashed.ok.dwtest.test'], 'acme', 'http-01', 'pending', now() - interval '1 minute')`);
  const crashed = await eventually(async () => {
    const c = (await s.api('GET', '/api/v1/certificates/crashed')).body;
    return c.status === 'failed' ? c : null;
  }, 20_000, 'the orphaned pending certificate to fail');
  assert.match(crashed.lastError, /request it again/);
});
