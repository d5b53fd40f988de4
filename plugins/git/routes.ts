// The source endpoints of /api/v1: read, set and remove a stack's source; check, pin, unpin; archive upload; the push secret.
import { defineRoute, JobSchema, Nullable, problem, reply, Type, type AnyRoute, type OutboundApi, type Principal } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/index.ts';
import type { SourceStore } from './store.ts';
import type { Sources } from './sources.ts';
import type { DeployKeys } from './deploy-keys.ts';
import { deployKeyCredentials, DeployKeyRef, isDeployKeyRef } from './deploy-key-routes.ts';
import { checkRemote, CredentialsSchema, invalid } from './remote.ts';
import { commitId, treePath } from './validate.ts';

const Deploy = Type.Optional(Type.Boolean({ description: 'also queue a deploy after the write (needs stacks:deploy; 1, 0, true or false); the answer is then 202 and holds jobId and job' }));

const SourceBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https://…, ssh://…, or user@host:path' }),
  branch: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'default main' })),
  path: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()], {
    description: 'the compose file inside the repository; default: the first of compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml',
  })),
  autodeploy: Type.Optional(Type.Boolean({ description: 'deploy new commits found by polling (default true)' })),
  credentials: Type.Optional(Type.Union([CredentialsSchema, DeployKeyRef], { description: "a token, a private key, or { kind: 'deploy-key' }: the key made for this stack by POST …/source/deploy-key; kept encrypted and never answered; omitted: keep what the same repository URL had; null: none" })),
  check: Type.Optional(Type.Boolean({ description: 'fetch the branch right away (default true); a failure is reported in lastError, the source is saved anyway' })),
}, { additionalProperties: false });

const Commit = Type.Object({
  commit: Type.String({ minLength: 1, description: 'the commit' }),
  subject: Type.String(), author: Type.String(), date: Type.String(),
});

const Text = Nullable(Type.String());
const SourceView = {
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
const MaybeDeployed = { jobId: Type.Optional(Type.String()), job: Type.Optional(JobSchema) };
const SourceAnswer = Type.Object({ ...SourceView, ...MaybeDeployed });
const Warnings = Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: "the compose loader's warnings about the new stack's compose file (an unset ${VAR}, say)" });
const DeliverySchema = Type.Object({
  id: Type.Integer(), deliveryId: Text, provider: Type.String(), event: Type.String(), ref: Text, afterCommit: Text, address: Type.String(),
  outcome: Type.String(), reason: Text, jobId: Text, receivedAt: Type.String(),
});

export function sourceRoutes({ stacks, sources, store, deployKeys, actionTokens, outbound, allowedLocalRoots }: {
  stacks: StacksApi; sources: Sources; store: SourceStore; deployKeys: DeployKeys; outbound: OutboundApi;
  actionTokens: { issueSecret(kind: string, resource: string): Promise<string>; revoke(kind: string, resource: string): Promise<boolean> };
  allowedLocalRoots: readonly string[];
}): AnyRoute[] {
  const Params = Type.Object({ name: stacks.nameSchema });
  async function viewOf(name: string) {
    const view = await sources.viewOf(name);
    if (!view) throw problem(404, `stack "${name}" has no source; PUT /api/v1/stacks/${name}/source sets one`, { code: 'no-source' });
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

  return [
    defineRoute({
      method: 'GET', path: '/stacks/:name/source', scopes: ['stacks:read'], params: Params,
      summary: "The stack's source: repository, branch, compose path, pin, remote head, deployed commit, last push (credentials are never shown)",
      response: Type.Object(SourceView),
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'read');
        return viewOf(params.name);
      },
    }),
    defineRoute({
      method: 'PUT', path: '/stacks/:name/source', scopes: ['stacks:write'], params: Params, body: SourceBody, revision: 'optional',
      query: Type.Object({ deploy: Deploy }),
      summary: 'Set the git source: deploys then use the compose file (and env files, build contexts) of the checked-out commit; with If-None-Match: * it creates the stack',
      description: 'The URL may be https://, ssh:// or user@host:path (local paths only below folders an admin allows). '
        + 'Credentials are stored encrypted and never answered; { kind: \'deploy-key\' } takes the key made by POST …/source/deploy-key (422 when there is none). A new repository URL drops the pin and the stored credentials unless new ones are given. '
        + 'A host that is not a global unicast address (loopback, private, link-local…) is refused with 422 unless an admin lists it in outbound.allow. '
        + 'With If-None-Match: * the stack is created from the compose file of the branch head (201): the branch is fetched first, and a repository that '
        + 'cannot be fetched, a commit without the compose file (422 naming the names looked for) or a compose file the platform rules refuse creates nothing; '
        + '412 when the stack exists. ?deploy=1 deploys after the write (202 with the job).',
      errors: [412, 422, 502], status: 200, successes: [201, 202],
      response: Type.Object({
        ...SourceView, ...MaybeDeployed,
        check: Type.Optional(Nullable(Type.Object({ ok: Type.Boolean(), remoteHead: Text, composePath: Text, error: Text }, { description: 'the first fetch of the branch head (null with check: false)' }))),
        warnings: Type.Optional(Warnings),
      }),
      activity: 'stack.source.write', resource: 'stack:{name}',
      handler: async ({ params, body, query, revision, principal }) => {
        mayDeploy(principal, query.deploy);
        if (revision === 0) await stacks.assertNew(params.name, principal);
        else await stacks.access(params.name, principal, 'write');
        let composePath: string | null;
        try { composePath = body.path ? treePath(body.path, 'path') : null; } catch (err) { throw invalid(err); }
        const deployKey = isDeployKeyRef(body.credentials);
        const remote = await checkRemote(deployKey ? { ...body, credentials: undefined } : body, allowedLocalRoots, outbound);
        const credentials = deployKey ? await deployKeyCredentials(deployKeys, params.name, remote.kind) : remote.credentials;
        const next = { url: remote.url, branch: remote.branch, composePath, autodeploy: body.autodeploy, credentials, deployKey };
        if (revision === 0) {
          const { warnings } = await sources.createGit(params.name, next, (compose, workdir, within) => stacks.createFromTree(params.name, principal, { compose, workdir }, within),
            deployKey ? (tx) => deployKeys.markUsed(params.name, tx) : undefined);
          return answer(params.name, principal, query.deploy, true, { warnings });
        }
        await sources.setGit(params.name, next);
        if (deployKey) await deployKeys.markUsed(params.name);
        let check = null;
        if (body.check !== false) {
          // a repository that cannot be reached yet is still saved: lastError says why
          check = await sources.check(params.name).then((c) => ({ ok: c.error === null, remoteHead: c.head.commit, composePath: c.compose, error: c.error }),
            (err: Error) => ({ ok: false, remoteHead: null, composePath: null, error: err.message }));
        }
        return answer(params.name, principal, query.deploy, false, { check });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/source', scopes: ['stacks:write'], params: Params,
      summary: 'Remove the source: deploys use the compose file of the stack again',
      response: Type.Object({ stack: Type.String(), source: Type.Null() }),
      activity: 'stack.source.delete', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'write');
        if (!(await sources.remove(params.name))) throw problem(404, `stack "${params.name}" has no source`, { code: 'no-source' });
        return { stack: params.name, source: null };
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/source/check', scopes: ['stacks:write'], params: Params, errors: [409, 422, 502],
      summary: 'Fetch the branch: its head, and whether it differs from the deployed commit (nothing is deployed)',
      response: Type.Object({
        stack: Type.String(), remoteHead: Commit, composePath: Type.Union([Type.String(), Type.Null()]),
        deployedCommit: Type.Union([Type.String(), Type.Null()]), pinnedCommit: Type.Union([Type.String(), Type.Null()]),
        changed: Type.Boolean({ description: 'the head differs from the deployed commit' }),
        error: Type.Union([Type.String(), Type.Null()]),
      }),
      activity: 'stack.source.check', resource: 'stack:{name}',
      handler: async ({ params, principal, signal }) => {
        await stacks.access(params.name, principal, 'write');
        const { head, compose, error } = await sources.check(params.name, signal);
        const row = (await store.get(params.name))!;
        return {
          stack: params.name, remoteHead: head, composePath: compose, deployedCommit: row.deployedCommit, pinnedCommit: row.pinnedCommit,
          changed: head.commit !== row.deployedCommit, error,
        };
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/source/pin', scopes: ['stacks:write'], params: Params, errors: [409, 422, 502], successes: [202],
      summary: 'Pin the stack to a commit (full or abbreviated id; it must exist): deploys use it, pushes and polling deploy nothing',
      body: Type.Object({ commit: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
      query: Type.Object({ deploy: Deploy }),
      response: SourceAnswer,
      activity: 'stack.source.pin', resource: 'stack:{name}',
      handler: async ({ params, body, query, principal }) => {
        await stacks.access(params.name, principal, 'write');
        let id: string;
        try { id = commitId(body.commit); } catch (err) { throw invalid(err); }
        mayDeploy(principal, query.deploy);
        const pinned = await sources.pin(params.name, id);
        return answer(params.name, principal, query.deploy, false, { pinnedCommit: pinned });
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/source/unpin', scopes: ['stacks:write'], params: Params, errors: [409], successes: [202],
      summary: 'Remove the pin: deploys, pushes and polling follow the branch again',
      query: Type.Object({ deploy: Deploy }),
      response: SourceAnswer,
      activity: 'stack.source.unpin', resource: 'stack:{name}',
      handler: async ({ params, query, principal }) => {
        await stacks.access(params.name, principal, 'write');
        mayDeploy(principal, query.deploy);
        await sources.unpin(params.name);
        return answer(params.name, principal, query.deploy, false);
      },
    }),
    defineRoute({
      method: 'PUT', path: '/stacks/:name/source/upload', scopes: ['stacks:write'], params: Params, upload: true, revision: 'optional',
      errors: [412, 415, 422], status: 200, successes: [201, 202],
      summary: 'Upload the source tree as a tar, tar.gz or zip archive; it replaces a git source; with If-None-Match: * it creates the stack (exempt from the rate limit)',
      description: 'The archive is unpacked as it streams into a folder of its own, every entry checked as it comes and all of them before any link '
        + 'is made: entries leading out of the tree (.., absolute paths, links pointing out), devices, too many entries, more bytes unpacked than '
        + 'the limit (counted as they are decompressed), more than the time budget, or data after the archive\'s end refuse the whole archive '
        + 'and nothing changes. '
        + 'With If-None-Match: * the stack is created from the compose file at the root of the archive (201); a compose file with build: builds from '
        + 'the archive. 412 when the stack exists; 422 when the archive has no compose file (naming the names looked for) or the platform rules '
        + 'refuse it: nothing is created. ?deploy=1 deploys after the write (202 with the job).',
      query: Type.Object({
        path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the compose file in the archive; default: the first of compose.yaml, compose.yml, docker-compose.yaml, docker-compose.yml' })),
        file: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the same as path' })),
        strip: Type.Optional(Type.Integer({ minimum: 0, maximum: 8, default: 0, description: 'leading folders to remove from every entry (1 for an archive with one top folder)' })),
        deploy: Deploy,
      }),
      response: Type.Object({ ...SourceView, ...MaybeDeployed, warnings: Type.Optional(Warnings) }),
      activity: 'stack.source.upload', resource: 'stack:{name}',
      handler: async ({ params, query, rawBody, revision, principal }) => {
        mayDeploy(principal, query.deploy);
        if (revision === 0) await stacks.assertNew(params.name, principal);
        else await stacks.access(params.name, principal, 'write');
        const given = query.file ?? query.path;
        if (query.file && query.path && query.file !== query.path) throw problem(400, 'give the compose file as path or as file, not both', { errors: [{ path: '/query/file', message: 'differs from path' }] });
        let composePath: string | null;
        try { composePath = given ? treePath(given, 'path') : null; } catch (err) { throw invalid(err); }
        if (!rawBody?.length) throw problem(400, 'the body must be the archive (tar, tar.gz or zip)');
        const opts = { composePath, strip: query.strip ?? 0 };
        if (revision === 0) {
          const { warnings } = await sources.createUploaded(params.name, rawBody, opts, (compose, workdir, within) => stacks.createFromTree(params.name, principal, { compose, workdir }, within));
          return answer(params.name, principal, query.deploy, true, { warnings });
        }
        await sources.upload(params.name, rawBody, opts);
        return answer(params.name, principal, query.deploy, false);
      },
    }),
    defineRoute({
      method: 'POST', path: '/stacks/:name/webhooks/push', scopes: ['stacks:write'], params: Params,
      summary: 'Enable or rotate the push webhook: the shared secret is shown this once; the previous one stops working at once',
      description: 'Configure the hosting service (GitHub, Gitea, Forgejo) with the url, content type application/json, this secret, and the push event.',
      response: Type.Object({ secret: Type.String(), url: Type.String(), contentType: Type.String(), events: Type.Array(Type.String()) }),
      activity: 'stack.webhook.push.rotate', resource: 'stack:{name}',
      errors: [409],
      handler: async ({ params, principal, baseUrl }) => {
        await stacks.access(params.name, principal, 'write');
        // pushes deploy a git source's new commits: a stack without one has nothing for them to do
        const row = await store.get(params.name);
        if (row?.kind !== 'git') {
          throw problem(409, `stack "${params.name}" has ${row ? 'an uploaded archive as its source' : 'no git source'}: a push webhook deploys the commits of a git source; PUT /api/v1/stacks/${params.name}/source sets one`, { code: 'not-git' });
        }
        const secret = await actionTokens.issueSecret(stacks.webhookKinds.push, params.name);
        return { secret, url: `${baseUrl}/api/stacks/${params.name}/github`, contentType: 'application/json', events: ['push'] };
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/stacks/:name/webhooks/push', scopes: ['stacks:write'], params: Params, summary: 'Disable the push webhook',
      response: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
      activity: 'stack.webhook.push.disable', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await stacks.access(params.name, principal, 'write');
        await actionTokens.revoke(stacks.webhookKinds.push, params.name);
        return { name: params.name, enabled: false };
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/webhooks/push/deliveries', scopes: ['stacks:read'], params: Params,
      summary: 'The latest push deliveries of the stack, newest first, with their outcome',
      response: Type.Array(DeliverySchema),
      query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) }),
      handler: async ({ params, query, principal }) => {
        await stacks.access(params.name, principal, 'read');
        return store.deliveries(params.name, query.limit ?? 20);
      },
    }),
  ] as AnyRoute[];
}
