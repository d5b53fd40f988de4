// Stack writes: every error status, platform rules (one error per broken rule, nothing saved), concurrent writers, templates, secrets.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, type TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, startStacksServer, uniqueName } from './helpers.ts';
import { freePort } from '../docker/helpers.ts';

let s: TestServer;
const names: string[] = [];
const fresh = (prefix: string) => { const n = uniqueName(prefix); names.push(n); return n; };

before(async () => {
  s = await startStacksServer({
    stacks: {
      allowedBindRoots: ['/srv/dockwright'],
      templates: {
        hello: {
          description: 'a greeting box',
          compose: 'services:\n  app:\n    image: dockwright-test/busybox:${TAG}\n    command: ["sh", "-c", "echo ${GREETING}; sleep 3600"]\n',
          inputs: { properties: { GREETING: { type: 'string', minLength: 1 }, TAG: { type: 'string', enum: ['1', '2'], default: '1' } }, required: ['GREETING'], additionalProperties: false },
        },
      },
    },
  });
});
after(async () => { await cleanupProjects(...names); await s.close(); });

test('create needs If-None-Match: * or revision 0; a second create is a 409; bad names and bodies are 400', async () => {
  const name = fresh('w');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: busybox() } })).status, 428);
  const viaBody = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: busybox(), revision: 0 } });
  assert.equal(viaBody.status, 200);
  assert.equal(viaBody.headers.get('etag'), '"1"');
  const again = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: busybox() }, headers: { 'if-none-match': '*' } });
  assert.equal(again.status, 409);
  assert.equal(again.body.currentRevision, 1);
  assert.equal((await s.api('PUT', '/api/v1/stacks/Bad_Name/compose', { body: { content: busybox(), revision: 0 } })).status, 400);
  const noContent = await s.api('PUT', `/api/v1/stacks/${fresh('w')}/compose`, { body: { revision: 0 } });
  assert.equal(noContent.status, 400);
  assert.equal(noContent.body.errors[0].path, '/body/content');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { 'not-a-name': 'x' }, revision: 1 } })).status, 400);
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { A: 1 }, revision: 1 } })).status, 400);
  assert.equal((await s.api('GET', `/api/v1/stacks/${fresh('absent')}`)).status, 404);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/revisions/3000000000`)).status, 400);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}/revisions?cursor=99999999999`)).status, 400);
  assert.equal((await s.api('POST', `/api/v1/stacks/${fresh('absent')}/deploy`)).status, 404);
});

test('a compose file that breaks three rules: 422 with three errors naming rule and path, and nothing saved', async () => {
  const name = fresh('w');
  await createStack(s, name, busybox());
  const bad = `services:
  app:
    image: dockwright-test/busybox:1
    privileged: true
    network_mode: host
    cap_add: [SYS_ADMIN]
`;
  const refused = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: bad, revision: 1 } });
  assert.equal(refused.status, 422);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  assert.deepEqual(refused.body.errors.map((e: any) => [e.rule, e.path]).sort(), [
    ['no-dangerous-capabilities', 'services.app.cap_add[0]'],
    ['no-host-network', 'services.app.network_mode'],
    ['no-privileged', 'services.app.privileged'],
  ]);
  for (const e of refused.body.errors) assert.equal(typeof e.message, 'string');
  const now = await s.api('GET', `/api/v1/stacks/${name}/compose`);
  assert.deepEqual([now.body.revision, now.body.content], [1, busybox()]);
  const validated = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: bad } });
  assert.equal(validated.status, 200);
  assert.equal(validated.body.valid, false);
  assert.equal(validated.body.errors.length, 3);
  assert.equal((await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: busybox() } })).body.valid, true);
});

test('each platform rule has its own error', async () => {
  const name = fresh('w');
  const cases: [string, string, string][] = [
    ['no-host-pid', 'pid: host', 'services.app.pid'],
    ['no-dangerous-capabilities', 'cap_add: [NET_BIND_SERVICE, SYS_ADMIN]', 'services.app.cap_add[1]'],
    ['no-devices', 'devices: ["/dev/fuse:/dev/fuse"]', 'services.app.devices'],
    ['no-docker-socket', 'volumes: ["/var/run/docker.sock:/var/run/docker.sock"]', 'services.app.volumes[0]'],
    ['allowed-bind-mounts', 'volumes: ["/etc:/host-etc:ro"]', 'services.app.volumes[0]'],
    ['compose-valid', 'ports: "not a list"', 'services.app.ports'],
    ['no-dangerous-capabilities', 'cap_add: SYS_ADMIN', 'services.app.cap_add'],
    ['no-devices', 'devices: /dev/fuse', 'services.app.devices'],
    ['no-host-pid', 'pid: "container:another-stack-db-1"', 'services.app.pid'],
    ['no-host-network', 'network_mode: "container:another-stack-db-1"', 'services.app.network_mode'],
  ];
  for (const [rule, line, path] of cases) {
    const res = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: `services:\n  app:\n    image: dockwright-test/busybox:1\n    ${line}\n` } });
    assert.ok(res.body.errors.some((e: any) => e.rule === rule && e.path === path), `${rule}: ${JSON.stringify(res.body.errors)}`);
  }
  const volumes: [string, string, string][] = [
    ['no-host-volume-options', 'volumes:\n  data:\n    driver_opts: { type: none, o: bind, device: / }\n', 'volumes.data.driver_opts'],
    // an external or named volume is refused when another stack holds it (platform-rules.test.ts)
  ];
  for (const [rule, top, path] of volumes) {
    const res = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: `services:\n  app:\n    image: dockwright-test/busybox:1\n    volumes: ["data:/data"]\n${top}` } });
    assert.ok(res.body.errors.some((e: any) => e.rule === rule && e.path === path), `${rule}: ${JSON.stringify(res.body.errors)}`);
  }
  const allowed = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: 'services:\n  app:\n    image: dockwright-test/busybox:1\n    volumes: ["/srv/dockwright/app:/data"]\n' } });
  assert.deepEqual(allowed.body.errors, []);
  const yaml = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: 'services: [unclosed' } });
  assert.equal(yaml.body.errors[0].rule, 'compose-valid');
  const noImage = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: 'services:\n  app:\n    build: .\n' } });
  assert.ok(noImage.body.errors.some((e: any) => e.rule === 'image-required' || e.rule === 'compose-valid'));
});

test('a published port used by another stack is refused', async () => {
  const a = fresh('pa');
  const b = fresh('pb');
  // a port the kernel just handed out: a random one in 20000–40000 could be the local port of a connection (32768+)
  const port = await freePort();
  const withPort = `services:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    ports: ["127.0.0.1:${port}:80"]\n`;
  await createStack(s, a, withPort);
  await act(s, 'deploy', a);
  const refused = await s.api('PUT', `/api/v1/stacks/${b}/compose`, { body: { content: withPort, revision: 0 } });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.errors[0].rule, 'ports-available');
  assert.match(refused.body.errors[0].message, new RegExp(`stack ${a}`));
  // a caller whose access list hides the stack learns only that another stack holds the port
  const operator = await s.token('operator', ['stacks:read', 'stacks:write'], { name: `${a}-outsider` });
  assert.equal((await s.api('POST', `/api/v1/stacks/${a}/access`, { body: { entries: [{ principal: 'user:nobody-else', role: 'manager' }] } })).status, 200);
  const hidden = await call(s.url, 'PUT', `/api/v1/stacks/${b}/compose`, { token: operator, body: { content: withPort, revision: 0 } });
  assert.equal(hidden.status, 422);
  assert.equal(hidden.body.errors[0].message, `host port ${port}/tcp is already published by another stack`);
  assert.ok(!hidden.text.includes(a), 'the hidden stack is not named');
  assert.equal((await s.api('POST', `/api/v1/stacks/${a}/access`, { body: { entries: [] } })).status, 200);
  const again = await s.api('PUT', `/api/v1/stacks/${a}/compose`, { body: { content: withPort + '    environment: { X: "1" }\n', revision: 1 } });
  assert.equal(again.status, 200, 'its own ports do not count against a stack');
  await act(s, 'stop', a);
});

test('two concurrent writers with one revision: exactly one wins, the other gets 412', async () => {
  const name = fresh('w');
  await createStack(s, name, busybox());
  const [x, y] = await Promise.all([
    s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { WHO: 'x' }, revision: 1 } }),
    s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: busybox({ app: 'sleep 5' }), revision: 1 } }),
  ]);
  assert.deepEqual([x.status, y.status].sort(), [200, 412]);
  const loser = x.status === 412 ? x : y;
  assert.equal(loser.body.currentRevision, 2);
  const env = (await s.api('GET', `/api/v1/stacks/${name}/env`)).body;
  const compose = (await s.api('GET', `/api/v1/stacks/${name}/compose`)).body;
  assert.equal(env.revision, 2);
  assert.equal(x.status === 200 ? env.values.WHO : compose.content, x.status === 200 ? 'x' : busybox({ app: 'sleep 5' }));
});

test('variables with secret-looking names are hidden from readers without stacks:write', async () => {
  const name = fresh('w');
  await createStack(s, name, busybox());
  await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { API_TOKEN: 'tok-123456', DB_PASSWORD: 'pw-123456', MODE: 'prod' }, revision: 1 } });
  const reader = await s.token('viewer', ['stacks:read']);
  const seen = await call(s.url, 'GET', `/api/v1/stacks/${name}/env`, { token: reader });
  assert.deepEqual(seen.body.values, { API_TOKEN: '***', DB_PASSWORD: '***', MODE: 'prod' });
  assert.deepEqual(seen.body.redacted.sort(), ['API_TOKEN', 'DB_PASSWORD']);
  const rev = await call(s.url, 'GET', `/api/v1/stacks/${name}/revisions/2`, { token: reader });
  assert.doesNotMatch(rev.text, /tok-123456|pw-123456/);
  for (const probe of ['restart: ${DB_PASSWORD}', 'ports: ["${DB_PASSWORD}"]', 'command: ${X:?${DB_PASSWORD}}']) {
    const leak = await call(s.url, 'POST', `/api/v1/stacks/${name}/validate`, { token: reader, body: { content: `services:\n  app:\n    image: dockwright-test/busybox:1\n    ${probe}\n` } });
    assert.equal(leak.status, 200);
    assert.doesNotMatch(leak.text, /pw-123456/, `validate does not reveal a secret to a reader (${probe})`);
  }
  const writer = await s.api('GET', `/api/v1/stacks/${name}/env`);
  assert.equal(writer.body.values.DB_PASSWORD, 'pw-123456');
  const raw = await s.app.db.query('SELECT * FROM stacks WHERE name = $1', [name]);
  assert.doesNotMatch(JSON.stringify(raw.rows), /pw-123456/, 'variables are sealed at rest');
  const snap = await s.app.db.query(`SELECT snapshot FROM revisions WHERE kind = 'stack' AND key = $1`, [name]);
  assert.doesNotMatch(JSON.stringify(snap.rows), /pw-123456/, 'and in revision snapshots');
});

test('a stack from a template: settings validated against its inputs, rendered at deploy', async () => {
  const name = fresh('tpl');
  const templatesList = await s.api('GET', '/api/v1/stack-templates');
  assert.equal(templatesList.body[0].name, 'hello');
  const badSettings = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { template: 'hello', settings: { TAG: '3' }, revision: 0 } });
  assert.equal(badSettings.status, 400);
  assert.deepEqual(badSettings.body.errors.map((e: any) => e.path).sort(), ['/settings/GREETING', '/settings/TAG']);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404, 'nothing saved');
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { template: 'nope', revision: 0 } })).status, 400);
  const created = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { template: 'hello', settings: { GREETING: 'hi-from-template' }, revision: 0 } });
  assert.equal(created.status, 200, created.text);
  assert.equal(created.body.template, 'hello');
  const settings = await s.api('GET', `/api/v1/stacks/${name}/settings`);
  assert.deepEqual(settings.body.settings, { GREETING: 'hi-from-template', TAG: '1' });
  const deployed = await act(s, 'deploy', name);
  assert.match(deployed.output, /revision 1/);
  const logs = await s.api('GET', `/api/v1/containers/${name}-app-1/logs`);
  assert.match(logs.text, /hi-from-template/);
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/settings`, { body: { settings: { GREETING: '' }, revision: 1 } })).status, 400);
  const changed = await s.api('PUT', `/api/v1/stacks/${name}/settings`, { body: { settings: { GREETING: 'again', TAG: '2' } }, headers: { 'if-match': '"1"' } });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.revision, 2);
  await act(s, 'deploy', name);
  const view = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  assert.equal(view.services[0].containers[0].image, 'dockwright-test/busybox:2');
  const plain = fresh('w');
  await createStack(s, plain, busybox());
  assert.equal((await s.api('PUT', `/api/v1/stacks/${plain}/settings`, { body: { settings: {}, revision: 1 } })).status, 409);
  await act(s, 'stop', name);
});

test('scopes: readers cannot write or deploy; deployers cannot write', async () => {
  const name = fresh('w');
  await createStack(s, name, busybox());
  const reader = await s.token('operator', ['stacks:read']);
  const deployer = await s.token('operator', ['stacks:read', 'stacks:deploy']);
  assert.equal((await call(s.url, 'PUT', `/api/v1/stacks/${name}/env`, { token: reader, body: { values: {}, revision: 1 } })).status, 403);
  assert.equal((await call(s.url, 'POST', `/api/v1/stacks/${name}/deploy`, { token: reader })).status, 403);
  assert.equal((await call(s.url, 'PUT', `/api/v1/stacks/${name}/compose`, { token: deployer, body: { content: busybox(), revision: 1 } })).status, 403);
  assert.equal((await call(s.url, 'GET', `/api/v1/stacks/${name}`)).status, 401);
  const viewer = await s.token('viewer', ['stacks:read', 'stacks:deploy']);
  const me = await call(s.url, 'GET', '/api/v1/me', { token: viewer });
  assert.deepEqual(me.body.scopes, ['stacks:read'], 'a viewer cannot deploy whatever the token says');
});

test('a save answers the compose warnings validate would give (an unset ${VAR}): on create, on a compose change and on a change of the variables', async () => {
  const name = fresh('warn');
  const content = busybox({ app: 'echo ${GREETING_TEXT}; sleep 3600' }).replace('    command:', '    labels: { owner: "${OWNER_NAME}" }\n    command:');
  const created = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content }, headers: { 'if-none-match': '*' } });
  assert.equal(created.status, 200, created.text);
  const validated = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content } });
  assert.ok(validated.body.warnings.some((w: any) => /OWNER_NAME/.test(w.message)), JSON.stringify(validated.body.warnings));
  assert.deepEqual(created.body.warnings, validated.body.warnings, 'the same warnings as validate');
  const changed = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: `${content}\n` }, headers: { 'if-match': '"1"' } });
  assert.equal(changed.status, 200, changed.text);
  assert.deepEqual(changed.body.warnings, validated.body.warnings);
  const env = await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { OWNER_NAME: 'team-a' } }, headers: { 'if-match': '"2"' } });
  assert.equal(env.status, 200, env.text);
  assert.ok(!env.body.warnings.some((w: any) => /OWNER_NAME/.test(w.message)), 'a variable set is no longer warned about');
  assert.ok(!JSON.stringify(env.body.warnings).includes('team-a'), 'never a value');
  const clean = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: busybox() }, headers: { 'if-match': '"3"' } });
  assert.deepEqual(clean.body.warnings, [], 'none for a file without unset variables');
});
