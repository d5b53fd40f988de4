// No compose file blocks the service: the costliest accepted and refused files go through validate (and a save) while the event loop's delay is measured in this process, which runs the server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { contention, cpuTimed } from '../../helpers/cpu-time.ts';
import type { TestServer } from '../../helpers/harness.ts';
import { worstInputs } from '../../fixtures/compose-worst.ts';
import { busybox, cleanupProjects, createStack, startStacksServer, uniqueName } from './helpers.ts';

let s: TestServer;
const names: string[] = [];

before(async () => { s = await startStacksServer({ config: { rateLimit: { perMinute: 100_000 } } }); });
after(async () => { await cleanupProjects(...names); await s.close(); });

test('the worst accepted and refused compose files never block the event loop for a second', async (t) => {
  const inputs = worstInputs();
  // a stack whose variables the files interpolate
  const stack = uniqueName('loop');
  names.push(stack);
  await createStack(s, stack, busybox());
  const values = Object.assign({}, ...inputs.map((i) => i.variables ?? {}));
  assert.equal((await s.api('PUT', `/api/v1/stacks/${stack}/env`, { body: { values, revision: 1 } })).status, 200);

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timings: string[] = [];
  const costs: number[] = [];
  const timed = async <T extends object>(what: string, run: () => Promise<T>) => {
    const res = await cpuTimed(run);
    timings.push(`${res.cpuMs.toFixed(0).padStart(5)} ms CPU ${res.wallMs.toFixed(0).padStart(5)} ms  ${what}`);
    costs.push(res.cpuMs);
    return res;
  };
  try {
    for (const input of inputs) {
      const res = await timed(input.name, () => s.api('POST', `/api/v1/stacks/${stack}/validate`, { body: { content: input.content } }));
      if (input.refusedBy) {
        assert.equal(res.status, 422, `${input.name}: ${res.text.slice(0, 300)}`);
        assert.equal(res.body.errors[0].rule, 'compose-limits', input.name);
      } else {
        assert.equal(res.status, 200, `${input.name}: ${res.text.slice(0, 300)}`);
        // a port of the file may be taken by a container of another test on this engine: that is the only error allowed
        assert.deepEqual(res.body.errors.filter((e: any) => e.rule !== 'ports-available'), [], input.name);
      }
    }
    // the largest accepted file is also saved, and saved again
    const largest = inputs.find((i) => !i.refusedBy)!;
    const saved = uniqueName('loop');
    names.push(saved);
    const created = await timed(`saved: ${largest.name}`, () => s.api('PUT', `/api/v1/stacks/${saved}/compose`, { body: { content: largest.content, revision: 0 } }));
    const again = await timed(`saved again: ${largest.name}`, () => s.api('PUT', `/api/v1/stacks/${saved}/compose`, { body: { content: `${largest.content}\n`, revision: 1 } }));
    assert.ok(created.status === 200 || created.body.errors.every((e: any) => e.rule === 'ports-available'), created.text.slice(0, 300));
    assert.ok(again.status === 200 || again.status === 422, again.text.slice(0, 300));
  } finally {
    delay.disable();
  }
  const maxMs = delay.max / 1e6;
  const stretch = contention();
  t.diagnostic(`event-loop delay: max ${maxMs.toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms, mean ${(delay.mean / 1e6).toFixed(1)} ms (machine booked ${stretch.toFixed(1)}×)`);
  for (const line of timings) t.diagnostic(line);
  // generous bounds (SPEC "Timing in tests"; scripts/bench/compose-parse.ts reports the exact figures): no request costs a second of CPU,
  // and no block lasts a second, stretched only as far as other work books this machine's cores
  assert.ok(Math.max(...costs) < 1000, `a request took ${Math.max(...costs).toFixed(0)} ms of CPU`);
  assert.ok(maxMs < 1000 * stretch, `the event loop was blocked for ${maxMs.toFixed(0)} ms (bound ${(1000 * stretch).toFixed(0)} ms)`);
});
