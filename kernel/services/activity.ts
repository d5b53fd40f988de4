// The activity log: who did what to which resource, with what result — written for every write route and every job.
import type { ActivityApi, ActivityEntry, Db } from '../../sdk/index.ts';

export function createActivity(db: Db): ActivityApi {
  return {
    async record(entry: ActivityEntry, conn: Db = db) {
      await conn.query('INSERT INTO activity (actor, action, resource, result, detail) VALUES ($1, $2, $3, $4, $5)',
        [JSON.stringify(entry.actor), entry.action, entry.resource ?? null, entry.result, entry.detail ? JSON.stringify(entry.detail) : null]);
    },
  };
}
