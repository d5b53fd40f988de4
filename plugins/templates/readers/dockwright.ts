// Our format over a source: index.json `{ templates: [{ id, path, sha256? }] }`, each path a compose file with its x-dockwright block.
import { createHash } from 'node:crypto';
import type { SourceError } from '../catalogue.ts';
import { TemplateId, parseTemplate, type Template } from '../format.ts';
import { isObject, limits, parseJson, pool, readIndex, type CatalogueReader } from './types.ts';

const idPattern = new RegExp(TemplateId);

export const readDockwright: CatalogueReader = async (files, entry, source, pin) => {
  const doc = parseJson(await readIndex(files, entry, pin), entry);
  if (!isObject(doc) || !Array.isArray(doc.templates)) throw new Error(`${entry} must be { "templates": [{ "id", "path" }] }`);
  if (doc.templates.length > limits.templates) throw new Error(`${entry} lists ${doc.templates.length} templates; at most ${limits.templates}`);
  const invalid: SourceError[] = [];
  const entries: { id: string; path: string; sha256?: string }[] = [];
  const seen = new Set<string>();
  doc.templates.forEach((e, i) => {
    const id = isObject(e) && typeof e.id === 'string' ? e.id : null;
    if (!isObject(e) || !id || !idPattern.test(id) || typeof e.path !== 'string' || (e.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(String(e.sha256)))) {
      invalid.push({ template: id, path: `/templates/${i}`, message: 'needs an id (lowercase letters, digits, . _ -), a path, and optionally a sha256 (64 hex digits)' });
    } else if (seen.has(id)) {
      invalid.push({ template: id, path: `/templates/${i}/id`, message: `"${id}" is listed twice` });
    } else {
      seen.add(id);
      entries.push({ id, path: e.path, sha256: e.sha256 as string | undefined });
    }
  });
  const read = await pool(entries, async (e): Promise<Template | SourceError[]> => {
    try {
      const bytes = await files.read(e.path, limits.fileBytes);
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (e.sha256 && digest !== e.sha256) return [{ template: e.id, path: e.path, message: `its sha256 is ${digest}, not the pinned ${e.sha256}` }];
      const parsed = parseTemplate(bytes.toString('utf8'), source, e.id);
      return 'errors' in parsed ? parsed.errors.map((x) => ({ template: e.id, ...x })) : parsed.template;
    } catch (err) {
      return [{ template: e.id, path: e.path, message: (err as Error).message }];
    }
  });
  const templates: Template[] = [];
  for (const r of read) if (Array.isArray(r)) invalid.push(...r); else templates.push(r);
  return { templates, invalid };
};
