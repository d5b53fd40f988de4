// The edge controller: route and certificate changes (stored, then pushed as one document), who runs Caddy, and its state for the API.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { problem, type Db, type HeldLock, type ContextWith } from '../../sdk/index.ts';
import { isDeepStrictEqual } from 'node:util';
import { AdminError, adminCall, currentAdmin, load, parseAdminAddress, type AdminEndpoint } from './admin.ts';
import { afterDeathHoldMs, buildConfig } from './caddy-config.ts';
import { normalizeHostname, normalizePath } from './hostnames.ts';
import type { EdgeNetwork, Upstreams } from './network.ts';
import { phrase, type Owners } from './owners.ts';
import { validHash } from './passwords.ts';
import { CaddyProcess } from './process.ts';
import { ensureRequestMigration, type ReloadSafety } from './reloads.ts';
import type { EdgeStore, RouteRow } from './store.ts';
import type { EdgeCertificate, EdgeRoute } from './types.ts';

export interface EdgeOptions {
  httpPort: number;
  httpsPort: number;
  caddy: string;
  adminAddress?: string;
  accessLog: { rollSizeMb: number; rollKeep: number; rollKeepDays: number };
  restartDelayMs: number;
  restartMaxDelayMs: number;
  stableAfterMs: number;
  startTimeoutMs: number;
  adminTimeoutMs: number;
  watchIntervalMs: number;
  pollIntervalMs: number;
  resyncIntervalMs: number;
  leaderRetryMs: number;
  migrateQueuedConnections: boolean;
  drainMs: number;
  httpsRedirect: boolean;
  httpsRedirectExcept: string[];
}

export type EdgeState = 'running' | 'starting' | 'down' | 'unavailable' | 'standby' | 'stopped';

/** the redirect options as they are now (live settings): read at every push */
export type RedirectOptions = () => Pick<EdgeOptions, 'httpsRedirect' | 'httpsRedirectExcept'>;

export function createEdge(ctx: ContextWith<'db' | 'locks'>, o: EdgeOptions, store: EdgeStore, owners: Owners, network: EdgeNetwork, redirectOptions: RedirectOptions = () => o) {
  const dir = ctx.dataDir;
  const challengeDir = join(dir, 'acme-challenge');
  const caddyDir = join(dir, 'caddy');
  const external = o.adminAddress !== undefined;
  const endpoint: AdminEndpoint = external ? parseAdminAddress(o.adminAddress!) : parseAdminAddress(`unix/${join(dir, 'admin.sock')}`);
  let lock: HeldLock | null = null;
  let proc: CaddyProcess | null = null;
  let externalState: { ok: boolean; reason: string | null } = { ok: false, reason: 'not contacted yet' };
  /** known for the Caddy we run; an external one's host is not ours to see */
  let reloads: ReloadSafety | null = null;
  let pushed: { generation: number; text: string } | null = null;
  let lastApplied: string | null = null;
  /** configurations Caddy took from this instance (its reloads) */
  let pushes = 0;
  /** what the last start or adoption found: the running Caddy already had the stored configuration, or was given the difference */
  let reconciled: 'unchanged' | 'updated' | null = null;
  let timers: NodeJS.Timeout[] = [];
  let stopped = false;
  let debounce: NodeJS.Timeout | null = null;
  /** no push of moved containers before this moment: a routed container died, and the requests trying its address move on first */
  let holdUntil = 0;
  let chain: Promise<unknown> = Promise.resolve();
  /** one push at a time in this process, in order */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };

  // an external Caddy is always worth a try: its answer is how we learn it is back
  const ready = () => lock !== null && (external || proc?.state === 'running' || proc?.state === 'starting');

  // read at every push: a setting changed at run time applies with the next document
  const redirectOf = (now: ReturnType<RedirectOptions>) => ({
    enabled: now.httpsRedirect, except: now.httpsRedirectExcept.map((h) => normalizeHostname(h)).flatMap((n) => (n.ok ? [n.hostname] : [])),
  });

  async function documentOf(q: Db): Promise<string> {
    const [routes, certificates, addresses] = await Promise.all([store.routes(q), store.certificates(q), network.addresses().catch((err) => {
      ctx.log.warn({ err }, 'the engine did not list the edge network: proxied routes answer 502 until it does');
      return new Map<string, Upstreams>();
    })]);
    // persisted: Caddy autosaves each document (0600, in its config dir) and `--resume` serves it after a host reboot, before or without Dockwright
    const admin = external ? await currentAdmin(endpoint, o.adminTimeoutMs) : { listen: endpoint.listen, config: { persist: true } };
    return JSON.stringify(buildConfig({
      admin, httpPort: o.httpPort, httpsPort: o.httpsPort, storageDir: join(caddyDir, 'storage'),
      accessLog: join(dir, 'logs', 'access.log'), caddyLog: join(dir, 'logs', 'caddy.log'),
      roll: { sizeMb: o.accessLog.rollSizeMb, keep: o.accessLog.rollKeep, keepDays: o.accessLog.rollKeepDays },
      challengeDir, routes, certificates, addresses,
      redirect: redirectOf(redirectOptions()),
    }));
  }

  /** builds from `q` (a transaction sees its own change) and loads it; throws AdminError when Caddy refuses */
  async function pushFrom(q: Db, generation: number, force: boolean): Promise<void> {
    const text = await documentOf(q);
    if (!force && pushed?.text === text) { pushed = { generation, text }; return; }
    await load(endpoint, text, o.adminTimeoutMs);
    pushed = { generation, text };
    lastApplied = new Date().toISOString();
    pushes++;
  }

  /** the stored configuration to Caddy (after a restart, a change elsewhere, moved containers); a refusal is recorded */
  const sync = (force = false) => serial(async () => {
    const hold = holdUntil - Date.now();
    if (hold > 0) await new Promise((r) => setTimeout(r, hold));
    if (!ready()) return;
    const { generation, refused } = await store.state();
    try {
      await pushFrom(ctx.db, generation, force);
      // a refusal of a change stays reported until a later change is applied; one of a re-push until a push succeeds
      if (refused && generation >= refused.generation) await store.setRefused(null);
      if (external) externalState = { ok: true, reason: null };
    } catch (err) {
      if (err instanceof AdminError && err.status !== null) {
        if (refused?.error !== err.message) ctx.log.warn({ reason: err.message }, 'Caddy refused the edge configuration; it keeps the previous one');
        await store.setRefused({ at: new Date().toISOString(), error: err.message, generation });
      } else if (external) {
        externalState = { ok: false, reason: (err as Error).message };
      } else {
        throw err;
      }
    }
  });

  /** a change: stored and pushed in one transaction, so a refused document changes nothing */
  const change = (apply: (tx: Db) => Promise<void>) => serial(async () => {
    let refusal: { error: string; generation: number } | null = null;
    let applied = false;
    try {
      await ctx.db.tx(async (tx) => {
        const generation = await store.bump(tx);
        await apply(tx);
        if (!ready()) return;
        try {
          await pushFrom(tx, generation, false);
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

  /**
   * A Caddy found running (left by the previous start, or started from its autosaved configuration) is compared with
   * what the database says; only a difference is loaded, so an adoption with nothing to change reloads nothing.
   */
  async function reconcile(): Promise<void> {
    const same = await serial(async () => {
      const { generation } = await store.state();
      const text = await documentOf(ctx.db);
      const res = await adminCall(endpoint, 'GET', '/config/', undefined, o.adminTimeoutMs);
      if (res.status !== 200 || !isDeepStrictEqual(JSON.parse(res.text || 'null'), JSON.parse(text))) return false;
      pushed = { generation, text };
      return true;
    });
    if (!same) await sync(true);
    reconciled = same ? 'unchanged' : 'updated';
    ctx.log.info({ configuration: reconciled }, same ? 'the running Caddy has the stored configuration' : 'the running Caddy was given the stored configuration');
  }

  function validRoutes(routes: readonly EdgeRoute[]): Omit<RouteRow, 'owner'>[] {
    const errors: { path: string; message: string }[] = [];
    const rows: Omit<RouteRow, 'owner'>[] = [];
    const seen = new Set<string>();
    routes.forEach((r, i) => {
      const host = normalizeHostname(r.hostname);
      const path = normalizePath(r.path);
      if (!host.ok) errors.push({ path: `routes[${i}].hostname`, message: host.reason });
      if (!path.ok) errors.push({ path: `routes[${i}].path`, message: path.reason });
      if (!host.ok || !path.ok) return;
      const key = `${host.hostname}${path.path}`;
      if (seen.has(key)) errors.push({ path: `routes[${i}]`, message: `${key} is routed twice` });
      seen.add(key);
      if (r.kind === 'static') {
        if (typeof r.root !== 'string' || !isAbsolute(r.root) || r.root.includes('\0')) errors.push({ path: `routes[${i}].root`, message: 'the root must be an absolute directory' });
        else if (r.basicAuth !== undefined && (!/^[A-Za-z0-9._-]{1,64}$/.test(r.basicAuth?.username ?? '') || !validHash(r.basicAuth?.hash) || !/^[\x20-\x7e]{0,100}$/.test(r.basicAuth.realm ?? '') || /"/.test(r.basicAuth.realm ?? ''))) {
          errors.push({ path: `routes[${i}].basicAuth`, message: 'basic auth is a user name (letters, digits, ._-) and a hash from hashPassword' });
        } else rows.push({ hostname: host.hostname, path: path.path, kind: 'static', target: { root: r.root, ...(r.basicAuth ? { basicAuth: { username: r.basicAuth.username, hash: r.basicAuth.hash, ...(r.basicAuth.realm ? { realm: r.basicAuth.realm } : {}) } } : {}) } });
      } else if (r.kind === 'proxy') {
        const u = r.upstream;
        if (!u || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(u.project) || !/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(u.service) || !Number.isInteger(u.port) || u.port < 1 || u.port > 65535) {
          errors.push({ path: `routes[${i}].upstream`, message: 'the upstream is a project, a service and a port (1 to 65535)' });
        } else rows.push({ hostname: host.hostname, path: path.path, kind: 'proxy', target: { project: u.project, service: u.service, port: u.port } });
      } else errors.push({ path: `routes[${i}].kind`, message: 'a route is "proxy" or "static"' });
    });
    if (errors.length) throw problem(400, `invalid routes: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
    return rows;
  }

  async function setRoutes(owner: string, routes: readonly EdgeRoute[]): Promise<void> {
    if (!/^[a-z][a-z0-9-]*:\S+$/.test(owner)) throw new Error(`"${owner}" is not an owner (kind:name)`);
    const rows = validRoutes(routes);
    await change(async (tx) => {
      const taken = await owners.conflicts(owner, rows.map((r) => r.hostname), tx);
      if (taken.length) {
        // the plugins calling here tell their callers in their own words (EdgeApi.conflicts): this names every owner
        throw problem(409, taken.map((c) => phrase(c, true)).join('; '), { code: 'edge-hostname-taken', extra: { owners: Object.fromEntries(taken.map((c) => [c.hostname, c.owner])) } });
      }
      await store.replace(tx, owner, rows);
    });
  }

  async function setCertificate(name: string, pem: { certificate: string; key: string } | null): Promise<EdgeCertificate | null> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) throw problem(400, `"${name}" is not a certificate name`);
    if (pem === null) {
      await change(async (tx) => { await store.dropCertificate(tx, name); });
      return null;
    }
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(pem.certificate);
      if (!cert.checkPrivateKey(createPrivateKey(pem.key))) throw new Error('the key does not belong to the certificate');
    } catch (err) {
      throw problem(400, `the certificate or key is unusable: ${(err as Error).message}`);
    }
    const names = (cert.subjectAltName ?? '').split(', ').filter((e) => e.startsWith('DNS:')).map((e) => e.slice(4));
    const domains = [...new Set(names.map((d) => normalizeHostname(d, { wildcard: true })).filter((d) => d.ok).map((d) => (d as { hostname: string }).hostname))];
    if (!domains.length) throw problem(400, 'the certificate names no DNS hostname (subject alternative names)');
    const row = { name, domains, certificate: pem.certificate, key: pem.key, notAfter: new Date(cert.validTo).toISOString() };
    await change((tx) => store.putCertificate(tx, row));
    return { name, domains, notAfter: row.notAfter };
  }

  async function lead(): Promise<void> {
    if (stopped) return;
    const held = await ctx.locks.try('edge').catch((err) => { ctx.log.warn({ err }, 'could not ask for the edge lock'); return null; });
    if (!held) { const t = setTimeout(() => void lead(), o.leaderRetryMs); t.unref(); timers.push(t); return; }
    if (stopped) { await held.release(); return; }
    lock = held;
    ctx.log.info({ mode: external ? 'external' : 'managed', admin: endpoint.label }, 'this instance runs the edge');
    void held.lost.then(async () => {
      if (lock !== held || stopped) return;
      ctx.log.warn('lost the edge lock (database connection): handing the edge over');
      lock = null;
      await proc?.stop();
      proc = null;
      void lead();
    });
    await network.ensure().catch((err) => ctx.log.warn({ err }, 'the edge network could not be created yet; retrying with the next resync'));
    if (external) {
      await sync(true).catch(() => undefined);
    } else {
      reloads = ensureRequestMigration(o.migrateQueuedConnections);
      if (reloads.state === 'off') ctx.log.warn(reloads.note!);
      else if (reloads.note) ctx.log.info(reloads.note);
      proc = new CaddyProcess({
        binary: o.caddy, dir: caddyDir, endpoint, log: ctx.log,
        restartDelayMs: o.restartDelayMs, restartMaxDelayMs: o.restartMaxDelayMs, stableAfterMs: o.stableAfterMs, startTimeoutMs: o.startTimeoutMs,
        watchIntervalMs: o.watchIntervalMs, onReady: reconcile,
      });
      proc.start();
    }
  }

  return {
    challengeDir,
    /** Caddy's home and admin endpoint (the CLI's edge verbs); null for an external Caddy */
    home: external ? null : { dir: caddyDir, endpoint, binary: o.caddy },
    setRoutes,
    setCertificate,
    sync,
    /** pushes the routes as the containers are now when this instance runs the edge (true), else false */
    async apply(): Promise<boolean> {
      if (!ready()) return false;
      await sync();
      return true;
    },
    /**
     * The requests Caddy has in flight per upstream address (`ip:port`), from its admin API (/reverse_proxy/upstreams);
     * null when this instance does not run the edge or Caddy does not answer
     */
    async inFlight(): Promise<Map<string, number> | null> {
      if (!ready()) return null;
      const r = await adminCall(endpoint, 'GET', '/reverse_proxy/upstreams', undefined, o.adminTimeoutMs).catch(() => null);
      if (r?.status !== 200) return null;
      const list = JSON.parse(r.text) as { address: string; num_requests: number }[] | null;
      return new Map((list ?? []).map((u) => [u.address, u.num_requests]));
    },
    async start(): Promise<void> {
      for (const d of [challengeDir, join(caddyDir, 'config'), join(caddyDir, 'data'), join(dir, 'logs')]) mkdirSync(d, { recursive: true });
      // the poll carries changes other instances made; the resync repairs what drifted (containers, an external Caddy that restarted)
      let seen = -1;
      const poll = setInterval(() => {
        if (!lock) return;
        void store.state().then((s) => {
          if (s.generation === seen) return;
          seen = s.generation;
          return sync();
        }).catch(() => undefined);
      }, o.pollIntervalMs);
      const resync = setInterval(() => {
        if (!lock) return;
        void network.ensure().then(() => network.attachAll()).catch(() => undefined).then(() => sync(true)).catch(() => undefined);
      }, o.resyncIntervalMs);
      poll.unref();
      resync.unref();
      timers.push(poll, resync);
      network.follow((diedAtMs) => {
        if (diedAtMs) holdUntil = Math.max(holdUntil, diedAtMs + afterDeathHoldMs);
        if (lock) scheduleSync();
      });
      await lead();
    },
    async stop(): Promise<void> {
      stopped = true;
      for (const t of timers) { clearTimeout(t); clearInterval(t); }
      timers = [];
      network.stop();
      // Caddy outlives the service: the next start adopts it, and no request is dropped meanwhile
      proc?.release();
      await chain;
      await lock?.release();
      lock = null;
    },
    status() {
      const running = external ? externalState.ok : proc?.state === 'running';
      const state: EdgeState = stopped ? 'stopped' : !lock ? 'standby' : external ? (externalState.ok ? 'running' : 'down') : (proc?.state ?? 'starting') as EdgeState;
      const reason = !lock ? (stopped ? null : 'another instance runs the edge') : external ? externalState.reason : proc?.reason ?? null;
      return {
        mode: external ? 'external' as const : 'managed' as const,
        state, running: Boolean(running), reason,
        admin: endpoint.label,
        binary: external ? null : o.caddy,
        pid: proc?.pid ?? null,
        restarts: proc?.restarts ?? 0,
        startedAt: proc?.startedAt ?? null,
        adopted: proc?.adoptedAt ? { at: proc.adoptedAt, configuration: reconciled } : null,
        restartNeeded: proc?.restartNeeded() ?? null,
        lastApplied,
        pushes,
        ports: { http: o.httpPort, https: o.httpsPort },
        reloads,
      };
    },
  };

  function scheduleSync() {
    // a burst of engine events (a deploy recreating several containers) becomes one push
    if (debounce) return;
    debounce = setTimeout(() => { debounce = null; void sync().catch(() => undefined); }, 30);
    debounce.unref();
  }
}
export type Edge = ReturnType<typeof createEdge>;
