// Releases, rollback by digest, update checks with semver policies and the automatic rollback of a bad update, against the real engine and a local registry.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, type TestServer } from '../../helpers/harness.ts';
import { act, cleanupProjects, containerOf, createStack, docker, localVariant, publishVariant, registry, runningDigests, startReleasesServer, uniqueName, waitJob } from './helpers.ts';

const repo = `${registry}/${uniqueName('dwt-rel')}`;
const app = `${repo}/app`;
const bad = `${repo}/bad`;
const digests: Record<string, string> = {};
const stacks = { main: uniqueName('rel'), policies: uniqueName('pol'), local: uniqueName('loc'), bad: uniqueName('bad'), auth: uniqueName('auth') };
const localImage = `${uniqueName('dwt-local')}:1`;
let s: TestServer;

before(async () => {
  digests.moving1 = await publishVariant(`${app}:moving`, 'moving-1');
  for (const v of ['1.0.0', '1.1.0', '2.0.0', '1.0.1-rc.1']) digests[v] = await publishVariant(`${app}:${v}`, v);
  digests.good = await publishVariant(`${bad}:1.0.0`, 'good');
  digests.bad = await publishVariant(`${bad}:1.0.1`, 'bad', ['sh', '-c', 'echo starting the new version; sleep 2; echo boom: cannot start; exit 3']);
  s = await startReleasesServer({ config: { rateLimit: { perMinute: 100_000 } } });
});
after(async () => {
  await cleanupProjects(...Object.values(stacks));
  await s.close();
  const images = await docker.listImages({ filters: { reference: [`${repo}/*`] } });
  for (const i of images) await docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
  await docker.getImage(localImage).remove({ force: true }).catch(() => undefined);
});

const job = async (path: string, body: unknown = {}, expect: 'succeeded' | 'failed' = 'succeeded') => {
  const res = await s.api('POST', path, { body });
  assert.equal(res.status, 202, res.text);
  const done = await waitJob(s, res.body.id);
  assert.equal(done.status, expect, `${path}: ${done.error}\n${done.output}`);
  return done;
};
const releases = async (stack: string, query = '') => (await s.api('GET', `/api/v1/stacks/${stack}/releases${query}`)).body as any[];
const alertsOf = async (kind: string, stack: string) => ((await s.api('GET', `/api/v1/alerts?kind=${kind}`)).body as any[]).filter((a) => a.resource === `stack:${stack}`);

test('every deploy records a release; an update deploys the new digest; a rollback after the tag moved runs the old digest again', async () => {
  await createStack(s, stacks.main, `services:\n  app:\n    image: ${app}:moving\n    labels: { dockwright.update.monitor: "2" }\n  side:\n    image: ${app}:1.0.0\n    labels: { dockwright.update: none }\n`);
  await act(s, 'deploy', stacks.main);
  let list = await releases(stacks.main);
  assert.equal(list.length, 1);
  assert.equal(list[0].number, 1);
  assert.equal(list[0].kind, 'deploy');
  assert.equal(list[0].actor.kind, 'user');
  assert.equal(list[0].revision, 1);
  assert.deepEqual(list[0].services.map((x: any) => [x.service, x.image, x.digest, x.policy]), [['app', `${app}:moving`, digests.moving1, 'digest'], ['side', `${app}:1.0.0`, digests['1.0.0'], 'none']]);
  assert.deepEqual(list[0].changes.added, ['app', 'side']);

  // nothing new yet
  let check = await job(`/api/v1/stacks/${stacks.main}/updates/check`);
  let updates = (await s.api('GET', `/api/v1/stacks/${stacks.main}/updates`)).body;
  assert.equal(updates.services.find((x: any) => x.service === 'app').available, false, check.output);
  assert.equal(updates.services.find((x: any) => x.service === 'side').candidate, null);

  // the tag is pushed again with another image: the digest policy notices, and alerts once
  digests.moving2 = await publishVariant(`${app}:moving`, 'moving-2');
  check = await job(`/api/v1/stacks/${stacks.main}/updates/check`);
  updates = (await s.api('GET', `/api/v1/stacks/${stacks.main}/updates`)).body;
  const appCheck = updates.services.find((x: any) => x.service === 'app');
  assert.deepEqual([appCheck.available, appCheck.digest, appCheck.candidate], [true, digests.moving1, { tag: 'moving', digest: digests.moving2 }], check.output);
  await job(`/api/v1/stacks/${stacks.main}/updates/check`);
  const raised = await alertsOf('update-available', stacks.main);
  assert.equal(raised.length, 1);
  assert.equal(raised[0].count, 1, 'one alert per candidate, not one per check');
  assert.equal(raised[0].severity, 'info');

  const updated = await job(`/api/v1/stacks/${stacks.main}/update`, { services: ['app'] }, 'succeeded');
  assert.ok((await runningDigests((await containerOf(stacks.main, 'app'))!.Id)).some((d) => d.endsWith(digests.moving2)), updated.output);
  list = await releases(stacks.main);
  assert.equal(list[0].kind, 'update');
  const idOf = (r: any) => r.services.find((x: any) => x.service === 'app').imageId;
  assert.deepEqual(list[0].changes.changed, [{ service: 'app', from: { image: `${app}:moving`, digest: digests.moving1, imageId: idOf(list[1]) }, to: { image: `${app}:moving`, digest: digests.moving2, imageId: idOf(list[0]) } }]);
  assert.equal((await s.api('GET', `/api/v1/stacks/${stacks.main}/updates`)).body.services.find((x: any) => x.service === 'app').origin, 'update');
  const view = (await s.api('GET', `/api/v1/stacks/${stacks.main}`)).body;
  assert.deepEqual(view.release.services.map((x: any) => [x.service, x.image, x.digest, x.origin]), [['app', `${app}:moving`, digests.moving2, 'update'], ['side', `${app}:1.0.0`, digests['1.0.0'], 'compose']]);
  assert.equal((await alertsOf('update-available', stacks.main))[0].status, 'resolved');

  // the old image is gone from the engine: the rollback pulls it by digest
  await docker.getImage(`${app}@${digests.moving1}`).remove({ force: true }).catch(() => undefined);
  const rolled = await job(`/api/v1/stacks/${stacks.main}/rollback`, {});
  assert.equal(rolled.result.rolledBackTo, 1);
  const running = await runningDigests((await containerOf(stacks.main, 'app'))!.Id);
  assert.ok(running.some((d) => d.endsWith(digests.moving1)), `docker inspect shows the old digest: ${running.join(', ')}`);
  list = await releases(stacks.main);
  assert.deepEqual([list[0].number, list[0].kind, list[0].rolledBackTo], [3, 'rollback', 1]);
  assert.equal(list[0].services.find((x: any) => x.service === 'app').digest, digests.moving1);

  // paging, newest first, each with the difference from the one before it
  const first = await s.api('GET', `/api/v1/stacks/${stacks.main}/releases?limit=2`);
  assert.deepEqual(first.body.map((r: any) => r.number), [3, 2]);
  assert.match(first.headers.get('link') ?? '', /cursor=2/);
  const second = await releases(stacks.main, '?limit=2&cursor=2');
  assert.deepEqual(second.map((r: any) => r.number), [1]);
  assert.equal(first.body[1].changes.changed.length, 1);
  assert.deepEqual(first.body.map((r: any) => r.kept), [true, true]);

  // bad input
  assert.equal((await s.api('POST', `/api/v1/stacks/${stacks.main}/rollback`, { body: { release: 99 } })).status, 404);
  assert.equal((await s.api('POST', `/api/v1/stacks/${stacks.main}/rollback`, { body: { release: 'x' } })).status, 400);
  assert.equal((await s.api('GET', `/api/v1/stacks/nope-${stacks.main}/releases`)).status, 404);
});

test('policies: minor picks 1.1.0 over 2.0.0, major 2.0.0, patch nothing newer (pre-releases skipped), none is not checked; the nightly autoupdate applies them', async () => {
  const svc = (name: string, policy: string) => `  ${name}:\n    image: ${app}:1.0.0\n    labels: { dockwright.update: ${policy}, dockwright.update.monitor: "1" }\n`;
  await createStack(s, stacks.policies, `services:\n${svc('minor', 'minor')}${svc('major', 'major')}${svc('patch', 'patch')}${svc('fixed', 'none')}`);
  await act(s, 'deploy', stacks.policies);
  const check = await job(`/api/v1/stacks/${stacks.policies}/updates/check`);
  const by = Object.fromEntries(((await s.api('GET', `/api/v1/stacks/${stacks.policies}/updates`)).body.services as any[]).map((x) => [x.service, x]));
  assert.deepEqual(by.minor.candidate, { tag: '1.1.0', digest: digests['1.1.0'] }, check.output);
  assert.equal(by.minor.available, true);
  assert.deepEqual(by.major.candidate, { tag: '2.0.0', digest: digests['2.0.0'] });
  assert.deepEqual(by.patch.candidate, { tag: '1.0.0', digest: digests['1.0.0'] });
  assert.equal(by.patch.available, false);
  assert.equal(by.fixed.candidate, null);
  assert.equal(by.fixed.available, false);
  assert.ok(check.result.ms >= 0);

  // the nightly autoupdate of a stack that has it on is the same update: checked, deployed, watched
  await s.api('PUT', `/api/v1/stacks/${stacks.policies}/autoupdate`, { body: { enabled: true } });
  await s.app.services.scheduler.trigger('stacks.autoupdate');
  const nightly = await eventually(async () => ((await s.api('GET', `/api/v1/jobs?resource=stack:${stacks.policies}&type=releases.update`)).body as any[]).find((j) => j.done), 120_000, 'the nightly update');
  assert.equal(nightly.status, 'succeeded', nightly.error);
  assert.equal(nightly.actor.kind, 'system');
  const latest = (await releases(stacks.policies))[0];
  assert.deepEqual(Object.fromEntries(latest.services.map((x: any) => [x.service, [x.image, x.origin]])), {
    minor: [`${app}:1.1.0`, 'update'], major: [`${app}:2.0.0`, 'update'], patch: [`${app}:1.0.0`, 'compose'], fixed: [`${app}:1.0.0`, 'compose'],
  });
  // a plain deploy afterwards keeps the updates on top of the compose file
  await act(s, 'deploy', stacks.policies);
  const again = (await releases(stacks.policies))[0];
  assert.equal(again.kind, 'deploy');
  assert.deepEqual(again.changes.changed, []);
  assert.equal(again.services.find((x: any) => x.service === 'minor').digest, digests['1.1.0']);
  await s.api('PUT', `/api/v1/stacks/${stacks.policies}/autoupdate`, { body: { enabled: false } });
});

test('a registry with a login: the check authenticates with the saved login; other dockwright.* labels stay reserved', async () => {
  const auth = process.env.REGISTRY_AUTH ?? '127.0.0.1:5001';
  const login = await s.api('POST', '/api/v1/registries', { body: { host: auth, username: process.env.REGISTRY_AUTH_USER, password: process.env.REGISTRY_AUTH_PASSWORD } });
  assert.ok([200, 201].includes(login.status), login.text);
  await createStack(s, stacks.auth, `services:\n  app:\n    image: ${auth}/dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n`);
  await act(s, 'deploy', stacks.auth);
  const check = await job(`/api/v1/stacks/${stacks.auth}/updates/check`);
  const [svc] = (await s.api('GET', `/api/v1/stacks/${stacks.auth}/updates`)).body.services;
  assert.equal(svc.error, null, check.output);
  assert.match(svc.digest, /^sha256:/);
  assert.deepEqual(svc.candidate, { tag: '1', digest: svc.digest });
  assert.equal(svc.available, false);
  assert.ok(!check.output.includes(process.env.REGISTRY_AUTH_PASSWORD!), 'the password never shows');

  const reserved = await s.api('PUT', `/api/v1/stacks/${uniqueName('lbl')}/compose`, { body: { content: 'services:\n  app:\n    image: x:1\n    labels: { dockwright.other: "1" }\n' }, headers: { 'if-none-match': '*' } });
  assert.equal(reserved.status, 422, reserved.text);
});

test('a rollback to a release whose image is gone and no registry holds fails before touching anything, naming it', async () => {
  await localVariant(localImage, 'local');
  await createStack(s, stacks.local, `services:\n  app:\n    image: ${localImage}\n    command: ["sleep", "3600"]\n`);
  await act(s, 'deploy', stacks.local);
  const current = await s.api('GET', `/api/v1/stacks/${stacks.local}/compose`);
  await s.api('PUT', `/api/v1/stacks/${stacks.local}/compose`, { body: { content: `services:\n  app:\n    image: ${app}:1.0.0\n`, revision: current.body.revision } });
  await act(s, 'deploy', stacks.local);
  const before = (await containerOf(stacks.local, 'app'))!.Id;
  await docker.getImage(localImage).remove({ force: true });
  const failed = await job(`/api/v1/stacks/${stacks.local}/rollback`, { release: 1 }, 'failed');
  assert.match(failed.error ?? '', new RegExp(`image of app in release 1 \\(${localImage}`));
  assert.equal((await containerOf(stacks.local, 'app'))!.Id, before, 'nothing was touched');
  assert.equal((await releases(stacks.local)).length, 2);
});

test('an update whose new version exits is rolled back by itself: the job fails with the reason and its last log lines, an alert is raised, the previous digest runs', async () => {
  await createStack(s, stacks.bad, `services:\n  app:\n    image: ${bad}:1.0.0\n    labels: { dockwright.update: patch, dockwright.update.monitor: "8" }\n  other:\n    image: ${app}:1.0.0\n    labels: { dockwright.update: minor }\n`);
  await act(s, 'deploy', stacks.bad);
  const failed = await job(`/api/v1/stacks/${stacks.bad}/update`, {}, 'failed');
  assert.match(failed.error ?? '', /app exited with code 3|app restarted/);
  assert.match(failed.error ?? '', /boom: cannot start/);
  assert.match(failed.error ?? '', /went back to release 1/);
  const app1 = await runningDigests((await containerOf(stacks.bad, 'app'))!.Id);
  assert.ok(app1.some((d) => d.endsWith(digests.good)), `the previous digest runs: ${app1.join(', ')}`);
  const other = await runningDigests((await containerOf(stacks.bad, 'other'))!.Id);
  assert.ok(other.some((d) => d.endsWith(digests['1.0.0'])), 'no service is left updated');
  assert.equal((await containerOf(stacks.bad, 'app'))!.State, 'running');
  const list = await releases(stacks.bad);
  assert.deepEqual(list.map((r) => [r.number, r.kind, r.rolledBackTo]), [[3, 'rollback', 1], [2, 'update', null], [1, 'deploy', null]]);
  const alert = await alertsOf('update-rolled-back', stacks.bad);
  assert.equal(alert.length, 1);
  assert.equal(alert[0].severity, 'warning');
  assert.deepEqual(await alertsOf('job-failed', stacks.bad), [], 'the rolled-back update has its own alert');
});
