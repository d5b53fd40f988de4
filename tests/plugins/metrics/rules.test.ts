// The rule engine with a fake clock: `for` holds before opening, hysteresis before resolving, the cooldown after, silences, subjects and rules that go away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globMatch, RuleEngine, type Observation, type Rule, type Silence } from '../../../plugins/metrics/rules.ts';

const cpu: Rule = { id: 'cpu', scope: 'container:*', metric: 'cpu', op: '>', threshold: 90, forMs: 60_000, recover: 70, cooldownMs: 300_000, severity: 'warning' };

function clocked() {
  let now = 1_000_000;
  const engine = new RuleEngine(() => now);
  return {
    engine,
    tick(ms: number) { now += ms; },
    at: () => now,
    round(value: number | null, rule = cpu, silenced: Silence[] = [], subject = 'container:abc') {
      const observations: Observation[] = [{ subject, stack: 'web', value }];
      return engine.evaluate([{ rule, observations }], silenced);
    },
  };
}

test('a breach opens only after it held for `for`; a dip below the threshold starts the wait again', () => {
  const c = clocked();
  assert.deepEqual(c.round(50).map((t) => [t.type, (t as { quiet?: boolean }).quiet]), [['resolve', true]], 'a first look that is fine resolves quietly (an alert an earlier run left open)');
  assert.deepEqual(c.round(95), []);
  c.tick(30_000);
  assert.deepEqual(c.round(96), []);
  c.tick(10_000);
  assert.deepEqual(c.round(80), [], 'below the threshold: not yet firing, the wait starts over');
  c.tick(10_000);
  assert.deepEqual(c.round(95), []);
  c.tick(59_999);
  assert.deepEqual(c.round(95), []);
  c.tick(1);
  const [open] = c.round(97);
  assert.equal(open.type, 'open');
  assert.equal(open.type === 'open' && open.value, 97);
  assert.equal(open.type === 'open' && open.since, c.at() - 60_000);
  assert.deepEqual(open.type === 'open' && open.values, [95, 95, 97]);
  assert.deepEqual(c.round(99), [], 'an open alert is not opened again');
});

test('hysteresis: a firing rule resolves only at or below `recover`; without one, at the threshold', () => {
  const c = clocked();
  const quick = { ...cpu, forMs: 0 };
  c.round(95, quick);
  assert.equal(c.round(95, quick).length, 0);
  assert.deepEqual(c.round(85, quick), [], 'between recover and threshold it keeps firing');
  assert.deepEqual(c.round(91, quick), []);
  const [resolved] = c.round(70, quick);
  assert.equal(resolved.type, 'resolve');
  assert.equal(resolved.value, 70);
  const below: Rule = { ...quick, id: 'low', op: '<', threshold: 10, recover: undefined };
  const d = clocked();
  assert.equal(d.round(5, below)[0].type, 'open');
  assert.deepEqual(d.round(9.9, below), []);
  assert.equal(d.round(10, below)[0].type, 'resolve');
});

test('the cooldown: after resolving, a new breach waits out the cooldown before it opens again', () => {
  const c = clocked();
  const quick = { ...cpu, forMs: 0 };
  assert.equal(c.round(95, quick)[0].type, 'open');
  assert.equal(c.round(50, quick)[0].type, 'resolve');
  c.tick(100_000);
  assert.deepEqual(c.round(95, quick), []);
  c.tick(199_999);
  assert.deepEqual(c.round(95, quick), []);
  c.tick(1);
  assert.equal(c.round(95, quick)[0].type, 'open');
});

test('silences keep a rule from opening while they last, by rule, subject, stack, glob or all; an expired one does not', () => {
  const quick = { ...cpu, forMs: 0 };
  for (const scope of ['*', 'rule:cpu', 'container:abc', 'stack:web', 'container:a*']) {
    const c = clocked();
    const silence: Silence = { id: 's', scope, until: c.at() + 60_000 };
    assert.deepEqual(c.round(95, quick, [silence]), [], scope);
    c.tick(60_000);
    assert.equal(c.round(95, quick, [silence])[0]?.type, 'open', `${scope}: after its end`);
  }
  const c = clocked();
  assert.equal(c.round(95, quick, [{ id: 's', scope: 'stack:other', until: c.at() + 60_000 }])[0]?.type, 'open', 'another stack\'s silence');
  assert.equal(globMatch('web-*-1', 'web-app-1'), true);
  assert.equal(globMatch('web-?', 'web-ab'), false);
  assert.equal(globMatch('a.b', 'axb'), false, 'a dot is a dot');
  assert.equal(globMatch('web/*', 'web/app'), true);
  assert.equal(globMatch('*', ''), true);
  assert.equal(globMatch('a*b*c', 'aXXbYYc'), true);
  assert.equal(globMatch('a*b*c', 'aXXbYY'), false);
  const started = performance.now();
  assert.equal(globMatch(`${'*a'.repeat(60)}b`, 'a'.repeat(120)), false);
  assert.ok(performance.now() - started < 100, 'a glob of many stars does not backtrack for long');
});

test('a subject that is gone, and a rule no longer given (disabled or deleted), resolve what they had open; an unknown value changes nothing', () => {
  const c = clocked();
  const quick = { ...cpu, forMs: 0 };
  assert.equal(c.round(95, quick)[0].type, 'open');
  assert.deepEqual(c.round(null, quick), [], 'no value this time: still firing');
  const gone = c.engine.evaluate([{ rule: quick, observations: [] }], []);
  assert.deepEqual(gone.map((t) => [t.type, t.subject, t.value]), [['resolve', 'container:abc', null]]);
  assert.equal(c.round(95, quick)[0]?.type, 'open');
  const dropped = c.engine.evaluate([], []);
  assert.deepEqual(dropped.map((t) => [t.type, t.rule.id]), [['resolve', 'cpu']]);
});

test('the disk forecast: a least-squares line through the free bytes, in hours until none is left; no forecast without a shrinking trend or enough history', async () => {
  const { hoursLeft } = await import('../../../plugins/metrics/rule-runner.ts');
  // 100 GB free, losing 1 GB an hour for 24 hours, with noise that averages out
  const points: [number, number][] = Array.from({ length: 24 * 60 }, (_, i) => [i * 60, 100e9 - (i / 60) * 1e9 + (i % 2 ? 2e7 : -2e7)]);
  const left = hoursLeft(points)!;
  assert.ok(Math.abs(left - (100 - 24 + 1 / 60)) < 0.5, String(left));
  assert.equal(hoursLeft(points.map(([t, v]) => [t, 200e9 - v])), 1e6, 'growing free space: no end in sight');
  assert.equal(hoursLeft(points.slice(0, 30)), null, 'half an hour is too little to go by');
  assert.equal(hoursLeft([[0, 1], [7200, 0]]), null, 'two points are too few');
});
