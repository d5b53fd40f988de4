// Benchmark (not a test): a signed `synchronize` delivery → the pull request's new commit served through the edge, for a one-service stack, beside a push to the stack's own branch → served.
// Run with `npm run bench:previews` after `npm test` has prepared PostgreSQL, Docker and caddy (it reads .test-env). Traffic goes to 127.0.0.1 and test containers only.
import { cleanupProjects, freePort, uniqueName } from '../../tests/plugins/docker/helpers.ts';
import { edgeRunning, viaEdge } from '../../tests/plugins/edge/helpers.ts';
import { act, busybox, createStack, pushCall, pushPayload, repoRoot, setSource, TestRepo, waitJob } from '../../tests/plugins/git/helpers.ts';
import { deliver, previewCompose, pullRequest, setPullRef, startPreviewServer } from '../../tests/plugins/previews/helpers.ts';
import { median, standalone, type Figure } from './common.ts';

const runs = Number(process.env.BENCH_RUNS ?? 5);

export async function previewsBench(): Promise<Figure[]> {
  const repos = repoRoot();
  const s = await startPreviewServer([repos.root]);
  const name = uniqueName('benchpv');
  try {
    await edgeRunning(s);
    const repo = await TestRepo.create(repos.root, 'bench');
    const host = `${name}.bench`;
    await repo.commit({ 'compose.yaml': previewCompose(host, await freePort()), '.env': 'MESSAGE=main0\n' }, 'initial');
    await createStack(s, name, busybox());
    await setSource(s, name, { url: repo.bare, branch: 'main', autodeploy: false });
    await act(s, 'deploy', name);
    const secret = (await s.api('POST', `/api/v1/stacks/${name}/webhooks/push`)).body.secret as string;
    await s.api('PUT', `/api/v1/stacks/${name}/previews`, { body: { enabled: true, hostname: '{key}.{stack}.bench' } });

    /** ms from the delivery until the edge answers `marker` on `hostname` (polling as fast as it answers) */
    const servedAfter = async (hostname: string, marker: string, send: () => Promise<{ status: number; body: any; text: string }>) => {
      const t = performance.now();
      const res = await send();
      if (res.status !== 202 || !res.body.jobId) throw new Error(`${res.status} ${res.text}`);
      for (;;) {
        if ((await viaEdge(s.httpPort, hostname, '/cgi-bin/env').catch(() => null))?.body.includes(marker)) break;
        if (performance.now() - t > 60_000) throw new Error(`${marker} was not served within 60 s`);
      }
      const elapsed = performance.now() - t;
      const job = await waitJob(s, res.body.jobId);
      if (job.status !== 'succeeded') throw new Error(`${job.error}\n${job.output}`);
      return elapsed;
    };

    const first = await repo.commit({ '.env': 'MESSAGE=pr0\n' }, 'pr 0', 'feature');
    await setPullRef(repo, 1, first);
    await servedAfter(`pr-1.${name}.bench`, 'message=pr0-', () => deliver(s, name, secret, pullRequest('opened', 1, first)));
    const previews: number[] = [];
    const stacks: number[] = [];
    for (let n = 1; n <= runs; n++) {
      const commit = await repo.commit({ '.env': `MESSAGE=pr${n}\n` }, `pr ${n}`, 'feature');
      await setPullRef(repo, 1, commit);
      previews.push(await servedAfter(`pr-1.${name}.bench`, `message=pr${n}-`, () => deliver(s, name, secret, pullRequest('synchronize', 1, commit))));
      const main = await repo.commit({ '.env': `MESSAGE=main${n}\n` }, `main ${n}`);
      stacks.push(await servedAfter(host, `message=main${n}-`, () => pushCall(s, name, pushPayload('refs/heads/main', main), { secret })));
    }
    const boot = Math.round(median(stacks));
    return [
      { figure: 'synchronize delivery → new commit served (one service, median)', value: Math.round(median(previews)), unit: 'ms', target: { below: 3000 + boot }, note: `target: 3 s + the boot measured beside (${boot} ms)` },
      { figure: 'push to the stack\'s branch → served (the same deploy for the stack, median)', value: boot, unit: 'ms', target: { below: 60_000 }, note: `${runs} runs each` },
    ];
  } finally {
    // close() stops the edge's Caddy and removes the data dir and the database
    await s.close();
    await cleanupProjects(name, `${name}-pr-1`);
    repos.rm();
  }
}

await standalone(import.meta.url, previewsBench);
