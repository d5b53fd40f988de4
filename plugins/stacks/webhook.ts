// The deploy webhook under /api: one token, one action on one stack — attach to a queued deploy, a 30 s window, wait or ?async=1.
import { defineRoute, JobAcceptedSchema, JobSchema, keyedLock, problem, reply, Type, type AnyRoute, type Job, type ContextWith } from '../../sdk/index.ts';
import { deployKind, resourceOf, type Core } from './core.ts';
import { StackName } from './routes.ts';
import type { StackStore } from './store.ts';

export function deployWebhook({ ctx, core, store, windowSeconds, waitSeconds }: { ctx: ContextWith<'actionTokens'>; core: Core; store: StackStore; windowSeconds: number; waitSeconds: number }): AnyRoute[] {
  // one call at a time per stack in this process, so "attach, else take the window" is decided in order
  const serialized = keyedLock();
  const token = { kind: deployKind, param: 'name' };

  return [
    defineRoute({
      method: 'POST', path: '/stacks/:name/deploy', actionToken: token, errors: [429, 502], successes: [202],
      summary: 'Deploy the stack with its deploy webhook token: waits for the deploy (200, or 502 naming the job when it fails); ?async=1 answers 202 at once',
      description: `A call during a queued deploy of the stack attaches to it. Otherwise one deploy is accepted per ${windowSeconds} s (429 with Retry-After).`,
      params: Type.Object({ name: StackName }),
      query: Type.Object({ async: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')])) }),
      response: JobAcceptedSchema,
      activity: 'stack.deploy', resource: 'stack:{name}',
      handler: async ({ params, query, principal, ip, signal }) => {
        const name = params.name;
        const { job, attached } = await serialized(name, async () => {
          const queued = (await ctx.jobs.open(resourceOf(name))).find((j) => j.type === 'stacks.deploy' && j.status === 'queued');
          if (queued) return { job: queued, attached: true };
          const taken = await ctx.actionTokens.take(deployKind, name, windowSeconds);
          if (!taken.ok) {
            await store.recordWebhookCall(name, { address: ip, jobId: null, outcome: 'refused: within the window' });
            throw problem(429, `one deploy per ${windowSeconds} s is accepted through this webhook; retry after ${taken.retryAfter} s`, { headers: { 'Retry-After': String(taken.retryAfter) } });
          }
          const started = await core.start('deploy', name, principal.actor, true);
          return { job: started as Job, attached: started.attached };
        });
        await store.recordWebhookCall(name, { address: ip, jobId: job.id, outcome: attached ? 'attached' : 'accepted' });
        const answer = (j: Job) => ({ ...j, jobId: j.id, attached });
        if (query.async === '1' || query.async === 'true') return reply(202, answer(job), { Location: `/api/stacks/${name}/jobs/${job.id}` });
        const done = await Promise.race([
          ctx.jobs.wait(job.id, waitSeconds * 1000),
          new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true })),
        ]);
        if (!done?.done) return reply(202, answer(done ?? job), { Location: `/api/stacks/${name}/jobs/${job.id}` });
        if (done.status !== 'succeeded') {
          throw problem(502, `the deploy of ${name} ${done.status}: ${done.error ?? 'no error recorded'}`, { code: 'deploy-failed', extra: { jobId: done.id, job: answer(done) } });
        }
        return answer(done);
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/jobs/:id', actionToken: token, summary: 'Follow a job of this stack with its deploy webhook token', response: JobSchema,
      params: Type.Object({ name: StackName, id: Type.String({ format: 'uuid' }) }),
      handler: async ({ params }) => {
        const job = await ctx.jobs.get(params.id);
        // the token deploys, so it follows deploys: nothing else this stack ran
        if (!job || job.resource !== resourceOf(params.name) || job.type !== 'stacks.deploy') throw problem(404, `stack ${params.name} has no deploy job ${params.id}`);
        return job;
      },
    }),
  ] as AnyRoute[];
}
