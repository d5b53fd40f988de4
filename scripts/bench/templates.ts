// Benchmark (not a test): a template source of 500 templates fetched over HTTPS on loopback and parsed (our format and Dokploy's), its memory, and a deploy from a template until its job starts.
// Run with `npm run bench:templates` after `npm test` has prepared PostgreSQL and the engine (it reads .test-env). Traffic goes to loopback only.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { startServer } from '../../tests/helpers/harness.ts';
import { startCatalogueServer } from '../../tests/plugins/templates/catalogue-server.ts';
import { cleanupProjects, uniqueName } from '../../tests/plugins/stacks/helpers.ts';
import { httpFiles } from '../../plugins/templates/files.ts';
import { readDockwright } from '../../plugins/templates/readers/dockwright.ts';
import { readDokploy } from '../../plugins/templates/readers/dokploy.ts';
import { loadTestEnv } from './common.ts';

loadTestEnv();
const count = 500;
const samples = Number(process.env.BENCH_SAMPLES ?? 10);
const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.external; };
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fixture = (p: string) => readFileSync(new URL(`../../tests/fixtures/templates/${p}`, import.meta.url), 'utf8');

// our format: index.json and 500 compose files (a realistic two-service template each)
const ours = readFileSync(new URL('../../plugins/templates/catalogue/nextcloud.yaml', import.meta.url), 'utf8');
const files: Record<string, string> = { '/ours/index.json': JSON.stringify({ templates: Array.from({ length: count }, (_, i) => ({ id: `app-${i}`, path: `apps/app-${i}.yaml` })) }) };
for (let i = 0; i < count; i++) files[`/ours/apps/app-${i}.yaml`] = ours.replace('id: nextcloud', `id: app-${i}`);
// the one deployed: images this machine has
files['/ours/apps/app-0.yaml'] = `x-dockwright:\n  id: app-0\n  name: Box\n  version: "1"\n  variables:\n    HOST: { type: hostname }\n    PASSWORD: { type: secret, generate: "password:32" }\nservices:\n  app:\n    image: dockwright-test/busybox:1\n    command: ["sleep", "3600"]\n    environment: { PASSWORD: "\${PASSWORD}" }\n    labels: { dockwright.http.host: "\${HOST}" }\n`;
// Dokploy's: meta.json and 500 blueprints
const meta = JSON.parse(fixture('dokploy/meta.json'))[0];
files['/dokploy/meta.json'] = JSON.stringify(Array.from({ length: count }, (_, i) => ({ ...meta, id: `notes-${i}` })));
for (let i = 0; i < count; i++) {
  files[`/dokploy/blueprints/notes-${i}/docker-compose.yml`] = fixture('dokploy/blueprints/notes/docker-compose.yml');
  files[`/dokploy/blueprints/notes-${i}/template.toml`] = fixture('dokploy/blueprints/notes/template.toml');
}
const web = await startCatalogueServer(files);
const s = await startServer({
  config: { rateLimit: { perMinute: 1_000_000 }, outbound: { allow: ['127.0.0.1/32'] } },
  env: { NODE_EXTRA_CA_CERTS: web.caFile },
  plugins: { docker: { options: { reconcile: false, stopTimeoutSeconds: 1 } }, stacks: {}, git: {}, templates: { options: { bundled: false } } },
});
const stacks: string[] = [];
try {
  // 1. in this process: the reader alone (fetch + parse), and the heap the parsed catalogue holds
  const dispatcher = new Agent({ connect: { ca: [...rootCertificates, readFileSync(web.caFile, 'utf8')] }, connections: 16 });
  for (const [format, reader, base, entry] of [['dockwright', readDockwright, '/ours/', 'index.json'], ['dokploy', readDokploy, '/dokploy/', 'meta.json']] as const) {
    const times: number[] = [];
    let kept: unknown = null;
    const held: unknown[] = [];
    for (let i = 0; i < samples + 2; i++) {
      kept = null;
      held.length = 0;
      (globalThis as { gc?: () => void }).gc?.();
      const heap0 = used();
      const t0 = performance.now();
      const read = await reader(httpFiles(new URL(base, web.url), dispatcher), entry, 'bench', () => undefined);
      const ms = performance.now() - t0;
      if (read.templates.length !== count) throw new Error(`${format}: ${read.templates.length} templates read, ${JSON.stringify(read.invalid.slice(0, 2))}`);
      kept = read;
      held.push(read);
      (globalThis as { gc?: () => void }).gc?.();
      const heap = used() - heap0;
      if (i >= 2) times.push(ms);
      if (i === samples + 1) console.log(`${format}: ${count} templates fetched over HTTPS + parsed: p50 ${pct(times, 50).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (target < 500 ms); memory held by the parsed catalogue (heap + external) ${(heap / 1048576).toFixed(1)} MB${(globalThis as { gc?: unknown }).gc ? '' : ' (run with --expose-gc for an exact figure)'}`);
    }
    void kept;
  }
  // the two halves apart: 500 files fetched (16 connections), 500 parsed
  const names = Object.keys(files).filter((f) => f.startsWith('/ours/apps/'));
  const http = httpFiles(new URL('/ours/', web.url), dispatcher);
  const { parseTemplate } = await import('../../plugins/templates/format.ts');
  const { pool } = await import('../../plugins/templates/readers/types.ts');
  const fetchTimes: number[] = [];
  const parseTimes: number[] = [];
  for (let i = 0; i < samples; i++) {
    let t0 = performance.now();
    const texts = await pool(names, async (n) => (await http.read(n.slice('/ours/'.length), 262144)).toString('utf8'));
    fetchTimes.push(performance.now() - t0);
    t0 = performance.now();
    for (const [k, t] of texts.entries()) parseTemplate(t, 'bench', `app-${k}`);
    parseTimes.push(performance.now() - t0);
  }
  console.log(`  of which: ${count} files fetched p50 ${pct(fetchTimes, 50).toFixed(0)} ms, ${count} parsed p50 ${pct(parseTimes, 50).toFixed(0)} ms (load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores while measured)`);
  await dispatcher.close();

  // 2. through the API: adding the source and refreshing it (fetch, parse, store, serve)
  const added = await s.api('POST', '/api/v1/templates/sources', { body: { name: 'bench', url: `${web.url}/ours/` } });
  if (added.body.templates !== count) throw new Error(added.text.slice(0, 500));
  const refreshes: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const r = await s.api('POST', '/api/v1/templates/sources/bench/refresh');
    if (r.body.error) throw new Error(r.body.error);
    refreshes.push(performance.now() - t0);
  }
  const rss = process.memoryUsage().rss;
  console.log(`POST /templates/sources/{name}/refresh of ${count} templates (fetch + parse + store): p50 ${pct(refreshes, 50).toFixed(0)} ms, max ${Math.max(...refreshes).toFixed(0)} ms; process RSS ${(rss / 1048576).toFixed(0)} MB`);
  const list: number[] = [];
  for (let i = 0; i < samples * 5; i++) { const t0 = performance.now(); await s.api('GET', '/api/v1/templates?limit=1000'); list.push(performance.now() - t0); }
  console.log(`GET /templates (${count} templates): p50 ${pct(list, 50).toFixed(1)} ms`);

  // 3. a deploy from a template until its job starts
  const answered: number[] = [];
  const started: number[] = [];
  for (let i = 0; i < samples; i++) {
    const stack = uniqueName('bench-tpl');
    stacks.push(stack);
    const t0 = Date.now();
    const p0 = performance.now();
    const res = await s.api('POST', '/api/v1/templates/bench/app-0/deploy', { body: { stack, variables: { HOST: `${stack}.example.test` } } });
    if (res.status !== 202) throw new Error(res.text);
    answered.push(performance.now() - p0);
    for (;;) {
      const job = (await s.api('GET', `/api/v1/jobs/${res.body.id}`)).body;
      if (job.startedAt) { started.push(Date.parse(job.startedAt) - t0); break; }
      await new Promise((r) => setTimeout(r, 2));
    }
    await s.api('DELETE', `/api/v1/stacks/${stack}`, { headers: { 'if-match': '"1"' } }).catch(() => undefined);
  }
  console.log(`deploy from a template → 202 answered: p50 ${pct(answered, 50).toFixed(0)} ms; → job started: p50 ${pct(started, 50).toFixed(0)} ms, max ${Math.max(...started)} ms (target < 200 ms)`);
} finally {
  await cleanupProjects(...stacks).catch(() => undefined);
  await s.close();
  await web.close();
}
