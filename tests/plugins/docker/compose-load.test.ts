// The compose loader through the runtime's load(): interpolation, short and long syntax, env_file from the source tree, and every kind of error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import type { LoadedCompose } from '../../../plugins/docker/types.ts';
import { startDockerServer } from './helpers.ts';

let s: TestServer;
let tree: string;
before(async () => {
  s = await startDockerServer();
  tree = mkdtempSync(join(tmpdir(), 'dw-compose-'));
  writeFileSync(join(tree, 'web.env'), '# comment\nexport A=1\nB="two words"\nC=3 # trailing comment\nD\nE=from-file\n');
  mkdirSync(join(tree, 'app'));
  writeFileSync(join(tree, 'app', 'Dockerfile'), 'FROM dockwright-test/busybox:1\n');
  symlinkSync('/etc', join(tree, 'outside'));
});
after(async () => {
  await s?.close();
  if (tree) rmSync(tree, { recursive: true, force: true });
});

async function load(compose: string, variables: Record<string, string> = {}, extra: { name?: string; workdir?: string } = {}): Promise<LoadedCompose> {
  const res = await s.api('POST', '/api/v1/driver/load', { body: { name: extra.name ?? 'proj', compose, variables, workdir: extra.workdir } });
  assert.equal(res.status, 200, res.text);
  return res.body;
}
const service = (l: LoadedCompose, name: string) => l.services.find((x) => x.name === name)!;
const messages = (issues: { path: string; message: string }[]) => issues.map((e) => `${e.path}: ${e.message}`);

test('interpolation: ${VAR}, $VAR, defaults, alternatives, $$ escapes and unset variables (empty, with a warning)', async () => {
  const l = await load(`
services:
  web:
    image: "dockwright-test/busybox:\${TAG}"
    command: echo $$HOME \${GREETING:-hello} \${EMPTY:-fallback} \${EMPTY-kept} \${SET:+alt} \${UNSET:+alt}x
    environment:
      PLAIN: $NAME
      NESTED: "\${MISSING:-\${NAME}-nested}"
      UNSET: "[\${NOPE}]"
      DOLLARS: "a$$b"
`, { TAG: '1', NAME: 'world', EMPTY: '', SET: 'y' });
  assert.deepEqual(l.errors, []);
  const web = service(l, 'web');
  assert.equal(web.image, 'dockwright-test/busybox:1');
  assert.deepEqual(web.command, ['echo', '$HOME', 'hello', 'fallback', 'alt', 'x']);
  assert.deepEqual(web.environment, { PLAIN: 'world', NESTED: 'world-nested', UNSET: '[]', DOLLARS: 'a$b' });
  assert.equal((l.raw as any).services.web.environment.NESTED, 'world-nested', 'raw is the interpolated document');
  assert.deepEqual(messages(l.warnings), ['services.web.environment.UNSET: the variable NOPE is not set; using an empty string']);
});

test('interpolation errors: required variables, unclosed braces, bad names and lone dollars', async () => {
  const l = await load(`
services:
  web:
    image: dockwright-test/busybox:1
    environment:
      A: "\${NEEDED:?set NEEDED to the database password}"
      B: "\${OPEN"
      C: "\${1BAD}"
      D: "cost: 5$"
`);
  const got = messages(l.errors);
  assert.ok(got.includes('services.web.environment.A: the variable NEEDED is required and must not be empty: set NEEDED to the database password'), got.join('\n'));
  assert.ok(got.some((m) => m.startsWith('services.web.environment.B: invalid interpolation') && m.includes('closing')), got.join('\n'));
  assert.ok(got.some((m) => m.startsWith('services.web.environment.C: invalid interpolation')), got.join('\n'));
  assert.ok(got.some((m) => m.startsWith('services.web.environment.D: invalid interpolation') && m.includes('$$')), got.join('\n'));
});

test('short and long syntax normalize to one model', async () => {
  const l = await load(`
x-common: &common
  restart: unless-stopped
  labels: { team: core }
services:
  web:
    <<: *common
    image: dockwright-test/web:1
    entrypoint: ["/bin/sh", "-c"]
    command: 'echo "a b" c\\ d'
    ports:
      - "8080"
      - "127.0.0.1:9000:80"
      - "9100-9101:100-101/udp"
      - target: 443
        published: "8443"
        host_ip: 127.0.0.1
    volumes:
      - data:/data:ro
      - ./app:/app
      - /srv/static:/static
      - type: volume
        source: data
        target: /more
        volume: { nocopy: true }
      - type: tmpfs
        target: /scratch
        tmpfs: { size: 64m }
    tmpfs: /run
    environment: [ "X=1", "Y=a=b", "FROM_VARS" ]
    env_file: web.env
    networks:
      front:
        aliases: [www]
      default:
    healthcheck:
      test: wget -q -O - http://127.0.0.1:8080/
      interval: 1m30s
      timeout: 500ms
      retries: 3
      start_period: 2s
    depends_on:
      db: { condition: service_healthy }
      init: { condition: service_completed_successfully, required: false }
    user: "1000:1000"
    working_dir: /app
    deploy:
      replicas: 2
      resources: { limits: { cpus: "0.5", memory: 64m, pids: 100 }, reservations: { memory: 16m } }
    logging: { driver: json-file, options: { max-size: 1m } }
    extra_hosts: [ "db.local:10.0.0.2", "other=10.0.0.3" ]
    stop_grace_period: 1m
  db:
    image: dockwright-test/busybox:1
    restart: on-failure:3
    depends_on: [init]
    healthcheck: { test: ["CMD", "true"] }
    network_mode: none
  init:
    image: dockwright-test/busybox:1
    healthcheck: { disable: true }
networks:
  front: {}
volumes:
  data:
`, { FROM_VARS: 'v' }, { workdir: tree });
  assert.deepEqual(l.errors, []);
  const web = service(l, 'web');
  assert.deepEqual(web.entrypoint, ['/bin/sh', '-c']);
  assert.deepEqual(web.command, ['echo', 'a b', 'c d']);
  assert.deepEqual(web.restart, { name: 'unless-stopped', maximumRetryCount: 0 });
  assert.deepEqual(web.labels, { team: 'core' });
  assert.deepEqual(web.ports, [
    { target: 8080, published: null, hostIp: '', protocol: 'tcp', entry: 0 },
    { target: 80, published: 9000, hostIp: '127.0.0.1', protocol: 'tcp', entry: 1 },
    { target: 100, published: 9100, hostIp: '', protocol: 'udp', entry: 2 },
    { target: 101, published: 9101, hostIp: '', protocol: 'udp', entry: 2 },
    { target: 443, published: 8443, hostIp: '127.0.0.1', protocol: 'tcp', entry: 3 },
  ]);
  assert.deepEqual(web.mounts, [
    { type: 'volume', source: 'proj_data', target: '/data', readOnly: true, noCopy: false },
    { type: 'bind', source: join(tree, 'app'), target: '/app', readOnly: false, createHostPath: true },
    { type: 'bind', source: '/srv/static', target: '/static', readOnly: false, createHostPath: true },
    { type: 'volume', source: 'proj_data', target: '/more', readOnly: false, noCopy: true },
    { type: 'tmpfs', source: null, target: '/scratch', readOnly: false, tmpfsSize: 64 * 1024 ** 2 },
    { type: 'tmpfs', source: null, target: '/run', readOnly: false },
  ]);
  assert.deepEqual(web.environment, { A: '1', B: 'two words', C: '3', E: 'from-file', X: '1', Y: 'a=b', FROM_VARS: 'v' });
  assert.deepEqual(web.networks, [
    { key: 'front', name: 'proj_front', aliases: ['web', 'www'] },
    { key: 'default', name: 'proj_default', aliases: ['web'] },
  ]);
  assert.deepEqual(web.healthcheck, { test: ['CMD-SHELL', 'wget -q -O - http://127.0.0.1:8080/'], intervalNs: 90e9, timeoutNs: 500e6, retries: 3, startPeriodNs: 2e9 });
  assert.deepEqual(web.dependsOn, [
    { service: 'db', condition: 'service_healthy', required: true },
    { service: 'init', condition: 'service_completed_successfully', required: false },
  ]);
  assert.equal(web.user, '1000:1000');
  assert.equal(web.workingDir, '/app');
  assert.equal(web.replicas, 2);
  assert.deepEqual(web.resources, { memory: 64 * 1024 ** 2, memoryReservation: 16 * 1024 ** 2, nanoCpus: 5e8, pidsLimit: 100 });
  assert.deepEqual(web.logging, { driver: 'json-file', options: { 'max-size': '1m' } });
  assert.deepEqual(web.extraHosts, ['db.local:10.0.0.2', 'other:10.0.0.3']);
  assert.equal(web.stopGracePeriodSeconds, 60);
  const db = service(l, 'db');
  assert.deepEqual(db.restart, { name: 'on-failure', maximumRetryCount: 3 });
  assert.deepEqual(db.dependsOn, [{ service: 'init', condition: 'service_started', required: true }]);
  assert.equal(db.networkMode, 'none');
  assert.deepEqual(db.networks, []);
  assert.deepEqual(service(l, 'init').healthcheck, { test: ['NONE'] });
  assert.deepEqual(l.networks.map((n) => n.name).sort(), ['proj_default', 'proj_front']);
  assert.deepEqual(l.volumes.map((v) => [v.name, v.labels]), [['proj_data', { 'dockwright.managed': 'true', 'dockwright.project': 'proj' }]]);
});

test('errors: bad YAML names its line', async () => {
  const l = await load('services:\n  web:\n    image: [unclosed\n');
  assert.equal(l.errors.length >= 1, true);
  assert.match(l.errors[0].message, /^YAML syntax error at line \d+, column \d+/);
  assert.deepEqual(l.services, []);
});

test('a flow collection closed at its key\'s indentation reads as compose reads it (go-yaml accepts it; real files write it so)', async () => {
  const l = await load('services:\n  web:\n    image: dockwright-test/busybox:1\n    command: [\n      "sh",\n      # a comment inside\n      "-c", "echo hi"\n    ]\n    healthcheck:\n      test: [\n          "CMD", "true"\n      ]\n      interval: 5s\n');
  assert.deepEqual(messages(l.errors), []);
  assert.deepEqual(service(l, 'web').command, ['sh', '-c', 'echo hi']);
  assert.deepEqual(service(l, 'web').healthcheck?.test, ['CMD', 'true']);
});

test('errors: missing image, depends_on cycles and unknown targets, undeclared volumes and networks, unknown keys, bad ports', async () => {
  const l = await load(`
services:
  noimage:
    command: echo
  a:
    image: dockwright-test/busybox:1
    depends_on: [b]
  b:
    image: dockwright-test/busybox:1
    depends_on: [c]
  c:
    image: dockwright-test/busybox:1
    depends_on: [a, ghost]
  d:
    image: dockwright-test/busybox:1
    volumes: [undeclared:/data]
    networks: [nowhere]
    ports: ["99999:80", "1:2:3:4"]
    privileged: true
    secrets: [x]
    restart: sometimes
configs:
  c: { file: ./c }
`);
  const got = messages(l.errors);
  const expect = [
    'services.noimage: the service "noimage" has no image (and no build)',
    'services.c.depends_on: depends on "ghost", which is not a service of this file',
    'services.d.volumes[0]: refers to the volume "undeclared", which is not declared under the top-level volumes',
    'services.d.networks.nowhere: refers to the network "nowhere", which is not declared under the top-level networks',
    'services.d.ports[0]: host port "99999" is not a port number (1-65535) or range',
    'services.d.ports[1]: "1:2:3:4" is not container, host:container or ip:host:container',
    'services.d.secrets[0]: refers to the secret "x", which is not declared under the top-level secrets',
    'services.d.restart: "sometimes" is not no, always, unless-stopped or on-failure[:N]',
    'configs.c.file: config file "./c" needs a source tree, and this stack has none',
  ];
  for (const e of expect) assert.ok(got.includes(e), `missing error ${e}\ngot:\n${got.join('\n')}`);
  const cycles = got.filter((m) => m.includes('dependency cycle'));
  assert.equal(cycles.length, 1, got.join('\n'));
  assert.match(cycles[0], /dependency cycle: (a → b → c → a|b → c → a → b|c → a → b → c)/);
  assert.ok(!got.some((m) => m.includes('privileged')), 'privileged is a platform rule of stacks, not a load error');
  assert.equal((l.raw as any).services.d.privileged, true, 'raw keeps what the platform rules inspect');
});

test('the source tree: env_file and relative paths stay inside it; without one they are refused', async () => {
  const escapes = await load(`
services:
  web:
    image: dockwright-test/busybox:1
    env_file: [../etc/passwd, { path: missing.env, required: false }, absent.env]
    volumes: ["../up:/up", "./outside/x:/x", "~/home:/h", "~other/x:/o"]
    build: { context: ../elsewhere }
`, {}, { workdir: tree });
  const got = messages(escapes.errors);
  assert.ok(got.includes('services.web.env_file[0]: env_file "../etc/passwd" points outside the source tree'), got.join('\n'));
  assert.ok(got.includes('services.web.env_file[2]: env_file "absent.env" is not in the source tree'), got.join('\n'));
  assert.ok(!got.some((m) => m.includes('missing.env')), 'an optional env_file may be absent');
  assert.ok(got.includes('services.web.volumes[0]: bind mount source "../up" points outside the source tree'), got.join('\n'));
  assert.ok(got.includes('services.web.volumes[1]: bind mount source "./outside/x" leads outside the source tree through a symbolic link'), got.join('\n'));
  // ~/… is the home of the user Dockwright runs as: a host path like any other, which allowed-bind-mounts judges (no load error)
  assert.ok(!got.some((m) => m.startsWith('services.web.volumes[2]')), got.join('\n'));
  assert.deepEqual(escapes.services[0].mounts.find((m) => m.target === '/h')?.source, join(homedir(), 'home'));
  assert.ok(got.some((m) => m.startsWith('services.web.volumes[3]: bind mount source "~other/x": only ~ and ~/… (the home of the user Dockwright runs as) are expanded')), got.join('\n'));
  assert.ok(got.includes('services.web.build.context: build context "../elsewhere" points outside the source tree'), got.join('\n'));

  const noTree = await load('services:\n  web:\n    build: ./app\n    env_file: web.env\n');
  assert.deepEqual(messages(noTree.errors).sort(), [
    'services.web.build.context: build context "./app" needs a source tree, and this stack has none',
    'services.web.env_file: env_file "web.env" needs a source tree, and this stack has none',
  ]);

  const build = await load('services:\n  app:\n    build: ./app\n', {}, { workdir: tree });
  assert.deepEqual(build.errors, []);
  assert.equal(service(build, 'app').image, 'proj-app');
  assert.equal(service(build, 'app').pullPolicy, 'build');
  assert.deepEqual(service(build, 'app').build, { context: join(tree, 'app'), dockerfile: 'Dockerfile', args: {} });
});

test("the project's .env interpolates (the stack's variables win) and COMPOSE_PROFILES chooses the services that run", async () => {
  const project = mkdtempSync(join(tmpdir(), 'dw-compose-env-'));
  try {
    writeFileSync(join(project, '.env'), 'TAG=1\nGREETING="from .env"\nCOMPOSE_PROFILES=debug\n');
    const compose = `
services:
  web:
    image: "dockwright-test/busybox:\${TAG}"
    command: echo \${GREETING}
  tools:
    image: dockwright-test/busybox:1
    profiles: [debug]
  admin:
    image: dockwright-test/busybox:1
    profiles: [ops, admin]
    networks: [backoffice]
networks:
  backoffice: {}
`;
    const l = await load(compose, {}, { workdir: project });
    assert.deepEqual(l.errors, []);
    assert.equal(service(l, 'web').image, 'dockwright-test/busybox:1', '.env interpolates');
    assert.deepEqual(service(l, 'web').command, ['echo', 'from', '.env']);
    assert.deepEqual(l.services.map((x) => x.name).sort(), ['tools', 'web'], 'the debug profile runs; admin (ops, admin) does not');
    assert.ok(!l.networks.some((n) => n.key === 'backoffice'), 'a network only an inactive service uses is not created');

    const over = await load(compose, { GREETING: 'from the stack', COMPOSE_PROFILES: 'admin' }, { workdir: project });
    assert.deepEqual(service(over, 'web').command, ['echo', 'from', 'the', 'stack'], "the stack's variables win over .env");
    assert.deepEqual(over.services.map((x) => x.name).sort(), ['admin', 'web']);
    const all = await load(compose, { COMPOSE_PROFILES: '*' }, { workdir: project });
    assert.deepEqual(all.services.map((x) => x.name).sort(), ['admin', 'tools', 'web']);
    // without a tree (no .env) no profile is active: only the services without one run
    const bare = await load(compose.replace('${TAG}', '1'));
    assert.deepEqual(bare.services.map((x) => x.name), ['web']);

    const needs = await load('services:\n  web:\n    image: x\n    depends_on: [db]\n  db:\n    image: x\n    profiles: [data]\n');
    assert.deepEqual(messages(needs.errors), ['services.web.depends_on: depends on "db", whose profiles (data) are not active: add one to COMPOSE_PROFILES']);
    const none = await load('services:\n  db:\n    image: x\n    profiles: [data]\n');
    assert.match(messages(none.errors)[0], /^services: no service runs: every service belongs to a profile/);
    const bad = await load('services:\n  db:\n    image: x\n    profiles: data\n');
    assert.match(messages(bad.errors)[0], /^services\.db\.profiles: must be a list of profile names/);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('extends: a service built on another of this file or of another file of the tree, merged by compose\'s rules, its paths relative to that file', async () => {
  const project = mkdtempSync(join(tmpdir(), 'dw-compose-extends-'));
  try {
    mkdirSync(join(project, 'common', 'app'), { recursive: true });
    writeFileSync(join(project, 'common', 'app', 'Dockerfile'), 'FROM dockwright-test/busybox:1\n');
    writeFileSync(join(project, 'common', 'base.env'), 'FROM_BASE_FILE=yes\n');
    writeFileSync(join(project, 'common', 'services.yml', ), `
services:
  base:
    build: ./app
    command: ["echo", "base"]
    env_file: base.env
    environment: { A: base, B: base }
    ports: ["8080:80"]
    volumes: ["./data:/data", "cache:/cache"]
    labels: [tier=base]
  deeper:
    extends: base
    environment: { C: deeper }
`);
    writeFileSync(join(project, 'common', 'loop.yml'), 'services:\n  one: { extends: two }\n  two: { extends: one }\n');
    const l = await load(`
services:
  plain:
    image: dockwright-test/busybox:1
    command: ["sleep", "1"]
    environment: [X=1]
    cap_add: [NET_BIND_SERVICE]
  child:
    extends: plain
    environment: { Y: "2" }
    cap_add: [NET_BIND_SERVICE, CHOWN]
  web:
    extends: { file: common/services.yml, service: deeper }
    command: ["echo", "web"]
    environment: { B: web }
    ports: ["8080:80", "8443:443"]
    volumes: ["./other:/data"]
volumes:
  cache: {}
`, {}, { workdir: project, name: 'ext' });
    assert.deepEqual(messages(l.errors), []);
    const child = service(l, 'child');
    assert.deepEqual(child.command, ['sleep', '1'], 'what the child does not set it inherits');
    assert.deepEqual(child.environment, { X: '1', Y: '2' }, 'environments merge');
    assert.deepEqual(child.capAdd.sort(), ['CHOWN', 'NET_BIND_SERVICE'], 'lists append, each entry once');
    const web = service(l, 'web');
    assert.deepEqual(web.command, ['echo', 'web'], 'a command is replaced, not appended');
    assert.deepEqual(web.environment, { FROM_BASE_FILE: 'yes', A: 'base', B: 'web', C: 'deeper' }, 'env_file relative to common/, environment merged down the chain');
    assert.deepEqual(web.ports.map((p) => `${p.published}:${p.target}`), ['8080:80', '8443:443'], 'ports are unique resources');
    const data = web.mounts.filter((m) => m.target === '/data');
    assert.equal(data.length, 1, 'one mount per target: the later wins');
    assert.equal(data[0].source, join(project, 'other'));
    assert.equal(web.build!.context, join(project, 'common', 'app'), 'the build context is relative to the file that names it');
    assert.equal(web.labels.tier, 'base');

    const broken = await load(`
services:
  a: { extends: b }
  b: { extends: a }
  c: { extends: { service: nope } }
  d: { extends: { file: missing.yml, service: x } }
  e: { extends: { file: ../outside.yml, service: x } }
  f: { extends: { file: common/services.yml, service: nope } }
  g: { image: x }
  h: { extends: { file: common/loop.yml, service: one } }
  i: { extends: { file: ../outside.yml, service: x } }
`, {}, { workdir: project });
    const got = messages(broken.errors);
    assert.equal(new Set(got).size, got.length, `each problem once: ${got.join('\n')}`);
    assert.ok(got.includes('common/loop.yml: services.one.extends: extends comes back to itself: common/loop.yml → one → common/loop.yml → two → common/loop.yml → one'), got.join('\n'));
    assert.ok(got.includes('services.i.extends.file: compose file "../outside.yml" points outside the source tree'), got.join('\n'));
    assert.ok(got.some((m) => /^services\.(a|b)\.extends: extends comes back to itself/.test(m)), got.join('\n'));
    assert.ok(got.includes('services.c.extends: extends the service "nope", which this file does not define'), got.join('\n'));
    assert.ok(got.includes('services.d.extends.file: the compose file "missing.yml" is not in the source tree'), got.join('\n'));
    assert.ok(got.includes('services.e.extends.file: compose file "../outside.yml" points outside the source tree'), got.join('\n'));
    assert.ok(got.includes('services.f.extends: extends the service "nope", which common/services.yml does not define'), got.join('\n'));
    const noTree = await load('services:\n  a:\n    extends: { file: x.yml, service: y }\n');
    assert.deepEqual(messages(noTree.errors), ['services.a.extends.file: compose file "x.yml" needs a source tree, and this stack has none']);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('include: another project of the tree joins this one, its paths and its .env its own; a resource defined twice is refused', async () => {
  const project = mkdtempSync(join(tmpdir(), 'dw-compose-include-'));
  try {
    mkdirSync(join(project, 'db'));
    writeFileSync(join(project, 'db', '.env'), 'DB_TAG=1\n');
    writeFileSync(join(project, 'db', 'db.env'), 'ROLE=db\n');
    writeFileSync(join(project, 'db', 'compose.yaml'), `
services:
  db:
    image: "dockwright-test/busybox:\${DB_TAG}"
    env_file: db.env
    volumes: ["dbdata:/var/lib/db"]
volumes:
  dbdata: {}
`);
    const l = await load(`
include:
  - db/compose.yaml
services:
  web:
    image: dockwright-test/busybox:1
    depends_on: [db]
`, {}, { workdir: project, name: 'inc' });
    assert.deepEqual(messages(l.errors), []);
    assert.deepEqual(l.services.map((x) => x.name).sort(), ['db', 'web']);
    assert.equal(service(l, 'db').image, 'dockwright-test/busybox:1', "interpolated with the included project's .env");
    assert.equal(service(l, 'db').environment.ROLE, 'db', 'its env_file is relative to its folder');
    assert.ok(l.volumes.some((v) => v.key === 'dbdata' && v.name === 'inc_dbdata'), 'its volumes join the project');

    const twice = await load('include: [db/compose.yaml]\nservices:\n  db:\n    image: x\n', {}, { workdir: project });
    assert.deepEqual(messages(twice.errors), ['services.db: is defined here and in the included file db/compose.yaml: a project defines it once']);
    const bad = await load('include: db/compose.yaml\nservices:\n  a:\n    image: x\n', {}, { workdir: project });
    assert.deepEqual(messages(bad.errors), ['include: must be a list of files']);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('!reset and !override: in one file, over what extends brings, and across the files of an include', async () => {
  const project = mkdtempSync(join(tmpdir(), 'dw-compose-tags-'));
  try {
    writeFileSync(join(project, 'one.yml'), 'services:\n  inc:\n    image: dockwright-test/busybox:1\n    ports: ["7070:70"]\n    environment: { KEEP: "1", DROP: "2" }\n');
    writeFileSync(join(project, 'two.yml'), 'services:\n  inc:\n    ports: !reset []\n    environment: { DROP: !reset }\n');
    const l = await load(`
include:
  - path: [one.yml, two.yml]
services:
  alone:
    image: dockwright-test/busybox:1
    command: !reset
    ports: !override ["8080:80"]
  base:
    image: dockwright-test/busybox:1
    command: ["sleep", "1"]
    ports: ["8080:80", "8443:443"]
    environment: { A: "1", B: "2" }
    labels: { tier: base }
  child:
    extends: base
    command: !reset null
    ports: !override ["9090:80"]
    environment: { B: !reset }
    labels: !override { tier: child }
`, {}, { workdir: project });
    assert.deepEqual(l.errors, []);
    const svc = (n: string) => l.services.find((s) => s.name === n)!;
    const ports = (n: string) => svc(n).ports.map((p) => `${p.published}:${p.target}`);
    assert.equal(svc('alone').command, null);
    assert.deepEqual(ports('alone'), ['8080:80']);
    assert.equal(svc('child').command, null, 'a !reset key is gone, also what extends brings');
    assert.deepEqual(ports('child'), ['9090:80'], '!override replaces the list extends would append to');
    assert.deepEqual(svc('child').environment, { A: '1' });
    assert.equal(svc('child').labels.tier, 'child');
    assert.deepEqual(ports('base'), ['8080:80', '8443:443'], 'the base keeps its own');
    assert.deepEqual(ports('inc'), [], 'the later file of an include resets what the first set');
    assert.deepEqual(svc('inc').environment, { KEEP: '1' });
    assert.ok(!JSON.stringify(l.raw).includes('reset'), 'the document rules judge holds no tag');
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('a project name must be a stack name', async () => {
  const l = await load('services:\n  web:\n    image: x\n', {}, { name: 'Bad Name' });
  assert.match(messages(l.errors)[0], /^name: the project name "Bad Name" must match/);
});

test('a link whose target climbs out through another link is caught: the kernel resolves it, not the text', async () => {
  const deep = mkdtempSync(join(tmpdir(), 'dw-compose-deep-'));
  const work = join(deep, 'a', 'tree');
  mkdirSync(join(work, 'x'), { recursive: true });
  mkdirSync(join(work, 'l'), { recursive: true });
  // x/b leads back to the tree, so x/b/x/b/../.. is two levels above the tree for the kernel, but inside it as text
  symlinkSync('..', join(work, 'x', 'b'));
  symlinkSync('../x/b/x/b/../../..', join(work, 'l', 'up'));
  try {
    const l = await load('services:\n  web:\n    image: dockwright-test/busybox:1\n    volumes: ["./l/up:/h"]\n    env_file: l/up/passwd\n', {}, { workdir: work });
    const got = messages(l.errors);
    assert.ok(got.some((m) => m.startsWith('services.web.volumes[0]: bind mount source "./l/up" leads outside the source tree')), got.join('\n'));
    assert.ok(got.some((m) => m.startsWith('services.web.env_file')), got.join('\n'));
  } finally {
    rmSync(deep, { recursive: true, force: true });
  }
});

test('a built image takes the project\'s name, never the name other stacks pull', async () => {
  const l = await load('services:\n  web:\n    build: ./app\n    image: postgres:16\n', {}, { name: 'builder', workdir: tree });
  assert.deepEqual(l.errors, []);
  assert.equal(service(l, 'web').image, 'builder-web');
  assert.ok(messages(l.warnings).some((m) => m.startsWith('services.web.image: the built image is tagged builder-web, not postgres:16')), messages(l.warnings).join('\n'));
});

test('secrets and configs: file, environment and content sources, short and long syntax, default and given targets, uid, gid and mode', async () => {
  writeFileSync(join(tree, 'db_pass.txt'), 'from-the-file');
  const l = await load(`
services:
  web:
    image: dockwright-test/busybox:1
    secrets:
      - db_pass
      - { source: api_token, target: token, uid: "1000", gid: 1001, mode: 0400 }
      - { source: api_token, target: /etc/token, mode: "0440" }
    configs:
      - app
      - { source: app, target: etc/app.conf, mode: 0644 }
secrets:
  db_pass: { file: ./db_pass.txt }
  api_token: { environment: API_TOKEN }
configs:
  app: { content: "port=\${PORT:-8080}" }
`, { API_TOKEN: 'the-token-value' }, { workdir: tree });
  assert.deepEqual(l.errors, []);
  const web = service(l, 'web');
  assert.deepEqual(web.secrets, [
    { source: 'db_pass', target: '/run/secrets/db_pass', uid: null, gid: null, mode: 0o444 },
    { source: 'api_token', target: '/run/secrets/token', uid: '1000', gid: '1001', mode: 0o400 },
    { source: 'api_token', target: '/etc/token', uid: null, gid: null, mode: 0o440 },
  ]);
  assert.deepEqual(web.configs, [
    { source: 'app', target: '/app', uid: null, gid: null, mode: 0o444 },
    { source: 'app', target: '/etc/app.conf', uid: null, gid: null, mode: 0o644 },
  ]);
  assert.deepEqual(l.secrets.map((x) => [x.key, x.source, x.from, x.external]), [['db_pass', 'file', './db_pass.txt', false], ['api_token', 'environment', 'API_TOKEN', false]]);
  assert.deepEqual(l.configs.map((x) => [x.key, x.source, x.name]), [['app', 'content', 'proj_app']]);
  // the loaded model, as any answer would carry it, holds no content: it is read when a deploy asks for it
  const text = JSON.stringify(l);
  for (const value of ['from-the-file', 'the-token-value']) assert.ok(!text.includes(value), `the model carries ${value}`);
  assert.equal((l.raw as any).configs.app.content, 'port=8080', 'content is interpolated');
});

test('secrets and configs: undeclared names, missing and escaping files, unset variables, several or no sources, inline secrets, bad modes, clashing targets', async () => {
  writeFileSync(join(tree, 'db_pass.txt'), 'from-the-file');
  const l = await load(`
services:
  web:
    image: dockwright-test/busybox:1
    volumes: ["./app:/run/secrets/ok"]
    secrets:
      - ghost
      - ok
      - { source: ok, target: /etc/x, mode: 0999, uid: root }
      - { target: /etc/y }
    configs: [nowhere]
secrets:
  ok: { file: ./db_pass.txt }
  missing: { file: ./absent.txt }
  escaping: { file: ../../etc/passwd }
  linked: { file: ./outside/passwd }
  folder: { file: ./app }
  unset: { environment: NOT_SET }
  both: { file: ./db_pass.txt, environment: API_TOKEN }
  none: {}
  inline: { content: hunter2 }
  driven: { file: ./db_pass.txt, driver: vault }
`, {}, { workdir: tree });
  const got = messages(l.errors);
  const expect = [
    'services.web.secrets[0]: refers to the secret "ghost", which is not declared under the top-level secrets',
    'services.web.secrets[2].mode: must be a file mode in octal, like 0440 (permission bits only)',
    'services.web.secrets[2].uid: must be a numeric user or group id',
    'services.web.secrets[3]: names no secret (source)',
    'services.web.configs[0]: refers to the config "nowhere", which is not declared under the top-level configs',
    'services.web.secrets: two files or mounts target /run/secrets/ok',
    'secrets.missing.file: secret file "./absent.txt" is not in the source tree',
    'secrets.escaping.file: secret file "../../etc/passwd" points outside the source tree',
    'secrets.linked.file: secret file "./outside/passwd" leads outside the source tree through a symbolic link',
    'secrets.folder.file: secret file "./app" is a folder: a secret is one file',
    'secrets.both: sets file and environment: a secret has exactly one source',
    'secrets.none: needs file, environment or external',
    'secrets.inline.content: a secret cannot be inline content (compose allows content for configs only): use file or environment',
    'secrets.driven.driver: "driver" is not supported: secrets are stored by Dockwright',
  ];
  for (const e of expect) assert.ok(got.includes(e), `missing error ${e}\ngot:\n${got.join('\n')}`);
  assert.equal(got.length, expect.length, got.join('\n'));
  assert.deepEqual(messages(l.warnings), ["secrets.unset.environment: the variable NOT_SET is not set (neither among the stack's variables nor in the project's .env): a deploy fails until it is"]);

  const noTree = await load('services:\n  web:\n    image: dockwright-test/busybox:1\n    secrets: [s]\nsecrets:\n  s: { file: ./s.txt }\n');
  assert.deepEqual(messages(noTree.errors), ['secrets.s.file: secret file "./s.txt" needs a source tree, and this stack has none']);
});

test('secrets and configs: external ones are declared by name (the swarm has them), other names are chosen by Dockwright', async () => {
  const l = await load(`
services:
  web:
    image: dockwright-test/busybox:1
    secrets: [shared, legacy]
    configs: [conf]
secrets:
  shared: { external: true, name: team_db_password }
  legacy: { external: { name: old_style } }
configs:
  conf: { content: x, name: my_conf }
  bad: { external: true, content: y }
`);
  assert.deepEqual(messages(l.errors), ['configs.bad: an external config has no content: it exists already']);
  assert.deepEqual(l.secrets.map((x) => [x.key, x.external, x.name, x.source]), [['shared', true, 'team_db_password', 'external'], ['legacy', true, 'old_style', 'external']]);
  assert.deepEqual(messages(l.warnings), ['configs.conf.name: the name of a config that is not external is chosen by Dockwright; "my_conf" is not used']);
});

test('deploy.update_config: defaults, every option as compose writes it, and what is not one', async () => {
  const l = await load(`
services:
  plain:
    image: dockwright-test/busybox:1
  rolled:
    image: dockwright-test/busybox:1
    deploy:
      replicas: 4
      update_config: { order: start-first, parallelism: 2, delay: 1m30s, failure_action: rollback, monitor: 500ms, max_failure_ratio: 0.25 }
  every:
    image: dockwright-test/busybox:1
    deploy: { update_config: { parallelism: 0, order: stop-first } }
`);
  assert.deepEqual(l.errors, []);
  assert.deepEqual(service(l, 'plain').updateConfig, { order: null, parallelism: 1, delayMs: 0, failureAction: 'pause', monitorMs: 0, maxFailureRatio: 0 });
  assert.deepEqual(service(l, 'rolled').updateConfig, { order: 'start-first', parallelism: 2, delayMs: 90_000, failureAction: 'rollback', monitorMs: 500, maxFailureRatio: 0.25 });
  assert.deepEqual(service(l, 'every').updateConfig, { order: 'stop-first', parallelism: 0, delayMs: 0, failureAction: 'pause', monitorMs: 0, maxFailureRatio: 0 });

  const bad = await load(`
services:
  a:
    image: dockwright-test/busybox:1
    deploy: { update_config: { order: random, parallelism: -1, delay: soon, failure_action: retry, max_failure_ratio: 2, speed: 3 } }
`);
  assert.deepEqual(messages(bad.errors).sort(), [
    'services.a.deploy.update_config.delay: "soon" is not a duration like 10s or 1m30s',
    'services.a.deploy.update_config.failure_action: "retry" is not pause, continue or rollback',
    'services.a.deploy.update_config.max_failure_ratio: must be a number from 0 to 1',
    'services.a.deploy.update_config.order: "random" is not start-first or stop-first',
    'services.a.deploy.update_config.parallelism: must be an integer of at least 0',
    'services.a.deploy.update_config.speed: "speed" is not an update_config option (order, parallelism, delay, failure_action, monitor, max_failure_ratio)',
  ]);
});

test('a build context given as a git URL is read as Docker reads one, needs no source tree, and is fetched only when built', async () => {
  const contextOf = async (context: string, more = '') => {
    const loaded = await load(`services:\n  web:\n    build:\n      context: ${JSON.stringify(context)}\n${more}`);
    assert.deepEqual(loaded.errors, [], context);
    return loaded.services[0].build!;
  };
  assert.deepEqual((await contextOf('https://git.example.com/team/app.git')).git, { url: 'https://git.example.com/team/app.git', ref: null, dir: null });
  assert.deepEqual((await contextOf('https://git.example.com/team/app.git#v1.2:services/web/')).git, { url: 'https://git.example.com/team/app.git', ref: 'v1.2', dir: 'services/web' });
  assert.deepEqual((await contextOf('https://git.example.com/team/app.git#:web')).git, { url: 'https://git.example.com/team/app.git', ref: null, dir: 'web' });
  assert.deepEqual((await contextOf('github.com/team/app#refs/pull/7/head')).git, { url: 'https://github.com/team/app', ref: 'refs/pull/7/head', dir: null });
  assert.deepEqual((await contextOf('git@git.example.com:team/app.git#main')).git, { url: 'git@git.example.com:team/app.git', ref: 'main', dir: null });
  assert.deepEqual((await contextOf('ssh://git@git.example.com:2222/team/app.git#main:.')).git, { url: 'ssh://git@git.example.com:2222/team/app.git', ref: 'main', dir: null });
  const built = await contextOf('https://git.example.com/team/app.git#main:web', '      dockerfile: docker/Dockerfile.prod\n');
  assert.equal(built.context, '', 'nothing is fetched at load');
  assert.equal(built.dockerfile, 'docker/Dockerfile.prod');

  const escaping = await load('services:\n  web:\n    build:\n      context: https://git.example.com/team/app.git\n      dockerfile: ../Dockerfile\n');
  assert.match(escaping.errors.map((e) => `${e.path}: ${e.message}`).join('\n'), /services\.web\.build\.dockerfile: "\.\.\/Dockerfile" points outside the build context/);
  const scheme = await load('services:\n  web:\n    build: ftp://git.example.com/app.git\n');
  assert.match(scheme.errors[0].message, /"ftp:" URLs are not build contexts/);
});
