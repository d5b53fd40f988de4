// External Account Binding against a pebble that requires it: with the configured key the account is made and the certificate issued; without it the CA's refusal is the job's error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { freePort, startAcmeEnv, startCertServer, waitJob, type AcmeEnv, type CertServer } from './helpers.ts';

let env: AcmeEnv;
const servers: CertServer[] = [];
const eab = { kid: 'dw-kid', hmacKey: randomBytes(32).toString('base64url') };

before(async () => {
  const httpPort = await freePort();
  env = await startAcmeEnv({ httpPort, eab });
  servers.push(await startCertServer({ httpPort, certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile, externalAccountBinding: eab } }));
  servers.push(await startCertServer({ certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile } }));
});
after(async () => {
  for (const s of servers) await s.close();
  await env?.stop();
});

test('with the EAB key: issued, and the HMAC key appears in no answer or job output', async () => {
  const s = servers[0];
  const r = await s.api('POST', '/api/v1/certificates/request', { body: { domains: ['eab.ok.dwtest.test'] } });
  assert.equal(r.status, 202);
  const job = await waitJob(s, r.body.jobId);
  assert.equal(job.status, 'succeeded', job.error ?? job.output);
  assert.equal((await s.api('GET', '/api/v1/certificates/eab.ok.dwtest.test')).body.status, 'valid');
  assert.ok(!JSON.stringify(job).includes(eab.hmacKey));
});

test('without it: the job fails with the CA\'s reason and nothing is issued', async () => {
  const s = servers[1];
  const r = await s.api('POST', '/api/v1/certificates/request', { body: { domains: ['noeab.ok.dwtest.test'] } });
  const job = await waitJob(s, r.body.jobId);
  assert.equal(job.status, 'failed');
  assert.match(job.error, /^the CA refused the account: .*externalAccountBinding/);
  const cert = (await s.api('GET', '/api/v1/certificates/noeab.ok.dwtest.test')).body;
  assert.equal(cert.status, 'failed');
  assert.equal(cert.chain, null);
});
