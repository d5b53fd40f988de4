// The address pool through the real API and engine: each stack network gets a small subnet of Dockwright's range, more stacks than Docker's default pools hold deploy, an exhausted pool fails a deploy before any container changes and says which setting to change, the overview warns, a deleted stack frees its subnet, and a compose file's own ipam is kept.
import { test, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { firstFree, hostRoutes, parseCidr, prefixFor } from '../../../plugins/docker/address-pool.ts';
import { act, createStack } from '../stacks/helpers.ts';
import { cleanupProjects, docker, uniqueName } from './helpers.ts';

const made: string[] = [];
const servers: TestServer[] = [];
after(async () => {
  await cleanupProjects(...made);
  for (const s of servers) await s.close();
});

const tiny = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n';

async function server(addressPool?: Record<string, unknown>): Promise<TestServer> {
  const s = await startServer({ plugins: { docker: { options: { reconcile: false, ...(addressPool ? { addressPool } : {}) } }, stacks: {}, containers: {} } });
  servers.push(s);
  return s;
}

/** the IPv4 subnets of a project's networks, by network name */
async function subnetsOf(project: string): Promise<Map<string, string>> {
  const networks = await docker.listNetworks({ filters: { label: [`dockwright.project=${project}`] } });
  return new Map(networks.map((n) => [n.Name, n.IPAM?.Config?.[0]?.Subnet ?? '']));
}

describe('choosing a subnet', () => {
  test('the first free aligned subnet, past every overlap, or none', () => {
    const range = parseCidr('10.1.0.0/24');
    assert.deepEqual(firstFree(range, 64, []), { from: range.from, to: range.from + 63 });
    // a taken /26 and a stray /30 inside the second: the third /26 is the first free
    const taken = [parseCidr('10.1.0.0/26'), parseCidr('10.1.0.68/30')];
    assert.equal(firstFree(range, 64, taken)!.from, range.from + 128);
    assert.equal(firstFree(range, 64, [parseCidr('10.0.0.0/8')]), null, 'a route over the whole range');
    assert.equal(firstFree(range, 512, []), null, 'larger than the range');
  });

  test('a subnet holds its containers twice over (a start-first replacement beside the old one)', () => {
    assert.equal(prefixFor(1, 26), 26);
    assert.equal(prefixFor(29, 26), 26, '61 addresses fit a /26');
    assert.equal(prefixFor(30, 26), 26, '63 addresses still fit');
    assert.equal(prefixFor(31, 26), 25);
    assert.equal(prefixFor(500, 26), 22);
    assert.equal(prefixFor(1_000_000, 26), 16, 'never larger than a /16');
  });

  test("the host's routes are read from /proc/net/route, the default route left out", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-routes-'));
    const file = join(dir, 'route');
    writeFileSync(file, 'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n'
      + 'eth0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n'
      + 'eth0\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n');
    assert.deepEqual(await hostRoutes(file), [{ from: parseCidr('192.168.2.0/24').from, to: parseCidr('192.168.2.0/24').to }]);
  });
});

test("more networks than Docker's default pools hold, each a /26 of the pool", async () => {
  const s = await server();
  // six stacks of six networks each: 36 networks, past the 31 of Docker's default pools, for six containers
  const names = Array.from({ length: 6 }, () => uniqueName('pool'));
  made.push(...names);
  const keys = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
  const compose = `${tiny}    networks: [${keys.join(', ')}]\nnetworks:\n${keys.map((k) => `  ${k}: {}\n`).join('')}`;
  await Promise.all(names.map(async (name) => {
    await createStack(s, name, compose);
    await act(s, 'deploy', name);
  }));
  const range = parseCidr('10.208.0.0/13');
  const seen = new Set<string>();
  for (const name of names) {
    const subnets = [...(await subnetsOf(name)).values()];
    assert.equal(subnets.length, 6);
    for (const subnet of subnets) {
      assert.match(subnet, /\/26$/, `${name}: ${subnet}`);
      const span = parseCidr(subnet);
      assert.ok(span.from >= range.from && span.to <= range.to, `${subnet} is in the pool`);
      assert.ok(!seen.has(subnet), `${subnet} is given once`);
      seen.add(subnet);
    }
  }
  for (const name of names) assert.equal((await s.api('DELETE', `/api/v1/stacks/${name}`, { headers: { 'if-match': '"1"' } })).status, 200);
  for (const name of names) assert.equal((await subnetsOf(name)).size, 0, `${name}'s networks are gone`);
});

test('an exhausted pool fails the deploy before any container changes, names the setting, warns on the overview; a deleted stack frees its subnet', async () => {
  // a /25 of the pool's own default range: room for two /26 networks
  const s = await server({ range: '10.215.250.0/25', prefix: 26, warnAtPercent: 80 });
  const [a, b, c] = [uniqueName('pa'), uniqueName('pb'), uniqueName('pc')];
  made.push(a, b, c);
  for (const name of [a, b]) {
    await createStack(s, name, tiny);
    await act(s, 'deploy', name);
  }
  const subnets = [...(await subnetsOf(a)).values(), ...(await subnetsOf(b)).values()].sort();
  assert.deepEqual(subnets, ['10.215.250.0/26', '10.215.250.64/26']);

  await createStack(s, c, tiny);
  const failed = await act(s, 'deploy', c, 'failed');
  assert.match(failed.error ?? '', /no free \/26 subnet is left in the address pool 10\.215\.250\.0\/25.*plugins\.docker\.options\.addressPool\.range/);
  assert.equal((await docker.listContainers({ all: true, filters: { label: [`dockwright.project=${c}`] } })).length, 0, 'no container was created');

  const overview = await s.api('GET', '/api/v1/overview');
  const warning = overview.body.attention.find((x: { kind: string }) => x.kind === 'address-pool-filling');
  assert.ok(warning, JSON.stringify(overview.body.attention));
  assert.match(warning.message, /100 % of the address pool 10\.215\.250\.0\/25/);

  assert.equal((await s.api('DELETE', `/api/v1/stacks/${a}`, { headers: { 'if-match': '"1"' } })).status, 200);
  assert.equal((await subnetsOf(a)).size, 0, "the deleted stack's network is gone");
  await act(s, 'deploy', c);
  assert.deepEqual([...(await subnetsOf(c)).values()], ['10.215.250.0/26'], 'the freed subnet is used again');
});

test("a compose file's own ipam is kept", async () => {
  const s = await server();
  const name = uniqueName('ipam');
  made.push(name);
  await createStack(s, name, `${tiny}    networks: [own]\nnetworks:\n  own:\n    ipam:\n      config:\n        - subnet: 10.199.77.0/24\n`);
  await act(s, 'deploy', name);
  assert.deepEqual([...(await subnetsOf(name)).values()], ['10.199.77.0/24']);
});
