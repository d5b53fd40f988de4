// The built-in alert kinds and the kernel events that raise and resolve them.
import type { EventsApi, JobsApi, Logger } from '../../sdk/index.ts';
import type { AlertEngine, AlertKind } from './engine.ts';

export const builtInAlertKinds: readonly AlertKind[] = [
  { kind: 'deploy-failed', severity: 'critical', description: 'a deploy of a stack failed (resolved by its next successful deploy)' },
  { kind: 'job-failed', severity: 'warning', description: 'a job failed whose failure no other alert reports' },
  { kind: 'backup-failed', severity: 'critical', description: 'a backup run failed (resolved by its next successful run)' },
  { kind: 'backup-missed', severity: 'warning', description: 'a scheduled backup did not run in its window (resolved by its next successful run)' },
  { kind: 'backup-verify-failed', severity: 'critical', description: 'a test restore of a backup\'s database dumps failed (resolved by its next good one)' },
  { kind: 'backup-unverified', severity: 'warning', description: 'no snapshot of a backup with database dumps was verified for the plugin\'s unverifiedAfterHours (resolved by a good verification)' },
  { kind: 'site-sync-failed', severity: 'critical', description: 'a site sync failed (resolved by its next successful sync)' },
  { kind: 'certificate-renewal-failed', severity: 'critical', description: 'renewing a certificate failed' },
  { kind: 'certificate-auto-failed', severity: 'critical', description: 'automatic HTTPS could not get a certificate for a routed hostname (resolved when it does, or the hostname goes)' },
  { kind: 'certificate-expiring', severity: 'warning', description: 'a certificate expires soon' },
  { kind: 'certificate-expired', severity: 'critical', description: 'a certificate has expired' },
  { kind: 'container-exited', severity: 'warning', description: 'a container of a stack exited unexpectedly (resolved when it runs again)' },
  { kind: 'container-unhealthy', severity: 'warning', description: 'a container of a stack is unhealthy (resolved when it is healthy)' },
  { kind: 'container-restart-loop', severity: 'critical', description: 'a container of a stack keeps restarting (resolved when it is healthy or runs steadily)' },
  { kind: 'engine-unreachable', severity: 'critical', description: 'the Docker engine cannot be reached (resolved when it can)' },
  { kind: 'disk-low', severity: 'warning', description: 'free space on DATA_DIR or the engine\'s data root is below the threshold' },
];

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** the error of a failed job (redacted by the job runner), once the job has ended: its failure event comes before the job's end */
async function jobError(jobs: Pick<JobsApi, 'wait'>, jobId: unknown): Promise<string | undefined> {
  if (typeof jobId !== 'string') return undefined;
  const job = await jobs.wait(jobId, 60_000).catch(() => null);
  return job?.error ? `reason: ${job.error.slice(0, 2000)}` : undefined;
}

/** the last lines a container wrote before it exited (masked by the docker plugin) */
const lastLines = (p: Record<string, unknown>) => (Array.isArray(p.lastLines) && p.lastLines.length
  ? `last log lines:\n${p.lastLines.map((l) => `  ${str(l)}`).join('\n')}` : undefined);

/** listens for the agreed events; `ignoredJobTypes` fail with an alert of their own (or are the alerts' own deliveries) */
export function listen(events: EventsApi, engine: AlertEngine, log: Logger, ignoredJobTypes: readonly string[], jobs: Pick<JobsApi, 'wait'>): void {
  const on = (name: string, fn: (p: Record<string, unknown>) => Promise<unknown>) =>
    events.on(name, (p) => fn(p).then(() => undefined, (err) => log.error({ err, event: name }, 'turning an event into an alert failed')));
  const resolveAll = async (kinds: string[], resource: string, subject?: string) => {
    for (const kind of kinds) await engine.resolve(kind, { resource, subject });
  };

  on('stack.deploy.failed', async (p) => engine.raise('deploy-failed', {
    resource: `stack:${str(p.stack)}`, message: `the deploy of stack ${str(p.stack)} failed`, details: { revision: p.revision, jobId: p.jobId, reason: await jobError(jobs, p.jobId) },
  }));
  on('stack.deployed', (p) => engine.resolve('deploy-failed', { resource: `stack:${str(p.stack)}` }));
  on('stack.removed', (p) => engine.resolve('deploy-failed', { resource: `stack:${str(p.stack)}` }));

  on('backup.failed', async (p) => engine.raise('backup-failed', { resource: `backup:${str(p.backup)}`, message: `backup ${str(p.backup)} failed`, details: { jobId: p.jobId, reason: await jobError(jobs, p.jobId) } }));
  on('backup.missed', (p) => engine.raise('backup-missed', { resource: `backup:${str(p.backup)}`, message: `backup ${str(p.backup)} missed its window (slot ${str(p.slot)})`, details: { slot: p.slot } }));
  on('backup.verify.failed', async (p) => engine.raise('backup-verify-failed', { resource: `backup:${str(p.backup)}`, message: `the verification of backup ${str(p.backup)} failed`, details: { jobId: p.jobId, reason: await jobError(jobs, p.jobId) } }));
  on('backup.unverified', (p) => engine.raise('backup-unverified', { resource: `backup:${str(p.backup)}`, message: `no snapshot of backup ${str(p.backup)} was verified for ${str(p.hours)} h${p.verifiedAt ? ` (last: ${str(p.verifiedAt)})` : ''}`, details: { verifiedAt: p.verifiedAt } }));
  on('backup.verified', (p) => resolveAll(['backup-verify-failed', 'backup-unverified'], `backup:${str(p.backup)}`));
  on('backup.succeeded', (p) => resolveAll(['backup-failed', 'backup-missed'], `backup:${str(p.backup)}`));

  on('site.sync.failed', (p) => engine.raise('site-sync-failed', {
    resource: `site:${str(p.site)}`, message: `the sync of site ${str(p.site)} failed${p.error ? `: ${str(p.error)}` : ''}`, details: { jobId: p.jobId },
  }));
  on('site.synced', (p) => engine.resolve('site-sync-failed', { resource: `site:${str(p.site)}` }));

  const cert = (p: Record<string, unknown>) => `certificate:${str(p.certificate)}`;
  on('certificate.renewal.failed', (p) => engine.raise('certificate-renewal-failed', { resource: cert(p), message: `renewing certificate ${str(p.certificate)} failed${p.error ? `: ${str(p.error)}` : ''}` }));
  on('certificate.expiring', (p) => engine.raise('certificate-expiring', { resource: cert(p), message: `certificate ${str(p.certificate)} expires at ${str(p.notAfter)}`, details: { notAfter: p.notAfter } }));
  on('certificate.expired', async (p) => {
    await engine.resolve('certificate-expiring', { resource: cert(p) });
    await engine.raise('certificate-expired', { resource: cert(p), message: `certificate ${str(p.certificate)} expired at ${str(p.notAfter)}`, details: { notAfter: p.notAfter } });
  });
  on('certificate.auto.failed', (p) => engine.raise('certificate-auto-failed', {
    resource: cert(p), message: `automatic HTTPS for ${str(p.hostname)} failed: ${str(p.error).slice(0, 1000)}`, details: { hostname: p.hostname },
  }));
  for (const name of ['certificate.issued', 'certificate.removed']) on(name, (p) => resolveAll(['certificate-auto-failed'], cert(p)));
  for (const name of ['certificate.renewed', 'certificate.valid']) {
    on(name, (p) => resolveAll(['certificate-renewal-failed', 'certificate-expiring', 'certificate-expired'], cert(p)));
  }

  on('job.failed', async (p) => {
    const type = str(p.type);
    if (ignoredJobTypes.some((t) => (t.endsWith('.*') ? type.startsWith(t.slice(0, -1)) : type === t))) return;
    const resource = typeof p.resource === 'string' ? p.resource : null;
    await engine.raise('job-failed', {
      resource, subject: type, message: `a ${type} job${resource ? ` of ${resource}` : ''} failed${p.error ? `: ${str(p.error).slice(0, 300)}` : ''}`, details: { jobId: p.jobId },
    });
  });

  // containers of stacks only: what Dockwright does not manage is not its alert
  const container = (p: Record<string, unknown>) => (p.stack ? { resource: `stack:${str(p.stack)}`, subject: str(p.service) || str(p.container) } : null);
  const named = (p: Record<string, unknown>) => `container ${str(p.container) || str(p.service)} of stack ${str(p.stack)}`;
  on('container.exited', async (p) => {
    const c = container(p);
    if (c) await engine.raise('container-exited', { ...c, message: `${named(p)} exited unexpectedly${p.exitCode !== undefined ? ` (exit code ${str(p.exitCode)})` : ''}`, details: { exitCode: p.exitCode, reason: lastLines(p) } });
  });
  on('container.unhealthy', async (p) => {
    const c = container(p);
    if (c) await engine.raise('container-unhealthy', { ...c, message: `${named(p)} is unhealthy` });
  });
  on('container.restarting', async (p) => {
    const c = container(p);
    if (c) await engine.raise('container-restart-loop', { ...c, message: `${named(p)} keeps restarting${p.restarts ? ` (${str(p.restarts)} starts in a short time)` : ''}` });
  });
  on('container.started', async (p) => {
    const c = container(p);
    if (c) await engine.resolve('container-exited', c);
  });
  on('container.healthy', async (p) => {
    const c = container(p);
    if (c) for (const kind of ['container-unhealthy', 'container-restart-loop', 'container-exited']) await engine.resolve(kind, c);
  });
  on('container.steady', async (p) => {
    const c = container(p);
    if (c) await engine.resolve('container-restart-loop', c);
  });

  on('engine.unreachable', (p) => engine.raise('engine-unreachable', { resource: 'engine', message: `the Docker engine cannot be reached${p.error ? `: ${str(p.error)}` : ''}` }));
  on('engine.reachable', () => engine.resolve('engine-unreachable', { resource: 'engine' }));
}
