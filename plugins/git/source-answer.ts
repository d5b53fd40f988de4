// What the source endpoints share: the view of a stack's source they answer with, and a write's answer with the deploy it may start.
import { JobSchema, Nullable, problem, reply, Type, type OutboundApi, type Principal } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/index.ts';
import type { SourceStore } from './store.ts';
import type { Sources } from './sources.ts';
import type { DeployKeys } from './deploy-keys.ts';
import { noSource } from './source-context.ts';

export const Deploy = Type.Optional(Type.Boolean({ description: 'also queue a deploy after the write (needs stacks:deploy; 1, 0, true or false); the answer is then 202 and holds jobId and job' }));

export const Text = Nullable(Type.String());
export const SourceView = {
  stack: Type.String(),
  kind: Type.Union([Type.Literal('git'), Type.Literal('upload')]),
  url: Text, branch: Text, path: Text,
  autodeploy: Type.Boolean(),
  credentials: Nullable(Type.Object({ kind: Type.Union([Type.Literal('token'), Type.Literal('ssh-key'), Type.Literal('deploy-key')]) })),
  pinnedCommit: Text, remoteHead: Text, remoteSubject: Text, deployedCommit: Text, deployedAt: Text, lastCheckedAt: Text, lastError: Text,
  upload: Nullable(Type.Object({ id: Type.String(), format: Type.String(), sha256: Type.String(), bytes: Type.Integer(), files: Type.Integer(), at: Type.String() })),
  lastPush: Nullable(Type.Object({
    deliveryId: Text, provider: Type.String(), event: Type.String(), ref: Text, commit: Text, outcome: Type.String(), reason: Text, jobId: Text, at: Type.String(),
  })),
  updatedAt: Type.String(),
};
/** a write that may deploy (?deploy=true) names the deploy job */
export const MaybeDeployed = { jobId: Type.Optional(Type.String()), job: Type.Optional(JobSchema) };
export const SourceAnswer = Type.Object({ ...SourceView, ...MaybeDeployed });
export const Warnings = Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: "the compose loader's warnings about the new stack's compose file (an unset ${VAR}, say)" });

export interface SourceRouteDeps {
  stacks: StacksApi; sources: Sources; store: SourceStore; deployKeys: DeployKeys; outbound: OutboundApi;
  actionTokens: { issueSecret(kind: string, resource: string): Promise<string>; revoke(kind: string, resource: string): Promise<boolean> };
  allowedLocalRoots: readonly string[];
}

/** the path schema and the answers every group of source routes uses */
export type SourceRouteKit = ReturnType<typeof sourceRouteKit>;

export function sourceRouteKit({ stacks, sources }: SourceRouteDeps) {
  const Params = Type.Object({ name: stacks.nameSchema });
  async function viewOf(name: string) {
    const view = await sources.viewOf(name);
    if (!view) throw noSource(name);
    return view;
  }
  /** before any write: a deploy asked for is one the caller may start */
  function mayDeploy(principal: Principal, asked: boolean | undefined) {
    if (asked && !principal.can('stacks:deploy')) throw problem(403, 'deploy=1 needs the scope stacks:deploy', { code: 'missing-scope', extra: { requiredScopes: ['stacks:deploy'] } });
  }
  async function deployIfAsked(name: string, principal: Principal, asked: boolean | undefined) {
    if (!asked) return {};
    mayDeploy(principal, asked);
    await stacks.access(name, principal, 'deploy');
    const job = await stacks.deploy(name, principal.actor);
    return { jobId: job.id, job };
  }
  /** the answer of a write: 202 with the deploy job when one was asked for, else 201 for a stack created, 200 for a source changed */
  async function answer(name: string, principal: Principal, asked: boolean | undefined, created: boolean, extra: Record<string, unknown> = {}) {
    const deployed = await deployIfAsked(name, principal, asked);
    const body = { ...(await viewOf(name)), ...extra, ...deployed };
    if (deployed.jobId) return reply(202, body, { Location: `/api/v1/jobs/${deployed.jobId}` });
    return reply(created ? 201 : 200, body);
  }

  return { Params, viewOf, mayDeploy, answer };
}
