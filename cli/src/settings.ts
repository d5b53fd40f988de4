// Where dw finds its server and token: DOCKWRIGHT_URL and DOCKWRIGHT_TOKEN first, else the file `dw login` wrote (0600, in the user's config folder).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from './client.ts';
import { CliError, exitCodes } from './errors.ts';

export interface Login { url: string; token: string }

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DW_CONFIG) return env.DW_CONFIG;
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'dockwright', 'config.json');
}

export function readLogin(env: NodeJS.ProcessEnv = process.env): Partial<Login> {
  const file = configFile(env);
  let saved: Partial<Login> = {};
  if (existsSync(file)) {
    try { saved = JSON.parse(readFileSync(file, 'utf8')); } catch { throw new CliError(`${file} is not valid JSON`, exitCodes.refused, 'run `dw login` again to rewrite it'); }
  }
  return { url: env.DOCKWRIGHT_URL || saved.url, token: env.DOCKWRIGHT_TOKEN || saved.token };
}

export function writeLogin(login: Login, env: NodeJS.ProcessEnv = process.env): string {
  const file = configFile(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(login, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** a client for the configured server; a missing URL or token is a usage error that says how to set them */
export function clientFrom(opts: { url?: string }, extraHeaders?: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Client {
  const login = readLogin(env);
  const url = opts.url ?? login.url;
  if (!url) throw new CliError('no server: DOCKWRIGHT_URL is not set and `dw login` was not run', exitCodes.refused, 'export DOCKWRIGHT_URL=https://dw.example.com and DOCKWRIGHT_TOKEN=dw_…, or run `dw login https://dw.example.com`');
  if (!login.token) throw new CliError('no token: DOCKWRIGHT_TOKEN is not set and `dw login` was not run', exitCodes.refused, 'export DOCKWRIGHT_TOKEN=dw_… (a personal token), or run `dw login`');
  return new Client(url, login.token, extraHeaders);
}
