// Unknown keys of top-level networks, volumes, secrets and configs entries are refused by the compose check (validate and save), naming the key and where it belongs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { startStacksServer } from './helpers.ts';

let s: TestServer;
before(async () => { s = await startStacksServer(); });
after(async () => { await s?.close(); });

const service = 'services:\n  app:\n    image: dockwright-test/busybox:1\n    volumes: ["data:/data"]\n    networks: [back]\n';

test('a misplaced privileged: true under a volume, and unknown keys of networks, secrets and configs, are errors at their path', async () => {
  const cases: [string, string, RegExp][] = [
    ['volumes:\n  data:\n    privileged: true\nnetworks:\n  back: {}\n', 'volumes.data.privileged', /"privileged" is not a key of a volume .*service option: set it under services\.<name>\.privileged/],
    ['volumes:\n  data:\n    driver: local\n    sizee: 1g\nnetworks:\n  back: {}\n', 'volumes.data.sizee', /"sizee" is not a key of a volume \(name, external, driver, driver_opts, labels\)$/],
    ['volumes:\n  data: {}\nnetworks:\n  back:\n    cap_add: [NET_ADMIN]\n', 'networks.back.cap_add', /"cap_add" is not a key of a network/],
    ['volumes:\n  data: {}\nnetworks:\n  back: {}\nsecrets:\n  token:\n    environment: TOKEN\n    privileged: true\n', 'secrets.token.privileged', /"privileged" is not a key of a secret/],
    ['volumes:\n  data: {}\nnetworks:\n  back: {}\nconfigs:\n  conf:\n    content: hello\n    mode: 0400\n', 'configs.conf.mode', /"mode" is not a key of a config/],
  ];
  for (const [top, path, message] of cases) {
    const res = await s.api('POST', '/api/v1/stacks/entrykeys/validate', { body: { content: service + top } });
    assert.equal(res.status, 200, res.text);
    const found = (res.body.errors as { path: string; message: string }[]).find((e) => e.path === path);
    assert.ok(found, `${path}: errors are ${JSON.stringify(res.body.errors)}`);
    assert.match(found.message, message);
    const saved = await s.api('PUT', '/api/v1/stacks/entrykeys/compose', { body: { content: service + top }, headers: { 'If-None-Match': '*' } });
    assert.equal(saved.status, 422, `${path}: a file with it is not saved`);
  }
  const clean = await s.api('POST', '/api/v1/stacks/entrykeys/validate', {
    body: { content: `${service}volumes:\n  data:\n    driver: local\n    labels: { a: b }\n    x-note: mine\nnetworks:\n  back:\n    driver: bridge\n    internal: true\n    enable_ipv6: false\n` },
  });
  assert.deepEqual(clean.body.errors, [], 'the known keys and x- extensions pass');
});
