// A service's environment: env_file entries from the source tree (in order), then `environment`, which wins; and the project's `.env`, which compose reads for interpolation.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Issues } from './issues.ts';
import { inside, isObj, mapOrList, scalar } from './shape.ts';

/** at most `max` bytes of a file and whether there were more: a file in the source tree may be of any size */
export function readHead(file: string, max: number): { text: string; truncated: boolean } {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, max) + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length;) {
      n = readSync(fd, buffer, length, buffer.length - length, null);
      length += n;
    }
    return { text: buffer.toString('utf8', 0, Math.min(length, max)), truncated: length > max };
  } finally {
    closeSync(fd);
  }
}

/** dotenv lines: KEY=value, `export KEY=value`, quotes, `#` comments; a bare KEY takes the stack variable of that name. */
export function parseEnvFile(text: string, variables: Record<string, string>, path: string, issues: Issues): [string, string][] {
  const out: [string, string][] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/^\s*export\s+/, '').trim();
    if (!line || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = (eq < 0 ? line : line.slice(0, eq)).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key)) {
      issues.error(path, `line ${i + 1} is not KEY=value`);
      return;
    }
    if (eq < 0) {
      if (variables[key] !== undefined) out.push([key, variables[key]]);
      return;
    }
    let value = line.slice(eq + 1).trim();
    const q = value[0];
    if ((q === '"' || q === "'") && value.length > 1 && value.endsWith(q)) {
      value = value.slice(1, -1);
      if (q === '"') value = value.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    } else {
      // not /\s+#.*$/: on a long run of blanks without a "#" that backtracks quadratically
      const comment = value.search(/\s#/);
      if (comment >= 0) value = value.slice(0, comment).trimEnd();
    }
    out.push([key, value]);
  });
  return out;
}

function envFiles(v: unknown, path: string, workdir: string | undefined, variables: Record<string, string>, issues: Issues): [string, string][] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  issues.take('envFiles', list.length, path, 'env_file entries');
  return list.flatMap((item, i) => {
    const at = Array.isArray(v) ? `${path}[${i}]` : path;
    const file = scalar(item) ?? (isObj(item) ? scalar(item.path) : null);
    const required = isObj(item) ? item.required !== false : true;
    if (!file) { issues.error(at, 'must be a path or a map with path'); return []; }
    const full = inside(workdir, file, at, issues, 'env_file');
    if (!full) return [];
    let read: { text: string; truncated: boolean };
    try {
      read = readHead(full, issues.left('envFileBytes'));
    } catch {
      if (required) issues.error(at, `env_file "${file}" is not in the source tree`);
      return [];
    }
    issues.take('envFileBytes', read.truncated ? Infinity : Buffer.byteLength(read.text), at, 'bytes read from env_file files');
    return parseEnvFile(read.text, variables, at, issues);
  });
}

/**
 * The project's `.env` at the top of the source tree, as compose reads it for interpolation (and for COMPOSE_PROFILES);
 * none without a source tree or without the file. Its names lose to the stack's variables, as compose's lose to the shell's.
 */
export function projectEnv(workdir: string | undefined, issues: Issues, file = '.env', path = '.env', required = false): Record<string, string> {
  if (!workdir) return {};
  const full = inside(workdir, file, path, issues, file.endsWith('.env') && !required ? 'the project\'s .env file' : 'env_file');
  if (!full) return {};
  let read: { text: string; truncated: boolean };
  try {
    read = readHead(full, issues.left('envFileBytes'));
  } catch {
    if (required) issues.error(path, `env_file "${file}" is not in the source tree`);
    return {};
  }
  issues.take('envFileBytes', read.truncated ? Infinity : Buffer.byteLength(read.text), path, 'bytes read from env_file files');
  return Object.fromEntries(parseEnvFile(read.text, {}, path, issues));
}

export function environment(service: Record<string, unknown>, path: string, workdir: string | undefined, variables: Record<string, string>, issues: Issues): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of envFiles(service.env_file, `${path}.env_file`, workdir, variables, issues)) env[k] = v;
  for (const [k, v] of mapOrList(service.environment, `${path}.environment`, issues)) {
    // a name without a value takes the stack variable of that name (compose takes the shell's), or is left out
    const value = v ?? variables[k];
    if (value === undefined) delete env[k];
    else env[k] = value;
  }
  issues.atMost('environmentPerService', Object.keys(env).length, `${path}.environment`, 'environment variables (env_file and environment together)');
  return env;
}
