// A repository remote as users give it (URL, branch, credentials), checked by the rules every git source follows: the stack source and sites.
import { OutboundRefused, problem, Type, type OutboundApi } from '../../sdk/index.ts';
import type { Credentials } from './git.ts';
import { branchError, Invalid, parseRepoUrl, remoteEndpoint, sshKeyError, tokenError } from './validate.ts';

export const CredentialsSchema = Type.Union([
  Type.Object({
    token: Type.String({ minLength: 1, maxLength: 4096, description: 'an access token for https (GitHub, Gitea, Forgejo, GitLab…)' }),
    username: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$', description: 'sent with the token (default x-access-token; GitLab wants oauth2)' })),
  }, { additionalProperties: false }),
  Type.Object({ sshKey: Type.String({ minLength: 1, maxLength: 16384, description: 'a deploy key (private key) for ssh URLs' }) }, { additionalProperties: false }),
  Type.Null(),
], { description: 'kept encrypted and never answered; omitted: keep what the same repository URL had; null: none' });

export function credentialsFrom(body: { credentials?: unknown }, kind: 'https' | 'ssh' | 'local', fromUrl: Credentials | null): Credentials | null | undefined {
  const given = body.credentials as { token?: string; username?: string; sshKey?: string } | null | undefined;
  if (fromUrl) {
    if (given) throw new Invalid('credentials', 'the URL already carries a password: give the token either in the URL or in credentials');
    return fromUrl;
  }
  if (!given) return given;
  if (kind === 'local') throw new Invalid('credentials', 'a local repository takes no credentials');
  if (given.token !== undefined) {
    if (kind !== 'https') throw new Invalid('credentials', 'a token works with https URLs; ssh URLs take credentials.sshKey');
    const bad = tokenError(given.token);
    if (bad) throw new Invalid('credentials/token', bad);
    return { kind: 'token', token: given.token, ...(given.username ? { username: given.username } : {}) };
  }
  if (kind !== 'ssh') throw new Invalid('credentials', 'a deploy key works with ssh URLs; https URLs take credentials.token');
  const bad = sshKeyError(given.sshKey!);
  if (bad) throw new Invalid('credentials/sshKey', bad);
  return { kind: 'ssh-key', sshKey: given.sshKey! };
}


/** a refusal that names the offending field as a 400 problem; anything else unchanged */
export const invalid = (err: unknown) => {
  if (err instanceof Invalid) return problem(400, err.message, { code: 'invalid-source', errors: [{ path: `/body/${err.field}`, message: err.message }] });
  return err;
};

export interface CheckedRemote {
  /** what git is given (no password in it) */
  url: string;
  /** what answers show */
  display: string;
  kind: 'https' | 'ssh' | 'local';
  branch: string;
  /** undefined: none given (keep what there was); null: none */
  credentials: Credentials | null | undefined;
}

/** URL, branch and credentials checked (400 naming the field), and the host checked against the outbound policy (422) */
export async function checkRemote(body: { url: string; branch?: string; credentials?: unknown }, allowedLocalRoots: readonly string[], outbound: OutboundApi): Promise<CheckedRemote> {
  let checked: CheckedRemote;
  try {
    const url = parseRepoUrl(body.url, allowedLocalRoots);
    const branch = body.branch ?? 'main';
    const bad = branchError(branch);
    if (bad) throw new Invalid('branch', bad);
    const fromUrl: Credentials | null = url.password ? { kind: 'token', token: url.password, ...(url.username ? { username: url.username } : {}) } : null;
    checked = { url: url.url, display: url.display, kind: url.kind, branch, credentials: credentialsFrom(body, url.kind, fromUrl) };
  } catch (err) {
    throw invalid(err);
  }
  const endpoint = remoteEndpoint(checked.url);
  if (endpoint) {
    await outbound.check(endpoint.host).catch((err) => {
      if (err instanceof OutboundRefused) throw problem(422, err.message, { code: err.code, errors: [{ path: '/body/url', message: err.reason }] });
      throw err;
    });
  }
  return checked;
}
