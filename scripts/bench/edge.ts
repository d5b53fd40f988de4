// Benchmark (not a test): requests/s through the edge vs the same Caddy configured by hand (static file, proxied container), route change → answering, and a start-first redeploy under traffic.
// Run with `npm run bench:edge` after `npm test` has prepared PostgreSQL, Docker and caddy (it reads .test-env). Traffic goes to 127.0.0.1 and a test container only.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { act, bootingCompose, cleanupProjects, createStack, edgeAnswers, edgeRunning, freePort, startEdgeServer, uniqueName, viaEdge, waitJob, webCompose } from '../../tests/plugins/edge/helpers.ts';
import { docker } from '../../tests/plugins/docker/helpers.ts';
import { load, loadTestEnv } from './common.ts';

loadTestEnv();
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const work = mkdtempSync(join(tmpdir(), 'dw-bench-edge-'));
const site = join(work, 'site');
const project = uniqueName('bench');
const rolled = uniqueName('benchsf');
const s = await startEdgeServer();
let hand: ReturnType<typeof spawn> | undefined;

/** one GET with a Host header; the status, or 0 when nothing answered */
const status = (port: number, host: string, path = '/') => new Promise<number>((resolve) => {
  const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
  req.on('error', () => resolve(0));
  req.end();
});

try {
  await edgeRunning(s);
  // a small static file and a proxied container, through the edge
  const { mkdirSync } = await import('node:fs');
  mkdirSync(site);
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>bench</title><p>a small static file served by the edge</p>\n');
  await s.api('PUT', '/api/v1/edge-client/routes/site:bench', { body: { routes: [{ kind: 'static', hostname: 'static.bench', root: site }] } });
  await createStack(s, project, webCompose('app.bench', 'bench'));
  await act(s, 'deploy', project);
  await edgeAnswers(s.httpPort, 'app.bench', '/', (a) => a.status === 200);

  // the same routes by hand: a Caddyfile with the same log settings, the container's address on the edge network
  const info = (await docker.listContainers({ filters: { label: [`dockwright.project=${project}`] } }))[0];
  const ip = info.NetworkSettings.Networks['dockwright-edge'].IPAddress;
  const handPort = await freePort();
  writeFileSync(join(work, 'Caddyfile'), `{
\tadmin off
\tauto_https off
\tstorage file_system ${join(work, 'storage')}
}
http://static.bench:${handPort} {
\tlog {
\t\toutput file ${join(work, 'access.log')} {
\t\t\troll_size 10MiB
\t\t\troll_keep 10
\t\t\troll_keep_for 720h
\t\t}
\t\tformat json
\t}
\troot * ${site}
\tfile_server
}
http://app.bench:${handPort} {
\tlog {
\t\toutput file ${join(work, 'access.log')}
\t\tformat json
\t}
\treverse_proxy ${ip}:8080
}
`);
  hand = spawn('caddy', ['run', '--config', join(work, 'Caddyfile'), '--adapter', 'caddyfile'], { env: { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: work, XDG_DATA_HOME: work }, stdio: 'ignore' });
  const until = Date.now() + 10_000;
  while ((await status(handPort, 'static.bench')) !== 200) {
    if (Date.now() > until) throw new Error('the hand-configured caddy did not answer');
    await new Promise((r) => setTimeout(r, 50));
  }

  const rows: Record<string, unknown> = {};
  const ratio: Record<string, string> = {};
  for (const [what, host, path] of [['static file', 'static.bench', '/index.html'], ['proxied container', 'app.bench', '/']] as const) {
    await load(`http://127.0.0.1:${s.httpPort}${path}`, { host }, 2, connections); // warm-up
    await load(`http://127.0.0.1:${handPort}${path}`, { host }, 2, connections);
    // alternating halves, so drift on a shared machine hits both sides alike
    const edgeA = await load(`http://127.0.0.1:${s.httpPort}${path}`, { host }, seconds / 2, connections);
    const handA = await load(`http://127.0.0.1:${handPort}${path}`, { host }, seconds / 2, connections);
    const handB = await load(`http://127.0.0.1:${handPort}${path}`, { host }, seconds / 2, connections);
    const edgeB = await load(`http://127.0.0.1:${s.httpPort}${path}`, { host }, seconds / 2, connections);
    const merge = (a: typeof edgeA, b: typeof edgeA) => ({ rps: Math.round((a.rps + b.rps) / 2), p50: Math.max(a.p50, b.p50), p99: Math.max(a.p99, b.p99), non2xx: a.non2xx + b.non2xx });
    const e = merge(edgeA, edgeB);
    const h = merge(handA, handB);
    rows[`${what}: edge`] = e;
    rows[`${what}: by hand`] = h;
    ratio[what] = (e.rps / h.rps).toFixed(3);
  }

  // a route change until the new hostname answers: the API call plus Caddy's reload
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const host = `change-${i}.bench`;
    const t0 = performance.now();
    const res = await s.api('PUT', '/api/v1/edge-client/routes/site:bench', { body: { routes: [{ kind: 'static', hostname: 'static.bench', root: site }, { kind: 'static', hostname: host, root: site }] } });
    if (res.status !== 200) throw new Error(`route change: ${res.status} ${res.text}`);
    while ((await status(s.httpPort, host, '/index.html')) !== 200) { /* poll at once */ }
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);

  // a start-first redeploy of a service that boots in 4 s (ready: its port accepts connections), under about 33 requests
  // per second and a 2 s request every 400 ms: what failed, and deploy start → the new version answering vs its boot time
  const boot = 4;
  const file = (message: string) => bootingCompose('roll.bench', message, { bootSeconds: boot, service: '    healthcheck: { disable: true }\n' });
  await createStack(s, rolled, file('one'));
  await act(s, 'deploy', rolled);
  await edgeAnswers(s.httpPort, 'roll.bench', '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'), 30_000);
  // the boot time on its own: a container of the same image and command, from start to its port accepting connections
  const created = performance.now();
  const alone = await docker.createContainer({ Image: 'dockwright-test/web:1', Cmd: ['sh', '-c', `sleep ${boot}; exec httpd -f -p 8080 -h /www`], HostConfig: { NetworkMode: 'dockwright-edge' }, Labels: { 'dockwright.bench': rolled } });
  const createMs = performance.now() - created;
  let bootMs = 0;
  try {
    const t0 = performance.now();
    await alone.start();
    const ip = (await alone.inspect()).NetworkSettings.Networks['dockwright-edge'].IPAddress;
    const { connect } = await import('node:net');
    const accepts = () => new Promise<boolean>((resolve) => { const c = connect({ host: ip, port: 8080 }); c.once('connect', () => { c.destroy(); resolve(true); }); c.once('error', () => resolve(false)); });
    while (!(await accepts())) await new Promise((r) => setTimeout(r, 20));
    bootMs = performance.now() - t0;
  } finally {
    await alone.remove({ force: true });
  }
  const stack = (await s.api('GET', `/api/v1/stacks/${rolled}`)).body;
  await s.api('PUT', `/api/v1/stacks/${rolled}/compose`, { body: { content: file('two'), revision: stack.revision } });
  let sent = 0;
  let failed = 0;
  let slowSent = 0;
  let slowFailed = 0;
  let servingAt = 0;
  const pending = new Set<Promise<void>>();
  const fire = (path: string, slow: boolean) => {
    const p = viaEdge(s.httpPort, 'roll.bench', path).then((a) => {
      if (a.status !== 200) throw new Error(String(a.status));
      if (!slow && !servingAt && a.body.includes('message=two')) servingAt = performance.now();
    }).catch(() => { if (slow) slowFailed++; else failed++; }).finally(() => pending.delete(p));
    pending.add(p);
  };
  const t0 = performance.now();
  const deployed = s.api('POST', `/api/v1/stacks/${rolled}/deploy`).then((r) => waitJob(s, r.body.id));
  let done = false;
  void deployed.finally(() => { done = true; });
  for (let i = 0; (!done || !servingAt) && performance.now() - t0 < 120_000; i++) {
    fire('/cgi-bin/env', false);
    sent++;
    if (i % 13 === 0) { fire('/cgi-bin/slow', true); slowSent++; }
    await new Promise((r) => setTimeout(r, 30));
  }
  await Promise.all([...pending]);
  const job = await deployed;
  if (job.status !== 'succeeded') throw new Error(`the redeploy failed: ${job.error}\n${job.output}`);
  const toServe = (servingAt - t0) / 1000;

  console.log(`\n${connections} connections, ${seconds} s per side (two alternating halves); same Caddy ${'2.6'}, same routes, JSON access log on both`);
  console.table(rows);
  console.log('edge ÷ by hand (target ≥ 0.95):', ratio);
  console.log(`route change → new hostname answering, 20 changes: median ${times[10].toFixed(1)} ms, p95 ${times[18].toFixed(1)} ms, max ${times[19].toFixed(1)} ms (target < 200 ms)`);
  console.log(`start-first redeploy of a service booting in ${boot} s: ${failed} of ${sent} requests failed (target 0), ${slowFailed} of ${slowSent} 2 s requests failed; deploy start → new version serving ${toServe.toFixed(2)} s against a boot time of ${(bootMs / 1000).toFixed(2)} s (+${(toServe - bootMs / 1000).toFixed(2)} s, target ≤ 1 s; creating the container takes ${(createMs / 1000).toFixed(2)} s of it on this engine); the job: ${job.output.split('\n').filter((l) => /: (started new|ready after|switched)/.test(l)).map((l) => l.replace(/^.*?-web-1: /, '')).join(', ')}`);
} finally {
  hand?.kill('SIGTERM');
  await s.close();
  await cleanupProjects(project, rolled);
  rmSync(work, { recursive: true, force: true });
}
