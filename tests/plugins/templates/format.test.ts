// Templates in our format without a server: generators from a seeded source (password, hex, base64, uuid, a jwt signed with another variable), parsing errors by field, value checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jwtVerify } from 'jose';
import { generate, parseGenerator, seededRandom, type Generator } from '../../../plugins/templates/generators.ts';
import { parseTemplate, type Template } from '../../../plugins/templates/format.ts';
import { resolveValues } from '../../../plugins/templates/variables.ts';

const gen = (text: string, claims?: unknown) => {
  const g = parseGenerator(text, claims);
  assert.notEqual(typeof g, 'string', String(g));
  return g as Generator;
};

test('each generator makes a value of its kind and length; the same seed makes the same values, another seed others', async () => {
  const values = async (seed: string) => {
    const random = seededRandom(seed);
    return Promise.all(['password:32', 'hex:40', 'base64:24', 'uuid'].map((t) => generate(gen(t), random, {})));
  };
  const [password, hex, base64, uuid] = await values('a');
  assert.match(password, /^[A-Za-z2-9]{32}$/);
  assert.doesNotMatch(password, /[01lIO]/, 'no look-alike characters');
  assert.match(hex, /^[0-9a-f]{40}$/);
  assert.match(base64, /^[A-Za-z0-9+/]{24}$/);
  assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(await values('a'), [password, hex, base64, uuid], 'a seeded source repeats');
  const other = await values('b');
  for (let i = 0; i < 4; i++) assert.notEqual(other[i], [password, hex, base64, uuid][i]);
});

test('a jwt is signed (HS256) with the other variable and carries its claims', async () => {
  const token = await generate(gen('jwt:JWT_SECRET', { role: 'anon' }), seededRandom('x'), { JWT_SECRET: 'a-secret-of-enough-length-000000' });
  const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode('a-secret-of-enough-length-000000'));
  assert.equal(protectedHeader.alg, 'HS256');
  assert.equal(payload.role, 'anon');
  await assert.rejects(jwtVerify(token, new TextEncoder().encode('another-secret-000000000000000000')));
});

test('unknown generators, bad lengths and claims are refused with the reason', () => {
  assert.match(String(parseGenerator('magic', undefined)), /unknown generator "magic"/);
  assert.match(String(parseGenerator('password:4', undefined)), /between 8 and 1024/);
  assert.match(String(parseGenerator('hex:99999', undefined)), /unknown generator/);
  assert.match(String(parseGenerator('jwt:S', 'x')), /claims must be an object/);
  assert.match(String(parseGenerator(32, undefined)), /must be a string/);
});

const template = (variables: string, services = '  app:\n    image: x:1\n    environment: { A: "${A}" }\n') =>
  `x-dockwright:\n  id: demo\n  name: Demo\n  version: "1.0.0"\n  variables:\n${variables}services:\n${services}`;

test('a template with errors: each names its field; nothing else is returned', () => {
  const parsed = parseTemplate(template(
    '    A: { type: colour }\n    B: { type: secret, generate: "magic:3" }\n    C: { type: port, range: [9, 1] }\n    D: { type: secret, generate: "jwt:NOPE" }\n    E: { type: enum }\n    F: { pattern: "(" }\n',
    '  app:\n    image: x:1\n    environment: { A: "${A}", G: "${G}", H: "${H:-fine}" }\n',
  ), 'mine', 'demo');
  assert.ok('errors' in parsed);
  assert.deepEqual(parsed.errors.map((e) => e.path).sort(), [
    '/services', '/x-dockwright/variables/A/type', '/x-dockwright/variables/B/generate', '/x-dockwright/variables/C/range',
    '/x-dockwright/variables/D/generate', '/x-dockwright/variables/E/values', '/x-dockwright/variables/F/pattern',
  ]);
  assert.match(parsed.errors.find((e) => e.path === '/services')!.message, /\$\{G\} is used but not declared/);
  assert.deepEqual((parseTemplate('a: [', 's') as { errors: unknown[] }).errors.length, 1, 'not YAML: one error');
  assert.equal((parseTemplate(template('    A: {}\n').replace('id: demo', 'id: other'), 's', 'demo') as { errors: { path: string }[] }).errors[0].path, '/x-dockwright/id');
  const noMeta = parseTemplate('services:\n  a:\n    image: x:1\n', 's');
  assert.ok('errors' in noMeta && noMeta.errors[0].path === '/x-dockwright');
});

test('values: given ones checked by type, pattern and range; defaults; generated ones only where none is given; a jwt after its secret', async () => {
  const parsed = parseTemplate(template(
    '    HOST: { type: hostname }\n    PORT: { type: port, default: "8080", range: [1024, 9000] }\n    MAIL: { type: email, default: "a@b.example" }\n'
    + '    MODE: { type: enum, values: [fast, safe], default: safe }\n    NAME: { pattern: "[a-z]+", default: abc }\n'
    + '    TOKEN: { type: secret, generate: "jwt:KEY", claims: { role: admin } }\n    KEY: { type: secret, generate: "hex:32" }\n    A: { type: secret, generate: "password:16" }\n',
    '  app:\n    image: x:1\n    labels: { dockwright.http.host: "${HOST}" }\n    environment: { A: "${A}", P: "${PORT}", M: "${MAIL}${MODE}${NAME}${TOKEN}${KEY}" }\n',
  ), 'mine', 'demo');
  assert.ok('template' in parsed, JSON.stringify(parsed));
  const t: Template = parsed.template;
  assert.deepEqual(t.variables.find((v) => v.name === 'HOST')!.binds, ['services.app.labels.dockwright.http.host']);
  const bad = await resolveValues(t, { HOST: 'not a host', PORT: '80', MAIL: 'nope', MODE: 'slow', NAME: 'ABC', EXTRA: 'x' }, seededRandom('s'));
  assert.ok('errors' in bad);
  assert.deepEqual(bad.errors.map((e) => e.path).sort(), ['HOST', 'MAIL', 'MODE', 'NAME', 'PORT', 'EXTRA'].map((n) => `/body/variables/${n}`).sort());
  const missing = await resolveValues(t, {}, seededRandom('s'));
  assert.ok('errors' in missing && missing.errors.length === 1 && missing.errors[0].path === '/body/variables/HOST');
  const ok = await resolveValues(t, { HOST: 'app.example.com', A: 'given-by-caller' }, seededRandom('s'));
  assert.ok('values' in ok);
  assert.equal(ok.values.A, 'given-by-caller', 'a given value is not generated');
  assert.deepEqual(ok.generated.sort(), ['KEY', 'TOKEN']);
  assert.equal(ok.values.PORT, '8080');
  const { payload } = await jwtVerify(ok.values.TOKEN, new TextEncoder().encode(ok.values.KEY));
  assert.equal(payload.role, 'admin');
});
