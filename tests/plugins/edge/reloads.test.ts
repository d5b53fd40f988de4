// Edge reloads keep their connections: the kernel setting that hands queued connections to Caddy's new listener, and new TLS connections kept up through many real reloads.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRequestMigration } from '../../../plugins/edge/reloads.ts';
import { edgeAnswers, edgeRunning, selfSigned, startEdgeServer } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'dw-reloads-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('the setting: switched on when off, left alone when on or when told not to, and unsupported where it does not exist', () => {
  const file = join(work, 'tcp_migrate_req');
  writeFileSync(file, '0\n');
  const left = ensureRequestMigration(false, file);
  assert.equal(left.state, 'off');
  assert.match(left.note!, /sysctl -w/);
  assert.equal(readFileSync(file, 'utf8'), '0\n');

  const turned = ensureRequestMigration(true, file);
  assert.equal(turned.state, 'on');
  assert.match(turned.note!, /switched on/);
  assert.equal(readFileSync(file, 'utf8').trim(), '1');

  assert.deepEqual(ensureRequestMigration(true, file), { state: 'on', note: null });
  assert.deepEqual(ensureRequestMigration(true, join(work, 'missing')), { state: 'unsupported', note: null });
  // a write the kernel refuses, even to root (a read-only /proc file stands in for a setting of a namespace not ours): reported, not thrown
  const refused = ensureRequestMigration(true, '/proc/version');
  assert.equal(refused.state, 'off');
  assert.match(refused.note!, /switching on net\.ipv4\.tcp_migrate_req failed: E[A-Z]+\)/);
});

test('route changes reload Caddy forty times while new TLS connections keep coming: queued ones are handed over, not reset', async (t) => {
  const pem = await selfSigned('steady.test', work);
  const root = mkdtempSync(join(work, 'site-'));
  writeFileSync(join(root, 'index.html'), 'steady\n');
  const s = await startEdgeServer();
  try {
    const edge = await edgeRunning(s);
    if (edge.reloads.state === 'unsupported') return t.skip('this kernel (before 5.14) cannot hand queued connections over');
    assert.equal(edge.reloads.state, 'on', JSON.stringify(edge.reloads));
    assert.equal((await s.api('PUT', '/api/v1/edge-client/certificates/steady', { body: pem })).status, 200);
    assert.equal((await s.api('PUT', '/api/v1/edge-client/routes/site:steady', { body: { routes: [{ kind: 'static', hostname: 'steady.test', root }] } })).status, 200);
    await edgeAnswers(s.httpsPort, 'steady.test', '/', (a) => a.status === 200, 10_000, { ca: pem.certificate });

    let going = true;
    let handshakes = 0;
    const failures: string[] = [];
    const handshake = () => new Promise<void>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: s.httpsPort, servername: 'steady.test', ca: pem.certificate }, () => { handshakes++; socket.end(); resolve(); });
      socket.on('error', (err) => { failures.push(err.message); resolve(); });
    });
    const clients = [1, 2, 3, 4].map(async () => { while (going) await handshake(); });
    for (let i = 0; i < 40; i++) {
      // each change is a new document, so each is a real reload
      const res = await s.api('PUT', '/api/v1/edge-client/routes/site:churn', { body: { routes: [{ kind: 'static', hostname: `churn${i}.test`, root }] } });
      assert.equal(res.status, 200, res.text);
    }
    going = false;
    await Promise.all(clients);
    // With the setting off, this run resets 6 to 20 of about 1,000 handshakes. With it on, Linux can still reset a connection whose
    // SYN or ACK meets the old listener in the microseconds it closes, a race no setting covers: a few runs of the full suite
    // saw 1 of about 1,100; 25 runs of this test alone, beside busy loops on both cores, saw none. Two in a run is far from both.
    assert.ok(failures.length <= 2, `${failures.length} of ${failures.length + handshakes} handshakes failed across the reloads: ${failures.join('; ')}`);
    assert.ok(handshakes > 40, `only ${handshakes} handshakes`);
  } finally {
    await s.close();
  }
});
