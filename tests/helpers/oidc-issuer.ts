// A local OIDC issuer for tests and benchmarks: jose keys, a discovery document and a JWKS on loopback, tokens signed as a CI system signs them.
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface SigningKey { kid: string; privateKey: CryptoKey; publicJwk: JWK }

export async function newKey(kid: string = randomUUID()): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export interface LocalIssuer {
  url: string;
  /** the keys the JWKS publishes now (replace to rotate) */
  published: SigningKey[];
  /** requests for the JWKS so far, and when the last came (ms since the epoch) */
  jwksFetches: number;
  lastJwksFetch: number;
  /** requests of any kind so far */
  requests: number;
  /** a token signed with `key` (default: the first published); claims override the defaults (sub, aud, exp in 5 min, a fresh jti) */
  sign(claims?: Record<string, unknown>, key?: SigningKey): Promise<string>;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<LocalIssuer> {
  let url = '';
  const issuer: LocalIssuer = {
    url: '', published: [await newKey()], jwksFetches: 0, lastJwksFetch: 0, requests: 0,
    async sign(claims = {}, key = issuer.published[0]) {
      const now = Math.floor(Date.now() / 1000);
      const body = { iss: url, sub: 'repo:acme/shop:ref:refs/heads/main', aud: 'dockwright', iat: now, nbf: now - 5, exp: now + 300, jti: randomUUID(), repository_owner: 'acme', ...claims };
      return new SignJWT(body).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  const server: Server = createServer((req, res) => {
    issuer.requests++;
    if (req.url === '/.well-known/openid-configuration') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: url, jwks_uri: `${url}/jwks`, response_types_supported: ['id_token'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] }));
    } else if (req.url === '/jwks') {
      issuer.jwksFetches++;
      issuer.lastJwksFetch = Date.now();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: issuer.published.map((k) => k.publicJwk) }));
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer.url = url;
  return issuer;
}

/** the RFC 8693 form a CI job posts to POST /api/v1/auth/token */
export function exchangeForm(subjectToken: string): string {
  return new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: subjectToken, subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
  }).toString();
}
