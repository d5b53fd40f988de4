// The edge's HTTP → HTTPS redirect in the document Caddy runs: on by default for every secured hostname, off globally (httpsRedirect) or per hostname (httpsRedirectExcept), the challenge path never redirected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig, type ConfigInput } from '../../../plugins/edge/caddy-config.ts';

const route = (hostname: string) => ({ owner: `site:${hostname}`, hostname, path: '/', kind: 'static' as const, target: { root: '/srv' } });
const input = (redirect?: ConfigInput['redirect']): ConfigInput => ({
  admin: null, httpPort: 8080, httpsPort: 8443, storageDir: '/tmp/s', accessLog: '/tmp/a.log', caddyLog: '/tmp/c.log',
  roll: { sizeMb: 1, keep: 1, keepDays: 1 }, challengeDir: '/tmp/challenge',
  routes: [route('a.example.com'), route('b.example.com'), route('plain.example.com')],
  certificates: [{ name: 'ab', domains: ['a.example.com', 'b.example.com'], certificate: 'C', key: 'K' }],
  addresses: new Map(), ...(redirect ? { redirect } : {}),
});

type Route = { match?: { host?: string[]; path?: string[] }[]; handle: { handler: string; status_code?: number }[] };
const servers = (doc: Record<string, any>) => doc.apps.http.servers as Record<string, { routes: Route[] }>;
const redirected = (doc: Record<string, any>) => servers(doc).http.routes.filter((r) => r.handle[0].status_code === 308).flatMap((r) => r.match?.[0].host ?? []);
const hostsOf = (routes: Route[]) => routes.flatMap((r) => (r.handle[0].status_code === 308 ? [] : r.match?.[0].host ?? []));

test('by default every hostname a certificate covers redirects to HTTPS; the challenge path answers first', () => {
  const doc = buildConfig(input());
  assert.deepEqual(redirected(doc), ['a.example.com', 'b.example.com']);
  assert.deepEqual(servers(doc).http.routes[0].match, [{ path: ['/.well-known/acme-challenge/*'] }]);
  assert.deepEqual(hostsOf(servers(doc).http.routes), ['plain.example.com']);
  assert.deepEqual(hostsOf(servers(doc).https.routes).sort(), ['a.example.com', 'b.example.com']);
});

test('httpsRedirect false: no redirect, secured hostnames served on both ports', () => {
  const doc = buildConfig(input({ enabled: false, except: [] }));
  assert.deepEqual(redirected(doc), []);
  assert.deepEqual(hostsOf(servers(doc).http.routes).sort(), ['a.example.com', 'b.example.com', 'plain.example.com']);
  assert.deepEqual(hostsOf(servers(doc).https.routes).sort(), ['a.example.com', 'b.example.com']);
});

test('httpsRedirectExcept: only the hostnames named are served over plain HTTP too', () => {
  const doc = buildConfig(input({ enabled: true, except: ['b.example.com'] }));
  assert.deepEqual(redirected(doc), ['a.example.com']);
  assert.deepEqual(hostsOf(servers(doc).http.routes).sort(), ['b.example.com', 'plain.example.com']);
  assert.deepEqual(hostsOf(servers(doc).https.routes).sort(), ['a.example.com', 'b.example.com']);
});
