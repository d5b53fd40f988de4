// A stack saved as a template of our format: its compose file with an x-dockwright block; secret values are never written, they become generators.
import { CORE_SCHEMA, dump, load } from 'js-yaml';
import { looksSecret, problem } from '../../sdk/index.ts';
import { parseTemplate, references, type Template } from './format.ts';
import { isObject } from './readers/types.ts';

export interface ExportInput {
  stack: string;
  compose: string;
  variables: Record<string, string>;
  /** names whose values no answer shows (generated ones) */
  hidden: readonly string[];
  /** the catalogue template the stack was made from, when it still is offered: its variable definitions are kept */
  from?: Template;
  meta: { id: string; name: string; version: string; description?: string };
}

/** the template's text; a 422 problem when the result is no valid template (a problem of the stack's compose file) */
export function exportTemplate(input: ExportInput): string {
  const doc = load(input.compose, { schema: CORE_SCHEMA }) as Record<string, unknown>;
  if (!isObject(doc)) throw problem(422, `stack ${input.stack}: its compose file is not a mapping`);
  delete doc['x-dockwright'];
  const defs = new Map(input.from?.variables.map((v) => [v.name, v]) ?? []);
  const used = references(input.compose).required;
  const names = [...new Set([...Object.keys(input.variables), ...used])].filter((n) => used.has(n) || defs.has(n));
  const variables: Record<string, Record<string, unknown>> = {};
  for (const name of names) {
    const def = defs.get(name);
    if (def) {
      const { name: _n, binds: _b, generator, ...rest } = def;
      variables[name] = generator?.kind === 'jwt' ? { ...rest, claims: generator.claims } : rest;
      continue;
    }
    const value = input.variables[name];
    const secret = input.hidden.includes(name) || looksSecret(name);
    variables[name] = secret ? { type: 'secret', generate: 'password:32' } : value === undefined ? { type: 'string' } : { type: 'string', default: value };
  }
  const text = dump({ 'x-dockwright': { ...input.meta, variables }, ...doc }, { lineWidth: -1, noRefs: true });
  const parsed = parseTemplate(text, 'export', input.meta.id);
  if ('errors' in parsed) throw problem(422, `stack ${input.stack} does not make a valid template`, { code: 'invalid-template', errors: parsed.errors });
  return text;
}
