// The docker plugin: the runtime provider (Engine API client, compose engine, live container table) other plugins require, its overview part and its start-up reconcile.
import { join } from 'node:path';
import { definePlugin, Type } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { accessGuards, edgeRoutings, gitContexts, imageUsers, registryAuths } from './api.ts';
import { createAddressPool } from './address-pool.ts';
import { engineOverview } from './overview.ts';
import { createClient, endpointOf } from './client.ts';
import { reconcile } from './reconcile.ts';
import { createRuntime, runtimeDefaults } from './runtime.ts';
import type { DockerRuntime, EdgeRouting } from './types.ts';
import { createWatch } from './watch.ts';
import { exitLines } from './exit-reason.ts';

export type * from './types.ts';

const Options = Type.Object({
  socketPath: Type.Optional(Type.String({ minLength: 1, description: 'the engine socket; default from DOCKER_HOST, else /var/run/docker.sock' })),
  host: Type.Optional(Type.String({ minLength: 1, description: 'tcp://host:port (or unix:///path) of the engine; wins over socketPath' })),
  timeoutMs: Type.Integer({ minimum: 100, default: runtimeDefaults.timeoutMs, description: 'bound of every Engine API call' }),
  pullTimeoutMs: Type.Integer({ minimum: 1000, default: runtimeDefaults.pullTimeoutMs, description: 'bound of one image pull or build' }),
  builder: Type.Union([Type.Literal('auto'), Type.Literal('buildkit'), Type.Literal('classic')], { default: runtimeDefaults.builder, description: 'which builder builds images: auto takes BuildKit where the engine has it (Linux, API 1.39 and later), else the classic builder' }),
  healthTimeoutMs: Type.Integer({ minimum: 100, default: runtimeDefaults.healthTimeoutMs, description: 'how long a deploy waits for a service_healthy dependency' }),
  stopTimeoutSeconds: Type.Integer({ minimum: 0, default: runtimeDefaults.stopTimeoutSeconds, description: 'grace time before a stopping container is killed' }),
  parallel: Type.Integer({ minimum: 1, maximum: 64, default: runtimeDefaults.parallel, description: 'containers created and started at the same time' }),
  reconcile: Type.Boolean({ default: true, description: 'put back at start what a crash left half-done (this installation\'s containers only); only one instance of an installation should run with this on' }),
  resyncIntervalMs: Type.Integer({ minimum: 100, default: 30_000, description: 'how often the live container table is listed afresh while the engine\'s events stream is followed' }),
  reconnectDelayMs: Type.Integer({ minimum: 10, default: 1000, description: 'first wait before following a broken events stream again (doubling up to 30 times this)' }),
  restartLoopCount: Type.Integer({ minimum: 2, default: 5, description: 'this many starts of one container within restartLoopWindowMs is reported as a restart loop (container.restarting)' }),
  restartLoopWindowMs: Type.Integer({ minimum: 1000, default: 300_000 }),
  steadyAfterMs: Type.Integer({ minimum: 100, default: 60_000, description: 'a container reported as restarting that then stays running this long is reported steady (container.steady: its restart-loop alert resolves)' }),
  refreshDelayMs: Type.Integer({ minimum: 0, default: 100, description: 'events are followed by one list call for the containers they touched, gathered this long' }),
  addressPool: Type.Object({
    range: Type.String({ default: '10.208.0.0/13', pattern: '^\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}$', description: 'the IPv4 range the bridge networks of stacks and previews take their subnets from; a subnet another network or a route of the host uses is skipped' }),
    prefix: Type.Integer({ minimum: 16, maximum: 29, default: 26, description: "the prefix length of a network's subnet (26: 64 addresses); a network with more containers gets a larger one" }),
    warnAtPercent: Type.Integer({ minimum: 1, maximum: 100, default: 80, description: 'the overview warns when the networks take this share of the range' }),
  }, { default: {}, additionalProperties: false, description: "Docker's default pools hold about 30 networks: Dockwright gives each network a small subnet of its own range instead" }),
}, { additionalProperties: false });

export default definePlugin({
  name: 'docker',
  version: '1.0.0',
  services: ['events', 'outbound'],
  extensionPoints: [accessGuards, registryAuths, edgeRoutings, gitContexts, imageUsers],
  env: ['DOCKER_HOST'],
  description: 'The Docker Engine runtime: API client, compose engine, engine health on the overview',
  options: Options,
  problems,
  setup(ctx): DockerRuntime {
    const o = ctx.options;
    const endpoint = endpointOf(o, ctx.env);
    const docker = createClient({ endpoint, timeoutMs: o.timeoutMs });
    // a container that exited is announced with its last log lines (masked); events keep their order while those are read
    let events = Promise.resolve();
    const announce = async (name: string, payload: Record<string, unknown>) => {
      ctx.events.emit(name, name === 'container.exited' ? { ...payload, lastLines: await exitLines(docker, String(payload.id)) } : payload);
    };
    const watch = createWatch({
      docker, log: ctx.log, resyncIntervalMs: o.resyncIntervalMs, reconnectDelayMs: o.reconnectDelayMs, refreshDelayMs: o.refreshDelayMs,
      emit: (name, payload) => { events = events.then(() => announce(name, payload)).catch((err) => ctx.log.error({ err, event: name }, 'announcing a container event failed')); }, installation: ctx.installationId,
      restartLoopCount: o.restartLoopCount, restartLoopWindowMs: o.restartLoopWindowMs, steadyAfterMs: o.steadyAfterMs,
    });
    let routing: EdgeRouting | null = null;
    const addresses = createAddressPool(docker, { range: o.addressPool.range, prefix: o.addressPool.prefix });
    const runtime = createRuntime({
      endpoint, docker, watch, installation: ctx.installationId, outbound: ctx.outbound, routing: () => routing,
      gitContexts: () => ctx.extensions.of(gitContexts)[0] ?? null,
      registryAuth: () => ctx.extensions.of(registryAuths)[0] ?? null,
      accessGuard: () => ctx.extensions.of(accessGuards)[0] ?? null,
      timeoutMs: o.timeoutMs, pullTimeoutMs: o.pullTimeoutMs, healthTimeoutMs: o.healthTimeoutMs, stopTimeoutSeconds: o.stopTimeoutSeconds, parallel: o.parallel,
      builder: o.builder, addresses,
      secretsDir: () => join(ctx.dataDir, 'secrets'),
    });
    // without the live table, the overview asks the engine: quickly even when it hangs, and at most every 2 s
    const probe = createClient({ endpoint, timeoutMs: Math.min(o.timeoutMs, 5000) });
    const { snapshot, contributor } = engineOverview({ probe, endpoint, watch, runtime, addresses, warnAtPercent: o.addressPool.warnAtPercent });
    ctx.overview.add(contributor);

    ctx.health.add(async () => {
      const { engine } = await snapshot();
      return engine.ok ? { ok: true, state: 'reachable', detail: `Docker ${engine.version} at ${endpoint}` } : { ok: false, state: 'unreachable', detail: engine.reason };
    });
    ctx.metrics.add({
      name: 'dockwright_containers', help: 'containers of this installation on the engine, by state (running, exited, …)', type: 'gauge',
      async collect() {
        const { list } = await snapshot();
        const byState = new Map<string, number>();
        for (const c of list) if (runtime.ownership(c.Labels).owner === 'this') byState.set(c.State, (byState.get(c.State) ?? 0) + 1);
        return [...byState].map(([state, value]) => ({ labels: { state }, value }));
      },
    });

    // taken in setup, before the job runner starts: what queued deploys create from now on is never "left over"
    // what the plugins that require docker plugged in is complete once all are set up (the runtime reads registry logins and the access guard when it uses them)
    ctx.onStart(() => {
      routing = ctx.extensions.of(edgeRoutings)[0] ?? null;
    });
    const bootedAt = Math.floor(Date.now() / 1000);
    let reconciling: Promise<void> | undefined;
    ctx.onStart(() => {
      // in the background: a slow or absent engine must not hold up (or fail) the boot
      reconciling = (async () => {
        const engine = await runtime.engine();
        if (!engine.ok) {
          ctx.log.warn({ endpoint, reason: engine.reason }, 'the Docker engine does not answer; container features answer 503 until it does');
          return;
        }
        ctx.log.info({ endpoint, version: engine.version }, 'Docker engine reachable');
        if (!o.reconcile) return;
        const report = await reconcile({ docker, installation: ctx.installationId, stopSeconds: o.stopTimeoutSeconds }, ctx.log, bootedAt);
        if (report.removed.length || report.restored.length) ctx.log.info(report, 'reconcile done');
      })().catch((err) => ctx.log.warn({ err }, 'reconcile failed'));
      watch.start();
    });
    ctx.onStop(async () => {
      await watch.stop();
      await reconciling;
    });
    // what changes containers waits for the reconcile, so the two never work on one project at once
    const afterReconcile = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
      await reconciling;
      return fn(...args);
    };
    return { ...runtime, deploy: afterReconcile(runtime.deploy), stop: afterReconcile(runtime.stop), remove: afterReconcile(runtime.remove) };
  },
});
