// The edge in front of stacks (real Caddy, real containers, real HTTP): labels route a hostname, redeploys keep it, stop removes the route, one owner per hostname, Caddy restarted after SIGKILL, a container too busy to accept costs no request.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { act, cleanupProjects, createStack, edgeAnswers, edgeRunning, startEdgeServer, uniqueName, viaEdge, webCompose, type EdgeServer } from './helpers.ts';
import { eventually } from '../../helpers/harness.ts';
import { docker, projectContainers } from '../docker/helpers.ts';

let s: EdgeServer;
const projects: string[] = [];
before(async () => {
  s = await startEdgeServer();
  await edgeRunning(s);
});
after(async () => {
  await s?.close();
  await cleanupProjects(...projects);
});

const stackName = () => {
  const name = uniqueName('edge');
  projects.push(name);
  return name;
};

test('a labelled service answers through the edge; a recreating redeploy keeps answering; stop removes the route', async () => {
  const name = stackName();
  const host = `${name}.app.test`;
  await createStack(s, name, webCompose(host, 'one'));
  await act(s, 'deploy', name);
  const first = await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'));
  assert.match(first.body, /hostname=/);
  // Caddy takes a change inside the transaction that stores it: its answer can come a moment before the commit
  const edge = await eventually(async () => {
    const view = (await s.api('GET', '/api/v1/edge')).body;
    return view.routes.some((r: any) => r.hostname === host) ? view : null;
  }, 10_000, 'the route in GET /edge');
  assert.deepEqual(edge.routes.filter((r: any) => r.hostname === host).map((r: any) => ({ owner: r.owner, path: r.path, kind: r.kind, target: r.target, https: r.https })),
    [{ owner: `stack:${name}`, path: '/', kind: 'proxy', target: { project: name, service: 'web', port: 8080 }, https: false }]);
  assert.equal(edge.hostnames.find((h: any) => h.hostname === host)?.certificate, null);
  assert.equal((await viaEdge(s.httpPort, `other-${host}`, '/')).status, 404, 'an unknown hostname is a 404');

  // the changed environment recreates the container, with a new address
  const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: webCompose(host, 'two'), revision: stack.revision } });
  assert.equal(put.status, 200, put.text);
  const redeploy = await act(s, 'deploy', name);
  assert.match(redeploy.output, /recreat/);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=two'));

  await act(s, 'stop', name);
  await edgeAnswers(s.httpPort, host, '/', (a) => a.status === 404);
  assert.equal((await s.api('GET', '/api/v1/edge')).body.routes.filter((r: any) => r.hostname === host).length, 0);
});

test('a hostname has one owner: another stack is refused with 422 edge-hostname-taken, another owner with 409 naming the stack', async () => {
  const a = stackName();
  const b = stackName();
  const host = `${a}.shared.test`;
  await createStack(s, a, webCompose(host));
  await act(s, 'deploy', a);
  await edgeAnswers(s.httpPort, host, '/', (r) => r.status === 200);

  const validate = await s.api('POST', `/api/v1/stacks/${b}/validate`, { body: { content: webCompose(host.toUpperCase()) } });
  const errors = validate.body.errors ?? [];
  assert.deepEqual(errors.map((e: any) => e.rule), ['edge-hostname-taken'], validate.text);
  assert.equal(errors[0].path, 'services.web.labels.dockwright.http.host');
  assert.match(errors[0].message, new RegExp(`belongs to stack:${a}`));
  const put = await s.api('PUT', `/api/v1/stacks/${b}/compose`, { body: { content: webCompose(host) }, headers: { 'if-none-match': '*' } });
  assert.equal(put.status, 422, put.text);
  assert.equal(put.body.errors[0].rule, 'edge-hostname-taken');
  assert.equal((await s.api('GET', `/api/v1/stacks/${b}`)).status, 404, 'nothing was saved');

  const site = await s.api('PUT', '/api/v1/edge-client/routes/site:docs', { body: { routes: [{ kind: 'static', hostname: host, root: '/tmp' }] } });
  assert.equal(site.status, 409, site.text);
  assert.match(site.body.detail, new RegExp(`${host} belongs to stack:${a}`));
  assert.equal(site.headers.get('content-type'), 'application/problem+json');

  // the owner itself may redeploy with the same hostname
  const again = await s.api('POST', `/api/v1/stacks/${a}/validate`, { body: { content: webCompose(host) } });
  assert.deepEqual(again.body.errors ?? [], []);
  // a stopped stack keeps the hostname its compose file names; it is free once the file names another
  await act(s, 'stop', a);
  await edgeAnswers(s.httpPort, host, '/', (r) => r.status === 404);
  assert.deepEqual(((await s.api('POST', `/api/v1/stacks/${b}/validate`, { body: { content: webCompose(host) } })).body.errors ?? []).map((e: any) => e.rule), ['edge-hostname-taken']);
  assert.equal((await s.api('PUT', '/api/v1/edge-client/routes/site:docs', { body: { routes: [{ kind: 'static', hostname: host, root: '/tmp' }] } })).status, 409);
  const moved = await s.api('PUT', `/api/v1/stacks/${a}/compose`, { body: { content: webCompose(`moved-${host}`) }, headers: { 'if-match': '"1"' } });
  assert.equal(moved.status, 200, moved.text);
  assert.deepEqual((await s.api('POST', `/api/v1/stacks/${b}/validate`, { body: { content: webCompose(host) } })).body.errors ?? [], []);
});

test('bad route labels are refused with their own rule and the label path', async () => {
  const name = stackName();
  const cases: [string, RegExp][] = [
    [webCompose('*.wild.test'), /wildcard/],
    [webCompose('bad_host..test'), /label/],
    [webCompose(`${'a'.repeat(64)}.test`), /label/],
    [webCompose('ok.test').replace('"8080"', '"http"'), /port/],
    [webCompose('ok.test', 'one', '      dockwright.http.path: "/a/../b"\n'), /path prefix/],
    // localhost in every spelling names the asking machine, never a host of the edge
    [webCompose('localhost'), /localhost/],
    [webCompose('LocalHost.'), /localhost/],
    [webCompose('api.localhost'), /localhost/],
    [webCompose('API.LOCALHOST.'), /localhost/],
    [webCompose('ok.test', 'one', '      dockwright.http.ready: "healthz"\n'), /dockwright\.http\.ready is a path such as \/healthz/],
    [webCompose('ok.test', 'one', '      dockwright.http.readyTimeout: "1m"\n'), /dockwright\.http\.readyTimeout is a number of seconds from 1 to 3600/],
  ];
  for (const [content, message] of cases) {
    const res = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content } });
    const errors = res.body.errors ?? [];
    assert.equal(errors.length, 1, res.text);
    assert.equal(errors[0].rule, 'edge-route-labels');
    assert.match(errors[0].path, /^services\.web\.labels/);
    assert.match(errors[0].message, message);
  }
  const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: webCompose('api.localhost') }, headers: { 'if-none-match': '*' } });
  assert.equal(put.status, 422, put.text);
  assert.deepEqual(put.body.errors.map((e: any) => e.rule), ['edge-route-labels']);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).status, 404, 'nothing was saved');
  // IDNA: a Unicode hostname is stored in its ASCII form
  const idn = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: webCompose('bücher.test') } });
  assert.deepEqual(idn.body.errors ?? [], []);
  const ready = await s.api('POST', `/api/v1/stacks/${name}/validate`, { body: { content: webCompose('ok.test', 'one', '      dockwright.http.ready: /healthz?full=1\n      dockwright.http.readyTimeout: "120"\n') } });
  assert.deepEqual(ready.body.errors ?? [], []);
});

test('Caddy killed with SIGKILL is restarted and serves the same routes within 2 s', async () => {
  const name = stackName();
  const host = `${name}.kill.test`;
  await createStack(s, name, webCompose(host, 'alive'));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.body.includes('message=alive'));
  const before = (await s.api('GET', '/api/v1/edge')).body;
  assert.ok(before.pid > 0);
  process.kill(before.pid, 'SIGKILL');
  const killedAt = Date.now();
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.body.includes('message=alive'), 2000);
  const took = Date.now() - killedAt;
  // the new Caddy serves its autosaved configuration at once; the service says running once it compared it with the stored one
  const now = await edgeRunning(s, 2000);
  assert.notEqual(now.pid, before.pid);
  assert.equal(now.restarts, before.restarts + 1);
  assert.equal(now.state, 'running');
  assert.ok(took < 2000, `answered again after ${took} ms`);
});

test('a container too busy to take connections for 4 s (paused: its queue fills, new ones time out) costs no request: the edge skips it, tries again, and answers', async () => {
  const name = stackName();
  const host = `${name}.busy.test`;
  await createStack(s, name, webCompose(host, 'busy'));
  await act(s, 'deploy', name);
  await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.body.includes('message=busy'));
  const container = docker.getContainer((await projectContainers(name))[0].Id);

  await container.pause();
  const pausedAt = Date.now();
  // 40 requests over the first 2 s: the first few wait in its accept queue, the connections of the others time out (3 s)
  const answers: Promise<{ status: number; ms: number } | { error: string }>[] = [];
  for (let i = 0; i < 40; i++) {
    const sent = Date.now();
    answers.push(viaEdge(s.httpPort, host, '/cgi-bin/env').then((a) => ({ status: a.status, ms: Date.now() - sent }), (err: Error) => ({ error: err.message })));
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, Math.max(0, 4000 - (Date.now() - pausedAt))));
  await container.unpause();

  const got = await Promise.all(answers);
  assert.deepEqual(got.filter((a) => !('status' in a) || a.status !== 200), [], 'every request answered 200');
  const slowest = Math.max(...got.map((a) => ('ms' in a ? a.ms : 0)));
  assert.ok(slowest > 3000, `some requests waited for the container past a timed-out connection attempt (${slowest} ms)`);
});
