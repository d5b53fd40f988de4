// Helpers of the dw tests: the CLI built and packed, installed alone into an empty folder from its tarball, and run as a child process.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildCli } from '../../scripts/build-cli.ts';
import { root } from '../helpers/harness.ts';

const run = promisify(execFile);

export interface Installed { dir: string; bin: string; tarball: string; remove(): void }

/**
 * builds cli/ into a package folder of this test's own (test files run side by side: none may rebuild another's
 * cli/dist while it packs), packs it with npm and installs the tarball into an empty folder with no network (it has
 * no dependencies)
 */
export async function installCli(): Promise<Installed> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-cli-'));
  const pkg = join(dir, 'package');
  const packs = join(dir, 'packs');
  const app = join(dir, 'app');
  await run('mkdir', ['-p', pkg, packs, app]);
  for (const file of ['package.json', 'README.md']) copyFileSync(join(root, 'cli', file), join(pkg, file));
  await buildCli(root, join(pkg, 'dist'));
  // the build is done: prepack (which builds cli/dist) is skipped
  await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', packs], { cwd: pkg });
  const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith('.tgz'))!);
  writeFileSync(join(app, 'package.json'), '{ "name": "empty", "private": true }\n');
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, env: { ...process.env, npm_config_cache: join(dir, 'npm-cache') } });
  return { dir: app, bin: join(app, 'node_modules', '.bin', 'dw'), tarball, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Ran { code: number | null; stdout: string; stderr: string }

/** runs dw with these arguments and environment (no DOCKWRIGHT_* from this process), stdin given */
export function dw(bin: string, args: string[], env: Record<string, string> = {}, stdin = ''): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DOCKWRIGHT_')));
    const child = spawn(bin, args, { env: { ...clean, XDG_CONFIG_HOME: join(tmpdir(), 'dw-no-config'), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
