// The embedded database: PGlite in DATA_DIR/pg, served over a unix socket so pg and node-pg-migrate use it like PostgreSQL.
import { mkdirSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface Embedded { url: string; stop(): Promise<void> }

export function embeddedPaths(dataDir: string) {
  const dir = join(dataDir, 'pg');
  return { dir, data: join(dir, 'data'), socketDir: dir, socket: join(dir, '.s.PGSQL.5432') };
}

/** true when another process serves the embedded database of this data dir. */
export function embeddedInUse(dataDir: string): Promise<boolean> {
  const { socket } = embeddedPaths(dataDir);
  if (!existsSync(socket)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const s = connect(socket);
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

export async function startEmbedded(dataDir: string): Promise<Embedded> {
  const paths = embeddedPaths(dataDir);
  if (await embeddedInUse(dataDir)) {
    throw new Error(`the embedded database in ${paths.dir} is in use by another Dockwright process; stop it first, or set DATABASE_URL`);
  }
  mkdirSync(paths.data, { recursive: true });
  rmSync(paths.socket, { force: true }); // left behind by a crash
  const db = await PGlite.create(paths.data);
  const server = new PGLiteSocketServer({ db, path: paths.socket });
  await server.start();
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(paths.socketDir)}`,
    async stop() {
      await server.stop();
      await db.close();
      rmSync(paths.socket, { force: true });
    },
  };
}
