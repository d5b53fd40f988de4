// A site as a service: define it, publish versions atomically (upload, sync, draft, restore), drafts and their preview, and the answers.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { keyedLock, linkOutOf, Problem, problem, realExisting, isWithin, tooLong, type Actor, type ContextWith, type Principal } from '../../sdk/index.ts';
import type { EdgeApi, StaticRoute } from '../edge/index.ts';
import type { Credentials, GitApi } from '../git/index.ts';
import type { Files, Manifest } from './files.ts';
import type { Build, DraftRow, Origin, SiteRow, SiteStore, SourceSpec } from './store.ts';

export interface SiteSettings { previewDomain: string | null; keepVersions: number }
export const siteOwner = (name: string) => `site:${name}`;
/** a site's preview hostname is `draft--<site>.<previewDomain>` */
export const previewPrefix = 'draft--';
export const checkKind = 'site.check';

export interface SourceInput {
  url: string; branch?: string; path?: string; credentials?: unknown;
  build?: { image: string; command: string[]; output?: string };
}

/** a relative path inside a site (normalised), or null when it is none; whether it can be written is tooLong()'s to say */
export function sitePath(value: string): string | null {
  if (typeof value !== 'string' || !value || value.length > 1024 || value.startsWith('/') || /[\x00-\x1f\x7f\\]/.test(value)) return null;
  const parts = value.split('/').filter((p) => p !== '' && p !== '.');
  if (!parts.length || parts.includes('..')) return null;
  return parts.join('/');
}

const totals = (m: Manifest) => {
  const entries = Object.values(m);
  return { fileCount: entries.length, bytes: entries.reduce((n, e) => n + e.size, 0) };
};

export function createSites(deps: { ctx: ContextWith<'actionTokens' | 'db' | 'secrets'>; store: SiteStore; files: Files; edge: EdgeApi; git: GitApi; settings: SiteSettings }) {
  const { ctx, store, files, edge, git, settings } = deps;
  const lock = keyedLock();
  /**
   * Removing replaced trees is not part of a publish: it runs after the answer, under the site's lock, so the next
   * change of the site waits for it and a removal never races a build.
   */
  const later = (name: string, work: () => Promise<void>) => {
    void lock(name, work).catch((err) => ctx.log.warn({ err, site: name }, 'removing replaced site files failed; the next start cleans up'));
  };

  const previewHost = (name: string) => (settings.previewDomain ? `${previewPrefix}${name}.${settings.previewDomain}` : null);
  /** any site's preview hostname, the site's own included: they are served only as previews */
  const isPreviewHost = (hostname: string) => settings.previewDomain !== null && hostname.endsWith(`.${settings.previewDomain}`)
    && hostname.startsWith(previewPrefix) && !hostname.slice(0, -(settings.previewDomain.length + 1)).includes('.');
  /** the preview's address, with the edge's port when it is not 80 */
  const previewUrl = (name: string) => { const h = previewHost(name); return h ? `http://${h}${edge.ports.http === 80 ? '' : `:${edge.ports.http}`}/` : null; };

  function routesOf(row: Pick<SiteRow, 'name' | 'hostnames' | 'previewHash'>): StaticRoute[] {
    const routes: StaticRoute[] = row.hostnames.map((hostname) => ({ kind: 'static', hostname, root: files.servedLink(row.name) }));
    const preview = previewHost(row.name);
    if (preview && row.previewHash) {
      routes.push({ kind: 'static', hostname: preview, root: files.draftLink(row.name), basicAuth: { username: 'preview', hash: row.previewHash, realm: `draft of ${row.name}` } });
    }
    return routes;
  }

  function view(row: SiteRow, draft: DraftRow | null, webhook: boolean) {
    // only the kind of the credentials is shown; opening the seal is the one way to learn it without storing it twice
    const credentials = row.credentialsSealed ? { kind: (JSON.parse(ctx.secrets.open(row.credentialsSealed)) as Credentials).kind } : null;
    return {
      name: row.name,
      hostnames: row.hostnames,
      source: row.source && { url: row.source.display, branch: row.source.branch, path: row.source.path, build: row.source.build ?? null, credentials },
      version: row.version,
      lastDeploy: row.lastDeploy,
      lastError: row.lastError,
      syncedCommit: row.syncedCommit,
      draft: draft && { files: Object.keys(draft.manifest).length, changedAt: draft.changedAt, basedOn: draft.basedOn, previewUrl: previewUrl(row.name) },
      previewUrl: previewUrl(row.name),
      webhook: { enabled: webhook },
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  async function rowOf(name: string): Promise<SiteRow> {
    const row = await store.get(name);
    if (!row) throw problem(404, `no site "${name}"`, { code: 'site-not-found' });
    return row;
  }

  async function viewOf(name: string) {
    const [row, draft, hooks] = await Promise.all([rowOf(name), store.draft(name), ctx.actionTokens.enabled(checkKind, [name])]);
    return view(row, draft, hooks.has(name));
  }

  async function listViews(after: string | undefined, limit: number) {
    const rows = (await store.list()).filter((r) => after === undefined || r.name > after);
    const page = rows.slice(0, limit);
    const names = page.map((r) => r.name);
    const [drafts, hooks] = await Promise.all([store.drafts(names), ctx.actionTokens.enabled(checkKind, names)]);
    return { items: page.map((r) => view(r, drafts.get(r.name) ?? null, hooks.has(r.name))), next: rows.length > limit ? page.at(-1)!.name : undefined };
  }

  function checkBuild(b: SourceInput['build']): Build | undefined {
    if (!b) return undefined;
    const output = b.output ? sitePath(b.output) : '.';
    if (output === null) throw problem(400, 'build.output must be a folder inside the source (relative, no ..)', { errors: [{ path: '/body/source/build/output', message: 'not a relative folder' }] });
    return { image: b.image, command: b.command, output };
  }

  /** a 409 for hostnames others hold; an owner hidden from the caller is not named */
  const taken = (conflicts: readonly { message: string }[]) => problem(409, conflicts.map((c) => c.message).join('; '), { code: 'edge-hostname-taken' });

  /** creates or replaces the definition; a hostname another owner holds (a stack's, running or not) is a 409, naming the owner if the caller may see it */
  async function put(name: string, body: { hostnames: string[]; source?: SourceInput | null }, principal: Principal): Promise<{ created: boolean; previewToken: string | null }> {
    const hostnames: string[] = [];
    const preview = previewHost(name);
    body.hostnames.forEach((h, i) => {
      const n = edge.normalizeHostname(h);
      if (!n.ok) throw problem(400, n.reason, { errors: [{ path: `/body/hostnames/${i}`, message: n.reason }] });
      if (isPreviewHost(n.hostname)) {
        const whose = n.hostname === preview ? "this site's preview hostname" : `reserved for the draft preview of the site it names (${previewPrefix}<site>.${settings.previewDomain})`;
        throw problem(400, `${n.hostname} is ${whose}`, { errors: [{ path: `/body/hostnames/${i}`, message: 'preview hostnames are reserved' }] });
      }
      if (!hostnames.includes(n.hostname)) hostnames.push(n.hostname);
    });
    let source: SourceSpec | null = null;
    let credentials: Credentials | null | undefined;
    if (body.source) {
      const path = body.source.path === undefined || body.source.path === '' || body.source.path === '/' ? '.' : sitePath(body.source.path);
      if (path === null) throw problem(400, 'source.path must be a folder inside the repository (relative, no ..)', { errors: [{ path: '/body/source/path', message: 'not a relative folder' }] });
      const build = checkBuild(body.source.build);
      const remote = await git.checkRemote(body.source);
      source = { url: remote.url, display: remote.display, branch: remote.branch, path, ...(build ? { build } : {}) };
      credentials = remote.credentials;
    }
    const claimed = [...hostnames, ...(preview ? [preview] : [])];
    const conflicts = await edge.conflicts(siteOwner(name), claimed, principal);
    if (conflicts.length) throw taken(conflicts);

    return lock(name, () => ctx.db.tx(async (tx) => {
      const before = await store.get(name, tx, true);
      // credentials: omitted keeps those of the same repository, null removes them
      const sealed = credentials ? ctx.secrets.seal(JSON.stringify(credentials))
        : credentials === undefined && before?.source?.url === source?.url ? before?.credentialsSealed ?? null : null;
      let previewToken: string | null = null;
      let previewHash = before?.previewHash ?? null;
      if (!before) {
        previewToken = `dwp_${randomBytes(24).toString('base64url')}`;
        previewHash = edge.hashPassword(previewToken);
        await store.create(tx, { name, hostnames, source, credentialsSealed: sealed, previewHash });
      } else {
        await store.update(tx, name, { hostnames, source, credentialsSealed: sealed });
      }
      // inside the transaction: a refused route (a hostname taken meanwhile, Caddy refusing) leaves the site as it was
      await edge.setRoutes(siteOwner(name), routesOf({ name, hostnames, previewHash })).catch(async (err) => {
        // the edge's own answer names every owner: told again as this caller may learn it
        if (err instanceof Problem && err.code === 'edge-hostname-taken') throw taken(await edge.conflicts(siteOwner(name), claimed, principal).then((c) => (c.length ? c : [{ message: 'a hostname was taken meanwhile: try again' }])));
        throw err;
      });
      return { created: !before, previewToken };
    }));
  }

  async function remove(name: string): Promise<void> {
    await lock(name, async () => {
      const manifests = [...await store.manifests(name)];
      const draft = await store.draft(name);
      if (draft) manifests.push(draft.manifest);
      await ctx.db.tx(async (tx) => {
        if (!(await store.remove(tx, name))) throw problem(404, `no site "${name}"`, { code: 'site-not-found' });
        await edge.setRoutes(siteOwner(name), []);
      });
      await ctx.actionTokens.revoke(checkKind, name);
      await files.removeSite(name, manifests);
      await git.removeCheckout(name).catch(() => undefined);
    });
  }

  async function rotatePreviewToken(name: string): Promise<string> {
    return lock(name, async () => {
      const row = await rowOf(name);
      const token = `dwp_${randomBytes(24).toString('base64url')}`;
      const hash = edge.hashPassword(token);
      await edge.setRoutes(siteOwner(name), routesOf({ ...row, previewHash: hash }));
      await store.setPreviewHash(name, hash);
      return token;
    });
  }

  /** a new immutable version from a manifest, then the served link moved to it in one rename; caller holds the site lock */
  /**
   * `tree`: a folder that already holds exactly the manifest as links into the store (the draft's): it becomes the
   * version by one rename instead of a new tree of links, and goes back if the version is not committed.
   */
  async function publishLocked(name: string, manifest: Manifest, meta: { origin: Origin; actor: Actor; commit?: string | null; restoredFrom?: number | null; tree?: string }) {
    const { fileCount, bytes } = totals(manifest);
    let pruned: { number: number; manifest: Manifest }[] = [];
    let moved: { from: string; to: string } | null = null;
    const number = await ctx.db.tx(async (tx) => {
      if (!(await store.get(name, tx, true))) throw problem(404, `no site "${name}"`, { code: 'site-not-found' });
      const n = await store.addVersion(tx, name, { actor: meta.actor, origin: meta.origin, commit: meta.commit ?? null, restoredFrom: meta.restoredFrom ?? null, fileCount, bytes, manifest });
      const dir = files.versionDir(name, n);
      // a folder of this number can only be left over from a transaction that did not commit
      await rm(dir, { recursive: true, force: true });
      if (meta.tree) {
        await mkdir(dirname(dir), { recursive: true });
        await rename(meta.tree, dir);
        moved = { from: meta.tree, to: dir };
      } else {
        await files.build(manifest, dir);
      }
      pruned = await store.prune(tx, name, settings.keepVersions, n);
      return n;
    }).catch(async (err) => {
      const back = moved as { from: string; to: string } | null;
      if (back) await rename(back.to, back.from).catch(() => undefined);
      throw err;
    });
    await files.switchLink(files.servedLink(name), join('versions', String(number)));
    if (pruned.length) later(name, () => files.removeTrees(pruned.map((p) => files.versionDir(name, p.number)), pruned.map((p) => p.manifest)));
    return { version: number, fileCount, bytes };
  }

  const publish = (name: string, manifest: Manifest, meta: Parameters<typeof publishLocked>[2]) => lock(name, () => publishLocked(name, manifest, meta));

  async function manifestOfArchive(archive: Buffer, strip: number): Promise<Manifest> {
    const staging = await files.stagingDir();
    try {
      await git.unpack(archive, staging, { strip });
      return await files.ingest(staging, { move: true, within: staging });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  async function upload(name: string, archive: Buffer, opts: { strip: number; draft: boolean; actor: Actor }) {
    await rowOf(name);
    // refused archives stop here, before the site's files or rows are touched
    const manifest = await manifestOfArchive(archive, opts.strip);
    try {
      if (opts.draft) return { draft: await writeDraft(name, () => manifest) };
      return await publish(name, manifest, { origin: 'upload', actor: opts.actor });
    } finally {
      files.release(Object.values(manifest));
    }
  }

  /** the draft replaced by `change` of its files (a new first draft starts from the published version), built and linked atomically */
  async function writeDraft(name: string, change: (current: Manifest) => Manifest | Promise<Manifest>) {
    return lock(name, async () => {
      const row = await rowOf(name);
      const before = await store.draft(name);
      const base = before?.manifest ?? (row.version ? await store.manifest(name, row.version) ?? {} : {});
      const manifest = await change({ ...base });
      const dir = join('drafts', randomBytes(6).toString('hex'));
      await files.build(manifest, join(files.siteDir(name), dir));
      await files.switchLink(files.draftLink(name), dir);
      await store.setDraft(name, { manifest, basedOn: before?.basedOn ?? row.version, dir });
      if (before) later(name, () => files.removeTrees([join(files.siteDir(name), before.dir)], [before.manifest]));
      const draft = (await store.draft(name))!;
      return { files: Object.keys(manifest).length, changedAt: draft.changedAt, basedOn: draft.basedOn, previewUrl: previewUrl(name) };
    });
  }

  async function writeDraftFiles(name: string, body: { files?: Record<string, { content: string; encoding?: 'utf8' | 'base64' }>; delete?: string[]; base?: Record<string, string | null> }) {
    const writes: [string, Buffer][] = [];
    const errors: { path: string; message: string }[] = [];
    const unwritable: { path: string; message: string }[] = [];
    for (const [raw, f] of Object.entries(body.files ?? {})) {
      const path = sitePath(raw);
      if (!path) { errors.push({ path: `/body/files/${raw}`, message: 'a file path is relative, without .., control characters or backslashes' }); continue; }
      const long = tooLong(path);
      if (long) unwritable.push({ path: `/body/files/${raw}`, message: long });
      if (f.encoding === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(f.content.replace(/\s/g, ''))) { errors.push({ path: `/body/files/${raw}/content`, message: 'not base64' }); continue; }
      writes.push([path, Buffer.from(f.content, f.encoding === 'base64' ? 'base64' : 'utf8')]);
    }
    const deletes: string[] = [];
    (body.delete ?? []).forEach((raw, i) => {
      const path = sitePath(raw);
      if (!path) errors.push({ path: `/body/delete/${i}`, message: 'a file path is relative, without .., control characters or backslashes' });
      else deletes.push(path);
    });
    for (const raw of Object.keys(body.base ?? {})) if (!sitePath(raw)) errors.push({ path: `/body/base/${raw}`, message: 'a file path is relative, without .., control characters or backslashes' });
    if (errors.length) throw problem(400, `invalid draft files: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
    // refused before any content is stored: the file system would refuse the name halfway (ENAMETOOLONG)
    if (unwritable.length) throw problem(422, `file names too long: ${unwritable.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { code: 'name-too-long', errors: unwritable });
    if (!writes.length && !deletes.length) throw problem(400, 'nothing to write: give files or delete');
    const stored = await Promise.all(writes.map(async ([path, content]) => [path, await files.put(content)] as const));
    try {
      return await writeDraft(name, (m) => {
        const changed = Object.entries(body.base ?? {}).map(([raw, sha]) => [sitePath(raw)!, sha] as const)
          .filter(([path, sha]) => (m[path]?.sha256 ?? null) !== sha).map(([path]) => ({ path, sha256: m[path]?.sha256 ?? null }));
        if (changed.length) throw problem(412, `changed since you read it: ${changed.map((c) => c.path).join(', ')}`, { code: 'draft-changed', extra: { changed } });
        const missing = deletes.filter((d) => !m[d] && !Object.keys(m).some((p) => p.startsWith(`${d}/`)));
        if (missing.length) throw problem(422, `the draft has no file ${missing.join(', ')}`, { code: 'no-such-file' });
        for (const d of deletes) for (const p of Object.keys(m)) if (p === d || p.startsWith(`${d}/`)) delete m[p];
        for (const [path, entry] of stored) {
          const clash = Object.keys(m).find((p) => p.startsWith(`${path}/`) || path.startsWith(`${p}/`));
          if (clash) throw problem(422, `${path} and ${clash} cannot both exist (one would be a folder)`, { code: 'path-conflict' });
          m[path] = entry;
        }
        return m;
      });
    } finally {
      files.release(stored.map(([, entry]) => entry));
    }
  }

  async function dropDraftTree(name: string, draft: DraftRow) {
    await rm(files.draftLink(name), { force: true });
    later(name, () => files.removeTrees([join(files.siteDir(name), draft.dir)], [draft.manifest]));
  }

  async function publishDraft(name: string, actor: Actor) {
    return lock(name, async () => {
      await rowOf(name);
      const draft = await store.draft(name);
      if (!draft) throw problem(409, `site "${name}" has no draft`, { code: 'no-draft' });
      const published = await publishLocked(name, draft.manifest, { origin: 'draft', actor, tree: join(files.siteDir(name), draft.dir) });
      await store.dropDraft(name);
      // its tree is the new version now: only the preview link goes
      await rm(files.draftLink(name), { force: true });
      return published;
    });
  }

  async function discardDraft(name: string) {
    return lock(name, async () => {
      await rowOf(name);
      const draft = await store.dropDraft(name);
      if (!draft) throw problem(404, `site "${name}" has no draft`, { code: 'no-draft' });
      await dropDraftTree(name, draft);
    });
  }

  async function restore(name: string, version: number, actor: Actor) {
    return lock(name, async () => {
      await rowOf(name);
      const manifest = await store.manifest(name, version);
      if (!manifest) throw problem(404, `site "${name}" has no version ${version} (it was never made or is no longer kept)`, { code: 'no-such-version' });
      return publishLocked(name, manifest, { origin: 'restore', actor, restoredFrom: version });
    });
  }

  /**
   * The folder a sync publishes: `path` in a checked-out tree (`of: "source"`) or in a build's workspace after the
   * build (`of: "build"`). A symbolic link on the way that leads out of the tree is refused, naming it: what a repository
   * or a build container left there never decides which host folder is read.
   */
  async function folderIn(root: string, path: string, of: 'source' | 'build' = 'source'): Promise<string> {
    const out = linkOutOf(root, path);
    if (out) {
      const where = of === 'build' ? "the build's output" : 'source.path';
      throw problem(422, `${where} ${path}: ${out.link} is a symbolic link to ${out.target}, which leads out of the ${of === 'build' ? "build's workspace" : 'repository'}; refusing to publish it`, { code: 'link-out-of-tree' });
    }
    const real = realExisting(join(root, path));
    if (!isWithin(root, real) || !(await stat(real).then((s) => s.isDirectory(), () => false))) {
      throw problem(422, of === 'build' ? `the build left no folder ${path}` : `the source has no folder ${path}`, { code: 'no-such-folder' });
    }
    return real;
  }

  return {
    routesOf, view, viewOf, listViews, rowOf, put, remove, rotatePreviewToken, publish, upload, writeDraft, writeDraftFiles, publishDraft, discardDraft, restore, folderIn, manifestOfArchive, previewUrl,
    /** runs `work` holding the site's lock: no publish, draft write or removal of replaced trees meanwhile */
    locked: <T>(name: string, work: () => Promise<T>) => lock(name, work),
    /** the served link of every site points at its published version (a crash between commit and rename, say) */
    async repair(): Promise<void> {
      await files.clean();
      for (const row of await store.list()) {
        if (!row.version) continue;
        const want = join('versions', String(row.version));
        if ((await files.readlink(files.servedLink(row.name))) === want) continue;
        const manifest = await store.manifest(row.name, row.version);
        if (!manifest) continue;
        const dir = files.versionDir(row.name, row.version);
        if (!(await stat(dir).then(() => true, () => false))) await files.build(manifest, dir);
        await files.switchLink(files.servedLink(row.name), want);
      }
    },
  };
}
export type Sites = ReturnType<typeof createSites>;
