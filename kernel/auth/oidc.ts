// Portal sign-in with identity providers (OIDC, openid-client): code flow with PKCE, state and nonce, accounts linked by (issuer, subject), grants from groups.
import { createHash, randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import type { ActivityApi, Actor, Db, OutboundApi, Role } from '../../sdk/index.ts';
import type { SignedIn, Sessions } from './sessions.ts';
import { checkDomain, grantsOf, linkedAccount, SignInRefused, type OidcProvider } from './oidc-grants.ts';

export { SignInRefused };

export const flowCookie = 'dw_oidc';
const flowSeconds = 600;
/** the `amr` values that say the provider checked a second factor (RFC 8176) */
const mfaMethods = new Set(['mfa', 'otp', 'hwk', 'swk', 'fpt', 'face', 'iris', 'retina', 'vbm', 'sc']);

export interface OidcSettings { providers(): OidcProvider[]; enforceSso(): boolean; breakGlass(): string[] }

const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');
const isLoopback = (url: URL) => url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);

export class OidcSignIn {
  private readonly configs = new Map<string, { key: string; config: Promise<client.Configuration> }>();

  constructor(private readonly db: Db, private readonly settings: OidcSettings, private readonly outbound: OutboundApi,
    private readonly sessions: Sessions, private readonly activity: ActivityApi, private readonly requireTotp: () => boolean) {
    sessions.passwordRefused = (user) => this.passwordRefused(user);
  }

  providers(): OidcProvider[] {
    return this.settings.providers();
  }

  provider(name: string): OidcProvider | undefined {
    return this.settings.providers().find((p) => p.name === name);
  }

  /**
   * "Test this provider": its discovery document fetched now (through the outbound policy), and for the claims given
   * (an ID token's, say), the groups found and the role and teams a sign-in would get. Nothing is changed.
   */
  async dryRun(name: string, claims: Record<string, unknown> | undefined) {
    const provider = this.provider(name);
    if (!provider) throw new SignInRefused('unknown-provider', `no provider "${name}"`);
    this.configs.delete(name);
    const meta = (await this.config(provider)).serverMetadata();
    return {
      issuer: meta.issuer, authorizationEndpoint: meta.authorization_endpoint ?? null, tokenEndpoint: meta.token_endpoint ?? null, jwksUri: meta.jwks_uri ?? null,
      pkceS256: (meta.code_challenge_methods_supported ?? []).includes('S256'),
      ...(claims ? { grants: grantsOf(provider, claims) } : {}),
    };
  }

  /** enforced single sign-on: only the break-glass admins still sign in with a password */
  private passwordRefused(user: { name: string; role: Role }): string | null {
    if (!this.settings.enforceSso() || (user.role === 'admin' && this.settings.breakGlass().includes(user.name))) return null;
    return 'this installation signs in through its identity provider: use the "Sign in with …" button';
  }

  /** the provider's configuration from its discovery document, fetched through the outbound policy and kept until its settings change */
  config(provider: OidcProvider): Promise<client.Configuration> {
    const key = JSON.stringify(provider);
    const hit = this.configs.get(provider.name);
    if (hit?.key === key) return hit.config;
    const issuer = new URL(provider.issuer);
    const dispatcher = this.outbound.dispatcher({ connect: { timeout: 5000 }, headersTimeout: 5000, bodyTimeout: 5000 });
    const viaPolicy: client.CustomFetch = async (url, options) => {
      const { fetch } = await import('undici');
      return fetch(url, { ...options, dispatcher, redirect: 'manual' } as never) as unknown as Response;
    };
    const config = client.discovery(issuer, provider.clientId, undefined, client.ClientSecretPost(provider.clientSecret), {
      // the ID token's signature is checked against the provider's keys even though it came straight from the token endpoint
      [client.customFetch]: viaPolicy, execute: [client.enableNonRepudiationChecks, ...(isLoopback(issuer) && issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [])],
    }).then((c) => { c[client.customFetch] = viaPolicy; return c; });
    config.catch(() => this.configs.delete(provider.name));
    this.configs.set(provider.name, { key, config });
    return config;
  }

  /** the provider's authorization URL for a new sign-in (or a link to `linkUserId`), and the browser's flow cookie */
  async begin(name: string, baseUrl: string, linkUserId?: number): Promise<{ url: string; cookie: string }> {
    const provider = this.provider(name);
    if (!provider) throw new SignInRefused('unknown-provider', `no provider "${name}"`);
    const config = await this.config(provider);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const browser = randomBytes(24).toString('base64url');
    await this.db.query(`DELETE FROM oidc_flows WHERE expires_at < now()`);
    await this.db.query(`INSERT INTO oidc_flows (state, provider, verifier, nonce, browser, link_user_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
      [state, name, verifier, nonce, hashOf(browser), linkUserId ?? null, flowSeconds]);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callbackUrl(baseUrl, name), scope: 'openid email profile', state, nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    return { url: url.href, cookie: browser };
  }

  /** the callback: the flow of this browser, the code exchanged (ID token signature, iss, aud, exp, nonce checked), the account, a session */
  async finish(name: string, baseUrl: string, query: Record<string, string>, browser: string | undefined, address: string): Promise<SignedIn> {
    const actor: Actor = { kind: 'user', channel: 'portal', address };
    try {
      const signed = await this.signIn(name, baseUrl, query, browser, address);
      await this.activity.record({ actor: { ...actor, name: signed.user.name }, action: 'kernel.oidc.sign-in', resource: `user:${signed.user.name}`, result: 'ok', detail: signed.detail });
      return signed.session;
    } catch (err) {
      const refusal = err instanceof SignInRefused ? err : new SignInRefused('provider-error', (err as Error).message ?? String(err));
      await this.activity.record({ actor, action: 'kernel.oidc.sign-in', resource: null, result: 'refused', detail: { provider: name.slice(0, 40), code: refusal.code, reason: refusal.reason.slice(0, 500) } });
      throw refusal;
    }
  }

  private async signIn(name: string, baseUrl: string, query: Record<string, string>, browser: string | undefined, address: string) {
    const provider = this.provider(name);
    if (!provider) throw new SignInRefused('unknown-provider', `no provider "${name}"`);
    const state = typeof query.state === 'string' ? query.state : '';
    const { rows: [flow] } = await this.db.query<{ verifier: string; nonce: string; browser: string; link_user_id: number | null }>(
      'DELETE FROM oidc_flows WHERE state = $1 AND provider = $2 AND expires_at > now() RETURNING verifier, nonce, browser, link_user_id', [state, name]);
    if (!flow || !browser || hashOf(browser) !== flow.browser) throw new SignInRefused('flow-unknown', 'no sign-in under way in this browser for this state (expired, used, or begun elsewhere)');
    const current = new URL(callbackUrl(baseUrl, name));
    for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(await this.config(provider), current, { pkceCodeVerifier: flow.verifier, expectedState: state, expectedNonce: flow.nonce, idTokenExpected: true });
    } catch (err) {
      throw new SignInRefused('token-refused', describeError(err));
    }
    const claims = tokens.claims() as Record<string, unknown> & { iss: string; sub: string; nonce?: string; exp: number };
    const { rowCount: fresh } = await this.db.query(`INSERT INTO oidc_nonces (nonce, expires_at) VALUES ($1, to_timestamp($2) + interval '5 minutes') ON CONFLICT DO NOTHING`, [flow.nonce, claims.exp]);
    if (!fresh) throw new SignInRefused('nonce-replayed', 'this nonce was used by an earlier sign-in');
    checkDomain(provider, claims);
    const { user, detail } = await linkedAccount(this.db, provider, claims, flow.link_user_id);
    const mfa = Array.isArray(claims.amr) && claims.amr.some((m) => mfaMethods.has(String(m)));
    const { rows: [totp] } = await this.db.query<{ enrolled: boolean }>('SELECT totp_enrolled_at IS NOT NULL AS enrolled FROM users WHERE id = $1', [user.id]);
    if ((totp.enrolled || this.requireTotp()) && !mfa) throw new SignInRefused('mfa-required', 'this account signs in with a second factor, and the provider did not say (amr) that it checked one');
    const session = await this.sessions.open(user, address);
    return { session, user, detail: { provider: name, subject: claims.sub.slice(0, 200), mfa, ...detail } };
  }

}

/** an error of openid-client as the activity log says it: its message, and which claim or check (its cause) when it names one */
function describeError(err: unknown): string {
  const e = err as Error & { code?: string; cause?: unknown };
  const cause = e.cause && typeof e.cause === 'object' ? e.cause as Record<string, unknown> : {};
  const what = ['claim', 'code', 'reason'].filter((k) => typeof cause[k] === 'string').map((k) => `${k} ${String(cause[k]).slice(0, 100)}`);
  const inner = e.cause instanceof Error ? e.cause.message : '';
  return [`${e.name}: ${e.message}`, e.code, inner, what.join(', ')].filter(Boolean).join('; ');
}

export function callbackUrl(baseUrl: string, provider: string): string {
  return `${baseUrl.replace(/\/$/, '')}/auth/oidc/${encodeURIComponent(provider)}/callback`;
}
