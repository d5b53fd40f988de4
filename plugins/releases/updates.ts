// Update checks against the registries (no pulls), the update-available alerts, and applying updates with a watch that rolls a bad one back.
import type { JobRun, ContextWith } from '../../sdk/index.ts';
import type { AlertsApi } from '../alerts/api.ts';
import type { DockerRuntime, RegistryAuthProvider } from '../docker/api.ts';
import type { StacksApi } from '../stacks/api.ts';
import { lastLines, watchServices } from './monitor.ts';
import { withImages } from './pin.ts';
import { candidateTag, versionOf } from './policy.ts';
import { parseRef, pinned, withTag } from './refs.ts';
import { registryClient } from './registry.ts';
import { updatePins, type ReleaseNote, type Releases } from './releases.ts';
import type { ReleaseService, ReleaseStore, ServiceCheck } from './store.ts';

export const alertKinds = { available: 'update-available', rolledBack: 'update-rolled-back' } as const;

export function createUpdates(deps: {
  ctx: ContextWith<'outbound'>; runtime: DockerRuntime; stacks: () => StacksApi; alerts: AlertsApi; store: ReleaseStore; releases: Releases;
  auth: () => RegistryAuthProvider | null;
}) {
  const { ctx, runtime, store, alerts } = deps;
  const resource = (stack: string) => `stack:${stack}`;

  /** one service against its registry under its policy */
  async function checkService(client: ReturnType<typeof registryClient>, s: ReleaseService, alerted: string | null): Promise<ServiceCheck> {
    const ref = parseRef(s.image);
    const base: ServiceCheck = { service: s.service, image: s.image, policy: s.policy, tag: ref.tag, digest: s.digest, candidate: null, available: false, origin: s.origin, error: null, alerted };
    if (s.policy === 'none') return base;
    if (!ref.tag) return { ...base, error: 'its image is pinned by digest: there is no tag to follow' };
    try {
      let tag: string | null = ref.tag;
      if (s.policy !== 'digest') {
        tag = versionOf(ref.tag) ? candidateTag(s.policy, ref.tag, await client.tags(ref.registry, ref.repository)) : ref.tag;
      }
      const digest = await client.digest(ref.registry, ref.repository, tag!);
      if (!digest) return { ...base, error: `the registry ${ref.registry} has no tag ${tag} of ${ref.repository}` };
      const available = digest !== s.digest && (s.digest !== null || tag !== ref.tag);
      return { ...base, candidate: { tag: tag!, digest }, available, ...(s.policy !== 'digest' && !versionOf(ref.tag) ? { error: `the tag ${ref.tag} is no version: checked for a new digest of it` } : {}) };
    } catch (err) {
      return { ...base, error: (err as Error).message };
    }
  }

  /** asks the registries for every service of the stack's current release, in parallel; raises or resolves the alerts */
  async function check(stack: string, jobId: string | null, log: (line: string) => void): Promise<{ services: ServiceCheck[]; ms: number }> {
    const latest = await store.latest(stack);
    if (!latest) throw new Error(`stack ${stack} has no release yet: deploy it first`);
    const before = new Map((await store.check(stack))?.services.map((s) => [s.service, s]) ?? []);
    const started = performance.now();
    const client = registryClient(ctx.outbound, deps.auth());
    let services: ServiceCheck[];
    try {
      services = await Promise.all(latest.services.map((s) => checkService(client, s, before.get(s.service)?.alerted ?? null)));
    } finally {
      await client.close();
    }
    const ms = Math.round(performance.now() - started);
    for (const s of services) {
      log(`${s.service}: ${s.image}${s.digest ? ` at ${s.digest}` : ''} (policy ${s.policy}): ${s.error ? `${s.error}; ` : ''}${s.available ? `update available: ${s.candidate!.tag} at ${s.candidate!.digest}` : 'up to date'}`);
      if (s.available && s.alerted !== s.candidate!.digest) {
        await alerts.raise(alertKinds.available, { resource: resource(stack), subject: s.service, message: `${stack}/${s.service}: ${withTag(s.image, s.candidate!.tag)} (${s.candidate!.digest}) is available; it runs ${s.image}`, details: { candidate: s.candidate } });
        s.alerted = s.candidate!.digest;
      } else if (!s.available && s.alerted) {
        await alerts.resolve(alertKinds.available, { resource: resource(stack), subject: s.service });
        s.alerted = null;
      }
    }
    await store.putCheck(stack, jobId, services);
    log(`checked ${services.length} service${services.length === 1 ? '' : 's'} in ${ms} ms`);
    return { services, ms };
  }

  /** after a deploy: candidates now running are no longer available, and their alerts are resolved */
  async function deployed(stack: string, running: readonly ReleaseService[]): Promise<void> {
    const last = await store.check(stack);
    if (!last) return;
    let changed = false;
    for (const s of last.services) {
      const now = running.find((r) => r.service === s.service);
      if (!s.available || !now || !s.candidate || now.digest !== s.candidate.digest) continue;
      Object.assign(s, { available: false, image: now.image, tag: parseRef(now.image).tag, digest: now.digest, origin: now.origin });
      if (s.alerted) await alerts.resolve(alertKinds.available, { resource: resource(stack), subject: s.service });
      s.alerted = null;
      changed = true;
    }
    if (changed) await store.putCheck(stack, last.jobId, last.services, last.checkedAt);
  }

  /**
   * Deploys the available candidates (of `only`, when given) on top of the compose file, then watches the updated services
   * for their monitor window; a failed deploy or watch puts every service back on the previous release, by digest.
   */
  async function apply(job: JobRun<{ stack: string; services?: string[] }>): Promise<Record<string, unknown>> {
    const { stack, services: only } = job.input;
    const previous = await store.latest(stack);
    if (!previous) throw new Error(`stack ${stack} has no release yet: deploy it first`);
    const unknown = only?.filter((s) => !previous.services.some((p) => p.service === s)) ?? [];
    if (unknown.length) throw new Error(`stack ${stack} has no service ${unknown.join(', ')}`);
    const { services } = await check(stack, job.id, job.log);
    const chosen = services.filter((s) => s.available && (!only || only.includes(s.service)));
    if (!chosen.length) {
      job.log('no update available: nothing deployed');
      return { updated: [], release: previous.number };
    }
    const shown = Object.fromEntries(chosen.map((c) => [c.service, withTag(c.image, c.candidate!.tag)]));
    const pins = Object.fromEntries(chosen.map((c) => [c.service, pinned(shown[c.service], c.candidate!.digest)]));
    job.log(`updating ${chosen.map((c) => `${c.service} to ${shown[c.service]} (${c.candidate!.digest})`).join(', ')}`);
    const monitors = Object.fromEntries(chosen.map((c) => [c.service, previous.services.find((p) => p.service === c.service)!.monitorSeconds]));
    const composeImages = new Map<string, string>();
    const kept = { pins: {} as Record<string, string>, shown: {} as Record<string, string> };
    const existing = await store.updates(stack);
    let failure: { reason: string; container: string | null } | null = null;
    try {
      await deps.stacks().deployIn(job, {
        project: (prepared) => {
          for (const s of runtime.load(prepared).services) composeImages.set(s.name, s.image);
          Object.assign(kept, updatePins(existing, composeImages));
          return { ...prepared, compose: withImages(prepared.compose, { ...kept.pins, ...pins }, monitors) };
        },
        note: {
          kind: 'update', images: { ...kept.shown, ...shown },
          origins: Object.fromEntries([...Object.keys(kept.shown), ...Object.keys(shown)].map((s) => [s, 'update'])),
        } satisfies ReleaseNote,
      });
    } catch (err) {
      failure = { reason: `the update's deploy failed: ${(err as Error).message}`, container: null };
    }
    if (!failure) {
      const seconds = Math.max(...Object.values(monitors));
      job.log(`watching ${chosen.map((c) => c.service).join(', ')} until ${seconds} s after their new containers started`);
      failure = await watchServices(runtime, stack, chosen.map((c) => c.service), seconds, job.signal);
    }
    if (failure) {
      // a failed deploy's reason carries the new container's last log lines on lines of their own (the container is gone)
      const [first, ...logged] = failure.reason.split('\n');
      const reason = first.replace(/\. Its last log lines:$/, '');
      const lines = failure.container ? await lastLines(runtime, failure.container) : logged.map((l) => l.trim()).filter(Boolean);
      job.log(`${reason}: rolling every service back to release ${previous.number}`);
      await deps.releases.deployRelease(previous, job, { kind: 'rollback', rolledBackTo: previous.number }, { keepUpdates: true });
      await alerts.raise(alertKinds.rolledBack, {
        resource: resource(stack),
        message: `${stack}: the update to ${Object.values(shown).join(', ')} was rolled back to release ${previous.number}: ${reason}`,
      });
      throw new Error(`${reason}; every service of the update went back to release ${previous.number}${lines.length ? `. The new version's last log lines:\n${lines.join('\n')}` : ''}`);
    }
    await store.putUpdates(stack, job.id, chosen.map((c) => ({ service: c.service, composeImage: composeImages.get(c.service) ?? c.image, image: shown[c.service], digest: c.candidate!.digest })));
    const release = await store.latest(stack);
    return { updated: chosen.map((c) => ({ service: c.service, image: shown[c.service], digest: c.candidate!.digest })), release: release?.number ?? null };
  }

  return { check, deployed, apply };
}
export type Updates = ReturnType<typeof createUpdates>;
