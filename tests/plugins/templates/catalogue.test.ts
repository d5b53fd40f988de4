// The bundled catalogue, linted: every template parses, has at least the apps promised, pinned image tags, a healthcheck per service, values that fit, and passes the platform rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CORE_SCHEMA, load } from 'js-yaml';
import { readFolder } from '../../../plugins/templates/catalogue.ts';
import { seededRandom } from '../../../plugins/templates/generators.ts';
import { resolveValues } from '../../../plugins/templates/variables.ts';
import { startServer, type TestServer } from '../../helpers/harness.ts';

const bundled = readFolder('bundled', new URL('../../../plugins/templates/catalogue/', import.meta.url));
const templates = [...bundled.templates.values()];

/** a value a caller would give for each variable nothing fills (a host name, an email address) */
const sample = (type: string, id: string) => (type === 'hostname' ? `${id}.example.test` : type === 'email' ? `admin@${id}.example.test` : 'sample');

let s: TestServer;
before(async () => {
  s = await startServer({
    plugins: {
      docker: { options: { reconcile: false } },
      // the registries' names are not looked up here: whether this install may pull is the install's business, not the template's
      stacks: { options: { rules: { 'outbound-registry': false } } },
      git: {},
      templates: {},
    },
  });
});
after(async () => { await s?.close(); });

test('every bundled template parses, and there are at least 25 of them', () => {
  assert.deepEqual(bundled.invalid, []);
  assert.ok(templates.length >= 25, `${templates.length} templates`);
  for (const t of templates) {
    assert.ok(t.name && t.version && t.description && t.categories.length, `${t.id}: name, version, description and categories`);
    assert.ok(t.instructions, `${t.id}: instructions`);
  }
});

test('every service has a pinned image tag and a healthcheck; every hostname feeds an edge route', () => {
  for (const t of templates) {
    const doc = load(t.compose, { schema: CORE_SCHEMA }) as { services: Record<string, { image?: string; healthcheck?: { test?: unknown } }> };
    for (const [name, service] of Object.entries(doc.services)) {
      const tag = /:([^/:@]+)$/.exec(service.image ?? '')?.[1];
      assert.ok(tag && tag !== 'latest' && /\d/.test(tag), `${t.id}/${name}: image ${service.image} has a pinned tag`);
      assert.ok(Array.isArray(service.healthcheck?.test) && service.healthcheck.test.length > 1, `${t.id}/${name}: a healthcheck`);
      assert.doesNotMatch(JSON.stringify(service.healthcheck.test), /exit 0"\]$/, `${t.id}/${name}: a healthcheck that checks something`);
    }
    for (const v of t.variables.filter((x) => x.type === 'hostname')) assert.ok(v.binds.length, `${t.id}: ${v.name} feeds a dockwright.http.host label`);
  }
});

test('with its values filled in, every bundled template passes the platform rules', async () => {
  for (const t of templates) {
    const given = Object.fromEntries(t.variables.filter((v) => v.default === undefined && !v.generator).map((v) => [v.name, sample(v.type, t.id)]));
    const resolved = await resolveValues(t, given, seededRandom(t.id));
    assert.ok('values' in resolved, `${t.id}: ${JSON.stringify(resolved)}`);
    const compose = t.compose.replace(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => resolved.values[name]);
    const res = await s.api('POST', `/api/v1/stacks/lint-${t.id.replace(/[^a-z0-9-]/g, '-')}/validate`, { body: { content: compose } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.errors, [], `${t.id}: ${JSON.stringify(res.body.errors)}`);
    assert.deepEqual(res.body.warnings, [], `${t.id}: ${JSON.stringify(res.body.warnings)}`);
  }
});
