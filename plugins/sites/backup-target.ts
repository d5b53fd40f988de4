// The `sites` backup target: every site's kept versions and draft as trees in the snapshot (with what the database says of them), and the restore back into the sites.
import { constants, existsSync } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { linkOutOf, problem, Type, type Principal } from '../../sdk/index.ts';
import type { BackupTarget, TargetIo } from '../backups/api.ts';
import type { Files, Manifest } from './files.ts';
import type { Sites } from './sites.ts';
import type { SiteStore } from './store.ts';

/** what a site's folder in a snapshot says of it: site.json beside versions/<n>/ and draft/ */
interface SiteRecord {
  name: string;
  hostnames: string[];
  /** the published version (0: none) */
  version: number;
  versions: { number: number; at: string; origin: string; commit: string | null; fileCount: number; bytes: number }[];
  draft: { basedOn: number; changedAt: string; files: number } | null;
}

/**
 * A folder of a restored snapshot, refused when a link on the way leads out of the site's folder: a snapshot is read as
 * what it holds, never as the host files a link in it names.
 */
function inside(path: string, rel: string): string {
  const out = linkOutOf(path, rel);
  if (out) throw new Error(`the snapshot's ${out.link} is a symbolic link to ${out.target}, out of the site's folder; refusing to restore from it`);
  return join(path, rel);
}

/** site.json of a restored site, opened without following a link */
async function readRecord(path: string): Promise<SiteRecord> {
  const file = await open(join(path, 'site.json'), constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === 'ELOOP' ? "the snapshot's site.json is a symbolic link; refusing to restore from it" : `the snapshot has no readable site.json: ${err.code ?? err.message}`);
  });
  try {
    return JSON.parse(await file.readFile('utf8')) as SiteRecord;
  } catch {
    throw new Error("the snapshot's site.json is not a site record");
  } finally {
    await file.close();
  }
}

export function sitesBackupTarget(deps: { store: SiteStore; files: Files; sites: Sites }): BackupTarget {
  const { store, files, sites } = deps;
  return {
    key: 'sites',
    description: "every site's kept versions and its draft",
    schema: Type.Boolean(),
    empty: (value) => value !== true,
    async check(_value, principal: Principal) {
      if (!principal.can('sites:read')) throw problem(403, 'backing up the sites needs the scope sites:read', { code: 'missing-scope' });
    },
    async prepare(_value, io: TargetIo) {
      const made: { dir: string; manifests: Manifest[] }[] = [];
      const release = () => files.removeTrees(made.map((m) => m.dir), made.flatMap((m) => m.manifests));
      try {
        for (const { name } of await store.list()) {
          // under the site's lock: the trees are exactly the versions and draft the database records, and none of their contents is removed meanwhile
          await sites.locked(name, async () => {
            const row = await store.get(name);
            if (!row) return;
            const dir = join(io.stageDir, name);
            const entry = { dir, manifests: [] as Manifest[] };
            made.push(entry);
            const versions = await store.versions(name);
            for (const v of versions) {
              const manifest = await store.manifest(name, v.number);
              if (!manifest) continue;
              entry.manifests.push(manifest);
              await files.build(manifest, join(dir, 'versions', String(v.number)));
            }
            const draft = await store.draft(name);
            if (draft) {
              entry.manifests.push(draft.manifest);
              await files.build(draft.manifest, join(dir, 'draft'));
            }
            const record: SiteRecord = {
              name, hostnames: row.hostnames, version: row.version,
              versions: versions.map((v) => ({ number: v.number, at: v.at, origin: v.origin, commit: v.commit, fileCount: v.fileCount, bytes: v.bytes })),
              draft: draft && { basedOn: draft.basedOn, changedAt: draft.changedAt, files: Object.keys(draft.manifest).length },
            };
            // a site with nothing published and no draft has only its record: its folder is made for it
            await mkdir(dir, { recursive: true });
            await writeFile(join(dir, 'site.json'), `${JSON.stringify(record, null, 2)}\n`);
            io.log(`site ${name}: ${versions.length} version(s)${row.version ? `, version ${row.version} published` : ''}${draft ? ', a draft' : ''}`);
          });
        }
      } catch (err) {
        await release();
        throw err;
      }
      if (!made.length) io.log('there are no sites (yet): nothing of them to back up');
      // the trees link the store's contents: removing them collects what a publish made unused meanwhile
      return { sources: made.map((m) => ({ name: m.dir.slice(io.stageDir.length + 1), path: m.dir })), release };
    },
    restore: {
      target: 'site',
      description: "back into the sites: the published version of the snapshot becomes a new version, and its draft the site's draft",
      async check(names, { overwrite, principal }) {
        if (principal && !principal.can('sites:publish')) throw problem(403, 'restoring into sites needs the scope sites:publish', { code: 'missing-scope' });
        for (const name of names) {
          const row = await store.get(name);
          if (!row) throw problem(409, `there is no site ${name} (any more); define it again, then restore`);
          if (!overwrite && (await store.draft(name))) throw problem(409, `restoring into site ${name} replaces its draft; restore with overwrite: true`, { code: 'would-overwrite' });
        }
      },
      async apply(restored, io) {
        for (const { name, path } of restored) {
          const record = await readRecord(path);
          const published = inside(path, `versions/${Number(record.version)}`);
          if (record.version && existsSync(published)) {
            const manifest = await files.ingest(published, { move: false, within: path });
            try {
              const { version } = await sites.publish(name, manifest, { origin: 'restore', actor: io.actor });
              io.log(`site ${name}: version ${record.version} of the snapshot published as version ${version} (${Object.keys(manifest).length} files)`);
            } finally {
              files.release(Object.values(manifest));
            }
          }
          if (record.draft && existsSync(inside(path, 'draft'))) {
            const manifest = await files.ingest(join(path, 'draft'), { move: false, within: path });
            try {
              await sites.writeDraft(name, () => manifest);
              io.log(`site ${name}: the draft restored (${Object.keys(manifest).length} files)`);
            } finally {
              files.release(Object.values(manifest));
            }
          }
        }
      },
    },
  };
}
