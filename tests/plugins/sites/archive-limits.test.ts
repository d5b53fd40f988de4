// The install's one set of archive limits (20,000 entries, 1 GiB, the git plugin's options) as a site upload meets them: documented defaults in effect, lowered by the sites plugin, never raised.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { call, startServer } from '../../helpers/harness.ts';
import { freePort } from '../docker/helpers.ts';
import { startSitesServer, tgz, type SitesServer, type TestEntry } from './helpers.ts';

let s: SitesServer;
before(async () => { s = await startSitesServer(); });
after(() => s?.close());

const upload = (name: string, body: Buffer) => call(s.url, 'PUT', `/api/v1/sites/${name}/content`, { token: s.admin, raw: new Uint8Array(body), headers: { 'content-type': 'application/octet-stream' } });
const files = (count: number): TestEntry[] => Array.from({ length: count }, (_, i) => ({ name: `f/${Math.floor(i / 1000)}/${i}.txt`, content: `${i}\n` }));

test('with the default options a site archive may hold 20,000 entries (more than the 10,000 the git plugin once imposed); one more is refused', async () => {
  assert.equal((await s.api('PUT', '/api/v1/sites/big', { body: { hostnames: ['big.sites.test'] } })).status, 201);
  const ok = await upload('big', tgz(files(12_000)));
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.fileCount, 12_000);

  const over = await upload('big', tgz(files(20_001)));
  assert.equal(over.status, 413, over.text);
  assert.match(over.body.detail, /more than 20000 entries/);
  assert.equal((await s.api('GET', '/api/v1/sites/big')).body.version, 1, 'nothing was published');
});

test('the sites plugin may lower the limits but not raise them above the install\'s (the git plugin\'s)', async () => {
  const refused = async (sites: Record<string, unknown>, git: Record<string, unknown>, why: RegExp) => {
    const plugins = {
      docker: { options: { reconcile: false } }, stacks: {}, git: { options: git },
      edge: { options: { httpPort: await freePort(), httpsPort: await freePort() } }, backups: {}, sites: { options: sites },
    };
    let started: Awaited<ReturnType<typeof startServer>> | undefined;
    await assert.rejects(startServer({ plugins }).then((x) => { started = x; }), why);
    await started?.close();
  };
  await refused({ archiveMaxEntries: 20_001 }, {}, /plugins\.sites\.options\.archiveMaxEntries \(20001\) is above the install's archive limit \(plugins\.git\.options\.archiveMaxEntries, 20000\)/);
  await refused({ archiveMaxBytes: 2048 }, { archiveMaxBytes: 1024 }, /plugins\.sites\.options\.archiveMaxBytes \(2048\) is above the install's archive limit/);
});
