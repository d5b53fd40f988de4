// Benchmark (not a test): archive bombs against the two upload endpoints: the time until the refusal, the slowest /healthz answer and the service's memory meanwhile.
// Run with `npm run bench:archives` on the prepared test machine (it reads .test-env). Traffic goes to 127.0.0.1 only.
import { paxBomb, startBombServer, upload, uploadPaths, watch, zeroBomb } from '../../tests/plugins/git/bombs.ts';
import { standalone, type Figure } from './common.ts';

/** how long one upload may take before the bench stops waiting for it (the old parser needed 15 minutes for the 2 MB bomb) */
const patienceMs = Number(process.env.BENCH_PATIENCE_MS ?? 60_000);

export async function archivesBench(): Promise<Figure[]> {
  // BENCH_BOMBS=zeros or =pax: one of them (a parser that never answers holds the rest)
  const only = process.env.BENCH_BOMBS;
  const bombs: [string, Buffer][] = [];
  if (only !== 'pax') bombs.push(['2 MB gzip of 2 GiB zeros', await zeroBomb(2 * 1024 * 1024 * 1024)]);
  if (only !== 'zeros') bombs.push(['tar.gz of 5,600 entries behind pax headers of 192 KiB (1.05 GiB unpacked, 0 bytes claimed)', paxBomb(5600, 192 * 1024)]);
  const s = await startBombServer();
  const figures: Figure[] = [];
  try {
    // the machine's own share: the same polling for 5 s with no upload (on a busy machine it is most of what follows)
    const idle = watch(s.url, s.child.pid);
    await new Promise((r) => setTimeout(r, 5000));
    const quiet = await idle.stop();
    figures.push({ figure: 'slowest /healthz with no upload', value: quiet.maxHealthMs, unit: 'ms', target: { below: 100 }, note: `${quiet.polls} polls over 5 s` });
    for (const [what, archive] of bombs) {
      for (const [endpoint, path] of Object.entries(uploadPaths)) {
        const watching = watch(s.url, s.child.pid);
        const t = performance.now();
        const res = await Promise.race([upload(s, path, archive), new Promise<null>((r) => setTimeout(() => r(null), patienceMs))]);
        const ms = Math.round(performance.now() - t);
        const seen = await watching.stop();
        const answer = res ? `${res.status}` : `no answer within ${patienceMs / 1000} s`;
        const note = `${what} (${archive.length} bytes) → ${answer}; ${seen.polls} /healthz polls`;
        figures.push(
          { figure: `${endpoint}: time to refusal`, value: ms, unit: 'ms', target: { below: 5_000 }, note },
          { figure: `${endpoint}: slowest /healthz meanwhile`, value: seen.maxHealthMs, unit: 'ms', target: { below: 100 }, note },
          { figure: `${endpoint}: largest RSS meanwhile`, value: seen.maxRssMiB, unit: 'MiB', target: { below: 400 }, note },
        );
        // an upload still running when the bench gave up would hold the next one's numbers
        if (!res) return figures;
      }
    }
    return figures;
  } finally {
    await s.close();
  }
}

await standalone(import.meta.url, archivesBench);
