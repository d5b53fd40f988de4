// A stop says that it waits for the grace period, and how each container ended: stopped on its signal, or killed once the grace ran out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../../helpers/harness.ts';
import { act, busybox, cleanupProjects, createStack, startStacksServer, uniqueName } from './helpers.ts';

const name = uniqueName('grace');
let s: TestServer;
before(async () => { s = await startStacksServer(); });
after(async () => {
  await cleanupProjects(name);
  await s?.close();
});

test('stopping a stack: the wait for the grace period is announced; one that ignores its stop signal is killed and the output says so', async () => {
  // a shell as PID 1 ignores SIGTERM: "stubborn" outlives the grace (1 s here); "polite" exits on it
  await createStack(s, name, busybox({ stubborn: 'sleep 3600', polite: 'trap "exit 0" TERM; while true; do sleep 0.1; done' }));
  await act(s, 'deploy', name);
  const job = await act(s, 'stop', name);
  const lines = job.output.split('\n');
  for (const service of ['stubborn', 'polite']) {
    assert.ok(lines.some((l) => new RegExp(`${name}-${service}-1: stopping: its stop signal is sent, and it is killed if it has not exited within 1 s$`).test(l)), job.output);
  }
  assert.ok(lines.some((l) => new RegExp(`${name}-stubborn-1 removed \\(it did not exit within the 1 s grace period and was killed; took \\d+\\.\\d s\\)$`).test(l)), job.output);
  assert.ok(lines.some((l) => new RegExp(`${name}-polite-1 removed \\(stopped in 0\\.\\d s\\)$`).test(l)), job.output);
});
