// The edge plugin: one Caddy, run and configured by Dockwright through its admin API, serving sites and routing hostnames to stack services.
import { definePlugin, Type, type AttentionItem, type Principal } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { dockerPlugin, edgeNetworkName, edgeRoutings } from '../docker/api.ts';
import { platformRules, stackHooks, stacksPlugin } from '../stacks/api.ts';
import { createEdge } from './edge.ts';
import { covers, normalizeHostname } from './hostnames.ts';
import { edgeNetwork } from './network.ts';
import { createOwners } from './owners.ts';
import { edgeCommands } from './commands.ts';
import { hashPassword } from './passwords.ts';
import { declaredRoutes, edgeRules, followStacks, readinessOf, stackHostnames } from './stacks.ts';
import { createStore, type RouteRow } from './store.ts';
import type { EdgeApi } from './types.ts';

export type * from './types.ts';

// the network's name is the docker plugin's: the platform rules refuse it to stacks
export { edgeNetworkName };

const Ms = (d: number, description: string, minimum = 1) => Type.Integer({ minimum, default: d, description });
const Options = Type.Object({
  httpPort: Type.Integer({ minimum: 1, maximum: 65535, default: 80 }),
  httpsPort: Type.Integer({ minimum: 1, maximum: 65535, default: 443 }),
  caddy: Type.String({ minLength: 1, default: 'caddy', description: 'the Caddy binary Dockwright runs (Debian\'s caddy 2.6)' }),
  adminAddress: Type.Optional(Type.String({ minLength: 1, description: 'the admin API of an external Caddy (host:port or unix//path) instead of the one Dockwright runs' })),
  accessLog: Type.Object({
    rollSizeMb: Type.Integer({ minimum: 1, default: 10 }),
    rollKeep: Type.Integer({ minimum: 1, default: 10 }),
    rollKeepDays: Type.Integer({ minimum: 1, default: 30 }),
  }, { default: {} }),
  restartDelayMs: Ms(100, 'first restart delay after Caddy dies (doubling up to restartMaxDelayMs)'),
  restartMaxDelayMs: Ms(30_000, 'longest restart delay'),
  stableAfterMs: Ms(10_000, 'a run this long resets the restart backoff'),
  startTimeoutMs: Ms(10_000, 'how long a starting Caddy has to answer on its admin API'),
  adminTimeoutMs: Ms(10_000, 'bound of one admin API call'),
  watchIntervalMs: Ms(250, 'how often the service looks whether its Caddy still runs (it is no child of a service that adopted it)', 10),
  pollIntervalMs: Ms(1000, 'how often the running edge looks for changes other instances stored', 10),
  resyncIntervalMs: Ms(30_000, 'how often the whole configuration is pushed again and containers are checked', 10),
  leaderRetryMs: Ms(5000, 'how often a standby instance asks whether it may run the edge', 10),
  eventsRetryMs: Ms(2000, 'reconnect delay of the engine events stream', 10),
  drainMs: Type.Integer({ minimum: 0, default: 30_000, description: 'the longest an old container drains (gets no new request, finishes the ones it has) after a start-first deploy switched to its successor; its stop_grace_period when shorter' }),
  httpsRedirect: Type.Boolean({ default: true, description: 'plain HTTP of a hostname a certificate covers redirects (308) to HTTPS; false serves both (the ACME challenge path never redirects)' }),
  httpsRedirectExcept: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { default: [], description: 'hostnames whose plain HTTP is served, not redirected, although a certificate covers them' }),
  migrateQueuedConnections: Type.Boolean({ default: true, description: 'switch on net.ipv4.tcp_migrate_req (Linux 5.14+, needs root) when it is off, so that a reload of Caddy\'s configuration resets no connection waiting to be accepted' }),
}, { additionalProperties: false });

const View = Type.Object({
  mode: Type.Union([Type.Literal('managed'), Type.Literal('external')], { description: 'managed: Dockwright starts and watches Caddy, which outlives the service and is adopted by its next start; external: a Caddy of your own (adminAddress)' }),
  state: Type.String({ description: 'running, starting, down, unavailable (no caddy binary), standby (another instance runs the edge) or stopped' }),
  running: Type.Boolean(),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'what does not work, and what to do' }),
  admin: Type.String(),
  binary: Type.Union([Type.String(), Type.Null()]),
  pid: Type.Union([Type.Integer(), Type.Null()]),
  restarts: Type.Integer(),
  startedAt: Type.Union([Type.String(), Type.Null()], { description: 'when the running Caddy started' }),
  adopted: Type.Union([Type.Object({
    at: Type.String(),
    configuration: Type.Union([Type.Literal('unchanged'), Type.Literal('updated'), Type.Null()], { description: 'unchanged: it already ran the stored configuration; updated: it was given the difference; null: not compared yet' }),
  }), Type.Null()], { description: 'set when this start found Caddy running (left by the previous start, or started by systemd) and took it over instead of starting one' }),
  restartNeeded: Type.Union([Type.String(), Type.Null()], { description: 'what the running Caddy cannot take through its admin API (another binary, or one upgraded on disk), and how to apply it; ports and logs apply live' }),
  lastApplied: Type.Union([Type.String(), Type.Null()]),
  pushes: Type.Integer({ description: 'configurations this instance pushed to Caddy since it started' }),
  ports: Type.Object({ http: Type.Integer(), https: Type.Integer() }),
  reloads: Type.Union([Type.Object({
    state: Type.Union([Type.Literal('on'), Type.Literal('off'), Type.Literal('unsupported')], { description: 'on: a configuration reload hands queued connections to the new listener; off: it can reset a few; unsupported: the kernel has no such setting' }),
    note: Type.Union([Type.String(), Type.Null()]),
  }), Type.Null()], { description: 'whether reloads keep every connection (null for an external Caddy: set net.ipv4.tcp_migrate_req where it runs)' }),
  network: Type.String(),
  refused: Type.Union([Type.Object({ at: Type.String(), error: Type.String(), generation: Type.Integer() }), Type.Null()], { description: 'the last configuration Caddy refused (it kept the one before)' }),
  routes: Type.Array(Type.Object({
    owner: Type.String(), hostname: Type.String(), path: Type.String(), kind: Type.String(),
    target: Type.Record(Type.String(), Type.Unknown()), https: Type.Boolean(),
  })),
  hostnames: Type.Array(Type.Object({
    hostname: Type.String(), owner: Type.String(), claimedAt: Type.String(),
    certificate: Type.Union([Type.Object({ name: Type.String(), domains: Type.Array(Type.String()), notAfter: Type.String() }), Type.Null()]),
  })),
  certificates: Type.Array(Type.Object({ name: Type.String(), domains: Type.Array(Type.String()), notAfter: Type.String() })),
  refusedRoutes: Type.Array(Type.Object({ owner: Type.String(), message: Type.String(), at: Type.String() }), { description: 'routes an owner declared but did not get (a hostname another owner holds)' }),
});

// a route's password hash stays inside the edge: answers say only that a user is asked for
const shownTarget = (t: RouteRow['target']): Record<string, unknown> =>
  ('basicAuth' in t && t.basicAuth ? { ...t, basicAuth: { username: t.basicAuth.username } } : { ...t });

export default definePlugin({
  name: 'edge',
  version: '1.0.0',
  services: ['db', 'activity', 'secrets', 'events', 'locks'],
  description: 'The edge: one managed Caddy serving sites and routing hostnames to stack services, with Dockwright\'s certificates',
  requires: [dockerPlugin, stacksPlugin],
  options: Options,
  settings: {
    httpsRedirect: { label: 'Redirect plain HTTP to HTTPS (hostnames with a certificate)', group: 'Edge' },
    httpsRedirectExcept: { label: 'Hostnames served on plain HTTP although a certificate covers them', group: 'Edge' },
  },
  problems,
  setup(ctx): EdgeApi {
    const runtime = ctx.deps.docker;
    ctx.scopes.define({ 'edge:read': { description: 'read the edge: its state, routes, hostnames and certificates', role: 'admin' } });
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    const store = createStore(ctx.db, ctx.secrets);
    const network = edgeNetwork(runtime.docker, edgeNetworkName, ctx.log, ctx.options.eventsRetryMs);
    const owners = createOwners(ctx, store);
    const edge = createEdge(ctx, ctx.options, store, owners, network, () => ctx.settings.options());
    // a redirect setting changed on any instance: the instance running the edge pushes a new document (the others have no Caddy to tell)
    const redirectPaths = ['plugins.edge.options.httpsRedirect', 'plugins.edge.options.httpsRedirectExcept'];
    ctx.settings.onChange((changed) => {
      if (!changed.some((path) => redirectPaths.includes(path))) return;
      edge.sync().catch((err) => ctx.log.warn({ err }, 'the new redirect settings could not be pushed to Caddy yet: the next resync pushes them'));
    });
    ctx.health.add(async () => {
      const s = edge.status();
      return { ok: s.running || s.state === 'standby', state: s.state, ...(s.reason ? { detail: s.reason } : {}) };
    });
    ctx.metrics.add({ name: 'dockwright_edge_up', help: '1 while this instance runs the edge and Caddy answers, else 0', type: 'gauge', collect: () => [{ value: edge.status().running ? 1 : 0 }] });
    ctx.metrics.add({ name: 'dockwright_edge_reloads_total', help: 'configurations this instance pushed to Caddy (each a graceful reload)', type: 'counter', collect: () => [{ value: edge.status().pushes }] });
    for (const rule of edgeRules(owners)) ctx.extensions.add(platformRules, rule);
    ctx.extensions.add(stackHooks, stackHostnames(store, owners));
    /** a route change, then `edge.routes.changed` for this process's listeners (automatic HTTPS); other instances see it by polling */
    const setRoutes: EdgeApi['setRoutes'] = async (owner, routes) => {
      await edge.setRoutes(owner, routes);
      ctx.events.emit('edge.routes.changed', { owner });
    };
    followStacks(ctx, runtime.docker, store, setRoutes);
    ctx.extensions.add(edgeRoutings, {
      routed: readinessOf,
      network: edgeNetworkName,
      drainMs: ctx.options.drainMs,
      apply: () => edge.apply(),
      inFlight: () => edge.inFlight(),
    });

    ctx.routes.add({
      method: 'GET', path: '/edge', scopes: ['edge:read'], summary: 'The edge: its state, routes, hostnames with their certificate, and any refused configuration',
      response: View,
      async handler({ principal }: { principal: Principal }) {
        const [allRoutes, allHostnames, certificates, state, allRefused] = await Promise.all([store.routes(), store.hostnames(), store.certificateList(), store.state(), store.refusals()]);
        // an owner hidden from the caller (a stack's access list) is left out with its routes and hostnames
        const seen = await ctx.visibility.filter(principal, [...allRoutes, ...allHostnames, ...allRefused].map((x) => x.owner), 'read');
        const [routes, hostnames, refusedRoutes] = [allRoutes.filter((r) => seen(r.owner)), allHostnames.filter((h) => seen(h.owner)), allRefused.filter((r) => seen(r.owner))];
        const certOf = (h: string) => certificates.find((c) => c.domains.some((d) => covers(d, h))) ?? null;
        return {
          ...edge.status(), network: edgeNetworkName, refused: state.refused,
          routes: routes.map((r) => ({ ...r, target: shownTarget(r.target), https: certOf(r.hostname) !== null })),
          hostnames: hostnames.map((h) => ({ ...h, certificate: certOf(h.hostname) })),
          certificates, refusedRoutes,
        };
      },
    });

    // the addresses of a caller's stacks and sites, for links on their pages: any user, each owner as its kind's read scope
    // and access list allow (sites:read is the sites plugin's; owners of another kind need edge:read)
    const readScope = (owner: string) => ({ stack: 'stacks:read', site: 'sites:read' } as Record<string, string>)[owner.slice(0, owner.indexOf(':'))] ?? 'edge:read';
    ctx.routes.add({
      method: 'GET', path: '/edge/links', authenticated: true, optionalScopes: ['stacks:read', 'edge:read'],
      summary: "The addresses of the hostnames of the stacks and sites the caller may read, as links with the edge's port",
      description: "url is https when a certificate covers the hostname, and names the edge's port when it is not 80/443. routed: whether a route serves it now (a saved, undeployed stack's hostname is held, not routed).",
      response: Type.Array(Type.Object({ hostname: Type.String(), owner: Type.String(), url: Type.String(), https: Type.Boolean(), routed: Type.Boolean() })),
      async handler({ principal }: { principal: Principal }) {
        const [routes, hostnames, certificates] = await Promise.all([store.routes(), store.hostnames(), store.certificateList()]);
        const seen = await ctx.visibility.filter(principal, hostnames.map((h) => h.owner), 'read');
        const { httpPort, httpsPort } = ctx.options;
        return hostnames.filter((h) => seen(h.owner) && principal.can(readScope(h.owner))).map((h) => {
          const https = certificates.some((c) => c.domains.some((d) => covers(d, h.hostname)));
          const port = https ? (httpsPort === 443 ? '' : `:${httpsPort}`) : (httpPort === 80 ? '' : `:${httpPort}`);
          return { hostname: h.hostname, owner: h.owner, url: `${https ? 'https' : 'http'}://${h.hostname}${port}/`, https, routed: routes.some((r) => r.hostname === h.hostname) };
        });
      },
    });

    ctx.overview.add({
      scope: 'edge:read',
      async summary() {
        const s = edge.status();
        return { edge: { state: s.state, mode: s.mode, routes: (await store.routes()).length } };
      },
      async attention() {
        const s = edge.status();
        const items: AttentionItem[] = [];
        if (s.state === 'down' || s.state === 'unavailable') items.push({ severity: 'critical', kind: 'edge-down', resource: 'edge', message: `the edge does not serve any hostname: ${s.reason ?? s.state}` });
        if (s.reloads?.state === 'off') items.push({ severity: 'warning', kind: 'edge-reloads-reset', resource: 'edge', message: s.reloads.note! });
        const [{ refused }, refusals] = await Promise.all([store.state(), store.refusals()]);
        if (refused) items.push({ severity: 'critical', kind: 'edge-config-refused', resource: 'edge', message: `Caddy refused the edge configuration and keeps running the previous one: ${refused.error}`, since: refused.at });
        for (const r of refusals) items.push({ severity: 'warning', kind: 'edge-routes-refused', resource: r.owner, message: `${r.owner} is not routed: ${r.message}`, since: r.at });
        return items;
      },
    });

    ctx.onStart(() => edge.start());
    for (const command of edgeCommands(edge.home)) ctx.commands.add(command);
    ctx.onStop(() => edge.stop());

    return {
      setRoutes,
      setCertificate: edge.setCertificate,
      hashPassword,
      conflicts: async (owner, hostnames, viewer) => {
        const normalized = hostnames.map((h) => normalizeHostname(h)).flatMap((n) => (n.ok ? [n.hostname] : []));
        return owners.told(await owners.conflicts(owner, normalized), viewer);
      },
      reserveNamespace: owners.reserveNamespace,
      normalizeHostname,
      hostnames: async (viewer) => {
        const routed = await store.routedHostnames();
        if (!viewer) return routed;
        const owners = await store.owners(routed);
        const seen = await ctx.visibility.filter(viewer, [...owners.values()], 'read');
        return routed.filter((h) => seen(owners.get(h) ?? null));
      },
      claimedHostnames: async () => (await store.hostnames()).map((h) => h.hostname),
      covers,
      challengeDir: edge.challengeDir,
      network: edgeNetworkName,
      ports: { http: ctx.options.httpPort, https: ctx.options.httpsPort },
      routesOf: declaredRoutes,
    };
  },
});
