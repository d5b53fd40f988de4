// The git plugin's API for other plugins (sites): the same remote rules, fetching and archive rules the stack source uses.
import { join } from 'node:path';
import { extensionPoint, pluginRef, problem, type Actor, type OutboundApi, type PluginRef, type TSchema } from '../../sdk/index.ts';
import { ArchiveRefused, extractArchive, type ArchiveLimits, type Extracted } from './archive.ts';
import { secretsOf, type Credentials, type Git } from './git.ts';
import type { PreviewTree, PreviewWant } from './previews.ts';
import { checkRemote, CredentialsSchema, type CheckedRemote } from './remote.ts';
import { gitProblem } from './sources.ts';
import { createWorkspace } from './workspace.ts';

export type { ArchiveLimits, CheckedRemote, Credentials, Extracted, PreviewTree, PreviewWant };

/** a signed `pull_request` delivery to a stack's push receiver, verified and parsed; the answer is the delivery's outcome */
export type PullRequestReceiver = (delivery: { stack: string; payload: Record<string, unknown>; actor: Actor }) => Promise<{ outcome: string; reason: string | null; jobId: string | null }>;
/** who handles pull requests (the previews plugin); without one they are acknowledged and ignored */
export const pullRequestReceivers = extensionPoint<PullRequestReceiver>('git', 'pull-requests');

/** `requires: [gitPlugin]` types ctx.deps.git */
export const gitPlugin: PluginRef<'git', GitApi> = pluginRef('git');

export interface GitApi {
  /** the JSON schema of credentials in a request body (token or deploy key; kept sealed by the caller) */
  readonly credentialsSchema: TSchema;
  /** the install's archive limits (plugins.git.options): what unpack() allows at most; a caller may only lower them */
  readonly archiveLimits: Readonly<ArchiveLimits>;
  /** URL, branch and credentials checked as for a stack source: 400 naming the field, 422 when the outbound policy refuses the host */
  checkRemote(body: { url: string; branch?: string; credentials?: unknown }): Promise<CheckedRemote>;
  /**
   * An archive (tar, tar.gz, zip) unpacked into `dest` (which must not exist) by the stack upload's rules and limits
   * (bytes counted as they are decompressed, a time budget). A refusal is a problem (413 too many entries or bytes, 415
   * not an archive, 422 an entry leading out, data after the archive's end, too slow) and `dest` does not exist after it.
   */
  unpack(archive: Buffer, dest: string, opts?: { strip?: number; maxEntries?: number; maxBytes?: number }): Promise<Extracted>;
  /** fetches the branch head into the checkout named `key` (one per user of it) and checks it out exactly; failures are problems (422/502) */
  checkoutHead(key: string, remote: { url: string; branch: string; credentials: Credentials | null }, signal?: AbortSignal): Promise<{ commit: string; subject: string; tree: string }>;
  removeCheckout(key: string): Promise<void>;
  /** what a job must redact while these credentials are in use */
  secretsOf(credentials: Credentials | null): string[];
  /**
   * The tree of the stack's source for its preview `key`, checked out in a folder of that preview: at `want.ref` (else
   * `want.branch`, else the stack's branch), at `want.commit` when given. null when the stack has no source; a failure is an Error.
   */
  previewTree(stack: string, key: string, want: PreviewWant, io: { log(line: string): void; redact(secret: string): void; signal?: AbortSignal }): Promise<PreviewTree | null>;
  removePreviewTree(stack: string, key: string): Promise<void>;
}

export function createGitApi(deps: { git: Git; dataDir: () => string; allowedLocalRoots: readonly string[]; outbound: OutboundApi; archive: ArchiveLimits; previews: Pick<GitApi, 'previewTree' | 'removePreviewTree'> }): GitApi {
  const workspace = createWorkspace(() => join(deps.dataDir(), 'checkouts'), deps.git);
  return {
    credentialsSchema: CredentialsSchema,
    archiveLimits: Object.freeze({ ...deps.archive }),
    checkRemote: (body) => checkRemote(body, deps.allowedLocalRoots, deps.outbound),
    async unpack(archive, dest, opts = {}) {
      try {
        return await extractArchive(archive, dest, {
          strip: opts.strip ?? 0,
          maxEntries: Math.min(opts.maxEntries ?? Infinity, deps.archive.maxEntries),
          maxBytes: Math.min(opts.maxBytes ?? Infinity, deps.archive.maxBytes),
          timeoutMs: deps.archive.timeoutMs,
        });
      } catch (err) {
        if (err instanceof ArchiveRefused) throw problem(err.status, err.message, { code: 'archive-refused' });
        throw err;
      }
    },
    async checkoutHead(key, remote, signal) {
      if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(key)) throw new Error(`"${key}" is not a checkout name`);
      try {
        const commit = await workspace.fetchHead(key, remote, signal);
        const info = await workspace.info(key, commit);
        return { commit, subject: info.subject, tree: await workspace.checkout(key, commit, signal) };
      } catch (err) {
        throw gitProblem(err, `fetching ${remote.url} (${remote.branch})`);
      }
    },
    removeCheckout: (key) => workspace.removeRepo(key),
    secretsOf: (credentials) => secretsOf(credentials),
    ...deps.previews,
  };
}
