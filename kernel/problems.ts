// The problem-code catalogue: the codes the kernel answers with, and every code a plugin declared in its definition's `problems`.
import { compareText } from '../sdk/index.ts';
import { defaultProblemCodes, type ProblemDef } from '../sdk/problem.ts';

/** the codes the kernel and the SDK raise (its pipeline, accounts, settings, revisions, outbound checks), and those of a bare status */
export const kernelProblems: Readonly<Record<string, ProblemDef>> = {
  // first: a code below with the same name (disk-full) says more
  ...Object.fromEntries(Object.entries(defaultProblemCodes).map(([status, code]) => [code, { status: Number(status), title: `a ${status} with no code of its own` }])),
  'invalid-request': { status: 400, title: 'the request does not match the operation\'s schema (its `errors` name each place)' },
  'invalid-json': { status: 400, title: 'the body is not JSON' },
  'invalid-cursor': { status: 400, title: 'the paging cursor is not one this list gave' },
  'revision-required': { status: 428, title: 'the write does not name the revision it is based on (If-Match or body `revision`)' },
  'stale-revision': { status: 412, title: 'the resource has changed since the named revision (`currentRevision` says where it is)' },
  exists: { status: 409, title: 'what the write creates exists already' },
  'mcp-bearer': { status: 403, title: 'the MCP endpoint takes a personal bearer token, not a portal session' },
  'mcp-request': { status: [400, 406, 415], title: 'the MCP transport refused the request (JSON-RPC by POST, accepting JSON and an event stream; the detail says why)' },
  'invalid-policy': { status: 400, title: 'a trust policy\'s field is not valid (its `errors` name it)' },
  'scope-too-wide': { status: 400, title: 'a trust policy names a scope only an admin may hold: a federated token holds at most what an operator may' },
  'invalid-token': { status: 401, title: 'the subject token of a token exchange is not a valid JWT of a trusted issuer (OAuth `error: invalid_grant`)' },
  'token-expired': { status: 401, title: 'the subject token of a token exchange has expired or is not yet valid' },
  'token-replayed': { status: 401, title: 'the subject token\'s jti was exchanged before' },
  'no-matching-policy': { status: 401, title: 'no trust policy accepts the subject token (issuer, audience, subject and claims)' },
  'no-session': { status: 401, title: 'no portal session: sign in' },
  'sso-required': { status: 403, title: 'sign-in goes through the identity provider (auth.oidc.enforceSso); a password works only for the break-glass admins' },
  'provider-unreachable': { status: 502, title: 'the identity provider could not be reached, or its discovery document is unusable (the detail says why)' },
  'missing-scope': { status: 403, title: 'the token lacks a scope the request needs' },
  origin: { status: 403, title: 'a portal session\'s request comes from another origin' },
  csrf: { status: 403, title: 'a portal session\'s write lacks its CSRF value' },
  'sign-in-failed': { status: 401, title: 'the user name or password is wrong' },
  'sign-in-rate-limited': { status: 429, title: 'too many failed sign-ins for the user or address; `Retry-After` says when to retry' },
  'password-change-required': { status: 401, title: 'the user must set a new password before signing in' },
  'totp-required': { status: 401, title: 'the sign-in needs the user\'s two-factor code' },
  'totp-enrolment-required': { status: 401, title: 'the user must set up two-factor sign-in first' },
  'totp-failed': { status: [400, 401], title: 'the two-factor code is wrong' },
  'totp-not-started': { status: 400, title: 'two-factor enrolment was not started' },
  'totp-enrolled': { status: 409, title: 'two-factor sign-in is set up already' },
  'weak-password': { status: 400, title: 'the password is too short or too common' },
  'wrong-password': { status: 403, title: 'the current password is wrong' },
  'last-admin': { status: 409, title: 'the change would leave no admin' },
  'user-exists': { status: 409, title: 'a user of that name exists' },
  'team-exists': { status: 409, title: 'a team of that name exists' },
  'unknown-team': { status: 400, title: 'no team of that name' },
  'unknown-scope': { status: 400, title: 'a scope asked for is not declared by any plugin' },
  'invalid-settings': { status: 422, title: 'a setting\'s value breaks its schema' },
  'setting-locked': { status: 409, title: 'the setting is set by the config file or the environment (`paths` names which)' },
  'host-not-found': { status: 502, title: 'the host name of an outbound connection does not resolve' },
  'outbound-refused': { status: 422, title: 'the outbound-address policy refuses the connection\'s address' },
  'disk-full': { status: 507, title: 'the disk (or the database server\'s) is full' },
  'database-unavailable': { status: 503, title: 'the database is unreachable; `Retry-After` says when to retry' },
  'shutting-down': { status: 503, title: 'the service is restarting' },
  'not-ready': { status: 503, title: 'the service is not ready yet (`parts` says what it waits for)' },
};

export interface CatalogueEntry { code: string; statuses: number[]; title: string; owners: string[] }

/**
 * Every declared code, once: a code several owners declare (`would-overwrite`, by backups and sites) is one entry with their
 * statuses merged; the first owner's title is kept.
 */
export class ProblemCatalogue {
  private readonly codes = new Map<string, CatalogueEntry>();

  define(owner: string, defs: Readonly<Record<string, ProblemDef>>): void {
    for (const [code, def] of Object.entries(defs)) {
      if (!/^[a-z][a-z0-9-]*$/.test(code)) throw new Error(`${owner}: problem code "${code}" must be lowercase letters, digits and -`);
      const statuses = typeof def.status === 'number' ? [def.status] : [...def.status];
      if (!statuses.length || statuses.some((s) => !Number.isInteger(s) || s < 400 || s > 599)) throw new Error(`${owner}: problem code "${code}" needs error statuses (400…599)`);
      const entry = this.codes.get(code) ?? { code, statuses: [], title: def.title, owners: [] };
      entry.statuses = [...new Set([...entry.statuses, ...statuses])].sort((a, b) => a - b);
      if (!entry.owners.includes(owner)) entry.owners.push(owner);
      this.codes.set(code, entry);
    }
  }

  has(code: string): boolean {
    return this.codes.has(code);
  }

  list(): CatalogueEntry[] {
    return [...this.codes.values()].sort((a, b) => compareText(a.code, b.code));
  }
}
