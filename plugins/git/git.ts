// Running Debian's git: execFile with argument arrays, a closed environment, a protocol allow-list, credentials only in the child's env, connections pinned to checked addresses.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { OutboundApi } from '../../sdk/index.ts';
import { remoteEndpoint } from './validate.ts';

export type Credentials =
  | { kind: 'token'; token: string; username?: string }
  | { kind: 'ssh-key'; sshKey: string };

export interface GitSettings {
  allowFile: boolean;
  timeoutMs: number;
  maxOutputBytes: number;
  /** the install's outbound policy: which address git may connect to */
  outbound: OutboundApi;
  /** where deploy keys live for the length of one command, and the known_hosts of this install */
  stateDir(): string;
  /** a PEM file of certificate authorities trusted beside the system's (NODE_EXTRA_CA_CERTS: a git server with a private CA) */
  extraCaFile?: string;
}

/** the system's authorities (Debian's bundle) */
const systemCaBundle = '/etc/ssl/certs/ca-certificates.crt';

/** the system's authorities and the extra ones in one file (git takes one), written once per process into the state folder */
function caBundle(settings: GitSettings): () => string[] {
  let written: string | null = null;
  return () => {
    if (!settings.extraCaFile) return [];
    if (!written) {
      const system = existsSync(systemCaBundle) ? readFileSync(systemCaBundle, 'utf8') : '';
      mkdirSync(settings.stateDir(), { recursive: true });
      written = join(settings.stateDir(), 'ca-bundle.pem');
      writeFileSync(written, `${system}\n${readFileSync(settings.extraCaFile, 'utf8')}\n`, { mode: 0o644 });
    }
    return ['-c', `http.sslCAInfo=${written}`];
  };
}

export interface GitCall {
  /** the repository URL a command talks to: its host is checked, and git connects only to the checked address */
  remote?: string;
  cwd?: string;
  credentials?: Credentials | null;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export class GitError extends Error {
  constructor(message: string, readonly stderr: string, readonly timedOut = false) { super(message); }
}

export type Git = (args: readonly string[], call?: GitCall) => Promise<string>;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** the values a job must redact when these credentials are in use */
export function secretsOf(credentials: Credentials | null | undefined): string[] {
  if (!credentials) return [];
  if (credentials.kind === 'ssh-key') return credentials.sshKey.split(/\r?\n/).filter((l) => l.length >= 16 && !l.startsWith('-----'));
  return [credentials.token, basicOf(credentials)];
}

const basicOf = (c: { token: string; username?: string }) => Buffer.from(`${c.username ?? 'x-access-token'}:${c.token}`).toString('base64');

/**
 * What makes git connect to the address the policy answered and nowhere else: curl's resolve entry for an https name
 * (an address literal needs none), ssh's HostName with the host key still kept under the name. Redirects are not
 * followed, since they would lead to a host nobody checked.
 */
async function pinned(outbound: OutboundApi, url: string | undefined): Promise<{ config: string[]; ssh: string[] }> {
  const end = url ? remoteEndpoint(url) : null;
  if (!end) return { config: [], ssh: [] };
  const addresses = await outbound.resolve(end.host);
  if (end.kind === 'ssh') {
    const alias = end.port === 22 ? end.host : `[${end.host}]:${end.port}`;
    return { config: [], ssh: ['-o', `HostName=${addresses[0].address}`, '-o', `HostKeyAlias=${shellQuote(alias.toLowerCase())}`] };
  }
  const config = ['-c', 'http.followRedirects=false'];
  if (isIP(end.host)) return { config, ssh: [] };
  // every checked address, so curl still falls back from one family to the other
  const pin = addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(',');
  // curl matches the name as the URL spells it; a trailing dot may or may not be kept, so both spellings are pinned
  for (const name of new Set([end.host, end.host.replace(/\.$/, '')])) config.push('-c', `http.curloptResolve=${name}:${end.port}:${pin}`);
  return { config, ssh: [] };
}

export function createGit(settings: GitSettings): Git {
  const authorities = caBundle(settings);
  return async (args, call = {}) => {
    const pin = await pinned(settings.outbound, call.remote);
    const state = settings.stateDir();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: state,
      LANG: 'C', LC_ALL: 'C',
      // nothing may ask anyone for anything: a missing credential is an error, not a hang
      GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'false', SSH_ASKPASS: 'false', SSH_ASKPASS_REQUIRE: 'never',
      GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_PROTOCOL_FROM_USER: '0', GIT_LFS_SKIP_SMUDGE: '1',
    };
    let keyDir: string | null = null;
    // -F /dev/null: no ssh_config of the machine (a ProxyCommand, a HostName) decides where the connection goes
    const ssh = ['ssh', '-F', '/dev/null', ...pin.ssh, '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=accept-new',
      '-o', `UserKnownHostsFile=${shellQuote(join(state, 'known_hosts'))}`, '-o', 'ConnectTimeout=20'];
    const credentials = call.credentials;
    if (credentials?.kind === 'token') {
      // as config from the environment the header never lands in a file, an argument list or the repository's config
      Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basicOf(credentials)}` });
    } else if (credentials?.kind === 'ssh-key') {
      keyDir = join(state, `key-${randomBytes(8).toString('hex')}`);
      mkdirSync(keyDir, { mode: 0o700 });
      const keyFile = join(keyDir, 'id');
      writeFileSync(keyFile, credentials.sshKey.replace(/\r\n/g, '\n').trimEnd() + '\n', { mode: 0o600, flag: 'wx' });
      ssh.push('-i', shellQuote(keyFile));
    }
    env.GIT_SSH_COMMAND = ssh.join(' ');
    const config = [
      '-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.ssh.allow=always',
      '-c', `protocol.file.allow=${settings.allowFile ? 'always' : 'never'}`,
      '-c', 'credential.helper=', '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'submodule.recurse=false',
      ...pin.config, ...authorities(),
    ];
    const timeout = call.timeoutMs ?? settings.timeoutMs;
    const secrets = secretsOf(credentials);
    const clean = (text: string) => secrets.reduce((t, s) => t.split(s).join('***'), text);
    try {
      return await new Promise<string>((resolveOut, reject) => {
        execFile('git', [...config, ...args], {
          cwd: call.cwd, env, timeout, killSignal: 'SIGKILL', maxBuffer: settings.maxOutputBytes, signal: call.signal, encoding: 'utf8',
        }, (err, stdout, stderr) => {
          if (!err) return resolveOut(stdout);
          const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
          const timedOut = e.killed === true && e.signal === 'SIGKILL' && !call.signal?.aborted;
          const tail = clean(String(stderr ?? '')).trim().split('\n').filter((l) => !/^\s*$/.test(l)).slice(-6).join('\n');
          const what = `git ${args.find((a) => !a.startsWith('-')) ?? ''}`.trim();
          if (timedOut) return reject(new GitError(`${what} took longer than ${Math.round(timeout / 1000)} s and was stopped`, tail, true));
          if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new GitError(`${what} printed more than ${settings.maxOutputBytes} bytes`, tail));
          if (call.signal?.aborted) return reject(new GitError(`${what} was canceled`, tail));
          reject(new GitError(`${what} failed: ${tail || clean(e.message)}`, tail));
        });
      });
    } finally {
      if (keyDir) rmSync(keyDir, { recursive: true, force: true });
    }
  };
}
