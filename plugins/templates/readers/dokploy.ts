// Dokploy's catalogue format: meta.json (every blueprint's entry; a repository without it: blueprints/<id>/meta.json) and blueprints/<id>/docker-compose.yml with template.toml.
import type { SourceError } from '../catalogue.ts';
import { FetchError } from '../files.ts';
import { TemplateId, parseTemplate, type Template } from '../format.ts';
import { convertBlueprint, type DokployMeta } from './dokploy-convert.ts';
import { isObject, limits, parseJson, pool, readIndex, type CatalogueReader } from './types.ts';

const idPattern = new RegExp(TemplateId);

/** the entries of meta.json, or of each blueprint's own meta.json when the tree has no meta.json at its top */
async function entriesOf(files: Parameters<CatalogueReader>[0], entry: string, pin: (index: Buffer) => void): Promise<unknown[]> {
  if (files.has && files.folders && !(await files.has(entry))) {
    const ids = (await files.folders('blueprints').catch(() => [])).slice(0, limits.templates);
    pin(Buffer.from(''));
    return pool(ids, async (id) => parseJson(await files.read(`blueprints/${id}/meta.json`, limits.fileBytes).catch(() => Buffer.from('null')), `blueprints/${id}/meta.json`) ?? { id });
  }
  const doc = parseJson(await readIndex(files, entry, pin), entry);
  if (!Array.isArray(doc)) throw new Error(`${entry} must be a list of blueprints (Dokploy's meta.json)`);
  return doc;
}

export const readDokploy: CatalogueReader = async (files, entry, source, pin) => {
  const list = await entriesOf(files, entry, pin);
  if (list.length > limits.templates) throw new Error(`${entry} lists ${list.length} blueprints; at most ${limits.templates}`);
  const invalid: SourceError[] = [];
  const metas: DokployMeta[] = [];
  const seen = new Set<string>();
  list.forEach((m, i) => {
    const id = isObject(m) && typeof m.id === 'string' ? m.id : null;
    if (!isObject(m) || !id || !idPattern.test(id) || typeof m.name !== 'string') invalid.push({ template: id, path: `/${i}`, message: 'a blueprint needs an id (lowercase letters, digits, . _ -) and a name' });
    else if (seen.has(id)) invalid.push({ template: id, path: `/${i}/id`, message: `"${id}" is listed twice` });
    else { seen.add(id); metas.push({ ...(m as unknown as DokployMeta), version: String(m.version ?? 'latest') }); }
  });
  const read = await pool(metas, async (meta): Promise<Template | SourceError[]> => {
    const dir = `blueprints/${meta.id}`;
    try {
      const [compose, toml] = await Promise.all([`${dir}/docker-compose.yml`, `${dir}/template.toml`].map(async (p) => (await files.read(p, limits.fileBytes)).toString('utf8')));
      const logo = meta.logo && files.urlOf && /^[\w.-]+$/.test(meta.logo) ? files.urlOf(`${dir}/${meta.logo}`) : null;
      let text: string;
      try {
        text = convertBlueprint(meta, compose, toml, logo);
      } catch (err) {
        return [{ template: meta.id, path: `${dir}/template.toml`, message: (err as Error).message.split('\n')[0] }];
      }
      const parsed = parseTemplate(text, source, meta.id);
      return 'errors' in parsed ? parsed.errors.map((e) => ({ template: meta.id, ...e })) : parsed.template;
    } catch (err) {
      return [{ template: meta.id, path: dir, message: err instanceof FetchError ? err.message : (err as Error).message }];
    }
  });
  const templates: Template[] = [];
  for (const r of read) if (Array.isArray(r)) invalid.push(...r); else templates.push(r);
  return { templates, invalid };
};
