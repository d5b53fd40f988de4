// Pushing the edge's configuration to Caddy: the document built from the store, one push at a time, changes stored and pushed in one transaction, and what the running Caddy already has.
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { problem, type ContextWith, type Db } from '../../sdk/index.ts';
import { AdminError, adminCall, currentAdmin, load, type AdminEndpoint } from './admin.ts';
import { afterDeathHoldMs, buildConfig } from './caddy-config.ts';
import type { EdgeOptions, RedirectOptions } from './options.ts';
import { normalizeHostname } from './hostnames.ts';
import type { EdgeNetwork, Upstreams } from './network.ts';
import type { EdgeStore } from './store.ts';

export interface PusherParts {
  ctx: ContextWith<'db' | 'locks'>;
  o: EdgeOptions;
  store: EdgeStore;
  network: EdgeNetwork;
  endpoint: AdminEndpoint;
  /** Caddy is run by someone else: its admin endpoint is configured */
  external: boolean;
  /** the plugin's data folder and Caddy's home within it */
  dir: string;
  caddyDir: string;
  challengeDir: string;
  redirectOptions: RedirectOptions;
  /** this instance runs the edge and Caddy may answer */
  ready(): boolean;
}

// read at every push: a setting changed at run time applies with the next document
const redirectOf = (now: ReturnType<RedirectOptions>) => ({
  enabled: now.httpsRedirect, except: now.httpsRedirectExcept.map((h) => normalizeHostname(h)).flatMap((n) => (n.ok ? [n.hostname] : [])),
});

export class EdgePusher {
  /** what an external Caddy answered last */
  externalState: { ok: boolean; reason: string | null } = { ok: false, reason: 'not contacted yet' };
  lastApplied: string | null = null;
  /** configurations Caddy took from this instance (its reloads) */
  pushes = 0;
  /** what the last start or adoption found: the running Caddy already had the stored configuration, or was given the difference */
  reconciled: 'unchanged' | 'updated' | null = null;
  private pushed: { generation: number; text: string } | null = null;
  private debounce: NodeJS.Timeout | null = null;
  /** no push of moved containers before this moment: a routed container died, and the requests trying its address move on first */
  private holdUntil = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly p: PusherParts) {}

  /** resolves once the pushes under way are done */
  get idle(): Promise<unknown> {
    return this.chain;
  }

  /** one push at a time in this process, in order */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async documentOf(q: Db): Promise<string> {
    const { ctx, o, store, network, endpoint, dir, caddyDir } = this.p;
    const [routes, certificates, addresses] = await Promise.all([store.routes(q), store.certificates(q), network.addresses().catch((err) => {
      ctx.log.warn({ err }, 'the engine did not list the edge network: proxied routes answer 502 until it does');
      return new Map<string, Upstreams>();
    })]);
    // persisted: Caddy autosaves each document (0600, in its config dir) and `--resume` serves it after a host reboot, before or without Dockwright
    const admin = this.p.external ? await currentAdmin(endpoint, o.adminTimeoutMs) : { listen: endpoint.listen, config: { persist: true } };
    return JSON.stringify(buildConfig({
      admin, httpPort: o.httpPort, httpsPort: o.httpsPort, storageDir: join(caddyDir, 'storage'),
      accessLog: join(dir, 'logs', 'access.log'), caddyLog: join(dir, 'logs', 'caddy.log'),
      roll: { sizeMb: o.accessLog.rollSizeMb, keep: o.accessLog.rollKeep, keepDays: o.accessLog.rollKeepDays },
      challengeDir: this.p.challengeDir, routes, certificates, addresses,
      redirect: redirectOf(this.p.redirectOptions()),
    }));
  }

  /** builds from `q` (a transaction sees its own change) and loads it; throws AdminError when Caddy refuses */
  private async pushFrom(q: Db, generation: number, force: boolean): Promise<void> {
    const text = await this.documentOf(q);
    if (!force && this.pushed?.text === text) { this.pushed = { generation, text }; return; }
    await load(this.p.endpoint, text, this.p.o.adminTimeoutMs);
    this.pushed = { generation, text };
    this.lastApplied = new Date().toISOString();
    this.pushes++;
  }

  /** the stored configuration to Caddy (after a restart, a change elsewhere, moved containers); a refusal is recorded */
  readonly sync = (force = false): Promise<void> => this.serial(async () => {
    const { ctx, store, external } = this.p;
    const hold = this.holdUntil - Date.now();
    if (hold > 0) await new Promise((r) => setTimeout(r, hold));
    if (!this.p.ready()) return;
    const { generation, refused } = await store.state();
    try {
      await this.pushFrom(ctx.db, generation, force);
      // a refusal of a change stays reported until a later change is applied; one of a re-push until a push succeeds
      if (refused && generation >= refused.generation) await store.setRefused(null);
      if (external) this.externalState = { ok: true, reason: null };
    } catch (err) {
      if (err instanceof AdminError && err.status !== null) {
        if (refused?.error !== err.message) ctx.log.warn({ reason: err.message }, 'Caddy refused the edge configuration; it keeps the previous one');
        await store.setRefused({ at: new Date().toISOString(), error: err.message, generation });
      } else if (external) {
        this.externalState = { ok: false, reason: (err as Error).message };
      } else {
        throw err;
      }
    }
  });

  /** a change: stored and pushed in one transaction, so a refused document changes nothing */
  change(apply: (tx: Db) => Promise<void>): Promise<void> {
    return this.serial(async () => {
      const { ctx, store } = this.p;
      let refusal: { error: string; generation: number } | null = null;
      let applied = false;
      try {
        await ctx.db.tx(async (tx) => {
          const generation = await store.bump(tx);
          await apply(tx);
          if (!this.p.ready()) return;
          try {
            await this.pushFrom(tx, generation, false);
            applied = true;
          } catch (err) {
            if (!(err instanceof AdminError) || err.status === null) {
              // Caddy is away: the change stands and reaches it when it is back
              ctx.log.warn({ err }, 'the edge did not answer; the change is applied when it is back');
              return;
            }
            refusal = { error: err.message, generation };
            throw err;
          }
        });
      } catch (err) {
        if (!refusal) throw err;
        // recorded after the rollback: the state row is what the transaction held
        const { error, generation } = refusal;
        await store.setRefused({ at: new Date().toISOString(), error, generation });
        throw problem(502, `the edge refused the new configuration, so nothing changed (the previous one keeps running): ${error}`, { code: 'edge-refused' });
      }
      if (applied && (await store.state()).refused) await store.setRefused(null);
    });
  }

  /**
   * A Caddy found running (left by the previous start, or started from its autosaved configuration) is compared with
   * what the database says; only a difference is loaded, so an adoption with nothing to change reloads nothing.
   */
  readonly reconcile = async (): Promise<void> => {
    const same = await this.serial(async () => {
      const { generation } = await this.p.store.state();
      const text = await this.documentOf(this.p.ctx.db);
      const res = await adminCall(this.p.endpoint, 'GET', '/config/', undefined, this.p.o.adminTimeoutMs);
      if (res.status !== 200 || !isDeepStrictEqual(JSON.parse(res.text || 'null'), JSON.parse(text))) return false;
      this.pushed = { generation, text };
      return true;
    });
    if (!same) await this.sync(true);
    this.reconciled = same ? 'unchanged' : 'updated';
    this.p.ctx.log.info({ configuration: this.reconciled }, same ? 'the running Caddy has the stored configuration' : 'the running Caddy was given the stored configuration');
  };

  /** containers moved (`diedAtMs`: a routed one died then): one push soon, after the requests trying its address moved on */
  moved(diedAtMs: number | undefined, leading: boolean): void {
    if (diedAtMs) this.holdUntil = Math.max(this.holdUntil, diedAtMs + afterDeathHoldMs);
    // a burst of engine events (a deploy recreating several containers) becomes one push
    if (!leading || this.debounce) return;
    this.debounce = setTimeout(() => { this.debounce = null; void this.sync().catch(() => undefined); }, 30);
    this.debounce.unref();
  }
}
