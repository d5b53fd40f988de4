// The token service of the test registry with Bearer auth (scripts/registry/token.yml): checks a login, signs a JWT (ES256, x5c header) granting the scopes asked for.
import { createPrivateKey, randomBytes, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';

export const tokenRegistry = process.env.REGISTRY_TOKEN ?? '127.0.0.1:5002';

export interface TokenServer {
  /** each token asked for: the account that logged in (null: none or a wrong one), the scopes asked, whether one was issued */
  readonly asked: { account: string | null; scopes: string[]; issued: boolean }[];
  close(): Promise<void>;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** `repository:name:pull,push` → the token's access entry */
function accessOf(scope: string): { type: string; name: string; actions: string[] } | null {
  const m = /^(\w+):([^:]+):([\w,*]+)$/.exec(scope);
  return m ? { type: m[1], name: m[2], actions: m[3].split(',') } : null;
}

/** the login of a request: Basic auth (GET, as the engine and Dockwright ask) or an OAuth2 password grant (POST) */
async function loginOf(req: IncomingMessage, url: URL): Promise<{ username: string; password: string; scopes: string[] } | null> {
  const scopes = url.searchParams.getAll('scope').flatMap((s) => s.split(' ')).filter(Boolean);
  if (req.method === 'POST') {
    let body = '';
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'password') return null;
    return { username: form.get('username') ?? '', password: form.get('password') ?? '', scopes: [...scopes, ...(form.get('scope') ?? '').split(' ').filter(Boolean)] };
  }
  const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!basic) return null;
  const text = Buffer.from(basic[1], 'base64').toString('utf8');
  return { username: text.slice(0, text.indexOf(':')), password: text.slice(text.indexOf(':') + 1), scopes };
}

/**
 * Listens on the realm's address (REGISTRY_TOKEN_REALM) and answers tokens to `users` (name → password), signed with the
 * key whose certificate is the registry's rootcertbundle (REGISTRY_TOKEN_KEY, REGISTRY_TOKEN_CERT, made by scripts/test-env.sh).
 */
export async function startTokenServer(users: Record<string, string>): Promise<TokenServer> {
  const realm = new URL(process.env.REGISTRY_TOKEN_REALM ?? 'http://127.0.0.1:5003/token');
  const key = createPrivateKey(readFileSync(process.env.REGISTRY_TOKEN_KEY ?? '/var/lib/dockwright-test-registry/token.key'));
  const cert = new X509Certificate(readFileSync(process.env.REGISTRY_TOKEN_CERT ?? '/var/lib/dockwright-test-registry/token.crt'));
  const issuer = process.env.REGISTRY_TOKEN_ISSUER ?? 'dockwright-test-token-service';
  const asked: TokenServer['asked'] = [];

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', realm);
      if (url.pathname !== realm.pathname) { res.writeHead(404).end(); return; }
      const login = await loginOf(req, url);
      const ok = login !== null && Object.hasOwn(users, login.username) && users[login.username] === login.password;
      asked.push({ account: ok ? login.username : null, scopes: login?.scopes ?? url.searchParams.getAll('scope'), issued: ok });
      if (!ok) {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Basic realm="${realm.href}"` });
        res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'a valid login is required' }] }));
        return;
      }
      const now = Math.floor(Date.now() / 1000);
      const header = { typ: 'JWT', alg: 'ES256', x5c: [cert.raw.toString('base64')] };
      const claims = {
        iss: issuer, sub: login.username, aud: url.searchParams.get('service') ?? '', exp: now + 300, nbf: now - 10, iat: now,
        jti: randomBytes(12).toString('hex'), access: login.scopes.map(accessOf).filter((a) => a !== null),
      };
      const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
      const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
      const token = `${input}.${b64url(signature)}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ token, access_token: token, expires_in: 300, issued_at: new Date(now * 1000).toISOString() }));
    })().catch((err: Error) => { res.writeHead(500).end(err.message); });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(realm.port), realm.hostname, () => resolve());
  });
  return {
    asked,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
