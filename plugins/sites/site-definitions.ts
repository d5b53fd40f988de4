// A site's definition: create or replace it (hostnames held on the edge, a git source checked), remove it, rotate its preview password.
import { randomBytes } from 'node:crypto';
import { Problem, problem, type Principal } from '../../sdk/index.ts';
import type { Credentials } from '../git/index.ts';
import type { Build, SourceSpec } from './store.ts';
import { checkExpected, checkKind, previewPrefix, siteNotFound, siteOwner, type SiteContext } from './site-context.ts';
import { sitePath } from './site-paths.ts';

export interface SourceInput {
  url: string; branch?: string; path?: string; credentials?: unknown;
  build?: { image: string; command: string[]; output?: string };
}

export function siteDefinitions({ ctx, store, files, edge, git, settings, lock, previewHost, isPreviewHost, routesOf, rowOf }: SiteContext) {
  function checkBuild(b: SourceInput['build']): Build | undefined {
    if (!b) return undefined;
    const output = b.output ? sitePath(b.output) : '.';
    if (output === null) throw problem(400, 'build.output must be a folder inside the source (relative, no ..)', { errors: [{ path: '/body/source/build/output', message: 'not a relative folder' }] });
    return { image: b.image, command: b.command, output };
  }

  /** a new preview password (shown once) and the hash the edge checks it against */
  const newPreviewToken = () => {
    const token = `dwp_${randomBytes(24).toString('base64url')}`;
    return { token, hash: edge.hashPassword(token) };
  };

  /** a 409 for hostnames others hold; an owner hidden from the caller is not named */
  const taken = (conflicts: readonly { message: string }[]) => problem(409, conflicts.map((c) => c.message).join('; '), { code: 'edge-hostname-taken' });

  /** creates or replaces the definition; a hostname another owner holds (a stack's, running or not) is a 409, naming the owner if the caller may see it */
  /**
   * `expected`: the site's ETag as the caller read it (If-Match), or 'absent' (If-None-Match: *); checked inside the
   * transaction that writes, so a change made since the caller's read is refused (412), never overwritten
   */
  async function put(name: string, body: { hostnames: string[]; source?: SourceInput | null }, principal: Principal, expected?: string): Promise<{ created: boolean; previewToken: string | null }> {
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
      checkExpected(name, before, expected);
      // credentials: omitted keeps those of the same repository, null removes them
      const sealed = credentials ? ctx.secrets.seal(JSON.stringify(credentials))
        : credentials === undefined && before?.source?.url === source?.url ? before?.credentialsSealed ?? null : null;
      let previewToken: string | null = null;
      let previewHash = before?.previewHash ?? null;
      if (!before) {
        ({ token: previewToken, hash: previewHash } = newPreviewToken());
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

  async function remove(name: string, expected?: string): Promise<void> {
    await lock(name, async () => {
      const manifests = [...await store.manifests(name)];
      const draft = await store.draft(name);
      if (draft) manifests.push(draft.manifest);
      await ctx.db.tx(async (tx) => {
        if (expected !== undefined) checkExpected(name, await store.get(name, tx, true), expected);
        if (!(await store.remove(tx, name))) throw siteNotFound(name);
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
      const { token, hash } = newPreviewToken();
      await edge.setRoutes(siteOwner(name), routesOf({ ...row, previewHash: hash }));
      await store.setPreviewHash(name, hash);
      return token;
    });
  }

  return { put, remove, rotatePreviewToken };
}
