// Restic through spawn (never a shell): the repository and its secrets passed by environment, JSON output read line by line.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { OutboundApi } from '../../sdk/index.ts';
import { connect } from './backend.ts';

/** a repository as restic opens it; password, env values and the ssh key are secrets */
export interface Repository {
  url: string;
  password: string;
  env: Record<string, string>;
  /** the private key ssh logs in with (sftp repositories); null: the service user's own keys */
  sshKey: string | null;
}

/** what every restic command of this install runs with */
export interface ResticEnv {
  /** the restic binary */
  resticBin: string;
  /** restic's cache (speeds up listing and incremental runs) */
  cacheDir: string;
  /** the install's outbound policy: a remote repository's hosts are checked (and sftp pinned) before restic starts */
  outbound: OutboundApi;
  /** this install's known_hosts and the short-lived key files of sftp repositories */
  sshDir: string;
  /** when each snapshot of a backup was proved by a test restore (snapshot id → ISO time); snapshots listed carry it */
  verifiedAt?: (backup: string) => Promise<ReadonlyMap<string, string>>;
}

export interface ResticOptions {
  signal?: AbortSignal;
  /** each line of stdout as it comes */
  onLine?(line: string): void;
  cwd?: string;
  /**
   * feeds restic's stdin (`backup --stdin`): restic's input ends when it resolves; when it rejects, restic is stopped
   * before its input ends (so it writes no snapshot) and the call rejects with that error
   */
  stdin?(input: Writable): Promise<void>;
  /**
   * takes restic's stdout as a stream (`dump`), instead of lines: the call resolves when restic and this both end; when
   * this rejects, restic is stopped and the call rejects with that error
   */
  stdout?(output: Readable): Promise<void>;
}

export class ResticError extends Error {
  constructor(message: string, readonly code: number | null, readonly stderr: string) {
    super(message);
  }
}

/** every secret of a repository, for redaction: the password, env values and a password inside the URL */
export function secretsOf(repo: Repository): string[] {
  const out = [repo.password, ...Object.values(repo.env), ...(repo.sshKey ?? '').split(/\r?\n/).filter((l) => l.length >= 16 && !l.startsWith('-----'))];
  const inUrl = /^[a-z0-9]+:(?:https?:\/\/)?[^/@:]*:([^/@]+)@/i.exec(repo.url)?.[1];
  if (inUrl) out.push(inUrl, decodeURIComponent(inUrl));
  return out.filter((s) => s.length >= 4);
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}

/**
 * Runs `restic <args>` against the repository. Only what restic needs is in its environment: an inherited
 * RESTIC_PASSWORD_COMMAND or similar must never reach it. A remote repository's hosts pass the outbound policy first
 * (OutboundRefused before anything connects). Rejects with the tail of stderr (secrets scrubbed) on a non-zero exit,
 * except for the codes in `okCodes`.
 */
export async function restic(repo: Repository, args: readonly string[], renv: ResticEnv, opts: ResticOptions = {}, okCodes: readonly number[] = [0]): Promise<{ stdout: string; stderr: string; code: number }> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? renv.cacheDir,
    LANG: 'C.UTF-8',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...repo.env,
    RESTIC_REPOSITORY: repo.url,
    RESTIC_PASSWORD: repo.password,
    RESTIC_CACHE_DIR: renv.cacheDir,
  };
  const connection = await connect(renv.outbound, renv.sshDir, repo);
  try {
    return await new Promise((resolve, reject) => {
      const child = spawn(renv.resticBin, [...connection.args, ...args], { env, cwd: opts.cwd, stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'], signal: opts.signal });
      let fed: Error | null = null;
      if (opts.stdin) {
        child.stdin!.on('error', () => undefined);  // restic gone early: its exit says why
        opts.stdin(child.stdin!).then(() => child.stdin!.end(), (err: Error) => { fed = err; child.kill('SIGINT'); });
      }
      const out: string[] = [];
      let stderr = '';
      let consumed: Promise<void> = Promise.resolve();
      if (opts.stdout) {
        consumed = opts.stdout(child.stdout!).catch((err: Error) => { fed ??= err; child.kill('SIGINT'); });
      } else {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (opts.onLine) opts.onLine(line);
          else out.push(line);
        });
      }
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-16_384); });
      child.once('error', (err) => reject(err.name === 'AbortError' ? err : new ResticError(`restic could not be started (${renv.resticBin}): ${err.message}`, null, '')));
      child.once('close', async (code) => {
        await consumed;
        if (fed) return reject(fed);
        const stdout = out.join('\n');
        if (code !== null && okCodes.includes(code)) return resolve({ stdout, stderr, code });
        const reason = stderr.trim().split('\n').filter((l) => l && !l.startsWith('{')).slice(-5).join(' ') || `exit code ${code}`;
        reject(new ResticError(`restic ${args[0]} failed: ${scrub(reason, secretsOf(repo))}`, code, scrub(stderr, secretsOf(repo))));
      });
    });
  } finally {
    await connection.close();
  }
}

/** restic's missing-repository answer (as opposed to a wrong password or an unreachable host) */
export const isMissingRepository = (err: unknown): boolean =>
  err instanceof ResticError && /Is there a repository at the following location|unable to open config file|does not exist/i.test(err.stderr) && !/wrong password/i.test(err.stderr);

/** a restic snapshot as `restic snapshots --json` lists it */
export interface ResticSnapshot {
  id: string;
  short_id: string;
  time: string;
  paths: string[];
  tags?: string[];
  hostname: string;
  parent?: string;
  /** not restic's: when a test restore proved it (ResticEnv.verifiedAt) */
  verifiedAt?: string;
}

/** a tree node as `restic ls --json` lists it */
export interface ResticNode {
  name: string;
  type: 'file' | 'dir' | 'symlink' | string;
  path: string;
  size?: number;
  mtime: string;
  permissions?: string;
  struct_type?: string;
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function bytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${u ? v.toFixed(1) : v} ${units[u]}`;
}
