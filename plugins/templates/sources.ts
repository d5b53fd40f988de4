// The sources an admin adds (HTTPS index URLs, git repositories at a ref): adding, reading (sha256 pin, outbound policy), refreshing, removing, and keeping each instance's catalogue in step.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { rootCertificates } from 'node:tls';
import { keyedLock, OutboundRefused, Problem, problem, type Logger, type OutboundApi } from '../../sdk/index.ts';
import type { GitApi } from '../git/api.ts';
import type { Catalogue, SourceFormat } from './catalogue.ts';
import { httpFiles, treeFiles, type SourceFiles } from './files.ts';
import { readDockwright } from './readers/dockwright.ts';
import type { CatalogueReader } from './readers/types.ts';
import { stateOf, type SourceDef, type SourceStore } from './source-store.ts';

const defaultEntry: Record<SourceFormat, string> = { dockwright: 'index.json', dokploy: 'meta.json', portainer: 'templates.json' };

export interface SourcesDeps {
  store: SourceStore;
  catalogue: Catalogue;
  git: GitApi;
  outbound: OutboundApi;
  /** a PEM file of further CAs trusted for HTTPS sources (NODE_EXTRA_CA_CERTS) */
  extraCaFile?: string;
  readers: Partial<Record<SourceFormat, CatalogueReader>>;
  log: Logger;
}

/** where the index is: a URL's last segment ending in .json is the index itself, else the format's file under it */
function entryOf(path: string, format: SourceFormat): { folder: string; entry: string } {
  if (path.endsWith('.json')) return { folder: posix.dirname(path), entry: posix.basename(path) };
  return { folder: path, entry: defaultEntry[format] };
}

export class Sources {
  private readonly readers: Partial<Record<SourceFormat, CatalogueReader>>;
  private readonly lock = keyedLock();
  constructor(private readonly deps: SourcesDeps) {
    this.readers = { dockwright: readDockwright, ...deps.readers };
  }

  /** the name, URL or repository and format checked: a 400 problem naming the field, 422 when the outbound policy refuses the host */
  async check(def: SourceDef): Promise<void> {
    if (!this.readers[def.format]) throw problem(400, `format ${def.format} has no reader here`, { errors: [{ path: '/body/format', message: 'is not supported' }] });
    if (def.url) {
      let url: URL;
      try { url = new URL(def.url); } catch { throw problem(400, 'url is not a URL', { errors: [{ path: '/body/url', message: 'is not a URL' }] }); }
      if (url.protocol !== 'https:') throw problem(400, 'a source URL must be https://', { errors: [{ path: '/body/url', message: 'must be https://' }] });
      if (url.username || url.password) throw problem(400, 'a source URL may not hold credentials', { errors: [{ path: '/body/url', message: 'may not hold a user or password' }] });
      await this.deps.outbound.check(url.hostname.replace(/^\[|\]$/g, ''));
    } else if (def.git) {
      await this.deps.git.checkRemote({ url: def.git.url, branch: def.git.ref });
      if (def.git.path && (def.git.path.startsWith('/') || def.git.path.split('/').includes('..'))) throw problem(400, 'git.path must stay in the repository', { errors: [{ path: '/body/git/path', message: 'must be relative, without ..' }] });
    }
  }

  /** reads the source now; what it gave (or its error) is saved and served. Never throws for the source's own failures */
  refresh(def: SourceDef): Promise<void> {
    // one read of a source at a time here: a scheduled read and one asked for share its checkout, and the later one wins
    return this.lock(def.name, () => this.read(def));
  }

  private async read(def: SourceDef): Promise<void> {
    const { store, catalogue } = this.deps;
    try {
      const { files, entry, commit, close } = await this.open(def);
      try {
        const pin = (index: Buffer) => {
          const digest = createHash('sha256').update(index).digest('hex');
          if (def.sha256 && digest !== def.sha256) throw new Error(`${entry} has sha256 ${digest}, not the pinned ${def.sha256}: nothing was changed`);
        };
        const read = await this.readers[def.format]!(files, entry, def.name, pin);
        await store.saveRead(def.name, { templates: read.templates, invalid: read.invalid, commit });
      } finally {
        await close();
      }
    } catch (err) {
      const message = err instanceof OutboundRefused ? err.detail : err instanceof Problem ? err.detail : (err as Error).message;
      await store.saveError(def.name, message.slice(0, 2000));
    }
    const row = await store.get(def.name);
    if (row) catalogue.set(stateOf(row));
  }

  private async open(def: SourceDef): Promise<{ files: SourceFiles; entry: string; commit: string | null; close(): Promise<void> }> {
    if (def.url) {
      const url = new URL(def.url);
      const { folder, entry } = entryOf(url.pathname, def.format);
      const base = new URL(folder.endsWith('/') ? folder : `${folder}/`, url);
      const extra = this.deps.extraCaFile ? readFileSync(this.deps.extraCaFile, 'utf8') : null;
      const dispatcher = this.deps.outbound.dispatcher({ connect: { timeout: 10_000, ...(extra ? { ca: [...rootCertificates, extra] } : {}) }, headersTimeout: 15_000, bodyTimeout: 15_000, connections: 16 });
      return { files: httpFiles(base, dispatcher), entry, commit: null, close: () => dispatcher.close() };
    }
    const git = def.git!;
    const remote = await this.deps.git.checkRemote({ url: git.url, branch: git.ref });
    const checkout = await this.deps.git.checkoutHead(`template-source-${def.name}`, { url: remote.url, branch: remote.branch, credentials: remote.credentials ?? null });
    const { folder, entry } = entryOf(git.path ?? '', def.format);
    return { files: treeFiles(posix.join(checkout.tree, folder)), entry, commit: checkout.commit, close: async () => undefined };
  }

  /** brings this instance's catalogue in step with the database (another instance may have read or removed a source) */
  async sync(): Promise<void> {
    const { store, catalogue } = this.deps;
    const versions = await store.versions();
    for (const state of catalogue.all()) if ((state.kind === 'url' || state.kind === 'git') && !versions.has(state.name)) catalogue.remove(state.name);
    for (const [name, checkedAt] of versions) {
      if ((catalogue.source(name)?.checkedAt ?? '') === checkedAt && catalogue.source(name)) continue;
      const row = await store.get(name);
      if (row) catalogue.set(stateOf(row));
    }
  }

  async refreshAll(): Promise<void> {
    for (const row of await this.deps.store.all()) {
      await this.refresh(row);
      this.deps.log.info({ source: row.name }, 'template source refreshed');
    }
  }

  async remove(name: string): Promise<boolean> {
    const removed = await this.deps.store.remove(name);
    this.deps.catalogue.remove(name);
    await this.deps.git.removeCheckout(`template-source-${name}`).catch(() => undefined);
    return removed;
  }
}
