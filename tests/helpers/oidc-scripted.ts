// A scripted OIDC provider on loopback (jose keys): its authorization endpoint answers at once, and the next ID token is made as a test says (another audience, key or nonce).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { newKey, type SigningKey } from './oidc-issuer.ts';

export interface Mint { aud?: string; key?: SigningKey; nonce?: string; sub?: string; amr?: string[]; groups?: string[] }
export interface ScriptedProvider {
  issuer: string;
  clientId: string;
  /** the key the JWKS publishes */
  key: SigningKey;
  /** how the next ID tokens are made: a test changes it */
  mint: Mint;
  /** the nonce of the last authorization request */
  lastNonce?: string;
  /** the PKCE method and whether state and challenge came, at the last authorization request */
  lastAuthorization?: { method: string | null; state: boolean; challenge: boolean };
  close(): Promise<void>;
}

export async function startScriptedProvider(): Promise<ScriptedProvider> {
  const p: ScriptedProvider = { issuer: '', clientId: 'dw-client', key: await newKey(), mint: {}, close: async () => undefined };
  const server = createServer(async (req, res) => {
    const { issuer } = p;
    const url = new URL(req.url!, issuer);
    const json = (body: unknown) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(body)); };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'], code_challenge_methods_supported: ['S256'] });
    }
    if (url.pathname === '/jwks') return json({ keys: [p.key.publicJwk] });
    if (url.pathname === '/authorize') {
      p.lastNonce = url.searchParams.get('nonce') ?? undefined;
      p.lastAuthorization = { method: url.searchParams.get('code_challenge_method'), state: !!url.searchParams.get('state'), challenge: !!url.searchParams.get('code_challenge') };
      res.statusCode = 302;
      res.setHeader('location', `${url.searchParams.get('redirect_uri')}?code=${randomUUID()}&state=${url.searchParams.get('state')}`);
      return res.end();
    }
    if (url.pathname === '/token') {
      for await (const _ of req) { /* the form: code, verifier, client credentials */ }
      const now = Math.floor(Date.now() / 1000);
      const { mint } = p;
      const signer = mint.key ?? p.key;
      const idToken = await new SignJWT({ nonce: mint.nonce ?? p.lastNonce, email: 'carol@example.com', email_verified: true, preferred_username: 'carol', groups: mint.groups ?? ['ops'], ...(mint.amr ? { amr: mint.amr } : {}) })
        .setProtectedHeader({ alg: 'RS256', kid: signer.kid }).setIssuer(issuer).setAudience(mint.aud ?? p.clientId).setSubject(mint.sub ?? 'carol-1')
        .setIssuedAt(now).setExpirationTime(now + 300).sign(signer.privateKey);
      return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  p.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return p;
}

const cookieOf = (res: Response, name: string) => /^([^=]+)=([^;]*)/.exec((res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))) ?? '')?.[2];

/** a browser's part of a sign-in, by hand: begin, the provider's redirect, the callback (with this browser's flow cookie unless told otherwise) */
export async function driveSignIn(base: string, provider: string, opts: { withoutFlowCookie?: boolean; extra?: string; cookie?: string } = {}) {
  const begin = await fetch(`${base}/auth/oidc/${provider}${opts.extra ?? ''}`, { redirect: 'manual', headers: opts.cookie ? { cookie: opts.cookie } : {} });
  if (begin.status !== 302) throw new Error(`begin: ${begin.status} ${await begin.text()}`);
  const flow = cookieOf(begin, 'dw_oidc');
  const atIdp = await fetch(begin.headers.get('location')!, { redirect: 'manual' });
  const callbackUrl = atIdp.headers.get('location')!;
  const back = await fetch(callbackUrl, { redirect: 'manual', headers: opts.withoutFlowCookie ? {} : { cookie: `dw_oidc=${flow}` } });
  if (back.status !== 302) throw new Error(`callback: ${back.status} ${await back.text()}`);
  return { location: back.headers.get('location')!, session: cookieOf(back, 'dw_session'), callbackUrl, flow };
}
