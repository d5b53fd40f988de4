// Real-world compose projects (tests/fixtures/real-world): each uploaded as a stack's source tree and validated with the default settings passes, or is refused only by the host-access rules its expectations list.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestServer } from '../../helpers/harness.ts';
import { createStack, busybox, startGitServer, uniqueName } from '../git/helpers.ts';

const root = join(import.meta.dirname, '../../fixtures/real-world');

interface Refusal { rule: string; path: string; reason: string }
interface Project {
  /** the folder under real-world/: the source tree uploaded */
  dir: string;
  /** the compose file in it */
  file: string;
  /** what `docker-compose config` (1.29) says of it: accepted, or why it refuses (then it is beyond the corpus's promise, checked all the same) */
  reference: string;
  /** the host-access refusals expected with the default settings, each with why the rule is right */
  refused: Refusal[];
}
const { projects } = JSON.parse(readFileSync(join(root, 'expectations.json'), 'utf8')) as { projects: Project[] };

/** only the rules that keep a stack off the host refuse a real project (a runtime and a logging plugin run on the host, as root, on its network) */
const hostAccessRules = new Set(['no-docker-socket', 'no-host-network', 'no-dangerous-capabilities', 'allowed-bind-mounts', 'allowed-runtimes', 'allowed-logging-drivers']);
const inScope = (p: Project) => p.reference === 'accepted';

let s: TestServer;
before(async () => {
  // the default outbound policy (public registries allowed), names answered here: validate pulls nothing, so nothing is sent
  s = await startGitServer([], {}, { outbound: { allow: [], allowHostnames: true } }, { resolveName: async () => [{ address: '93.184.215.14', family: 4 }] });
});
after(async () => { await s?.close(); });

test('the corpus holds 40 projects or more, each with its source recorded', () => {
  assert.ok(projects.length >= 40, `${projects.length} projects`);
  // the folders NOTICE.md names, `ac-*` standing for every folder so named
  const named = [...readFileSync(join(root, 'NOTICE.md'), 'utf8').matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]);
  for (const p of projects) assert.ok(named.some((n) => (n.endsWith('*') ? p.dir.startsWith(n.slice(0, -1)) : p.dir === n)), `${p.dir} has no line in NOTICE.md`);
});

for (const p of projects) {
  test(`${p.dir}/${p.file} passes Dockwright's checks with the default settings (${p.refused.length ? p.refused.map((r) => r.rule).join(', ') : 'valid'})`, async () => {
    // a project the reference refuses is beyond the promise: what Dockwright says of it is pinned all the same
    for (const r of p.refused) assert.ok((hostAccessRules.has(r.rule) || !inScope(p)) && r.reason, `${p.dir}: ${r.rule} is not a host-access rule, or has no reason`);
    const name = uniqueName('rw');
    await createStack(s, name, busybox());
    const archive = execFileSync('tar', ['-cz', '-C', join(root, p.dir), '.']);
    const up = await s.api('PUT', `/api/v1/stacks/${name}/source/upload?path=${encodeURIComponent(p.file)}`, { raw: new Uint8Array(archive), headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(up.status, 200, up.text);
    const content = readFileSync(join(root, p.dir, p.file), 'utf8');
    const res = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content } });
    assert.equal(res.status, 200, res.text);
    const errors = (res.body.errors as { rule: string; path: string; message: string }[]);
    assert.deepEqual(errors.map((e) => [e.rule, e.path]).sort(), p.refused.map((r) => [r.rule, r.path]).sort(), JSON.stringify(errors, null, 1));
    assert.ok(res.body.services.length > 0);
  });
}
