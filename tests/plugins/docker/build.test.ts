// Builds through the real API and engine: BuildKit by default (cache mounts, COPY --chmod, target, args, build options), its progress as job lines, failures naming their step, base images pulled first, what needs a session refused by name, the classic builder when chosen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { tar, type TestEntry } from '../git/archives.ts';
import { act, cleanupProjects, containerOf, createStack, docker, uniqueName } from '../stacks/helpers.ts';

const name = uniqueName('bk');
const failing = uniqueName('bkfail');
const session = uniqueName('bksess');
const pulled = uniqueName('bkpull');
const classic = uniqueName('bkclassic');
const registry = process.env.REGISTRY_OPEN ?? '';
const remoteBase = `${registry}/dockwright-test/${pulled}-base:1`;
let s: TestServer;
let c: TestServer;

const start = (docker: Record<string, unknown> = {}) => startServer({
  config: { rateLimit: { perMinute: 100_000 } },
  plugins: {
    docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false, ...docker } },
    containers: {},
    stacks: {},
    git: {},
  },
});

before(async () => { s = await start(); });
after(async () => {
  await cleanupProjects(name, failing, session, pulled, classic);
  await s?.close();
  await c?.close();
  for (const image of [`${name}-app`, `${failing}-app`, `${pulled}-app`, `${classic}-app`, remoteBase]) await docker.getImage(image).remove({ force: true }).catch(() => undefined);
});

/** creates the stack (once) and uploads the tree as its source */
async function upload(server: TestServer, stack: string, entries: TestEntry[]) {
  if ((await server.api('GET', `/api/v1/stacks/${stack}`)).status === 404) await createStack(server, stack, 'services:\n  app:\n    image: dockwright-test/busybox:1\n');
  const res = await server.api('PUT', `/api/v1/stacks/${stack}/source/upload`, { raw: new Uint8Array(tar(entries)), headers: { 'content-type': 'application/x-tar' } });
  assert.equal(res.status, 200, res.text);
}

async function logsOfContainer(stack: string): Promise<string> {
  const container = docker.getContainer((await containerOf(stack, 'app'))!.Id);
  for (let i = 0; i < 50; i++) {
    const out = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
    if (out.includes('END')) return out;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the container of ${stack} printed no END`);
}

const appCompose = `services:
  app:
    build:
      context: ./image
      target: final
      args: { GREETING: from-compose }
      labels: { org.example.built-by: dockwright-test }
      extra_hosts: ["buildhost.test:10.9.8.7"]
      shm_size: 32m
    command: ["sh", "-c", "cat /greeting /cache-run /hosts-line /shm-size; ls -l /run.sh; ls /app; echo END; sleep 3600"]
`;
const appDockerfile = `FROM dockwright-test/busybox:1 AS base
ARG GREETING=from-the-dockerfile
RUN echo "greeting: $GREETING" > /greeting
RUN --mount=type=cache,target=/cache \\
    echo run >> /cache/runs && echo "cache runs: $(wc -l < /cache/runs)" > /cache-run
RUN grep buildhost.test /etc/hosts > /hosts-line; df -k /dev/shm | tail -1 | awk '{print "shm kB: " $2}' > /shm-size

FROM base AS final
COPY --chmod=0750 run.sh /run.sh
COPY app/ /app/

FROM final AS never
RUN echo "the target stage is final, so this never runs"; exit 9
`;
const appTree: TestEntry[] = [
  { name: 'compose.yaml', content: appCompose },
  { name: 'image/Dockerfile', content: appDockerfile },
  { name: 'image/run.sh', content: '#!/bin/sh\necho run\n', mode: 0o644 },
  { name: 'image/app/kept.txt', content: 'kept\n' },
  { name: 'image/app/secret.env', content: 'excluded\n' },
  { name: 'image/.dockerignore', content: 'app/*.env\n' },
];

test('a stack builds with BuildKit: cache mounts, COPY --chmod, target, args, build labels, extra_hosts, shm_size, .dockerignore; the job shows the steps', async () => {
  await upload(s, name, appTree);
  const job = await act(s, 'deploy', name);
  assert.match(job.output, new RegExp(`app: building ${name}-app with BuildKit`));
  assert.match(job.output, /app: #\d+ \[base 3\/4\] RUN --mount=type=cache,target=\/cache/);
  assert.match(job.output, /app: #\d+ \[final 1\/2\] COPY --chmod=0750 run\.sh \/run\.sh/);
  assert.match(job.output, /app: #\d+ DONE \d+\.\ds/);
  assert.doesNotMatch(job.output, /never runs/);
  const logs = await logsOfContainer(name);
  assert.match(logs, /greeting: from-compose/);
  assert.match(logs, /cache runs: 1/);
  assert.match(logs, /buildhost\.test/);
  // the BuildKit of Docker Engine 20.10 ignores shm_size, and the job says so
  if (/^20\./.test((await docker.version()).Version)) {
    assert.match(logs, /shm kB: 65536/);
    assert.match(job.output, /app: warning: build\.shm_size is not applied by the BuildKit of Docker Engine 20\./);
  } else assert.match(logs, /shm kB: 32768/);
  assert.match(logs, /-rwxr-x---\s.*\/run\.sh/);
  assert.match(logs, /kept\.txt/);
  assert.doesNotMatch(logs, /secret\.env/);
  const image = await docker.getImage(`${name}-app`).inspect();
  assert.equal(image.Config.Labels?.['org.example.built-by'], 'dockwright-test');
});

test('a rebuild of the same tree takes its steps from the cache, and the unpacking of its context too (same tree, same bytes)', async () => {
  const job = await act(s, 'deploy', name);
  const cached = [...job.output.matchAll(/app: #(\d+) CACHED/g)].map((m) => m[1]);
  const step = (text: string) => new RegExp(`app: #(\\d+) \\[${text}`).exec(job.output)?.[1];
  for (const text of ['base 2/4\\] RUN echo', 'base 3/4\\] RUN --mount', 'final 1/2\\] COPY --chmod']) {
    assert.ok(cached.includes(step(text)!), `step ${text} is not CACHED:\n${job.output}`);
  }
  // the files were read by the first build, which changed their access times: the context's bytes do not show them
  const unpack = /app: #(\d+) copy \/context \//.exec(job.output)?.[1];
  assert.ok(unpack && cached.includes(unpack), `the context's unpacking is not CACHED:\n${job.output}`);
});

test('no_cache builds every step again; dockerfile_inline is the Dockerfile', async () => {
  const compose = `services:
  app:
    build:
      context: ./image
      no_cache: true
      dockerfile_inline: |
        FROM dockwright-test/busybox:1
        RUN echo inline > /greeting
        COPY run.sh /run.sh
    command: ["sh", "-c", "cat /greeting; echo END; sleep 3600"]
`;
  await upload(s, name, [...appTree.filter((e) => e.name !== 'compose.yaml'), { name: 'compose.yaml', content: compose }]);
  await act(s, 'deploy', name);
  const job = await act(s, 'deploy', name);
  const run = /app: #(\d+) \[2\/3\] RUN echo inline > \/greeting/.exec(job.output)?.[1];
  assert.ok(run, job.output);
  assert.doesNotMatch(job.output, new RegExp(`app: #${run} CACHED`));
  assert.match(job.output, new RegExp(`app: #${run} DONE`));
  assert.match(await logsOfContainer(name), /inline/);
});

test('a failing RUN fails the job with the step, its Dockerfile line and the exit code; its output is in the job', async () => {
  await upload(s, failing, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n    command: ["sleep", "3600"]\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\n# a comment\nRUN echo before-the-failure\nRUN echo "about to fail" >&2 && \\\n    exit 3\nRUN echo never\n' },
  ]);
  const job = await act(s, 'deploy', failing, 'failed');
  assert.match(job.error!, /building the image of "app" failed at step \[3\/4\] RUN echo "about to fail" >&2 &&\s+exit 3 \(Dockerfile line 4\): .*exit code: 3/);
  assert.match(job.output, /app: #\d+ about to fail/);
  assert.match(job.output, /app: #\d+ ERROR: /);
  assert.equal(await containerOf(failing, 'app'), undefined);
});

test('newer Dockerfile syntax the engine\'s built-in frontend lacks, with no equivalent there, fails naming the line and what it needs (heredocs are translated: build-heredoc.test.ts)', async () => {
  await upload(s, failing, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\nRUN --network=none echo offline\n' },
  ]);
  const engine = await docker.version();
  if (/^(1\d|2[0-2])\./.test(engine.Version)) {
    const job = await act(s, 'deploy', failing, 'failed');
    assert.match(job.error!, /RUN --network \(Dockerfile line 2, --network=none\) needs Dockerfile syntax 1\.3 \(Docker Engine 23\.0 or later\)/);
  }
});

test('build secrets and SSH need a BuildKit session: refused by name, in the compose file and in the Dockerfile', async () => {
  await upload(s, session, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\nRUN --mount=type=secret,id=token cat /run/secrets/token\n' },
  ]);
  const job = await act(s, 'deploy', session, 'failed');
  assert.match(job.error!, /build secrets \(RUN --mount=type=secret, line 2\) need a BuildKit session/);

  await upload(s, session, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build:\n      context: .\n      secrets: [token]\n      ssh: [default]\n      additional_contexts: { other: ../x }\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\n' },
  ]);
  const refused = await act(s, 'deploy', session, 'failed');
  assert.match(refused.error!, /services\.app\.build\.secrets: build secrets need a BuildKit session/);
  assert.match(refused.error!, /services\.app\.build\.ssh: SSH forwarding in a build needs a BuildKit session/);
  assert.match(refused.error!, /services\.app\.build\.additional_contexts: additional build contexts need a BuildKit session/);
});

test('a build on the host\'s network is refused by the rule no-host-network', async () => {
  await upload(s, session, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: { context: ., network: host }\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\n' },
  ]);
  const refused = await act(s, 'deploy', session, 'failed');
  assert.match(refused.error!, /services\.app\.build\.network: the build of service app asks for the network of the host \(no-host-network\)/);
});

test('a base image the engine lacks is pulled first, through the engine (BuildKit cannot pull without a session)', { skip: !registry && 'test-env has no open registry' }, async () => {
  const [repo, tag] = [remoteBase.slice(0, remoteBase.lastIndexOf(':')), '1'];
  await docker.getImage('dockwright-test/busybox:1').tag({ repo, tag });
  await new Promise<void>((resolve, reject) => docker.getImage(remoteBase).push({ authconfig: {} as never }, (err, stream) => {
    if (err) return reject(err);
    docker.modem.followProgress(stream!, (e: unknown, out: { error?: string }[]) => (e || out.some((o) => o.error) ? reject(e ?? new Error(JSON.stringify(out))) : resolve()));
  }));
  await docker.getImage(remoteBase).remove();
  await upload(s, pulled, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n    command: ["sh", "-c", "echo END; sleep 3600"]\n' },
    { name: 'Dockerfile', content: `FROM ${remoteBase}\nRUN true\n` },
  ]);
  const job = await act(s, 'deploy', pulled);
  assert.match(job.output, new RegExp(`pulling ${remoteBase.replace(/\./g, '\\.')}`));
  assert.match(job.output, /with BuildKit/);
  assert.equal((await containerOf(pulled, 'app'))!.State, 'running');
});

test('the classic builder, when chosen, says so in the job output and builds what it can', async () => {
  c = await start({ builder: 'classic' });
  await upload(c, classic, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: { context: ., target: final, args: { WHO: classic } }\n    command: ["sh", "-c", "cat /who; echo END; sleep 3600"]\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1 AS final\nARG WHO\nRUN echo "built by $WHO" > /who\nFROM final\nRUN exit 5\n' },
  ]);
  const job = await act(c, 'deploy', classic);
  assert.match(job.output, /app: building \S+ with the classic builder \(the docker plugin's option builder says so\)/);
  assert.match(job.output, /app: Step 3\/3 : RUN echo "built by \$WHO" > \/who/);
  assert.match(await logsOfContainer(classic), /built by classic/);
  await upload(c, classic, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\nRUN --mount=type=cache,target=/cache true\n' },
  ]);
  const failed = await act(c, 'deploy', classic, 'failed');
  assert.match(failed.error!, /requires BuildKit/);
});
