// An OIDC issuer's signing keys: discovery and JWKS fetched through the outbound policy, cached, refetched once (rate-limited) for an unknown key id.
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Dispatcher } from 'undici';
import type { OutboundApi } from '../../sdk/index.ts';

export interface IssuerKeysOptions {
  /** how long a fetched key set is used before it is fetched again */
  maxAgeMs: number;
  /** the least time between two fetches for one issuer (an unknown key id asks again only after this) */
  minRefetchMs: number;
  timeoutMs: number;
}
const defaults: IssuerKeysOptions = { maxAgeMs: 10 * 60_000, minRefetchMs: 10_000, timeoutMs: 5_000 };
const maxDocumentBytes = 256 * 1024;

/** why the keys of an issuer could not be had (the caller is told only that its token is invalid) */
export class IssuerUnreachable extends Error {}

interface Cached { keys: JSONWebKeySet; kids: Set<string>; local: JWTVerifyGetKey; fetchedAt: number }

/** an issuer may be served over http only on a loopback address (a local test issuer); anywhere else https */
export function issuerProblem(issuer: string): string | null {
  let url: URL;
  try { url = new URL(issuer); } catch { return 'is not a URL'; }
  if (url.username || url.password || url.search || url.hash) return 'must not carry credentials, a query or a fragment';
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return 'must be an https URL (http only on a loopback address)';
  return null;
}

export class IssuerKeys {
  private readonly cache = new Map<string, Cached>();
  private readonly pending = new Map<string, Promise<Cached>>();
  private readonly lastFetch = new Map<string, number>();
  private dispatcher: Dispatcher | undefined;
  private readonly options: IssuerKeysOptions;

  constructor(private readonly outbound: OutboundApi, options: Partial<IssuerKeysOptions> = {}) {
    this.options = { ...defaults, ...options };
  }

  /** a key resolver for jose's jwtVerify: cached keys, one rate-limited refetch when the token names a key id not among them */
  keyFor(issuer: string): JWTVerifyGetKey {
    return async (header, token) => {
      let set = await this.current(issuer);
      if (header.kid !== undefined && !set.kids.has(header.kid) && this.mayRefetch(issuer)) set = await this.load(issuer);
      return set.local(header, token);
    };
  }

  /** forgets an issuer's keys (a policy removed) */
  forget(issuer: string): void {
    this.cache.delete(issuer);
  }

  private async current(issuer: string): Promise<Cached> {
    const hit = this.cache.get(issuer);
    if (hit && Date.now() - hit.fetchedAt < this.options.maxAgeMs) return hit;
    if (hit && !this.mayRefetch(issuer)) return hit;
    return this.load(issuer);
  }

  private mayRefetch(issuer: string): boolean {
    return Date.now() - (this.lastFetch.get(issuer) ?? 0) >= this.options.minRefetchMs;
  }

  /** one fetch at a time per issuer: concurrent exchanges wait for the same answer */
  private load(issuer: string): Promise<Cached> {
    let running = this.pending.get(issuer);
    if (!running) {
      this.lastFetch.set(issuer, Date.now());
      running = this.fetchKeys(issuer).finally(() => this.pending.delete(issuer));
      this.pending.set(issuer, running);
    }
    return running;
  }

  private async fetchKeys(issuer: string): Promise<Cached> {
    const discovery = await this.getJson(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`) as { issuer?: unknown; jwks_uri?: unknown };
    if (discovery.issuer !== issuer) throw new IssuerUnreachable(`the discovery document names issuer ${String(discovery.issuer).slice(0, 200)}, not ${issuer}`);
    let jwksOrigin: string | null = null;
    try { jwksOrigin = typeof discovery.jwks_uri === 'string' ? new URL(discovery.jwks_uri).origin : null; } catch { jwksOrigin = null; }
    if (jwksOrigin === null || issuerProblem(jwksOrigin)) throw new IssuerUnreachable('the discovery document has no usable jwks_uri');
    const keys = await this.getJson(discovery.jwks_uri as string) as JSONWebKeySet;
    if (!Array.isArray(keys?.keys)) throw new IssuerUnreachable('the JWKS has no keys array');
    const cached: Cached = {
      keys, local: createLocalJWKSet(keys), fetchedAt: Date.now(),
      kids: new Set(keys.keys.map((k) => k.kid).filter((k): k is string => typeof k === 'string')),
    };
    this.cache.set(issuer, cached);
    return cached;
  }

  private async getJson(url: string): Promise<unknown> {
    const { request } = await import('undici');
    const { timeoutMs } = this.options;
    this.dispatcher ??= this.outbound.dispatcher({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, { method: 'GET', headers: { accept: 'application/json' }, dispatcher: this.dispatcher, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new IssuerUnreachable(`${url}: ${(err as Error).message}`);
    }
    if (answer.statusCode !== 200) {
      await answer.body.dump().catch(() => undefined);
      throw new IssuerUnreachable(`${url} answered ${answer.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body) {
      size += (chunk as Buffer).length;
      if (size > maxDocumentBytes) {
        answer.body.destroy();
        throw new IssuerUnreachable(`${url}: the document is larger than ${maxDocumentBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    try { return JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { throw new IssuerUnreachable(`${url}: not JSON`); }
  }
}
