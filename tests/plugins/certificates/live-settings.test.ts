// The ACME account as a live setting: a directory and email changed through PATCH /settings are used by the next issuance, with no restart (a real pebble).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, routeHosts, startAcmeEnv, startCertServer, waitJob, type AcmeEnv, type CertServer } from './helpers.ts';

let env: AcmeEnv;
let s: CertServer;

before(async () => {
  const httpPort = await freePort();
  env = await startAcmeEnv({ httpPort });
  // at start: a directory on a closed loopback port, and no account email
  s = await startCertServer({ httpPort, certificates: { directoryUrl: 'https://127.0.0.1:9/dir', caFile: env.caFile, retryMinMs: 600_000 } });
});
after(async () => {
  await s?.close();
  await env?.stop();
});

test('the ACME directory and account email changed through the settings are used by the next issuance, with no restart', async () => {
  const hosts = ['live.ok.dwtest.test'];
  await routeHosts(s, 'live', hosts);
  const before = (await s.api('GET', '/api/v1/settings')).body;
  assert.equal(before.settings['plugins.certificates.options.directoryUrl'], 'https://127.0.0.1:9/dir');
  assert.equal(before.settings['plugins.certificates.options.email'], null);
  const changed = await s.api('PATCH', '/api/v1/settings', {
    body: { 'plugins.certificates.options.directoryUrl': env.directoryUrl, 'plugins.certificates.options.email': 'ops@dwtest.test', 'plugins.certificates.options.auto': false },
    headers: { 'if-match': `"${before.revision}"` },
  });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.sources['plugins.certificates.options.email'], 'portal');
  const bad = await s.api('PATCH', '/api/v1/settings', { body: { 'plugins.certificates.options.email': 'not an address' }, headers: { 'if-match': `"${changed.body.revision}"` } });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.body.errors[0].path, 'plugins.certificates.options.email');

  const again = await s.api('POST', '/api/v1/certificates/request', { body: { name: 'live', domains: hosts } });
  assert.equal(again.status, 202, again.text);
  const job = await waitJob(s, again.body.jobId);
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  assert.match(job.output, new RegExp(`account: new at ${env.directoryUrl.replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&')}`));
  assert.equal((await s.api('GET', '/api/v1/certificates/live')).body.status, 'valid');
});
