// Replacing the changed containers of a service as deploy.update_config says: start-first (new beside old, ready, switched at the edge, old drained) or stop-first, in batches, with failure_action.
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { request } from 'node:http';
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { DeployIo, EdgeRouting, NormalizedService } from './types.ts';
import { reasonOf, statusOf } from './client.ts';
import { replacedName, startingName } from './labels.ts';
import { beforeStop } from './hooks.ts';
import { removeContainer } from './resources.ts';
import type { ContainerPlan } from './spec.ts';
import { plural, sleep } from './util.ts';

type Order = 'start-first' | 'stop-first';
type Route = NonNullable<ReturnType<EdgeRouting['routed']>>;

export interface RolloutDeps {
  docker: Dockerode;
  /** the default grace time of a stopping container (a service's stop_grace_period wins) */
  stopSeconds: number;
  routing: EdgeRouting | null;
  /** bounds each pre_stop hook of an old container */
  hookTimeoutMs: number;
  /** creates and starts a container as planned (the plan's name is the one it gets) */
  createAndStart(plan: ContainerPlan): Promise<string>;
  /** the stop-first replacement: the old container is set aside and stopped, the new one started; `keepOld` leaves the old one stopped and set aside instead of removing it */
  recreate(old: ContainerInfo, plan: ContainerPlan, stopSeconds: number, keepOld: boolean): Promise<string>;
}

/** one container of the service to replace: what runs now, and what should */
export interface Replacement { have: ContainerInfo; plan: ContainerPlan }

/** a replacement that completed: with failure_action rollback, the old container is kept (stopped, set aside) until the service is done */
interface Replaced { name: string; newId: string; oldId: string; order: Order }

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** how a service's changed containers are replaced, and why not start-first when it was asked for (or is the default) but cannot be */
export function orderOf(s: NormalizedService, routing: EdgeRouting | null): { order: Order; route: Route | null; note: string | null } {
  const route = routing?.routed(s) ?? null;
  const wanted = s.updateConfig.order ?? (route ? 'start-first' : 'stop-first');
  if (wanted === 'stop-first') return { order: wanted, route, note: null };
  const fixed = s.ports.filter((p) => p.published !== null).map((p) => p.published);
  const blockers = [
    fixed.length ? `its published host port${fixed.length === 1 ? '' : 's'} ${[...new Set(fixed)].join(', ')}` : null,
    s.containerName ? `its container_name ${s.containerName}` : null,
    s.networks.some((n) => n.ipv4Address) ? 'its fixed ipv4_address' : null,
  ].filter((b) => b !== null);
  if (!blockers.length) return { order: 'start-first', route, note: null };
  return { order: 'stop-first', route, note: `${s.name}: ${blockers.join(' and ')} cannot exist twice, so it is replaced stop-first instead of start-first` };
}

/**
 * Replaces `pairs` (containers of service `s`) in batches of update_config.parallelism with update_config.delay between
 * them; answers the ids of the containers that run the service afterwards. A failed replacement leaves the old container
 * serving; beyond max_failure_ratio, failure_action says whether the rollout stops (pause), goes on (continue) or puts
 * back what it replaced (rollback); the deploy fails either way.
 */
export async function replaceContainers(deps: RolloutDeps, project: string, s: NormalizedService, pairs: readonly Replacement[], io: DeployIo): Promise<string[]> {
  const cfg = s.updateConfig;
  const { order, route, note } = orderOf(s, deps.routing);
  if (note) io.log(note);
  if (order === 'start-first') io.log(`${s.name}: replacing ${plural(pairs.length, 'container')} start-first${route ? `; ready means ${readinessText(s, route)}` : ''}`);
  const per = cfg.parallelism === 0 ? pairs.length : cfg.parallelism;
  const keepOld = cfg.failureAction === 'rollback';
  const tolerated = Math.floor(cfg.maxFailureRatio * pairs.length);
  const ids: string[] = [];
  const replaced: Replaced[] = [];
  const failures: string[] = [];
  for (let i = 0; i < pairs.length; i += per) {
    if (i > 0 && cfg.delayMs) {
      io.log(`${s.name}: waiting ${seconds(cfg.delayMs)} before the next ${per === 1 ? 'replica' : 'replicas'} (update_config.delay)`);
      await sleep(cfg.delayMs, io.signal);
    }
    const batch = pairs.slice(i, i + per);
    const results = await Promise.allSettled(batch.map((p) => p.have.State === 'running' && order === 'start-first'
      ? startFirst(deps, project, s, route, p, keepOld, io)
      : deps.recreate(p.have, p.plan, graceOf(deps, s), keepOld).then((id) => { io.log(`${p.plan.name}: recreated and started`); return id; })));
    results.forEach((r, k) => {
      const { have, plan } = batch[k];
      if (r.status === 'fulfilled') {
        ids.push(r.value);
        replaced.push({ name: plan.name, newId: r.value, oldId: have.Id, order: have.State === 'running' ? order : 'stop-first' });
      } else {
        ids.push(have.Id);
        failures.push(reasonOf(r.reason));
      }
    });
    io.signal?.throwIfAborted();
    if (failures.length > tolerated && cfg.failureAction !== 'continue') break;
  }
  if (failures.length && failures.length <= tolerated) {
    io.log(`${s.name}: ${plural(failures.length, 'replacement')} failed, within update_config.max_failure_ratio ${cfg.maxFailureRatio}: ${failures.join('; ')}`);
  }
  if (failures.length > tolerated && cfg.failureAction === 'rollback' && replaced.length) {
    io.log(`${s.name}: rolling back the ${plural(replaced.length, 'container')} this deploy replaced (update_config.failure_action: rollback)`);
    for (const r of replaced.reverse()) {
      try {
        await rollBack(deps, project, s, route, r, io);
      } catch (err) {
        io.log(`${r.name}: could not be rolled back: ${reasonOf(err)}`);
      }
    }
  } else if (keepOld) {
    for (const r of replaced) await removeContainer({ docker: deps.docker, stopSeconds: 0 }, r.oldId, { volumes: true }).catch(() => undefined);
  }
  if (failures.length > tolerated) {
    const left = pairs.length - replaced.length - failures.length;
    throw new Error(`${failures.join('; ')}${left > 0 ? ` (${plural(left, 'container')} not replaced: update_config.failure_action ${cfg.failureAction})` : ''}`);
  }
  return ids;
}

const graceOf = (deps: RolloutDeps, s: NormalizedService) => s.stopGracePeriodSeconds ?? deps.stopSeconds;

function readinessText(s: NormalizedService, route: Route): string {
  const probe = route.readyPath ? `GET ${route.readyPath} on port ${route.port} answers 2xx or 3xx` : `port ${route.port} accepts connections`;
  return `${s.healthcheck && s.healthcheck.test[0] !== 'NONE' ? 'healthy' : `healthy if the image has a healthcheck, else ${probe}`}, within ${seconds(route.readyTimeoutMs)}`;
}

/**
 * Start-first for one container: the new one starts beside the old under a starting name (which the edge never routes),
 * becomes ready, then takes the service's name while the old one is set aside (which the edge stops routing to), the
 * edge is told, the old one drains and is stopped and removed. Until the switch, the old container is untouched.
 */
async function startFirst(deps: RolloutDeps, project: string, s: NormalizedService, route: Route | null, { have, plan }: Replacement, keepOld: boolean, io: DeployIo): Promise<string> {
  const { docker } = deps;
  const t0 = Date.now();
  const at = () => seconds(Date.now() - t0);
  const temp = startingName(plan.name, randomBytes(6).toString('hex'));
  io.log(`${plan.name}: configuration changed, starting the new container beside the old one as ${temp}`);
  const id = await deps.createAndStart({ ...plan, name: temp, create: { ...plan.create, name: temp } });
  io.log(`${plan.name}: started new (${at()})`);
  const timeoutMs = route?.readyTimeoutMs ?? 60_000;
  try {
    const how = await waitReady(docker, id, deps.routing?.network ?? null, route, timeoutMs, io.signal);
    io.log(`${plan.name}: ready after ${at()} (${how})`);
    await takeOver(deps, project, plan.name, id, have.Id, io);
    io.log(`${plan.name}: switched: the ${deps.routing && route ? 'edge routes new requests' : 'service name goes'} to the new container (${at()})`);
  } catch (err) {
    const why = reasonOf(err);
    if (!(err instanceof NotReady)) {
      await removeContainer({ docker, stopSeconds: 0 }, id, { volumes: true }).catch(() => undefined);
      throw new Error(`${plan.name}: the new container was removed, the old one keeps serving: ${why}`);
    }
    const logs = await lastLogLines(docker, id, 20);
    io.log(`${plan.name}: the new container did not become ready: ${why}`);
    io.log(logs ? `${plan.name}: its last log lines:\n${logs}` : `${plan.name}: it logged nothing`);
    await removeContainer({ docker, stopSeconds: 0 }, id, { volumes: true }).catch(() => undefined);
    io.log(`${plan.name}: removed the new container; the old one keeps serving`);
    throw new Error(`${plan.name}: the new container did not become ready, so the old one keeps serving: ${why}${withLines(logs)}`);
  }
  // the old container gets no new request now: the ones the edge has in flight to it finish (at most its
  // stop_grace_period, and at most the edge's drainMs), then it stops; the new one is watched for update_config.monitor meanwhile
  const grace = graceOf(deps, s);
  const boundMs = deps.routing && route ? Math.min(grace * 1000, deps.routing.drainMs) : 0;
  const failed = await Promise.all([
    s.updateConfig.monitorMs ? monitor(docker, id, s.updateConfig.monitorMs, s.updateConfig.monitorMs, io.signal) : null,
    boundMs && route ? drain(deps, have.Id, route.port, boundMs, io.signal).then((d) => io.log(`${plan.name}: drained the old container in ${seconds(d.ms)}: ${d.how} (${at()})`)) : null,
  ]).then(([reason]) => reason).catch(async (err) => {
    // a canceled deploy cuts the drain short: the new container serves, the old one must not linger beside it
    await removeContainer({ docker, stopSeconds: grace }, have.Id, { volumes: true }).catch(() => undefined);
    throw err;
  });
  if (failed) {
    io.log(`${plan.name}: the new container failed while monitored (${failed}): the old one takes over again`);
    await takeOver(deps, project, plan.name, have.Id, id, io);
    const logs = await lastLogLines(docker, id, 20);
    io.log(logs ? `${plan.name}: its last log lines:\n${logs}` : `${plan.name}: it logged nothing`);
    await removeContainer({ docker, stopSeconds: 0 }, id, { volumes: true }).catch(() => undefined);
    throw new Error(`${plan.name}: the new container failed within update_config.monitor (${failed}), so the old one serves again${withLines(logs)}`);
  }
  // drained, the old container runs its pre_stop hooks before it stops, as on any stop
  await beforeStop(docker, have, plan.name, io, deps.hookTimeoutMs);
  if (keepOld) {
    await stopIgnoringStopped(docker, have.Id, grace);
    io.log(`${plan.name}: stopped the old container, kept until the service is replaced (update_config.failure_action: rollback) (${at()})`);
  } else {
    await removeContainer({ docker, stopSeconds: grace }, have.Id, { volumes: true });
    io.log(`${plan.name}: removed old (${at()})`);
  }
  return id;
}

/** how often the edge's in-flight counts are read while an old container drains */
const drainPollMs = 50;

/**
 * Waits until the edge has no request in flight to the old container (its address on the edge network), at most
 * `boundMs`; without the edge's counts (another instance runs it), the whole bound, as before.
 */
async function drain(deps: RolloutDeps, oldId: string, port: number, boundMs: number, signal?: AbortSignal): Promise<{ ms: number; how: string }> {
  const start = Date.now();
  const routing = deps.routing!;
  const info = await deps.docker.getContainer(oldId).inspect().catch(() => null);
  const ip = info?.NetworkSettings.Networks?.[routing.network]?.IPAddress;
  const address = ip ? `${ip.includes(':') ? `[${ip}]` : ip}:${port}` : null;
  for (;;) {
    const counts = address && routing.inFlight ? await routing.inFlight().catch(() => null) : null;
    const elapsed = Date.now() - start;
    if (!counts) {
      await sleep(Math.max(0, boundMs - elapsed), signal);
      return { ms: Date.now() - start, how: 'the edge\'s in-flight counts are not readable here, so for the whole stop_grace_period (at most drainMs)' };
    }
    const n = counts.get(address!) ?? 0;
    if (n === 0) return { ms: elapsed, how: 'the edge has no request in flight to it' };
    if (elapsed >= boundMs) return { ms: elapsed, how: `${n} request(s) still in flight at the bound (stop_grace_period, at most drainMs)` };
    await sleep(Math.min(drainPollMs, boundMs - elapsed), signal);
  }
}

/** the last log lines of a new container that failed, after the reason of an error (on lines of their own) */
const withLines = (logs: string) => (logs ? `. Its last log lines:\n${logs}` : '');

/** `incoming` takes `name` and `outgoing` is set aside (the edge routes by these names), then the edge is told */
async function takeOver(deps: RolloutDeps, project: string, name: string, incoming: string, outgoing: string, io: DeployIo): Promise<void> {
  const { docker } = deps;
  await docker.getContainer(outgoing).rename({ name: replacedName(name, outgoing, true) });
  try {
    await docker.getContainer(incoming).rename({ name });
  } catch (err) {
    await docker.getContainer(outgoing).rename({ name }).catch(() => undefined);
    throw err;
  }
  if (!deps.routing) return;
  try {
    if (!await deps.routing.apply(project)) io.log(`${name}: another instance runs the edge; it follows the switch from the engine's events`);
  } catch (err) {
    io.log(`${name}: the edge did not confirm the switch (${reasonOf(err)}); it routes by the new names once it answers`);
  }
}

/** puts back the old container of a completed replacement (kept stopped and set aside) and removes the new one */
async function rollBack(deps: RolloutDeps, project: string, s: NormalizedService, route: Route | null, r: Replaced, io: DeployIo): Promise<void> {
  const { docker } = deps;
  const grace = graceOf(deps, s);
  if (r.order === 'start-first') {
    await docker.getContainer(r.oldId).start().catch((err) => { if (statusOf(err) !== 304) throw err; });
    await waitReady(docker, r.oldId, deps.routing?.network ?? null, route, route?.readyTimeoutMs ?? 60_000, io.signal);
    await takeOver(deps, project, r.name, r.oldId, r.newId, io);
    if (deps.routing && route) await drain(deps, r.newId, route.port, Math.min(grace * 1000, deps.routing.drainMs), io.signal);
  } else {
    await docker.getContainer(r.newId).rename({ name: replacedName(r.name, r.newId, true) });
    await stopIgnoringStopped(docker, r.newId, grace);
    await docker.getContainer(r.oldId).rename({ name: r.name });
    await docker.getContainer(r.oldId).start().catch((err) => { if (statusOf(err) !== 304) throw err; });
  }
  await removeContainer({ docker, stopSeconds: grace }, r.newId, { volumes: true });
  io.log(`${r.name}: rolled back to the old container`);
}

async function stopIgnoringStopped(docker: Dockerode, id: string, t: number): Promise<void> {
  try {
    await docker.getContainer(id).stop({ t });
  } catch (err) {
    if (statusOf(err) !== 304) throw err;
  }
}

/** a new container that stopped, turned unhealthy or never got ready in time: what it last said is worth showing */
class NotReady extends Error {}

/**
 * Ready: healthy when the container has a healthcheck (its own or its image's); else, for a service the edge routes,
 * its port answers on the edge network (an HTTP 2xx/3xx on the ready path, or a TCP connect); else running. Answers
 * how it got ready; throws NotReady with the last probe's output.
 */
async function waitReady(docker: Dockerode, id: string, network: string | null, route: Route | null, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const until = Date.now() + timeoutMs;
  let last = 'no probe answered yet';
  // the edge joins containers to its network as they are created; the switch must not wait for it to notice
  if (route && network) {
    await docker.getNetwork(network).connect({ Container: id }).catch((err) => { if (statusOf(err) !== 403 && !/already exists/.test(reasonOf(err))) throw err; });
  }
  for (;;) {
    const info = await docker.getContainer(id).inspect();
    if (!info.State.Running) throw new NotReady(`it stopped (exit code ${info.State.ExitCode}${info.State.Error ? `: ${info.State.Error}` : ''}); ${last}`);
    const health = info.State.Health;
    if (health) {
      const probe = health.Log?.at(-1);
      if (probe) last = `last health probe (exit code ${probe.ExitCode}): ${probe.Output.trim().slice(-500) || '(no output)'}`;
      if (health.Status === 'healthy') return 'healthy';
      if (health.Status === 'unhealthy') throw new NotReady(`it is unhealthy; ${last}`);
    } else if (route && network) {
      const ip = info.NetworkSettings.Networks?.[network]?.IPAddress;
      if (!ip) {
        last = `it has no address on the network ${network} yet`;
      } else {
        const answer = await probe(ip, route);
        if (answer.ok) return answer.text;
        last = `last probe: ${answer.text}`;
      }
    } else {
      return 'running (no healthcheck, not routed by the edge)';
    }
    if (Date.now() > until) throw new NotReady(`not ready within ${seconds(timeoutMs)}; ${last}`);
    await sleep(100, signal);
  }
}

function probe(ip: string, route: Route): Promise<{ ok: boolean; text: string }> {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  if (!route.readyPath) {
    return new Promise((resolve) => {
      const socket = connect({ host: ip, port: route.port, timeout: 1000 });
      socket.once('connect', () => { socket.destroy(); resolve({ ok: true, text: `port ${route.port} accepts connections` }); });
      socket.once('timeout', () => { socket.destroy(); resolve({ ok: false, text: `connecting to port ${route.port} timed out` }); });
      socket.once('error', (err) => resolve({ ok: false, text: `connecting to port ${route.port}: ${err.message}` }));
    });
  }
  return new Promise((resolve) => {
    const req = request({ host: ip, port: route.port, path: route.readyPath, headers: { host: `${host}:${route.port}` }, agent: false, timeout: 2000 }, (res) => {
      const status = res.statusCode ?? 0;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { if (body.length < 300) body += c; });
      res.on('end', () => resolve({ ok: status >= 200 && status < 400, text: `GET ${route.readyPath} answered ${status}${status >= 400 && body.trim() ? `: ${body.trim().slice(0, 300)}` : ''}` }));
      res.on('error', (err) => resolve({ ok: false, text: `GET ${route.readyPath}: ${err.message}` }));
    });
    req.once('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.once('error', (err) => resolve({ ok: false, text: `GET ${route.readyPath}: ${err.message}` }));
    req.end();
  });
}

/**
 * Watches a container that took over for `watchMs` (the old one's drain, or update_config.monitor if longer); answers why
 * it failed when it stopped, restarted or turned unhealthy within `monitorMs`, else null.
 */
async function monitor(docker: Dockerode, id: string, monitorMs: number, watchMs: number, signal?: AbortSignal): Promise<string | null> {
  const start = Date.now();
  const restarts = (await docker.getContainer(id).inspect()).RestartCount;
  while (Date.now() - start < watchMs) {
    await sleep(Math.min(250, watchMs - (Date.now() - start)), signal);
    if (Date.now() - start > monitorMs) continue;
    const info = await docker.getContainer(id).inspect();
    if (!info.State.Running) return `it stopped with exit code ${info.State.ExitCode}`;
    if (info.RestartCount !== restarts) return 'it restarted';
    if (info.State.Health?.Status === 'unhealthy') return 'it is unhealthy';
  }
  return null;
}

/** the last lines a container wrote (stdout and stderr, from the engine's multiplexed log stream) */
export async function lastLogLines(docker: Dockerode, id: string, n: number): Promise<string> {
  try {
    const raw = await docker.getContainer(id).logs({ stdout: true, stderr: true, tail: n, follow: false }) as unknown as Buffer;
    const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
    const parts: Buffer[] = [];
    let at = 0;
    // frames: [stream, 0, 0, 0, size (4 bytes, big endian)] then the payload; a TTY container's log is plain text
    if (buf.length >= 8 && buf[0] <= 2 && buf[1] === 0 && buf[2] === 0 && buf[3] === 0) {
      while (at + 8 <= buf.length) {
        const size = buf.readUInt32BE(at + 4);
        parts.push(buf.subarray(at + 8, at + 8 + size));
        at += 8 + size;
      }
    } else {
      parts.push(buf);
    }
    return Buffer.concat(parts).toString('utf8').trimEnd().split('\n').slice(-n).map((l) => `  ${l}`).join('\n');
  } catch (err) {
    return `  (its logs could not be read: ${reasonOf(err)})`;
  }
}
