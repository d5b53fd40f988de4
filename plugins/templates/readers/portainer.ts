// Portainer's app templates (v3 JSON, v2 read alike): container templates become a one-service compose file, stack templates read their compose file from the source's own repository; env entries become typed variables.
import { createHash } from 'node:crypto';
import { dump } from 'js-yaml';
import type { SourceError } from '../catalogue.ts';
import { parseTemplate, type Template } from '../format.ts';
import { isObject, limits, parseJson, pool, readIndex, type CatalogueReader } from './types.ts';

type Entry = Record<string, any>;

/** an env entry as our variable: a select is an enum, a default (preset or not) is a default, else a value the deploy must give */
function variableOf(e: Entry): Record<string, unknown> {
  const description = [e.label, e.description].filter((x) => typeof x === 'string' && x).join(': ');
  if (Array.isArray(e.select) && e.select.length) {
    const values = e.select.map((o: Entry) => String(o.value));
    const chosen = e.select.find((o: Entry) => o.default === true);
    return { type: 'enum', values, ...(chosen ? { default: String(chosen.value) } : {}), description };
  }
  return { type: 'string', ...(e.default !== undefined ? { default: String(e.default) } : {}), description };
}

/** a container template (type 1) as a compose service */
function serviceOf(t: Entry, env: Entry[]): Record<string, unknown> {
  const service: Record<string, unknown> = { image: t.image };
  if (typeof t.command === 'string' && t.command) service.command = t.command;
  if (Array.isArray(t.ports) && t.ports.length) service.ports = t.ports.map(String);
  const volumes = (Array.isArray(t.volumes) ? t.volumes : []).filter((v: Entry) => isObject(v) && typeof v.container === 'string');
  if (volumes.length) service.volumes = volumes.map((v: Entry, i: number) => `${v.bind ?? `data_${i + 1}`}:${v.container}${v.readonly ? ':ro' : ''}`);
  if (env.length) service.environment = Object.fromEntries(env.map((e) => [e.name, `\${${e.name}}`]));
  if (Array.isArray(t.labels) && t.labels.length) service.labels = Object.fromEntries(t.labels.map((l: Entry) => [String(l.name), String(l.value)]));
  if (t.privileged) service.privileged = true;
  if (t.interactive) Object.assign(service, { stdin_open: true, tty: true });
  if (typeof t.hostname === 'string') service.hostname = t.hostname;
  service.restart = typeof t.restart_policy === 'string' ? t.restart_policy : 'unless-stopped';
  return service;
}

const slug = (title: string) => title.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'template';
const text = (html: unknown) => (typeof html === 'string' ? html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ').trim() : '');

export const readPortainer: CatalogueReader = async (files, entry, source, pin) => {
  const doc = parseJson(await readIndex(files, entry, pin), entry);
  const list = isObject(doc) && Array.isArray(doc.templates) ? doc.templates : null;
  if (!list) throw new Error(`${entry} must be Portainer's app templates: { "version": "3", "templates": [...] }`);
  if (list.length > limits.templates) throw new Error(`${entry} lists ${list.length} templates; at most ${limits.templates}`);
  const invalid: SourceError[] = [];
  const taken = new Set<string>();
  const work = list.map((t: unknown, i: number) => {
    const e = isObject(t) ? t as Entry : {};
    let id = slug(String(e.title ?? ''));
    if (taken.has(id)) id = `${id}-${e.id ?? i}`;
    taken.add(id);
    return { e, i, id };
  });
  const read = await pool(work, async ({ e, i, id }): Promise<Template | SourceError[]> => {
    const fail = (path: string, message: string): SourceError[] => [{ template: id, path: `/templates/${i}${path}`, message }];
    if (typeof e.title !== 'string' || typeof e.description !== 'string') return fail('', 'a template needs a title and a description');
    if (e.platform === 'windows') return fail('/platform', 'a Windows template does not run here');
    const type = e.type === 'container' ? 1 : e.type === 'stack' ? 2 : e.type;
    const env: Entry[] = (Array.isArray(e.env) ? e.env : []).filter((v: unknown) => isObject(v) && typeof v.name === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v.name));
    let services: Record<string, unknown>;
    let extra: Record<string, unknown> = {};
    if (type === 1) {
      if (typeof e.image !== 'string' || !e.image) return fail('/image', 'a container template needs an image');
      services = { [slug(e.name ?? id).replace(/-/g, '_') || 'app']: serviceOf(e, env) };
      const named = Object.values(services).flatMap((s: any) => (s.volumes ?? []) as string[]).filter((v) => /^data_\d+:/.test(v)).map((v) => v.split(':')[0]);
      if (named.length) extra = { volumes: Object.fromEntries(named.map((n) => [n, {}])) };
    } else if (type === 2 || type === 3) {
      const stackfile = e.repository?.stackfile;
      if (typeof stackfile !== 'string' || !files.has) return fail('/repository', `a stack template reads its compose file from the repository ${e.repository?.url ?? '(none)'}: add that repository as a git source in Portainer's format`);
      try {
        const composeText = (await files.read(stackfile, limits.fileBytes)).toString('utf8');
        const { load, CORE_SCHEMA } = await import('js-yaml');
        const composeDoc = load(composeText, { schema: CORE_SCHEMA }) as Entry;
        if (!isObject(composeDoc) || !isObject(composeDoc.services)) return fail('/repository/stackfile', `${stackfile} has no services`);
        delete composeDoc.version;
        ({ services, ...extra } = composeDoc as { services: Record<string, unknown> });
      } catch (err) {
        return fail('/repository/stackfile', (err as Error).message.split('\n')[0]);
      }
    } else {
      return fail('/type', `type ${String(e.type)} is not a container (1) or stack (2, 3) template`);
    }
    const xDockwright = {
      id, name: e.title, version: createHash('sha256').update(JSON.stringify(e)).digest('hex').slice(0, 12), description: text(e.description),
      categories: Array.isArray(e.categories) ? e.categories.map(String) : [], ...(typeof e.logo === 'string' && /^https?:\/\//.test(e.logo) ? { logo: e.logo } : {}),
      ...(text(e.note) ? { instructions: text(e.note) } : {}), variables: Object.fromEntries(env.map((v) => [v.name, variableOf(v)])),
    };
    const parsed = parseTemplate(dump({ 'x-dockwright': xDockwright, services, ...extra }, { lineWidth: -1, noRefs: true }), source, id);
    return 'errors' in parsed ? parsed.errors.map((x) => ({ template: id, ...x })) : parsed.template;
  });
  const templates: Template[] = [];
  for (const r of read) if (Array.isArray(r)) invalid.push(...r); else templates.push(r);
  return { templates, invalid };
};
