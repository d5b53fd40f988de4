// A real identity provider for tests: npm oidc-provider on loopback, one confidential client, accounts whose claims (groups included) a test changes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** the claims of each account by its login (the dev login form takes any login and password) */
  accounts: Record<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startIdp(redirectUri: string): Promise<TestIdp> {
  const accounts: Record<string, Record<string, unknown>> = {};
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => { res.statusCode = 503; res.end(); };
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'dockwright';
  const clientSecret = 'the client secret of dockwright at the test idp';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }],
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...accounts[id] }) }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name', 'groups'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: ['a cookie key of the test idp'] },
    features: { devInteractions: { enabled: true } },
  });
  handler = provider.callback();
  return {
    issuer, clientId, clientSecret, accounts,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
