// The templates of every source, as last read: the bundled catalogue (offline, in catalogue/) and the sources an admin added, each with its own errors.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareText } from '../../sdk/index.ts';
import { parseTemplate, type Template } from './format.ts';

export type SourceFormat = 'dockwright' | 'dokploy' | 'portainer';

/** a template of the source that could not be read, and why */
export interface SourceError { template: string | null; path: string; message: string }

export interface SourceState {
  name: string;
  kind: 'bundled' | 'folder' | 'url' | 'git';
  format: SourceFormat;
  templates: Map<string, Template>;
  /** the source's own fetch or parse error (the templates kept are those of the last good read) */
  error: string | null;
  /** templates of it that could not be read */
  invalid: SourceError[];
  fetchedAt: string | null;
  /** an added source: where it is read from and its pin */
  def?: { url: string | null; git: { url: string; ref: string; path?: string } | null; sha256: string | null };
  /** a git source: the commit last read */
  commit?: string | null;
  /** an added source: its last read, good or not */
  checkedAt?: string | null;
}

export const bundledSource = 'bundled';

/** a folder in our format: one file per template (`<id>.yaml`); the bundled catalogue is catalogue/ beside this file */
export function readFolder(name: string, dir: URL | string): SourceState {
  const templates = new Map<string, Template>();
  const invalid: SourceError[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    const id = file.slice(0, -'.yaml'.length);
    const parsed = parseTemplate(readFileSync(join(dir instanceof URL ? fileURLToPath(dir) : dir, file), 'utf8'), name, id);
    if ('errors' in parsed) invalid.push(...parsed.errors.map((e) => ({ template: id, ...e })));
    else templates.set(id, parsed.template);
  }
  return { name, kind: name === bundledSource ? 'bundled' : 'folder', format: 'dockwright', templates, error: null, invalid, fetchedAt: new Date().toISOString() };
}

export class Catalogue {
  private readonly sources = new Map<string, SourceState>();

  set(state: SourceState): void {
    this.sources.set(state.name, state);
  }

  remove(name: string): void {
    this.sources.delete(name);
  }

  source(name: string): SourceState | undefined {
    return this.sources.get(name);
  }

  all(): SourceState[] {
    return [...this.sources.values()];
  }

  get(source: string, id: string): Template | undefined {
    return this.sources.get(source)?.templates.get(id);
  }

  list(): Template[] {
    return this.all().flatMap((s) => [...s.templates.values()]).sort((a, b) => compareText(a.name, b.name) || compareText(a.source, b.source));
  }
}
