// Reading the YAML of a compose file: one document, parsed with the core schema, merge keys and compose's !reset / !override, its depth, aliases and merges bounded while it is parsed.
import { CORE_SCHEMA, loadAll, mergeTag, YAMLException } from 'js-yaml';
import { type ComposeLimit, composeLimits } from './limits.ts';
import type { Issues } from './issues.ts';
import { mergeTags } from './tags.ts';

const yamlSchema = CORE_SCHEMA.withTags(mergeTag, mergeTags);
/** the parser's own limits, by the names it reports them with */
const parserLimits: Record<string, ComposeLimit> = { maxDepth: 'maxDepth', maxAliases: 'maxAliases', maxTotalMergeKeys: 'maxMergeKeys' };

/** lines of a flow collection that compose (go-yaml) reads and js-yaml refuses as under-indented, re-indented at most this many times */
const maxReindents = 200;

/**
 * Parses as compose does: go-yaml accepts a line inside a flow collection (`[` … `]`) indented no deeper than its key,
 * as real files write a closing bracket; js-yaml refuses it. Inside a flow collection indentation means nothing
 * (folded lines lose their leading spaces), so such a line is given the indentation of the line before it and read again.
 */
function loadTolerant(text: string): unknown[] {
  let lines: string[] | null = null;
  for (let tries = 0; ; tries++) {
    try {
      return loadAll(lines ? lines.join('\n') : text, { schema: yamlSchema, maxDepth: composeLimits.maxDepth, maxAliases: composeLimits.maxAliases, maxTotalMergeKeys: composeLimits.maxMergeKeys });
    } catch (err) {
      if (!(err instanceof YAMLException) || err.reason !== 'deficient indentation' || !err.mark || tries >= maxReindents) throw err;
      lines ??= text.split('\n');
      const at = err.mark.line;
      const indent = (l: string) => l.length - l.trimStart().length;
      let before = at - 1;
      while (before >= 0 && !lines[before].trim()) before--;
      if (before < 0 || at >= lines.length) throw err;
      lines[at] = ' '.repeat(Math.max(indent(lines[before]) - indent(lines[at]), 1)) + lines[at];
    }
  }
}

/**
 * The YAML document; undefined after a syntax error. Depth, aliases and merges are bounded while parsing, before they cost.
 * Another file of the project (extends, include) is reported at `path` (where it is named), its problems prefixed with its name.
 */
export function parseYaml(text: string, issues: Issues, other?: { path: string; file: string }): unknown {
  const path = other?.path ?? '';
  const of = other ? `${other.file}: ` : '';
  let documents: unknown[];
  try {
    documents = loadTolerant(text);
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

