// Start-first replacement runs the old container's pre_stop hooks once it is drained, before it stops, as any stop does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { cleanupProjects, deployOk, startDockerServer, uniqueName } from './helpers.ts';

const name = uniqueName('hooks');
let s: TestServer;

const compose = (version: string) => `
services:
  app:
    image: dockwright-test/busybox:1
    command: ["sleep", "3600"]
    environment: { VERSION: "${version}" }
    deploy: { update_config: { order: start-first } }
    pre_stop:
      - command: ["sh", "-c", "echo pre-stop-of-$$VERSION"]
`;

before(async () => { s = await startDockerServer(); });
after(async () => { await s?.close(); await cleanupProjects(name); });

test('a start-first replacement runs the old container’s pre_stop hooks after it is switched away, before it is removed', async () => {
  await deployOk(s, name, compose('one'));
  const job = await deployOk(s, name, compose('two'));
  const lines = job.output.split('\n');
  const hook = lines.findIndex((l) => /pre_stop\[0\]\| pre-stop-of-one$/.test(l));
  const switched = lines.findIndex((l) => l.includes(': switched: '));
  const removed = lines.findIndex((l) => /: removed old/.test(l));
  assert.ok(switched >= 0 && hook > switched && removed > hook, `switched, then the old one's pre_stop, then removed:\n${job.output}`);
  assert.ok(!job.output.includes('pre-stop-of-two'), 'the new container is not stopped');
});
