// Automatic HTTPS: a certificate for every hostname the edge routes that no requested or uploaded certificate covers, and none kept for a hostname nobody holds.
import type { Actor, Job, Logger } from '../../sdk/index.ts';
import type { EdgeApi } from '../edge/index.ts';
import { challengeRecord, type DnsProviders } from './dns.ts';
import type { CertificateRow, CertificateStore } from './store.ts';

export interface AutoDeps {
  store: CertificateStore;
  edge: EdgeApi;
  providers: DnsProviders;
  log: Logger;
  /** read at every pass: the options may change at run time */
  settings(): { enabled: boolean; challenge: 'http-01' | 'dns-01' };
  startIssue(name: string, actor: Actor): Promise<Job>;
  /** withdraws a removed certificate from the edge */
  withdraw(name: string): Promise<void>;
  emit(event: string, payload: Record<string, unknown>): void;
}

const actor: Actor = { kind: 'system', name: 'automatic-https' };
const held = (r: CertificateRow, now: Date) => r.chain !== null && r.notAfter !== null && Date.parse(r.notAfter) > now.getTime();

/** compares the routed hostnames with the certificates; one pass at a time, a change during a pass runs one more */
export class AutoHttps {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly deps: AutoDeps) {}

  /** a pass soon (a route changed): coalesced with one under way */
  trigger(): Promise<void> {
    if (this.running) { this.again = true; return this.running; }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass().catch((err) => this.deps.log.warn({ err }, 'automatic HTTPS: a pass failed (the next one tries again)'));
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async pass(): Promise<void> {
    const { store, edge } = this.deps;
    const settings = this.deps.settings();
    const [routed, claimed, rows] = await Promise.all([edge.hostnames(), edge.claimedHostnames(), store.summaries()]);
    const now = new Date();
    const others = rows.filter((r) => r.origin !== 'auto');
    const autos = new Map(rows.filter((r) => r.origin === 'auto').map((r) => [r.domains[0], r]));
    const coveredBy = (host: string, which: (r: CertificateRow) => boolean) => others.some((r) => which(r) && r.domains.some((d) => edge.covers(d, host)));

    // a requested or uploaded certificate that serves the hostname wins; a hostname no owner holds needs none
    const claimedSet = new Set(claimed);
    for (const [host, row] of autos) {
      if (claimedSet.has(host) && !coveredBy(host, (r) => held(r, now))) continue;
      if (await store.removeAuto(row.name)) {
        await this.deps.withdraw(row.name);
        this.deps.emit('certificate.removed', { certificate: row.name, hostname: host });
      }
    }
    if (!settings.enabled) return;
    for (const host of routed) {
      // one being requested (pending) is waited for rather than doubled
      if (coveredBy(host, (r) => held(r, now) || r.state === 'pending')) continue;
      const row = autos.get(host);
      if (!row) {
        const challenge = settings.challenge === 'dns-01' && this.deps.providers.for(challengeRecord(host)) ? 'dns-01' : 'http-01';
        if (await store.autoRequest(host, challenge)) await this.deps.startIssue(host, actor);
      } else if (row.chain === null && row.state === 'failed' && await store.autoRetry(row.name, now)) {
        await this.deps.startIssue(row.name, actor);
      }
    }
  }
}
