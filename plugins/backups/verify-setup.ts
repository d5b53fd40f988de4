// The test restores' wiring: the verify job (one per backup at a time), its route, the sweep of what an interrupted one left, and the schedule that verifies and raises backup-unverified.
import { defineJob, Type, type Actor, type ContextWith, type KeyedLock, type Principal } from '../../sdk/index.ts';
import { runVerify, sweepVerifications, type VerifyDeps } from './db-verify.ts';
import { resourceOf } from './routes.ts';
import { hasDatabases, verifyRoutes } from './verify-routes.ts';

export interface VerificationOptions {
  verifyEveryHours: number;
  unverifiedAfterHours: number;
  verifyCheckMs: number;
}

export function setUpVerification(
  ctx: ContextWith<'events'>,
  deps: Omit<VerifyDeps, 'emit'> & { serial: KeyedLock; visible(principal: Principal, names: readonly string[], need: 'read' | 'act'): Promise<(name: string) => boolean> },
  o: VerificationOptions,
): void {
  const { store, verifications, serial, visible } = deps;
  const emit = (event: string, payload: Record<string, unknown>) => ctx.events.emit(event, payload);
  // beside (not during) the backup's runs and restores: they share its serial key
  const verifyJob = ctx.jobs.define(defineJob({
    type: 'backups.verify', input: Type.Object({ backup: Type.String(), scheduled: Type.Boolean() }),
    run: (job) => runVerify({ ...deps, emit }, job),
  }));
  const startVerify = (name: string, actor: Actor, scheduled = false) => serial(`verify:${name}`, async () => {
    const open = (await ctx.jobs.open(resourceOf(name))).find((j) => j.type === verifyJob.type);
    if (open) return open;
    return verifyJob.enqueue({ backup: name, scheduled }, { actor, resource: resourceOf(name), serialKey: resourceOf(name), attachToQueued: true });
  });
  for (const route of verifyRoutes({ store, visible, startVerify })) ctx.routes.add(route);
  // a job this installation does not know is another installation's on the same engine (its verification runs): left alone
  const stillRunning = async (id: string) => { const job = id ? await ctx.jobs.get(id) : null; return !job ? Boolean(id) : !job.done; };
  ctx.onStart(() => void sweepVerifications(deps.runtime, stillRunning)
    .then((n) => { if (n) ctx.log.warn({ removed: n }, 'removed what interrupted verifications left behind'); })
    .catch((err) => ctx.log.error({ err }, 'sweeping what interrupted verifications left behind failed')));
  ctx.schedule.every('verify', o.verifyCheckMs, async () => {
    const latest = await verifications.latest();
    const now = Date.now();
    for (const row of (await store.all()).filter((r) => r.initialized && hasDatabases(r.targets))) {
      const since = latest.get(row.name)?.getTime() ?? null;
      const age = now - (since ?? new Date(row.createdAt).getTime());
      if (o.unverifiedAfterHours > 0 && age > o.unverifiedAfterHours * 3_600_000) {
        emit('backup.unverified', { backup: row.name, verifiedAt: since === null ? null : new Date(since).toISOString(), hours: o.unverifiedAfterHours });
      }
      if (o.verifyEveryHours > 0 && (since === null || now - since > o.verifyEveryHours * 3_600_000)) await startVerify(row.name, { kind: 'system', name: 'schedule' }, true);
    }
  });
}
