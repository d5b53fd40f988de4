// The push receiver under /api: HMAC-signed calls from GitHub, Gitea or Forgejo; a push to the stack's branch deploys it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { defineRoute, JobSchema, Nullable, problem, reply, Type, type ActionTokensApi, type ActivityApi, type Actor, type AnyRoute } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/index.ts';
import type { PullRequestReceiver } from './api.ts';
import type { SourceStore } from './store.ts';

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** Gitea and Forgejo also send GitHub's headers; the most specific one names the sender */
const providers = [
  { name: 'forgejo', event: 'x-forgejo-event', delivery: 'x-forgejo-delivery', signature: 'x-forgejo-signature', prefix: '' },
  { name: 'gitea', event: 'x-gitea-event', delivery: 'x-gitea-delivery', signature: 'x-gitea-signature', prefix: '' },
  { name: 'gogs', event: 'x-gogs-event', delivery: 'x-gogs-delivery', signature: 'x-gogs-signature', prefix: '' },
  { name: 'github', event: 'x-github-event', delivery: 'x-github-delivery', signature: 'x-hub-signature-256', prefix: 'sha256=' },
] as const;

/** true when any signature header the request carries is the HMAC-SHA256 of the raw body under the secret */
export function signatureValid(secret: string, body: Buffer, headers: Headers): boolean {
  const expected = createHmac('sha256', secret).update(body).digest();
  let valid = false;
  for (const p of providers) {
    const value = first(headers[p.signature])?.trim();
    if (!value || !value.toLowerCase().startsWith(p.prefix)) continue;
    const hex = value.slice(p.prefix.length);
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) continue;
    // every header is compared, so the time taken does not depend on which one matched
    if (timingSafeEqual(Buffer.from(hex, 'hex'), expected)) valid = true;
  }
  return valid;
}

interface PushPayload { ref?: unknown; after?: unknown; deleted?: unknown }

export function pushReceiver({ stacks, store, actionTokens, activity, pullRequests }: {
  stacks: StacksApi; store: SourceStore; actionTokens: ActionTokensApi; activity: ActivityApi;
  /** who handles pull_request deliveries (the previews plugin), when one is enabled */
  pullRequests: () => PullRequestReceiver | null;
}): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST', path: '/stacks/:name/github', public: true, rawBody: true, params: Type.Object({ name: stacks.nameSchema }),
      errors: [401, 415, 400], successes: [202], activity: false,
      response: Type.Object({
        acknowledged: Type.Optional(Type.Boolean()), ignored: Type.Optional(Type.Boolean()), duplicate: Type.Optional(Type.Boolean()),
        outcome: Type.String(), reason: Nullable(Type.String()), deliveryId: Nullable(Type.String()), jobId: Type.Optional(Nullable(Type.String())),
        attached: Type.Optional(Type.Boolean()), job: Type.Optional(JobSchema),
      }),
      summary: 'Push receiver for GitHub, Gitea and Forgejo: a push to the configured branch deploys the stack; pull requests make previews',
      description: 'Signed with the push secret (POST /api/v1/stacks/{name}/webhooks/push): X-Hub-Signature-256 (sha256=<hex>), '
        + 'X-Gitea-Signature or X-Forgejo-Signature (<hex>), HMAC-SHA256 of the raw body. The body is the JSON push payload '
        + '(content type application/json). ping → 200 acknowledged; other events, other branches, tags, deleted branches or a pinned '
        + 'stack → 202 ignored with a reason; a push to the branch → 202 with the deploy job (actor github). A repeated delivery id '
        + 'is acknowledged with the first outcome and starts nothing. A pull_request event (opened, reopened, synchronize) creates or '
        + 'updates the preview pr-<number> at its head commit, closed removes it (202 with the job; ignored with a reason when '
        + 'previews are off, the pull request comes from a fork, or the limit of previews is reached).',
      handler: async ({ params, headers, rawBody, ip }) => {
        const name = params.name;
        const body = rawBody ?? Buffer.alloc(0);
        const secret = await actionTokens.secret(stacks.webhookKinds.push, name);
        // an unknown stack, a disabled webhook and a wrong signature all look the same from outside
        if (!secret || !signatureValid(secret, body, headers)) {
          throw problem(401, 'the signature is missing or does not match the push secret of this stack', { headers: { 'WWW-Authenticate': 'HMAC-SHA256 realm="push"' } });
        }
        const provider = providers.find((p) => first(headers[p.event])) ?? providers[3];
        const event = first(headers[provider.event]);
        if (!event) throw problem(400, 'the call names no event (X-GitHub-Event, X-Gitea-Event or X-Forgejo-Event)');
        const type = (first(headers['content-type']) ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/json') {
          throw problem(415, `the payload must be sent as application/json, not ${type || 'without a content type'}: set the webhook's content type to application/json`);
        }
        let payload: PushPayload;
        try {
          payload = JSON.parse(body.toString('utf8')) as PushPayload;
        } catch {
          throw problem(400, 'the payload is not valid JSON', { code: 'invalid-json' });
        }
        if (event === 'push' && (typeof payload?.ref !== 'string' || payload.ref.length > 1024)) throw problem(400, 'a push payload names its ref');
        const ref = event === 'push' ? payload.ref as string : null;
        const after = typeof payload?.after === 'string' && /^[0-9a-f]{40,64}$/.test(payload.after) ? payload.after : null;
        const deliveryId = first(headers[provider.delivery])?.slice(0, 200) || null;

        const { fresh, delivery } = await store.claimDelivery(name, { deliveryId, provider: provider.name, event, ref, afterCommit: after, address: ip });
        if (!fresh) {
          return reply(200, { acknowledged: true, duplicate: true, deliveryId, outcome: delivery.outcome, reason: delivery.reason, jobId: delivery.jobId });
        }
        const actor: Actor = { kind: 'github', name, address: ip };
        const finish = async (status: number, outcome: string, reason: string | null, jobId: string | null, extra: Record<string, unknown> = {}) => {
          await store.finishDelivery(delivery.id, outcome, reason, jobId);
          await activity.record({ actor, action: event === 'pull_request' ? 'stack.pull-request' : 'stack.push', resource: `stack:${name}`, result: outcome === 'deployed' || outcome === 'removed' ? 'ok' : outcome, detail: { provider: provider.name, event, deliveryId, ref, commit: after, reason, jobId } });
          return reply(status, { ...(outcome === 'ignored' ? { ignored: true } : { acknowledged: true }), outcome, reason, deliveryId, ...extra });
        };

        try {
          if (event === 'ping') return await finish(200, 'acknowledged', 'ping', null);
          if (event === 'pull_request') {
            const receiver = pullRequests();
            if (!receiver) return await finish(202, 'ignored', 'previews are not enabled on this installation', null);
            const done = await receiver({ stack: name, payload: payload as Record<string, unknown>, actor });
            return await finish(202, done.outcome, done.reason, done.jobId, done.jobId ? { jobId: done.jobId } : {});
          }
          if (event !== 'push') return await finish(202, 'ignored', `the event "${event}" deploys nothing: only push and pull_request do`, null);
          const row = await store.get(name);
          if (!row || row.kind !== 'git') return await finish(202, 'ignored', 'the stack has no git source', null);
          if (ref!.startsWith('refs/tags/')) return await finish(202, 'ignored', `${ref} is a tag; the stack follows the branch ${row.branch}`, null);
          if (ref !== `refs/heads/${row.branch}`) return await finish(202, 'ignored', `a push to ${ref}; the stack follows the branch ${row.branch}`, null);
          if (payload.deleted === true || (after !== null && /^0+$/.test(after))) return await finish(202, 'ignored', `the branch ${row.branch} was deleted`, null);
          if (row.pinnedCommit) return await finish(202, 'ignored', `the stack is pinned to ${row.pinnedCommit}`, null);
          const job = await stacks.deploy(name, actor, true);
          await store.set(name, { lastTriggeredCommit: after });
          return await finish(202, 'deployed', job.attached ? 'attached to the queued deploy' : null, job.id, { jobId: job.id, attached: job.attached, job });
        } catch (err) {
          // a delivery that was claimed but not handled must not be acknowledged as a duplicate when it is sent again
          await store.releaseDelivery(delivery.id).catch(() => undefined);
          throw err;
        }
      },
    }),
  ] as AnyRoute[];
}
