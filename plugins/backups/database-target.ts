// The `database` backup target: a consistent pg_dump (custom format) of Dockwright's own database, restorable with pg_restore into a fresh database.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { problem, Type } from '../../sdk/index.ts';
import type { BackupTarget, TargetIo } from './targets.ts';

export const dumpFile = 'dockwright.dump';

/** pg_dump is given the URL without its password; the password goes by PGPASSWORD, out of the process list */
export function connectionOf(url: string): { dbname: string; env: Record<string, string> } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { dbname: parsed.toString(), env: password ? { PGPASSWORD: password } : {} };
}

export function pgDump(bin: string, url: string, file: string, signal: AbortSignal): Promise<void> {
  const { dbname, env } = connectionOf(url);
  return new Promise((resolve, reject) => {
    // a dump is one repeatable-read transaction: consistent while the service keeps writing
    const child = spawn(bin, ['--format=custom', '--no-password', `--file=${file}`, `--dbname=${dbname}`], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env }, stdio: ['ignore', 'ignore', 'pipe'], signal,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => { stderr = (stderr + c).slice(-4096); });
    child.once('error', (err) => reject(new Error(`pg_dump could not be started (${bin}): ${err.message}`)));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`pg_dump failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`))));
  });
}

export function databaseTarget(deps: { databaseUrl: string; pgDump: string }): BackupTarget {
  return {
    key: 'database',
    description: "Dockwright's own database, as a pg_dump in custom format (restore it with pg_restore into a fresh database)",
    schema: Type.Boolean(),
    empty: (value) => value !== true,
    async check(_value, principal) {
      // the dump holds every user, token hash and sealed secret
      if (!principal.can('admin')) throw problem(403, 'backing up the database needs the scope admin', { code: 'missing-scope' });
    },
    async prepare(_value, io: TargetIo) {
      const file = join(io.stageDir, dumpFile);
      io.log('dumping the database (pg_dump, custom format)');
      await pgDump(deps.pgDump, deps.databaseUrl, file, io.signal);
      return { sources: [{ name: '', path: io.stageDir }] };
    },
  };
}
