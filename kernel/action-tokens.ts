// Single-action tokens and shared secrets for webhooks: shown once, hash (or sealed secret) stored, rotate, revoke, cooldown.
import { timingSafeEqual } from 'node:crypto';
import type { ActionTokensApi, Db, SecretsApi } from '../sdk/index.ts';
import { hashToken, newSecretToken } from './auth/tokens.ts';

export const actionTokenPrefix = 'dwh_';

interface EnabledAsk { kind: string; resources: readonly string[]; resolve(found: Set<string>): void; reject(err: unknown): void }

export function createActionTokens(db: Db, secrets: SecretsApi): ActionTokensApi {
  async function upsert(kind: string, resource: string, hash: string | null, sealed: string | null): Promise<void> {
    await db.query(
      `INSERT INTO action_tokens (kind, resource, hash, sealed_secret) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, resource) DO UPDATE SET hash = EXCLUDED.hash, sealed_secret = EXCLUDED.sealed_secret, created_at = now()`,
      [kind, resource, hash, sealed]);
  }

  // the calls made in one tick share one query: a stack list asks for its deploy and its push webhooks together
  let asked: EnabledAsk[] | null = null;
  function answerEnabled(batch: EnabledAsk[]): void {
    const kinds = [...new Set(batch.map((a) => a.kind))];
    // the usual batch asks about one list of resources for several kinds: nothing to merge, nothing to filter
    const oneList = batch.every((a) => a.resources === batch[0].resources);
    const resources = oneList ? batch[0].resources : [...new Set(batch.flatMap((a) => a.resources))];
    db.query<{ kind: string; resource: string }>('SELECT kind, resource FROM action_tokens WHERE kind = ANY($1) AND resource = ANY($2)', [kinds, resources]).then(({ rows }) => {
      for (const a of batch) {
        const wanted = oneList ? null : new Set(a.resources);
        const found = new Set<string>();
        for (const r of rows) if (r.kind === a.kind && (!wanted || wanted.has(r.resource))) found.add(r.resource);
        a.resolve(found);
      }
    }, (err: unknown) => { for (const a of batch) a.reject(err); });
  }

  return {
    async issue(kind, resource) {
      const token = newSecretToken(actionTokenPrefix);
      await upsert(kind, resource, hashToken(token), null);
      return token;
    },

    async verify(kind, resource, token) {
      const { rows } = await db.query<{ hash: string | null }>('SELECT hash FROM action_tokens WHERE kind = $1 AND resource = $2', [kind, resource]);
      const stored = rows[0]?.hash;
      if (!stored) return false;
      return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(hashToken(token), 'hex'));
    },

    async revoke(kind, resource) {
      const { rowCount } = await db.query('DELETE FROM action_tokens WHERE kind = $1 AND resource = $2', [kind, resource]);
      return rowCount > 0;
    },

    enabled(kind, resources) {
      return new Promise((resolve, reject) => {
        if (!asked) {
          const batch: EnabledAsk[] = asked = [];
          queueMicrotask(() => { asked = null; answerEnabled(batch); });
        }
        asked.push({ kind, resources, resolve, reject });
      });
    },

    async take(kind, resource, windowSeconds) {
      const { rows } = await db.query<{ ok: boolean; retry: number | null }>(
        `WITH taken AS (
           UPDATE action_tokens SET last_taken_at = now()
            WHERE kind = $1 AND resource = $2 AND (last_taken_at IS NULL OR last_taken_at <= now() - make_interval(secs => $3))
           RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM taken) AS ok,
                (SELECT ceil(extract(epoch FROM last_taken_at + make_interval(secs => $3) - now()))::int
                   FROM action_tokens WHERE kind = $1 AND resource = $2) AS retry`,
        [kind, resource, windowSeconds]);
      return rows[0].ok ? { ok: true } : { ok: false, retryAfter: Math.max(1, rows[0].retry ?? windowSeconds) };
    },

    async issueSecret(kind, resource) {
      const secret = newSecretToken('dws_');
      await upsert(kind, resource, null, secrets.seal(secret));
      return secret;
    },

    async secret(kind, resource) {
      const { rows } = await db.query<{ sealed_secret: string | null }>('SELECT sealed_secret FROM action_tokens WHERE kind = $1 AND resource = $2', [kind, resource]);
      return rows[0]?.sealed_secret ? secrets.open(rows[0].sealed_secret) : null;
    },
  };
}
