// Running Debian's git: execFile with argument arrays, a closed environment, a protocol allow-list, credentials only in the child's env.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Credentials =
  | { kind: 'token'; token: string; username?: string }
  | { kind: 'ssh-key'; sshKey: string };

export interface GitSettings {
  allowFile: boolean;
  timeoutMs: number;
  maxOutputBytes: number;
  /** where deploy keys live for the length of one command, and the known_hosts of this install */
  stateDir(): string;
}

export interface GitCall {
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

export function createGit(settings: GitSettings): Git {
  return async (args, call = {}) => {
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
    const ssh = ['ssh', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=accept-new',
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
