// Registry host normalisation (Docker Hub's aliases, case, ports, IPv6), the host the outbound policy judges, a Bearer challenge's token service and the base images a Dockerfile pulls: pure functions, no engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseHost, serverAddressOf } from '../../../plugins/registries/hosts.ts';
import { baseImages } from '../../../plugins/docker/dockerfile.ts';
import { policyHost, registryHost } from '../../../plugins/docker/registry-names.ts';
import { bearerRealm } from '../../../plugins/registries/login-check.ts';

test('hosts are normalised: Docker Hub aliases are one, lowercase, ports kept (leading zeros dropped), IPv6 in brackets', () => {
  const cases: [string, string][] = [
    ['docker.io', 'docker.io'], ['index.docker.io', 'docker.io'], ['REGISTRY-1.Docker.IO', 'docker.io'],
    ['docker.io:443', 'docker.io:443'], ['GHCR.io', 'ghcr.io'], ['registry.example.com:05000', 'registry.example.com:5000'],
    ['127.0.0.1:5001', '127.0.0.1:5001'], ['localhost', 'localhost'], ['[::1]:5000', '[::1]:5000'], ['[FE80::1]', '[fe80::1]'],
  ];
  for (const [input, host] of cases) assert.deepEqual(normaliseHost(input), { ok: true, host }, input);
  assert.equal(serverAddressOf('docker.io'), 'https://index.docker.io/v1/');
  assert.equal(serverAddressOf('ghcr.io'), 'ghcr.io');
});

test('what is not host[:port] is refused with the reason', () => {
  const cases: [string, RegExp][] = [
    ['https://ghcr.io', /without a scheme/], ['ghcr.io/owner', /without a scheme or a path/], ['::1', /at most one ":"/],
    ['a:b:c', /at most one ":"/], ['host:0', /between 1 and 65535/], ['host:65536', /between 1 and 65535/], ['host:', /between 1 and 65535/],
    ['host:123456', /between 1 and 65535/], ['-a.example.com', /not a host name/], ['a..b', /not a host name/], ['', /not a host name/],
    [`${'a'.repeat(64)}.com`, /not a host name/], ['[zz]:5000', /not a host name/], ['exa mple.com', /not a host name/], ['ex_ample.com', /not a host name/],
  ];
  for (const [input, reason] of cases) {
    const checked = normaliseHost(input);
    assert.equal(checked.ok, false, input);
    if (!checked.ok) assert.match(checked.message, reason, input);
  }
});

test('an image\'s registry is found by the rule docker uses', () => {
  assert.equal(registryHost('busybox'), 'docker.io');
  assert.equal(registryHost('library/busybox:1'), 'docker.io');
  assert.equal(registryHost('ghcr.io/owner/app:1'), 'ghcr.io');
  assert.equal(registryHost('127.0.0.1:5001/x/y:1'), '127.0.0.1:5001');
  assert.equal(registryHost('localhost/x'), 'localhost');
  assert.deepEqual(normaliseHost(registryHost('Index.Docker.io/library/busybox')), { ok: true, host: 'docker.io' });
});

test('the base images of a Dockerfile: FROM and COPY --from, build args and global ARGs filled in, stages and scratch left out', () => {
  const dockerfile = [
    'ARG REGISTRY=ghcr.io',
    'ARG TAG="1.2"',
    'FROM --platform=linux/amd64 ${REGISTRY}/owner/build:$TAG AS build',
    'RUN make \\',
    '  all',
    'from build as test',
    'FROM scratch',
    'COPY --from=build /out /out',
    'COPY --from=0 /x /x',
    'COPY --chown=1:1 --from=quay.io/other/tool:3 /bin/tool /bin/tool',
    'FROM $UNKNOWN/app',
    'FROM ${MIRROR:-docker.io}/library/alpine:3',
  ].join('\n');
  assert.deepEqual(baseImages(dockerfile, {}), ['ghcr.io/owner/build:1.2', 'quay.io/other/tool:3', 'docker.io/library/alpine:3']);
  assert.deepEqual(baseImages(dockerfile, { REGISTRY: '127.0.0.1:5001', MIRROR: 'mirror.local:5000' }),
    ['127.0.0.1:5001/owner/build:1.2', 'quay.io/other/tool:3', 'mirror.local:5000/library/alpine:3']);
});

test('the outbound policy judges a registry without port or brackets, and Docker Hub by the name docker.io', () => {
  const cases: [string, string][] = [
    ['busybox:1', 'docker.io'], ['library/busybox', 'docker.io'], ['index.docker.io/library/busybox', 'docker.io'], ['Registry-1.Docker.io/x/y', 'docker.io'],
    ['127.0.0.1:5000/x:1', '127.0.0.1'], ['[::1]:5000/x', '::1'], ['localhost/x', 'localhost'], ['ghcr.io/owner/app@sha256:' + 'a'.repeat(64), 'ghcr.io'],
  ];
  for (const [ref, host] of cases) assert.equal(policyHost(registryHost(ref)), host, ref);
});

test('the token service of a Bearer challenge, among other challenges, quoted or not; none for Basic', () => {
  assert.equal(bearerRealm('Bearer realm="https://auth.docker.io/token",service="registry.docker.io"'), 'https://auth.docker.io/token');
  assert.equal(bearerRealm('Basic realm="Registry", Bearer service="s",realm=http://10.0.0.1/token'), 'http://10.0.0.1/token');
  assert.equal(bearerRealm('bearer  realm = "http://[::1]:9/t" , scope="x"'), 'http://[::1]:9/t');
  assert.equal(bearerRealm('Basic realm="Registry Realm"'), null);
  assert.equal(bearerRealm(''), null);
});
