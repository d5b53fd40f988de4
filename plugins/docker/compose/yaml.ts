// Reading the YAML of a compose file: one document, parsed with the core schema, merge keys and compose's !reset / !override, its depth, aliases and merges bounded while it is parsed.
import { CORE_SCHEMA, loadAll, mergeTag, YAMLException } from 'js-yaml';
import { type ComposeLimit, composeLimits } from './limits.ts';
import type { Issues } from './issues.ts';
import { mergeTags } from './tags.ts';

const yamlSchema = CORE_SCHEMA.withTags(mergeTag, mergeTags);
/** the parser's own limits, by the names it reports them with */
const parserLimits: Record<string, ComposeLimit> = { maxDepth: 'maxDepth', maxAliases: 'maxAliases', maxTotalMergeKeys: 'maxMergeKeys' };

/**
 * The YAML document; undefined after a syntax error. Depth, aliases and merges are bounded while parsing, before they cost.
 * Another file of the project (extends, include) is reported at `path` (where it is named), its problems prefixed with its name.
 */
export function parseYaml(text: string, issues: Issues, other?: { path: string; file: string }): unknown {
  const path = other?.path ?? '';
  const of = other ? `${other.file}: ` : '';
  let documents: unknown[];
  try {
    documents = loadAll(text, { schema: yamlSchema, maxDepth: composeLimits.maxDepth, maxAliases: composeLimits.maxAliases, maxTotalMergeKeys: composeLimits.maxMergeKeys });
  } catch (err) {
    if (!(err instanceof YAMLException)) { issues.error(path, `${of}the YAML cannot be read: ${(err as Error).message}`); return undefined; }
    const at = err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : '';
    const limit = /exceeded (maxDepth|maxAliases|maxTotalMergeKeys)\b/.exec(err.reason)?.[1];
    if (limit) {
      const name = parserLimits[limit];
      issues.stop(name, path, `${of}the YAML has more ${name === 'maxDepth' ? 'levels of nesting' : name === 'maxAliases' ? 'aliases' : 'keys merged with <<'} than the ${composeLimits[name].toLocaleString('en-US')} allowed${at}`);
    }
    issues.error(path, `${of}YAML syntax error${at}: ${err.reason}`);
    return undefined;
  }
  if (documents.length > 1) { issues.error(path, `${of}a compose file is one YAML document; this one has several (---)`); return undefined; }
  return documents[0] ?? null;
}

