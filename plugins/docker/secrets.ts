// The compose runtime's secrets and configs: each file a service mounts is written under the plugin's data folder (one 0700 folder per project) and bind-mounted read-only at its target; a changed content is a new file, so its containers are recreated.
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { plural } from './util.ts';
import type { DeployIo, FileReference, LoadedCompose, NormalizedFileObject, NormalizedMount, NormalizedService } from './types.ts';

/** the folder under which each project's files are kept (DATA_DIR/plugins/docker/secrets), asked for when first needed */
export type SecretsDir = () => string;

/** the services with their secrets and configs as read-only bind mounts, and what a successful deploy then removes */
export interface ServiceFiles {
  service(s: NormalizedService): NormalizedService;
  /** removes the project's files no service mounts any more (after the containers that mounted them are gone) */
  prune(): void;
}

function root(dir: SecretsDir): string {
  const path = dir();
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  // the engine is given the real path: deploy refuses a bind source that is a link
  return realpathSync(path);
}

/**
 * The key of the files' names. A name is derived from the content, so a changed secret changes the container's mount
 * (and config hash); keyed, so the name (which `docker inspect` shows) tells nothing about a guessable value.
 */
function nameKey(base: string): Buffer {
  const file = join(base, '.key');
  try {
    writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(file);
}

const projectDir = (base: string, project: string) => join(base, project);

/** why a secret or config from `environment` has no content */
export const unsetVariable = (o: NormalizedFileObject) => `the ${o.kind} "${o.key}" takes the variable ${o.from}, which is not set: set it among the stack's variables (or in the project's .env)`;

/** the objects the services refer to: an external one stops the deploy here, before anything is written or changed */
function resolveReferences(loaded: LoadedCompose): Map<string, { object: NormalizedFileObject; ref: FileReference }[]> {
  const objects = { secret: new Map(loaded.secrets.map((o) => [o.key, o])), config: new Map(loaded.configs.map((o) => [o.key, o])) };
  const out = new Map<string, { object: NormalizedFileObject; ref: FileReference }[]>();
  for (const s of loaded.services) {
    const list = [...s.secrets.map((ref) => ({ kind: 'secret' as const, ref })), ...s.configs.map((ref) => ({ kind: 'config' as const, ref }))].map(({ kind, ref }) => {
      const object = objects[kind].get(ref.source);
      if (!object) throw new Error(`service ${s.name}: the ${kind} "${ref.source}" is not declared`);
      if (object.external) {
        throw new Error(`service ${s.name}: the ${kind} "${ref.source}" is external, and external ${kind}s exist only on a swarm: run the stack on the swarm runtime (x-dockwright: { runtime: swarm }), or give the ${kind} a file, environment${kind === 'config' ? ' or content' : ''}`);
      }
      if (!object.content) throw new Error(unsetVariable(object));
      return { object, ref };
    });
    out.set(s.name, list);
  }
  return out;
}

function writeFile(path: string, content: Buffer, ref: FileReference): void {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (ref.uid !== null || ref.gid !== null) {
      try {
        chownSync(temp, ref.uid === null ? -1 : Number(ref.uid), ref.gid === null ? -1 : Number(ref.gid));
      } catch (err) {
        throw new Error(`the file ${ref.target} cannot be given the owner ${ref.uid ?? '-'}:${ref.gid ?? '-'} (${(err as NodeJS.ErrnoException).code}): Dockwright runs as uid ${process.getuid?.()}, which may not give files away; drop uid and gid, or run Dockwright as root`);
      }
    }
    chmodSync(temp, ref.mode);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Writes every file the services mount (one per content, owner and mode, named by a keyed hash of them; an existing one
 * is the same and kept) and hands each secret's content to the job's redaction. Throws before writing anything when a
 * service refers to an external secret or config.
 */
export function writeServiceFiles(dir: SecretsDir, project: string, loaded: LoadedCompose, io: DeployIo): ServiceFiles {
  const references = resolveReferences(loaded);
  const used = [...references.values()].some((l) => l.length);
  if (!used) return { service: (s) => s, prune: () => removeServiceFiles(dir, project) };
  for (const o of loaded.secrets) {
    const text = o.content?.().toString('utf8') ?? '';
    io.redact?.(text);
    // a multi-line secret (a key, a certificate) may surface a line at a time
    for (const line of text.split(/\r?\n/)) if (line.trim().length >= 6) io.redact?.(line.trim());
  }
  const base = root(dir);
  const key = nameKey(base);
  const folder = projectDir(base, project);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const mounts = new Map<string, NormalizedMount[]>();
  const wanted = new Set<string>();
  for (const [service, list] of references) {
    mounts.set(service, list.map(({ object, ref }) => {
      const content = object.content!();
      const hash = createHmac('sha256', key).update(JSON.stringify([object.kind, ref.uid, ref.gid, ref.mode])).update('\0').update(content).digest('hex').slice(0, 32);
      const name = `${object.kind}.${object.key}.${hash}`;
      const path = join(folder, name);
      if (!wanted.has(name) && !existsSync(path)) writeFile(path, content, ref);
      wanted.add(name);
      return { type: 'bind' as const, source: path, target: ref.target, readOnly: true };
    }));
  }
  const count = (kind: 'secrets' | 'configs') => loaded.services.reduce((n, s) => n + s[kind].length, 0);
  io.log(`secrets and configs: ${plural(count('secrets'), 'secret')} and ${plural(count('configs'), 'config')} mounted read-only`);
  return {
    service: (s) => ({ ...s, mounts: [...s.mounts, ...(mounts.get(s.name) ?? [])] }),
    prune() {
      for (const name of readdirSync(folder)) if (!wanted.has(name)) unlinkSync(join(folder, name));
    },
  };
}

/** the project's files, once no container of it runs: a stopped or removed stack keeps no secret on disk */
export function removeServiceFiles(dir: SecretsDir, project: string): void {
  rmSync(projectDir(dir(), project), { recursive: true, force: true });
}
