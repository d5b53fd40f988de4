// Reading declarations: YAML files (a file or every .yaml/.yml under a folder, several documents each), checked, with ${env:NAME} and ${file:path} references resolved.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve as resolvePath } from 'node:path';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { CliError, exitCodes, usageError } from '../errors.ts';
import { kinds, type Declared, type Kind, type Resolver } from './model.ts';

function yamlFiles(path: string): string[] {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw usageError(`${path} does not exist`, 'give -f a YAML file or a folder of them');
  if (st.isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) => {
    const full = join(path, e.name);
    if (e.isDirectory() && !e.name.startsWith('.')) return yamlFiles(full);
    return e.isFile() && /\.ya?ml$/.test(e.name) ? [full] : [];
  });
}

const invalid = (file: string, message: string) => new CliError(`${file}: ${message}`, exitCodes.refused, 'fix the file; docs/reference/cli.md describes the format');

function checkDocument(doc: unknown, file: string, fieldsOf: (kind: Kind) => readonly string[]): Declared | null {
  if (doc === null || doc === undefined) return null;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw invalid(file, 'each document is a mapping with kind, name and spec');
  const { kind, name, spec, protected: isProtected, ...rest } = doc as Record<string, unknown>;
  if (Object.keys(rest).length) throw invalid(file, `unknown key ${Object.keys(rest).join(', ')} (a document has kind, name, spec and protected)`);
  if (!kinds.includes(kind as Kind)) throw invalid(file, `kind must be one of ${kinds.join(', ')}, not ${JSON.stringify(kind)}`);
  if (typeof name !== 'string' || !name || name.length > 200) throw invalid(file, `a ${kind} needs a name`);
  if (isProtected !== undefined && typeof isProtected !== 'boolean') throw invalid(file, `${kind} ${name}: protected is true or false`);
  if (spec === undefined && !isProtected) throw invalid(file, `${kind} ${name} has no spec (write protected: true to only keep it from changes and prune)`);
  if (spec !== undefined && (typeof spec !== 'object' || spec === null || Array.isArray(spec))) throw invalid(file, `${kind} ${name}: spec is a mapping`);
  const allowed = fieldsOf(kind as Kind);
  const unknown = Object.keys(spec ?? {}).filter((k) => !allowed.includes(k));
  if (unknown.length) throw invalid(file, `${kind} ${name}: unknown spec key ${unknown.join(', ')} (known: ${allowed.join(', ')})`);
  return { kind: kind as Kind, name, spec: spec as Record<string, unknown> | undefined, protected: isProtected === true, file };
}

export function readDeclarations(paths: string[], fieldsOf: (kind: Kind) => readonly string[]): Declared[] {
  const out: Declared[] = [];
  const seen = new Set<string>();
  for (const path of paths) {
    const named = statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
    for (const file of yamlFiles(path)) {
      let docs: unknown[];
      try { docs = loadAll(readFileSync(file, 'utf8'), { schema: CORE_SCHEMA }) as unknown[]; } catch (err) { throw invalid(file, `not valid YAML: ${(err as Error).message.split('\n')[0]}`); }
      // in a folder, YAML without any `kind` (a compose file beside its declaration) is not a declaration
      if (!named && !docs.some((d) => typeof d === 'object' && d !== null && 'kind' in d)) continue;
      read(file, docs);
    }
  }
  return out;

  function read(file: string, docs: unknown[]) {
    for (const doc of docs) {
      const declared = checkDocument(doc, file, fieldsOf);
      if (!declared) continue;
      const key = `${declared.kind}/${declared.name}`;
      if (seen.has(key)) throw invalid(file, `${key} is declared twice`);
      seen.add(key);
      out.push(declared);
    }
  }
}

/** `${env:NAME}` from dw's environment, `${file:path}` from a file (relative to the declaring file; one final newline dropped) */
export function resolverFor(file: string, env: NodeJS.ProcessEnv = process.env): Resolver {
  return (value, where) => {
    if (value === null || value === undefined) return null;
    if (typeof value !== 'string') {
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw invalid(file, `${where} must be a string`);
    }
    const ref = /^\$\{(env|file):([^}]+)\}$/.exec(value);
    if (!ref) return value;
    if (ref[1] === 'env') {
      const found = env[ref[2]!];
      if (found === undefined) throw invalid(file, `${where} takes \${env:${ref[2]}}, which is not set in this environment`);
      return found;
    }
    const path = isAbsolute(ref[2]!) ? ref[2]! : resolvePath(dirname(file), ref[2]!);
    try { return readFileSync(path, 'utf8').replace(/\r?\n$/, ''); } catch { throw invalid(file, `${where} takes \${file:${ref[2]}}, which cannot be read`); }
  };
}
