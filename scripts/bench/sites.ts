// Benchmark (not a test): publish → the new version served through Caddy for a 1,000-file site (draft publish, restore, upload), and a 10 MB archive upload → served.
// Run with `npm run bench:sites` after `npm test` has prepared PostgreSQL, Docker and caddy (it reads .test-env). Traffic goes to 127.0.0.1 only.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../tests/helpers/harness.ts';
import { edgeRunning, getVia, startSitesServer, tar } from '../../tests/plugins/sites/helpers.ts';
import { median, standalone, type Figure } from './common.ts';

const runs = Number(process.env.BENCH_RUNS ?? 10);

/** what the file system alone takes for the links of a 1,000-file version, measured beside: the floor of any publish that builds one */
function linkFloor(): number {
  const dir = mkdtempSync(join(tmpdir(), 'dw-bench-links-'));
  try {
    mkdirSync(join(dir, 'o'));
    for (let i = 0; i < 1000; i++) writeFileSync(join(dir, 'o', String(i)), String(i));
    const times = [0, 1, 2].map((r) => {
      mkdirSync(join(dir, `t${r}`));
      const t = performance.now();
      for (let i = 0; i < 1000; i++) linkSync(join(dir, 'o', String(i)), join(dir, `t${r}`, String(i)));
      return performance.now() - t;
    });
    return Math.round(median(times));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function sitesBench(): Promise<Figure[]> {
  const s = await startSitesServer({ sites: { keepVersions: 100 } });
  try {
    await edgeRunning(s);
    const upload = (name: string, archive: Buffer) => call(s.url, 'PUT', `/api/v1/sites/${name}/content`, { token: s.admin, raw: new Uint8Array(archive) });
    /** ms from the request until the edge answers `marker` at `/`, polling as fast as it answers */
    const servedAfter = async (host: string, marker: string, act: () => Promise<{ status: number; text: string }>) => {
      const t = performance.now();
      const res = await act();
      if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
      for (;;) {
        if ((await getVia(s.httpPort, host, '/')).body.includes(marker)) return performance.now() - t;
        if (performance.now() - t > 10_000) throw new Error(`${marker} was not served within 10 s`);
      }
    };
    const thousand = (n: number) => [{ name: 'index.html', content: `<p>version ${n}</p>` }, ...Array.from({ length: 999 }, (_, i) => ({ name: `d${i % 20}/f${i}.txt`, content: `file ${i} of ${n}` }))];

    await s.api('PUT', '/api/v1/sites/big', { body: { hostnames: ['big.bench'] } });
    const uploads: number[] = [];
    for (let n = 1; n <= runs; n++) uploads.push(await servedAfter('big.bench', `version ${n}</p>`, () => upload('big', tar(thousand(n)))));
    const drafts: number[] = [];
    for (let n = 1; n <= runs; n++) {
      await s.api('PUT', '/api/v1/sites/big/draft/files', { body: { files: { 'index.html': { content: `<p>draft ${n}</p>` } } } });
      drafts.push(await servedAfter('big.bench', `draft ${n}</p>`, () => s.api('POST', '/api/v1/sites/big/draft/publish')));
    }
    const restores: number[] = [];
    for (let n = 1; n <= runs; n++) {
      const version = n % 2 ? 2 : 3;
      restores.push(await servedAfter('big.bench', `version ${version}</p>`, () => s.api('POST', '/api/v1/sites/big/restore', { body: { version } })));
    }

    await s.api('PUT', '/api/v1/sites/large', { body: { hostnames: ['large.bench'] } });
    const tenMb: number[] = [];
    for (let n = 1; n <= Math.min(runs, 5); n++) {
      const entries = [{ name: 'index.html', content: `<p>large ${n}</p>` }, ...Array.from({ length: 10 }, (_, i) => ({ name: `blob${i}.bin`, content: randomBytes(512 * 1024).toString('base64').slice(0, 1024 * 1024) }))];
      tenMb.push(await servedAfter('large.bench', `large ${n}</p>`, () => upload('large', tar(entries))));
    }
    const floor = `this disk: 1,000 bare link() ${linkFloor()} ms`;
    return [
      { figure: 'draft publish → served (1,000 files, median)', value: median(drafts), unit: 'ms', target: { below: 100 }, note: floor },
      { figure: 'restore → served (1,000 files, median)', value: median(restores), unit: 'ms', target: { below: 100 }, note: floor },
      { figure: 'upload tar → served (1,000 files, median)', value: median(uploads), unit: 'ms', target: { below: 1000 } },
      { figure: '10 MB archive upload → served (median)', value: median(tenMb), unit: 'ms', target: { below: 2000 } },
    ];
  } finally {
    await s.close();
  }
}

await standalone(import.meta.url, sitesBench);
