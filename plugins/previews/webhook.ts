// The preview token under /api: one token per stack that creates, updates and removes its previews, and nothing else (the deploy webhook's rate rules).
import { defineRoute, JobAcceptedSchema, keyedLock, problem, Type, type AnyRoute, type Job, type ContextWith } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/api.ts';
import { tokenKind, type Previews } from './core.ts';
import { fullRef, PreviewBody, PreviewKey } from './routes.ts';

export function previewWebhook({ ctx, previews, stacks, windowSeconds }: { ctx: ContextWith<'actionTokens'>; previews: Previews; stacks: StacksApi; windowSeconds: number }): AnyRoute[] {
  const serialized = keyedLock();
  const token = { kind: tokenKind, param: 'name' };
  const params = Type.Object({ name: stacks.nameSchema, key: PreviewKey });

  /** a call while a job of this preview is queued attaches to it; otherwise one call per window is accepted */
  const accepted = (name: string, key: string, type: string, start: () => Promise<Job & { attached: boolean }>) => serialized(name, async () => {
    const queued = (await previews.open(name, key)).find((j) => j.status === 'queued' && j.type === type);
    if (queued) return { ...queued, attached: true };
    const taken = await ctx.actionTokens.take(tokenKind, name, windowSeconds);
    if (!taken.ok) throw problem(429, `one call per ${windowSeconds} s is accepted with the preview token; retry after ${taken.retryAfter} s`, { headers: { 'Retry-After': String(taken.retryAfter) } });
    return start();
  });

  return [
    defineRoute({
      method: 'PUT', path: '/stacks/:name/previews/:key', actionToken: token, params, body: PreviewBody, status: 202, response: JobAcceptedSchema, errors: [409, 422, 429],
      summary: 'Create or update a preview with the stack\'s preview token (a CI job passing the image tag it built in variables)',
      activity: 'stack.preview.deploy', resource: 'stack:{name}',
      handler: async ({ params: p, body, principal }) => {
        const job = await accepted(p.name, p.key, 'previews.deploy', async () => {
          const done = await previews.deploy(p.name, p.key, { ref: fullRef(body.ref), commit: body.commit ?? null, variables: body.variables }, principal.actor);
          if (done.outcome === 'limit') throw problem(409, done.reason, { code: 'preview-limit' });
          return done.job;
        });
        return { ...job, jobId: job.id };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/previews/:key', actionToken: token, params, status: 202, response: JobAcceptedSchema, errors: [429],
      summary: 'Remove a preview with the stack\'s preview token',
      activity: 'stack.preview.remove', resource: 'stack:{name}',
      handler: async ({ params: p, principal }) => {
        const job = await accepted(p.name, p.key, 'previews.remove', async () => {
          const removal = await previews.remove(p.name, p.key, principal.actor);
          if (!removal) throw problem(404, `stack ${p.name} has no preview ${p.key}`);
          return removal;
        });
        return { ...job, jobId: job.id };
      },
    }),
  ] as AnyRoute[];
}
