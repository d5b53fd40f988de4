// Builds without an engine: BuildKit's protobuf status decoded into plain-progress lines, a step's Dockerfile line, the builder an engine offers, and the build section of a compose file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builderOf } from '../../../plugins/docker/build.ts';
import { BuildProgress, decodeStatus } from '../../../plugins/docker/buildkit-status.ts';
import { loadCompose } from '../../../plugins/docker/compose/load.ts';
import { instructions, sessionFeatures, stepLine } from '../../../plugins/docker/dockerfile.ts';

// protobuf wire format, written out so the decoder is checked against bytes, not against itself
const varint = (n: number): number[] => { const out: number[] = []; while (n >= 128) { out.push((n % 128) | 128); n = Math.floor(n / 128); } out.push(n); return out; };
const field = (number: number, payload: Uint8Array | string): number[] => {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return [...varint(number * 8 + 2), ...varint(bytes.length), ...bytes];
};
const flag = (number: number, value: number): number[] => [...varint(number * 8), ...varint(value)];
const msg = (...parts: number[][]) => Uint8Array.from(parts.flat());
const timestamp = (seconds: number, nanos: number) => msg(flag(1, seconds), flag(2, nanos));
const aux = (...parts: number[][]) => Buffer.from(msg(...parts)).toString('base64');

test('a StatusResponse decodes: vertexes with name, cached, times and error; statuses; logs; unknown fields skipped', () => {
  const vertex = msg(field(1, 'sha256:aa'), field(2, 'sha256:input'), field(3, '[2/3] RUN make'), flag(4, 1), field(5, timestamp(1_700_000_000, 500_000_000)),
    field(6, timestamp(1_700_000_002, 0)), field(7, 'boom'), field(8, msg(field(1, 'group'))), flag(99, 7));
  const status = msg(field(1, 'extracting sha256:bb'), field(2, 'sha256:aa'), flag(4, 300), flag(5, 1000), field(8, timestamp(1, 0)));
  const log = msg(field(1, 'sha256:aa'), field(2, timestamp(1, 0)), flag(3, 1), field(4, 'hello\n'));
  const decoded = decodeStatus(aux(field(1, vertex), field(2, status), field(3, log), field(4, msg(field(1, 'sha256:aa'), flag(2, 1), field(3, 'deprecated')))));
  assert.deepEqual(decoded.vertexes, [{ digest: 'sha256:aa', name: '[2/3] RUN make', cached: true, started: 1_700_000_000_500, completed: 1_700_000_002_000, error: 'boom' }]);
  assert.deepEqual(decoded.statuses, [{ id: 'extracting sha256:bb', vertex: 'sha256:aa', current: 300, total: 1000, completed: true }]);
  assert.deepEqual(decoded.logs.map((l) => [l.vertex, Buffer.from(l.msg).toString()]), [['sha256:aa', 'hello\n']]);
  assert.deepEqual(decoded.warnings, [{ vertex: 'sha256:aa', short: 'deprecated' }]);
  assert.throws(() => decodeStatus(Buffer.from([0x0a, 0x05, 0x01]).toString('base64')), /truncated/);
});

test('progress lines read like docker build --progress=plain: numbered steps, CACHED, output split into lines, DONE with its time, the first error kept', () => {
  const lines: string[] = [];
  const p = new BuildProgress((l) => lines.push(l));
  const v = (digest: string, name: string, more: number[][] = []) => field(1, msg(field(1, digest), field(3, name), ...more));
  p.add(decodeStatus(aux(v('a', '[1/3] FROM docker.io/library/busybox'), v('b', '[2/3] RUN make', [field(5, timestamp(10, 0))]))));
  p.add(decodeStatus(aux(v('a', '[1/3] FROM docker.io/library/busybox', [flag(4, 1)]))));
  p.add(decodeStatus(aux(field(3, msg(field(1, 'b'), field(4, 'compiling\npart'))))));
  p.add(decodeStatus(aux(field(3, msg(field(1, 'b'), field(4, 'ial line\r\n\n'))))));
  p.add(decodeStatus(aux(v('b', '[2/3] RUN make', [field(5, timestamp(10, 0)), field(6, timestamp(11, 250_000_000))]))));
  p.add(decodeStatus(aux(v('c', '[3/3] RUN test', [field(5, timestamp(12, 0))]), field(3, msg(field(1, 'c'), field(4, 'no newline at the end'))))));
  p.add(decodeStatus(aux(v('c', '[3/3] RUN test', [field(5, timestamp(12, 0)), field(7, 'exit code: 1')]))));
  p.add(decodeStatus(aux(v('c', '[3/3] RUN test', [field(7, 'exit code: 1')]))));
  p.end();
  assert.deepEqual(lines, [
    '#1 [2/3] RUN make',
    '#2 [1/3] FROM docker.io/library/busybox',
    '#2 CACHED',
    '#1 compiling',
    '#1 partial line',
    '#1 DONE 1.3s',
    '#3 [3/3] RUN test',
    '#3 no newline at the end',
    '#3 ERROR: exit code: 1',
  ]);
  assert.deepEqual(p.failed, { name: '[3/3] RUN test', error: 'exit code: 1' });
});

test('a step\'s Dockerfile line: FROM of an image, RUN, COPY, ADD and WORKDIR count; stages by name or stage-N; continuations, comments and heredocs skipped', () => {
  const dockerfile = [
    '# syntax-free comment', //       1
    'ARG BASE=busybox', //            2
    'FROM $BASE AS build', //         3  [build 1/4]
    'WORKDIR /src', //                4  [build 2/4]
    'ENV A=1', //                     5
    'RUN make \\', //                 6  [build 3/4]
    '  # a comment inside',
    '  all',
    'COPY <<EOF /x', //               9  [build 4/4]
    'RUN not-an-instruction',
    'EOF',
    'FROM scratch', //                12 (no step)
    'COPY --from=build /out /out', // 13 [stage-1 1/1]
    'FROM build', //                  14 (no step)
    'RUN false', //                   15 [stage-2 1/1]
  ].join('\n');
  assert.equal(stepLine(dockerfile, '[build 1/4] FROM docker.io/library/busybox'), 3);
  assert.equal(stepLine(dockerfile, '[build 2/4] WORKDIR /src'), 4);
  assert.equal(stepLine(dockerfile, '[build 3/4] RUN make all'), 6);
  assert.equal(stepLine(dockerfile, '[build 4/4] COPY <<EOF /x'), 9);
  assert.equal(stepLine(dockerfile, '[stage-1 1/1] COPY --from=build /out /out'), 13);
  assert.equal(stepLine(dockerfile, '[linux/arm64 stage-2 1/1] RUN false'), 15);
  assert.equal(stepLine(dockerfile, '[stage-2 1/1] COPY x y'), null, 'the keyword must match');
  assert.equal(stepLine(dockerfile, '[internal] load metadata for busybox'), null);
  assert.equal(stepLine('FROM busybox\nRUN a\nRUN b\n', '[3/3] RUN b'), 3);
  assert.deepEqual(instructions('# escape=`\nFROM busybox\nRUN echo `\n  two\n').map((i) => [i.keyword, i.line, i.args]), [['FROM', 2, 'busybox'], ['RUN', 3, 'echo  two']]);
  assert.deepEqual(sessionFeatures('FROM busybox\nRUN --mount=type=cache,target=/c --mount=type=secret,id=x true\nRUN --mount=target=/k,type=ssh true\n'),
    ['build secrets (RUN --mount=type=secret, line 2)', 'SSH forwarding (RUN --mount=type=ssh, line 3)']);
});

test('the builder an engine offers: BuildKit on Linux from API 1.39, else the classic builder with the reason', () => {
  assert.deepEqual(builderOf({ Os: 'linux', ApiVersion: '1.41', Version: '20.10.24' }), { kind: 'buildkit', why: '', engine: '20.10.24' });
  assert.deepEqual(builderOf({ Os: 'linux', ApiVersion: '1.39' }), { kind: 'buildkit', why: '' });
  assert.match(builderOf({ Os: 'linux', ApiVersion: '1.38' }).why, /API 1\.38 predates BuildKit/);
  assert.equal(builderOf({ Os: 'linux', ApiVersion: '1.38' }).kind, 'classic');
  assert.match(builderOf({ Os: 'windows', ApiVersion: '1.41' }).why, /runs on windows/);
});

test('the build section: every option the Engine API build takes is read; session features, other cache types and several platforms are refused by name', () => {
  const tree = mkdtempSync(join(tmpdir(), 'dw-build-'));
  mkdirSync(join(tree, 'app'));
  writeFileSync(join(tree, 'app', 'Dockerfile'), 'FROM busybox\n');
  const load = (build: string) => loadCompose({ name: 'proj', compose: `services:\n  web:\n    build:\n${build.replace(/^/gm, '      ')}\n`, variables: { FROM_VARS: 'v' }, workdir: tree });
  const full = load([
    'context: ./app', 'target: final', 'args: [FROM_VARS, "B=2"]', 'cache_from: [proj-web:cache, "type=registry,ref=127.0.0.1:5000/c:1"]',
    'labels: { a: "1" }', 'network: none', 'shm_size: 64m', 'extra_hosts: ["h.test=10.0.0.1", "g.test:10.0.0.2"]', 'platforms: [linux/amd64]', 'no_cache: true', 'pull: true',
  ].join('\n'));
  assert.deepEqual(full.errors, []);
  assert.deepEqual(full.services[0].build, {
    context: join(tree, 'app'), dockerfile: 'Dockerfile', args: { FROM_VARS: 'v', B: '2' }, target: 'final', cacheFrom: ['proj-web:cache', '127.0.0.1:5000/c:1'],
    labels: { a: '1' }, network: 'none', shmSize: 64 * 1024 ** 2, extraHosts: ['h.test:10.0.0.1', 'g.test:10.0.0.2'], platform: 'linux/amd64', noCache: true, pull: true,
  });
  const inline = load('context: ./app\ndockerfile_inline: |\n  FROM busybox\n  RUN true\n');
  assert.deepEqual(inline.errors, []);
  assert.equal(inline.services[0].build!.dockerfileInline, 'FROM busybox\nRUN true\n');
  const refused = load('context: ./app\nsecrets: [x]\nssh: [default]\nadditional_contexts: { a: ./b }\ncache_from: ["type=local,src=/tmp/c"]\nplatforms: [linux/amd64, linux/arm64]\nisolation: hyperv\ndockerfile: Dockerfile\ndockerfile_inline: FROM busybox');
  // secrets, ssh, additional_contexts and isolation are the supported-build-options rule's (platform-rules.test.ts), not the loader's
  const expected = [
    'services.web.build.cache_from[0]: cache source "type=local,src=/tmp/c" is not supported: the Engine API build takes',
    'services.web.build.dockerfile: dockerfile and dockerfile_inline exclude each other',
    'services.web.build.platforms: builds for several platforms (linux/amd64, linux/arm64) need buildx; the engine builds one',
  ];
  const got = refused.errors.map((e) => `${e.path}: ${e.message}`).sort();
  assert.deepEqual(got.map((line, i) => line.slice(0, expected[i]?.length)), expected);
});
