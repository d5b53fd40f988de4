// Why a container exited, for its alert: its last log lines, with the values of its secret environment variables and mounted secrets masked.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type Dockerode from 'dockerode';
import { looksSecret } from '../../sdk/index.ts';
import { lastLogLines } from './rollout.ts';

/** the values a container holds that must not leave it in an alert: secret-looking environment values, mounted secret files (and their lines) */
async function secretsOf(info: Awaited<ReturnType<Dockerode.Container['inspect']>>): Promise<string[]> {
  const out: string[] = [];
  for (const entry of info.Config?.Env ?? []) {
    const at = entry.indexOf('=');
    const value = entry.slice(at + 1);
    if (at > 0 && looksSecret(entry.slice(0, at)) && value.length >= 4) out.push(value);
  }
  for (const m of info.Mounts ?? []) {
    if (m.Type !== 'bind' || !basename(m.Source).startsWith('secret.')) continue;
    const text = await readFile(m.Source, 'utf8').catch(() => '');
    out.push(text, ...text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length >= 6));
  }
  // the longest first: a value containing another is masked whole
  return out.filter((v) => v.trim().length > 0).sort((a, b) => b.length - a.length);
}

/** the last `lines` lines the container wrote, masked; an empty list when they cannot be read within 5 s (the events after it wait for it) */
export function exitLines(docker: Dockerode, id: string, lines = 20): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((resolve) => { timer = setTimeout(() => resolve([]), 5000); });
  return Promise.race([read(docker, id, lines), late]).finally(() => clearTimeout(timer));
}

async function read(docker: Dockerode, id: string, lines: number): Promise<string[]> {
  try {
    const info = await docker.getContainer(id).inspect();
    const secrets = await secretsOf(info);
    let text = await lastLogLines(docker, id, lines);
    for (const s of secrets) text = text.split(s).join('[redacted]');
    return text.split('\n').map((l) => l.replace(/^ {2}/, '')).filter((l) => l.length > 0).map((l) => l.slice(0, 500));
  } catch {
    return [];
  }
}
