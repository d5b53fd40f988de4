// Heredocs and other newer Dockerfile syntax (COPY --link, ${VAR%pattern}) through the real API on the real engine: on an engine whose built-in frontend lacks them (before Docker Engine 23) the Dockerfile is translated, the image holds what BuildKit would have made, a failure names the user's own line, and what has no equivalent fails by name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/harness.ts';
import { tar, type TestEntry } from '../git/archives.ts';
import { act, cleanupProjects, createStack, docker, uniqueName } from '../stacks/helpers.ts';

const name = uniqueName('hd');
const failing = uniqueName('hdfail');
const frontend = `dockwright-test/${uniqueName('frontend')}:1`;
let s: TestServer;
let older = false;

before(async () => {
  s = await startServer({
    config: { rateLimit: { perMinute: 100_000 } },
    plugins: { docker: { options: { healthTimeoutMs: 60_000, stopTimeoutSeconds: 1, reconcile: false } }, containers: {}, stacks: {}, git: {} },
  });
  older = Number(/^(\d+)\./.exec((await docker.version()).Version)?.[1]) < 23;
});
after(async () => {
  await cleanupProjects(name, failing);
  await s?.close();
  for (const image of [`${name}-app`, `${failing}-app`, frontend]) await docker.getImage(image).remove({ force: true }).catch(() => undefined);
});

async function upload(stack: string, entries: TestEntry[]) {
  if ((await s.api('GET', `/api/v1/stacks/${stack}`)).status === 404) await createStack(s, stack, 'services:\n  app:\n    image: dockwright-test/busybox:1\n');
  const res = await s.api('PUT', `/api/v1/stacks/${stack}/source/upload`, { raw: new Uint8Array(tar(entries)), headers: { 'content-type': 'application/x-tar' } });
  assert.equal(res.status, 200, res.text);
}

/** runs a script in a throwaway container of the image, straight on the engine, and answers its output */
async function inImage(image: string, script: string): Promise<string> {
  const container = await docker.createContainer({ Image: image, Cmd: ['sh', '-c', script], Labels: { 'dockwright.project': name } });
  try {
    await container.start();
    await container.wait();
    // the log stream is multiplexed: frames of an 8-byte header (stream, 3 zero bytes, length) and their bytes
    const raw = await container.logs({ stdout: true, stderr: true });
    const parts: Buffer[] = [];
    for (let at = 0; at + 8 <= raw.length; at += 8 + raw.readUInt32BE(at + 4)) parts.push(raw.subarray(at + 8, at + 8 + raw.readUInt32BE(at + 4)));
    return Buffer.concat(parts).toString('utf8');
  } finally {
    await container.remove({ force: true });
  }
}

const compose = 'services:\n  app:\n    build:\n      context: .\n      args: { GREETING: from-compose }\n    command: ["sleep", "3600"]\n';
const dockerfile = `# syntax=docker/dockerfile:1
# check=skip=all
FROM dockwright-test/busybox:1 AS base
ARG GREETING=from-the-dockerfile
ENV WHO=world
RUN <<EOF
echo "script line one" > /run-heredoc
echo "expanded by the shell: $WHO" >> /run-heredoc
EOF
RUN --mount=type=cache,target=/cache \\
    cat <<-'QUOTED' > /fed && cat <<PLAIN >> /fed
	tab-stripped, not expanded: $WHO
	QUOTED
expanded: $WHO
PLAIN
RUN <<EOF
#!/bin/sh
echo "shebang script run as $0" > /shebang
EOF
COPY --link --chmod=0755 <<EOF /usr/local/bin/greet
#!/bin/sh
# the base image's PATH: $PATH
echo "$GREETING \${WHO} \\$HOME"
EOF
COPY <<'RAW' <<robots.txt /srv/
$GREETING stays as written
RAW
User-agent: *
robots.txt
COPY kept.txt /srv/
ENV FIRST=\${GREETING%%-*} WORD='\${GREETING%%-*}'
FROM base AS final
SHELL ["/bin/sh", "-ec"]
RUN --network=default <<EOF
echo "final stage, shell $0" > /final
EOF
`;
const tree: TestEntry[] = [
  { name: 'compose.yaml', content: compose },
  { name: 'Dockerfile', content: dockerfile },
  { name: 'kept.txt', content: 'a file of the context\n' },
  // the generated files are never subject to .dockerignore, and never clash with the user's own
  { name: '.dockerignore', content: '*\n!Dockerfile\n!kept.txt\n' },
  { name: '.dockwright/heredoc-1/EOF', content: 'the user\'s own file\n' },
];

test('a Dockerfile with RUN and COPY heredocs, COPY --link and a # syntax= line builds, and the image holds what BuildKit makes of it', async () => {
  await upload(name, tree);
  const job = await act(s, 'deploy', name);
  if (older) {
    assert.equal(job.output.match(/the Dockerfile was translated for the older built-in frontend/g)?.length, 1, job.output);
    assert.match(job.output, /# syntax=docker\/dockerfile:1 left out, RUN heredoc \(line 6\), RUN heredoc \(line 10\), RUN heredoc \(line 16\), COPY heredoc \(line 20\), COPY heredoc \(line 25\), \$\{VAR#…\}, \$\{VAR%…\} or \$\{VAR\/…\} \(line 31\), RUN heredoc \(line 34\)\n/);
    assert.equal(job.output.match(/--link left out of COPY\/ADD \(Dockerfile line 20\)/g)?.length, 1, job.output);
  }
  const image = `${name}-app`;
  assert.equal(await inImage(image, 'cat /run-heredoc'), 'script line one\nexpanded by the shell: world\n');
  assert.equal(await inImage(image, 'cat /fed'), 'tab-stripped, not expanded: $WHO\nexpanded: world\n');
  assert.equal(await inImage(image, 'cat /shebang'), 'shebang script run as /dev/pipes/EOF\n');
  // an unquoted COPY heredoc is expanded with the build's args and env; a quoted one is not
  assert.equal(await inImage(image, 'cat /usr/local/bin/greet; stat -c "%a %u" /usr/local/bin/greet; /usr/local/bin/greet'),
    '#!/bin/sh\n# the base image\'s PATH: /usr/sbin:/usr/bin:/sbin:/bin\necho "from-compose world $HOME"\n755 0\nfrom-compose world /root\n');
  assert.equal(await inImage(image, 'cat /srv/RAW /srv/robots.txt /srv/kept.txt; stat -c "%a" /srv/robots.txt'), '$GREETING stays as written\nUser-agent: *\na file of the context\n644\n');
  assert.equal(await inImage(image, 'cat /final; ls -a / | grep -c dockwright || true'), 'final stage, shell /bin/sh\n0\n');
  // the pattern expansions of Dockerfile syntax 1.7, outside single quotes
  const env = (await docker.getImage(image).inspect()).Config.Env;
  assert.ok(env.includes('FIRST=from') && env.includes('WORD=${GREETING%%-*}'), env.join('\n'));
});

test('a rebuild of the same tree takes the translated steps from the cache', async () => {
  const job = await act(s, 'deploy', name);
  const cached = new Set([...job.output.matchAll(/app: #(\d+) CACHED/g)].map((m) => m[1]));
  const steps = [...job.output.matchAll(/app: #(\d+) \[(?:base|final) \d+\/\d+\] (RUN|COPY)/g)].map((m) => m[1]);
  assert.ok(steps.length >= 7, job.output);
  for (const step of steps) assert.ok(cached.has(step), `step #${step} is not CACHED:\n${job.output}`);
});

test('a heredoc script that fails names the user\'s own Dockerfile line', async () => {
  await upload(failing, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n' },
    { name: 'Dockerfile', content: 'FROM dockwright-test/busybox:1\nRUN <<EOF\necho fine\nEOF\n# a comment\nRUN <<EOF\necho "about to fail" >&2\nexit 3\nEOF\nRUN echo never\n' },
  ]);
  const job = await act(s, 'deploy', failing, 'failed');
  assert.match(job.error!, /building the image of "app" failed at step \[3\/4\] RUN .* \(Dockerfile line 6\): [\s\S]*exit code: 3/);
  assert.match(job.output, /app: #\d+ about to fail/);
});

test('newer syntax without an exact equivalent on the engine fails naming the feature, the line and the engine that has it', async () => {
  if (!older) return;
  for (const [line, message] of [
    ['COPY --parents kept.txt /srv/', /COPY --parents \(Dockerfile line 3\) needs Dockerfile syntax 1\.20 \(Docker Engine 29\.1 or later\); the built-in frontend of Docker Engine 20\./],
    ['RUN --network=none true', /RUN --network \(Dockerfile line 3, --network=none\) needs Dockerfile syntax 1\.3 \(Docker Engine 23\.0 or later\)/],
    ['ADD --checksum=sha256:0000 kept.txt /srv/', /ADD --checksum \(Dockerfile line 3\) needs Dockerfile syntax 1\.6 \(Docker Engine 25\.0 or later\)/],
  ] as const) {
    await upload(failing, [
      { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n' },
      { name: 'Dockerfile', content: `FROM dockwright-test/busybox:1\n\n${line}\n` },
      { name: 'kept.txt', content: 'x\n' },
    ]);
    const job = await act(s, 'deploy', failing, 'failed');
    assert.match(job.error!, message);
  }
});

test('a # syntax= line naming an image the engine has is left alone: that frontend reads the file', async () => {
  if (!older) return;
  // not a frontend at all: BuildKit fails running it, which shows the Dockerfile went to it untouched
  await docker.getImage('dockwright-test/busybox:1').tag({ repo: frontend.split(':')[0], tag: '1' });
  await upload(failing, [
    { name: 'compose.yaml', content: 'services:\n  app:\n    build: .\n' },
    { name: 'Dockerfile', content: `# syntax=${frontend}\nFROM dockwright-test/busybox:1\nRUN <<EOF\necho hi\nEOF\n` },
  ]);
  const job = await act(s, 'deploy', failing, 'failed');
  assert.doesNotMatch(job.output, /translated/);
  assert.match(job.error!, /failed to solve with frontend gateway/);
});
