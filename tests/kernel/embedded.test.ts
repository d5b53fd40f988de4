// The production start on the embedded database: the built service (node, no TypeScript loader) boots, stops, survives SIGKILL and restarts clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, eventually, onlyPlugins, root } from '../helpers/harness.ts';

const noPlugins = onlyPlugins({});

interface Built { child: ChildProcess; url: string; exit: Promise<number | null>; output(): string }

/** `node dist/kernel/main.js serve` with no DATABASE_URL, as `npm start` runs it */
function startBuilt(dataDir: string): Promise<Built> {
  const configFile = join(dataDir, '..', `${readdirSync(join(dataDir, '..')).length}-config.json`);
  writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port: 0, log: { level: 'info' }, plugins: noPlugins }));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, DOCKWRIGHT_CONFIG: configFile, NODE_OPTIONS: '' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [join(root, 'dist/kernel/main.js'), 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = () => {
      const line = out.split('\n').find((l) => l.includes('"dockwright is serving"'));
      if (line) { child.stdout!.off('data', onData); resolve({ child, url: JSON.parse(line).url, exit, output: () => out }); }
    };
    child.stdout!.on('data', onData);
    void exit.then((code) => reject(new Error(`the service exited with ${code}: ${out}`)));
  });
}

/** a zombie (exited, not yet reaped by init, which here may take its time) is not alive */
function alive(pid: number): boolean {
  try { return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z'; } catch { return false; }
}

const serverPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** the processes below pid (the watchdog shell, the server and its children) */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try { parent.set(Number(p), Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1])); } catch { /* gone */ }
  }
  const out: number[] = [];
  const walk = (p: number) => { for (const [c, pp] of parent) if (pp === p) { out.push(c); walk(c); } };
  walk(pid);
  return out;
}

test('the built service runs on plain node with the embedded database: stop, SIGKILL, a surviving server, restart', { timeout: 180_000 }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'dw-built-'));
  chmodSync(base, 0o755); // as root the server runs as "postgres", which must pass through to the data dir
  const dataDir = join(base, 'data');
  try {
    let svc = await startBuilt(dataDir);
    const cmdline = readFileSync(`/proc/${svc.child.pid}/cmdline`, 'utf8');
    assert.doesNotMatch(cmdline + (process.env.NODE_OPTIONS ?? ''), /tsx/, 'no TypeScript loader in the production process');
    const token = readFileSync(join(dataDir, 'initial-admin-token'), 'utf8').trim();
    assert.equal((await call(svc.url, 'GET', '/api/v1/me', { token })).status, 200);

    // SIGTERM: the service stops its server with it
    let pg = serverPid(dataDir);
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exit, 0);
    assert.equal(alive(pg), false, 'no server left after SIGTERM');
    assert.equal(existsSync(join(dataDir, 'postgres', 'postmaster.pid')), false, 'a clean shutdown');

    // SIGKILL: the watchdog stops the server by itself; a restart finds its data
    svc = await startBuilt(dataDir);
    pg = serverPid(dataDir);
    svc.child.kill('SIGKILL');
    await svc.exit;
    await eventually(async () => !alive(pg), 15_000, 'the server of a killed service to stop');
    svc = await startBuilt(dataDir);
    assert.equal((await call(svc.url, 'GET', '/api/v1/me', { token })).status, 200, 'data kept across SIGKILL');

    // a server that outlived its service (watchdog killed too): the next start stops it and takes over
    pg = serverPid(dataDir);
    const below = descendants(svc.child.pid!).filter((p) => p !== pg && !descendants(pg).includes(p));
    for (const p of below) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
    svc.child.kill('SIGKILL');
    await svc.exit;
    assert.equal(alive(pg), true, 'the server survived its service');
    svc = await startBuilt(dataDir);
    assert.equal(alive(pg), false, 'the stale server was stopped');
    assert.equal((await call(svc.url, 'GET', '/api/v1/me', { token })).status, 200, 'and the new one serves the same data');
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exit, 0);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a data dir of the earlier PGlite database stops the start with what to do', async () => {
  const base = mkdtempSync(join(tmpdir(), 'dw-legacy-'));
  const dataDir = join(base, 'data');
  try {
    mkdirSync(join(dataDir, 'pg', 'data'), { recursive: true });
    writeFileSync(join(dataDir, 'pg', 'data', 'PG_VERSION'), '17\n');
    const started = startBuilt(dataDir);
    await assert.rejects(started, (err: Error) => {
      assert.match(err.message, /PGlite/);
      assert.match(err.message, /mv .*pg .*pg\.pglite/);
      return true;
    });
    assert.equal(existsSync(join(dataDir, 'postgres')), false, 'nothing created beside it');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
