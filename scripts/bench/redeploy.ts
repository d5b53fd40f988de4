// Benchmark (not a test): a one-line change of a routed service that boots in 1 s, redeployed start-first under traffic: time to the new version serving, to the old container gone, and failed requests.
// Run with `npm run bench:redeploy` after `npm test` has prepared the machine (docker, caddy; it reads .test-env). Traffic stays on 127.0.0.1 and the test's Docker network.
import { docker } from '../../tests/plugins/docker/helpers.ts';
import { act, cleanupProjects, createStack, edgeAnswers, edgeRunning, startEdgeServer, underTraffic, uniqueName, viaEdge, waitJob } from '../../tests/plugins/edge/helpers.ts';
import { loadTestEnv, median } from './common.ts';

loadTestEnv();
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** busybox httpd booting in 1 s; stop_grace_period is compose's default (10 s); `init`: under docker-init, so SIGTERM stops it at once */
const compose = (host: string, message: string, init: boolean) => `services:
  web:
    image: dockwright-test/web:1
    environment: { MESSAGE: "${message}" }
    init: ${init}
    command: ["sh", "-c", "sleep 1; exec httpd -f -p 8080 -h /www"]
    healthcheck: { test: ["CMD", "wget", "-q", "-O", "-", "http://127.0.0.1:8080/"], interval: 200ms, timeout: 2s, retries: 3, start_period: 30s }
    labels:
      dockwright.http.host: "${host}"
      dockwright.http.port: "8080"
`;

// the docker plugin as shipped (no shortened stop timeout): the edge's drainMs at its default
const s = await startEdgeServer({ plugins: { docker: { options: { healthTimeoutMs: 60_000, reconcile: false } } } });
const names: string[] = [];
try {
  await edgeRunning(s);
  for (const init of [true, false]) {
    const newServing: number[] = [];
    const oldGone: number[] = [];
    const done: number[] = [];
    let failed = 0;
    let sent = 0;
    for (let round = 0; round < rounds; round++) {
      const name = uniqueName('rd');
      names.push(name);
      const host = `${name}.app.test`;
      await createStack(s, name, compose(host, 'one', init));
      await act(s, 'deploy', name);
      await edgeAnswers(s.httpPort, host, '/cgi-bin/env', (a) => a.status === 200 && a.body.includes('message=one'), 30_000);
      const old = (await docker.listContainers({ filters: { label: [`dockwright.project=${name}`] } }))[0].Id;
      const stack = (await s.api('GET', `/api/v1/stacks/${name}`)).body;
      const put = await s.api('PUT', `/api/v1/stacks/${name}/compose`, { body: { content: compose(host, 'two', init), revision: stack.revision } });
      if (put.status !== 200) throw new Error(put.text);
      const { traffic } = await underTraffic(s.httpPort, host, async () => {
        const t0 = performance.now();
        const res = await s.api('POST', `/api/v1/stacks/${name}/deploy`);
        const job = waitJob(s, res.body.id).then((j) => { done.push(performance.now() - t0); return j; });
        const serving = (async () => {
          for (;;) {
            const a = await viaEdge(s.httpPort, host, '/cgi-bin/env').catch(() => null);
            if (a?.body.includes('message=two')) return newServing.push(performance.now() - t0);
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const gone = (async () => {
          while (await docker.getContainer(old).inspect().then(() => true, () => false)) await new Promise((r) => setTimeout(r, 20));
          oldGone.push(performance.now() - t0);
        })();
        const j = await job;
        if (j.status !== 'succeeded') throw new Error(`${j.error}\n${j.output}`);
        await Promise.all([serving, gone]);
      });
      failed += traffic.failed.length;
      sent += traffic.sent;
    }
    const f = (xs: number[]) => `median ${(median(xs) / 1000).toFixed(2)} s, max ${(Math.max(...xs) / 1000).toFixed(2)} s`;
    console.log(`routed redeploy, service booting in 1 s, ${init ? 'stops on SIGTERM (init: true)' : 'PID 1 ignores SIGTERM (no init)'}, stop_grace_period 10 s, ${rounds} rounds: `
      + `new serving ${f(newServing)}; old gone ${f(oldGone)}; job done ${f(done)}; ${failed} of ${sent} requests failed`);
  }
} finally {
  await cleanupProjects(...names);
  await s.close();
}
