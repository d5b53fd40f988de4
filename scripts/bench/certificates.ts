// Benchmark (not a test): request → certificate served by the edge against a local pebble, a renewal sweep over 500 stored certificates, and hostname routed → automatic certificate served.
// Run with `npm run bench:certificates` after `npm test` has prepared the machine (pebble, bind9, caddy; it reads .test-env). Traffic stays on 127.0.0.1.
import pg from 'pg';
import { freePort, routeHosts, servedSerial, startAcmeEnv, startCertServer, stripZeros, waitJob } from '../../tests/plugins/certificates/helpers.ts';
import { loadTestEnv, median } from './common.ts';

loadTestEnv();
const requests = Number(process.env.BENCH_REQUESTS ?? 5);
const stored = Number(process.env.BENCH_STORED ?? 500);
const due = Number(process.env.BENCH_DUE ?? 10);
const httpPort = await freePort();
const env = await startAcmeEnv({ httpPort });
const s = await startCertServer({ httpPort, certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile, sweepIntervalMs: 1000, sweepBatch: 100 } });
const db = new pg.Client({ connectionString: s.databaseUrl });
await db.connect();

try {
  const root = await env.root();
  // 1. request → served over HTTPS
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const host = `bench${i}.ok.dwtest.test`;
    await routeHosts(s, `bench${i}`, [host]);
    const started = performance.now();
    const r = await s.api('POST', '/api/v1/certificates/request', { body: { name: `bench${i}`, domains: [host] } });
    const job = await waitJob(s, r.body.jobId);
    if (job.status !== 'succeeded') throw new Error(`issuance failed: ${job.error}`);
    const serial = stripZeros((await s.api('GET', `/api/v1/certificates/bench${i}`)).body.serial);
    for (;;) {
      const got = await servedSerial(s.httpsPort, host, root);
      if ('serial' in got && stripZeros(got.serial) === serial) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    times.push(performance.now() - started);
  }
  console.log(`request → served (HTTP-01, pebble, ${requests} sequential): median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`);

  // 2. a renewal sweep over `stored` certificates of which `due` are due: only those are contacted
  await db.query(
    `INSERT INTO certificates (name, domains, source, challenge, chain, key_sealed, issuer, serial, not_before, not_after, renew_after, state)
     SELECT 'stored' || g, ARRAY['stored' || g || '.ok.dwtest.test'], 'acme', 'http-01', c.chain, c.key_sealed, c.issuer, c.serial, c.not_before, c.not_after,
       CASE WHEN g < $2 THEN now() + interval '2 seconds' ELSE c.renew_after END, 'issued'
     FROM certificates c, generate_series(0, $1 - 1) g WHERE c.name = 'bench0'`, [stored, due]);
  const jobsBefore = Number((await db.query(`SELECT count(*) FROM jobs WHERE type = 'certificates.issue'`)).rows[0].count);
  const dueAt = Date.now() + 2000;
  for (;;) {
    const { rows } = await db.query(`SELECT count(*) FILTER (WHERE serial <> (SELECT serial FROM certificates WHERE name = 'bench0'))::int AS renewed FROM certificates WHERE name LIKE 'stored%'`);
    if (rows[0].renewed >= due) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const renewedMs = Date.now() - dueAt;
  const jobs = Number((await db.query(`SELECT count(*) FROM jobs WHERE type = 'certificates.issue'`)).rows[0].count) - jobsBefore;
  const timing = (await db.query(
    `SELECT extract(epoch FROM avg(finished_at - started_at)) * 1000 AS run, extract(epoch FROM max(finished_at) - min(created_at)) * 1000 AS span,
       extract(epoch FROM min(created_at)) * 1000 AS first FROM jobs WHERE type = 'certificates.issue' AND actor->>'kind' = 'system'`)).rows[0];
  const sweepSql = await db.query(
    `EXPLAIN (ANALYZE, FORMAT JSON) SELECT name FROM certificates WHERE source = 'acme' AND chain IS NOT NULL AND renew_after <= now()
       AND (next_attempt_at IS NULL OR next_attempt_at <= now()) ORDER BY renew_after LIMIT 100`);
  const list = performance.now();
  const page = await s.api('GET', `/api/v1/certificates?limit=1000`);
  const listMs = performance.now() - list;
  console.log(`renewal sweep over ${stored + requests} certificates, ${due} due: ${jobs} renewal jobs (only the due ones), all renewed ${renewedMs} ms after they fell due `
    + `(sweep every 1000 ms; first renewal queued ${(Number(timing.first) - dueAt).toFixed(0)} ms after, one renewal job ${Number(timing.run).toFixed(0)} ms on average, `
    + `queue to last done ${Number(timing.span).toFixed(0)} ms with jobs.concurrency 4); due-certificates query ${sweepSql.rows[0]['QUERY PLAN'][0]['Execution Time'].toFixed(2)} ms; GET /certificates of ${page.body.length}: ${listMs.toFixed(0)} ms`);
} finally {
  await db.end();
  await s.close();
}

// 3. automatic HTTPS: a hostname routed → a certificate from pebble served for it, with no call (a second server, with an account email)
const autoServer = await startCertServer({ httpPort, certificates: { directoryUrl: env.directoryUrl, caFile: env.caFile, email: 'bench@dwtest.test' } });
try {
  const root = await env.root();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const host = `auto${i}.ok.dwtest.test`;
    const started = performance.now();
    await routeHosts(autoServer, `auto${i}`, [host]);
    // a handshake that verifies against pebble's root is the automatic certificate served
    while (!('serial' in await servedSerial(autoServer.httpsPort, host, root))) await new Promise((r) => setTimeout(r, 5));
    times.push(performance.now() - started);
  }
  console.log(`hostname routed → automatic certificate served (HTTP-01, pebble, ${requests} sequential): median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`);
} finally {
  await autoServer.close();
  await env.stop();
}
