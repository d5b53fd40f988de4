// Single-action tokens and shared secrets for webhooks: shown once, hash (or sealed secret) stored, rotate, revoke, cooldown; which resources have one, kept in memory while changes are announced.
import { timingSafeEqual } from 'node:crypto';
import type { ActionTokensApi, Db, SecretsApi } from '../../sdk/index.ts';
import { hashToken, newSecretToken } from '../auth/tokens.ts';

export const actionTokenPrefix = 'dwh_';
/** the notification (on the token channel) that some resource's webhook was enabled or disabled */
export const actionTokensChanged = 'action-tokens';

interface EnabledAsk { kind: string; resources: readonly string[]; resolve(found: Set<string>): void; reject(err: unknown): void }

export interface ActionTokens extends ActionTokensApi {
  /** on: `enabled` answers from memory, which is safe only while changes reach this process (the token channel is up) */
  caching(on: boolean): void;
  /** another instance enabled or disabled a webhook */
  forget(): void;
}

/**
 * `channel`: where each change is announced, in the transaction that makes it, so that every instance's memory of which
 * resources have webhooks is dropped before anyone can see the change.
 */
export function createActionTokens(db: Db, secrets: SecretsApi, channel: string): ActionTokens {
  async function upsert(kind: string, resource: string, hash: string | null, sealed: string | null): Promise<void> {
    await db.query(
      `WITH written AS (
         INSERT INTO action_tokens (kind, resource, hash, sealed_secret) VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, resource) DO UPDATE SET hash = EXCLUDED.hash, sealed_secret = EXCLUDED.sealed_secret, created_at = now())
       SELECT pg_notify($5, $6)`,
      [kind, resource, hash, sealed, channel, actionTokensChanged]);
    forget();
  }

  // which resources of each kind have a token or secret: a few per stack or site, read whole once and kept while cachingOn;
  // a change drops the read (even one still on its way, which then answers only the calls already waiting for it)
  let cachingOn = false;
  let byKind: Promise<Map<string, Set<string>>> | null = null;
  function forget(): void {
    byKind = null;
  }
  function resourcesByKind(): Promise<Map<string, Set<string>>> {
    if (byKind) return byKind;
    const load = byKind = db.query<{ kind: string; resource: string }>('SELECT kind, resource FROM action_tokens').then(({ rows }) => {
      const kinds = new Map<string, Set<string>>();
      for (const r of rows) (kinds.get(r.kind) ?? kinds.set(r.kind, new Set()).get(r.kind)!).add(r.resource);
      return kinds;
    });
    load.catch(() => { if (byKind === load) byKind = null; });
    return load;
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
      const { rows } = await db.query<{ removed: number }>(
        `WITH removed AS (DELETE FROM action_tokens WHERE kind = $1 AND resource = $2 RETURNING 1)
         SELECT (SELECT count(*) FROM removed)::int AS removed, pg_notify($3, $4)`,
        [kind, resource, channel, actionTokensChanged]);
      forget();
      return rows[0].removed > 0;
    },

    caching(on) {
      cachingOn = on;
      forget();
    },

    forget,

    enabled(kind, resources) {
      if (cachingOn) {
        return resourcesByKind().then((kinds) => {
          const have = kinds.get(kind);
          return new Set(have ? resources.filter((r) => have.has(r)) : undefined);
        });
      }
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
