// The edge controller: route and certificate changes (stored, then pushed as one document by pusher.ts), who runs Caddy, and its state for the API.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { problem, type HeldLock, type ContextWith } from '../../sdk/index.ts';
import { adminCall, parseAdminAddress, type AdminEndpoint } from './admin.ts';
import { certificateRow, validRoutes } from './checks.ts';
import type { EdgeNetwork } from './network.ts';
import { phrase, type Owners } from './owners.ts';
import { CaddyProcess } from './process.ts';
import { EdgePusher } from './pusher.ts';
import { ensureRequestMigration, type ReloadSafety } from './reloads.ts';
import type { EdgeStore } from './store.ts';
import type { EdgeOptions, RedirectOptions } from './options.ts';
import type { EdgeCertificate, EdgeRoute } from './types.ts';

export type EdgeState = 'running' | 'starting' | 'down' | 'unavailable' | 'standby' | 'stopped';

export function createEdge(ctx: ContextWith<'db' | 'locks'>, o: EdgeOptions, store: EdgeStore, owners: Owners, network: EdgeNetwork, redirectOptions: RedirectOptions = () => o) {
  const dir = ctx.dataDir;
  const challengeDir = join(dir, 'acme-challenge');
  const caddyDir = join(dir, 'caddy');
  const external = o.adminAddress !== undefined;
  const endpoint: AdminEndpoint = external ? parseAdminAddress(o.adminAddress!) : parseAdminAddress(`unix/${join(dir, 'admin.sock')}`);
  let lock: HeldLock | null = null;
  let proc: CaddyProcess | null = null;
  /** known for the Caddy we run; an external one's host is not ours to see */
  let reloads: ReloadSafety | null = null;
  let timers: NodeJS.Timeout[] = [];
  let stopped = false;

  // an external Caddy is always worth a try: its answer is how we learn it is back
  const ready = () => lock !== null && (external || proc?.state === 'running' || proc?.state === 'starting');
  const pusher = new EdgePusher({ ctx, o, store, network, endpoint, external, dir, caddyDir, challengeDir, redirectOptions, ready });
  const { sync } = pusher;

  async function setRoutes(owner: string, routes: readonly EdgeRoute[]): Promise<void> {
    if (!/^[a-z][a-z0-9-]*:\S+$/.test(owner)) throw new Error(`"${owner}" is not an owner (kind:name)`);
    const rows = validRoutes(routes);
    await pusher.change(async (tx) => {
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
      await pusher.change(async (tx) => { await store.dropCertificate(tx, name); });
      return null;
    }
    const row = certificateRow(name, pem);
    await pusher.change((tx) => store.putCertificate(tx, row));
    return { name, domains: row.domains, notAfter: row.notAfter };
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
        watchIntervalMs: o.watchIntervalMs, onReady: pusher.reconcile,
      });
      proc.start();
    }
  }

  /** the poll carries changes other instances made; the resync repairs what drifted (containers, an external Caddy that restarted) */
  function watch(): void {
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
    network.follow((diedAtMs) => pusher.moved(diedAtMs, lock !== null));
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
      watch();
      await lead();
    },
    async stop(): Promise<void> {
      stopped = true;
      for (const t of timers) { clearTimeout(t); clearInterval(t); }
      timers = [];
      network.stop();
      // Caddy outlives the service: the next start adopts it, and no request is dropped meanwhile
      proc?.release();
      await pusher.idle;
      await lock?.release();
      lock = null;
    },
    status: () => edgeStatus({ o, external, endpoint, stopped, leading: lock !== null, proc, pusher, reloads }),
  };
}
export type Edge = ReturnType<typeof createEdge>;

/** the edge's state for GET /edge, /readyz and the metrics */
function edgeStatus(s: {
  o: EdgeOptions; external: boolean; endpoint: AdminEndpoint; stopped: boolean; leading: boolean;
  proc: CaddyProcess | null; pusher: EdgePusher; reloads: ReloadSafety | null;
}) {
  const { o, external, proc, pusher } = s;
  const running = external ? pusher.externalState.ok : proc?.state === 'running';
  const state: EdgeState = s.stopped ? 'stopped' : !s.leading ? 'standby' : external ? (pusher.externalState.ok ? 'running' : 'down') : (proc?.state ?? 'starting') as EdgeState;
  const reason = !s.leading ? (s.stopped ? null : 'another instance runs the edge') : external ? pusher.externalState.reason : proc?.reason ?? null;
  return {
    mode: external ? 'external' as const : 'managed' as const,
    state, running: Boolean(running), reason,
    admin: s.endpoint.label,
    binary: external ? null : o.caddy,
    pid: proc?.pid ?? null,
    restarts: proc?.restarts ?? 0,
    startedAt: proc?.startedAt ?? null,
    adopted: proc?.adoptedAt ? { at: proc.adoptedAt, configuration: pusher.reconciled } : null,
    restartNeeded: proc?.restartNeeded() ?? null,
    lastApplied: pusher.lastApplied,
    pushes: pusher.pushes,
    ports: { http: o.httpPort, https: o.httpsPort },
    reloads: s.reloads,
  };
}
