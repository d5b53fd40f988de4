// The source endpoints on a stack's git source: read, set and remove it; fetch its branch, pin and unpin a commit.
import { defineRoute, Nullable, problem, Type, type AnyRoute } from '../../sdk/index.ts';
import { deployKeyCredentials, DeployKeyRef, isDeployKeyRef } from './deploy-key-routes.ts';
import { checkRemote, CredentialsSchema, invalid } from './remote.ts';
import { commitId, treePath } from './validate.ts';
import { Deploy, MaybeDeployed, SourceAnswer, SourceView, Text, Warnings, type SourceRouteDeps, type SourceRouteKit } from './source-answer.ts';

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
export function gitSourceRoutes({ stacks, sources, deployKeys, outbound, allowedLocalRoots }: SourceRouteDeps, { Params, viewOf, mayDeploy, answer }: SourceRouteKit): AnyRoute[] {
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
  ] as AnyRoute[];
}

export function commitRoutes({ stacks, sources, store }: SourceRouteDeps, { Params, mayDeploy, answer }: SourceRouteKit): AnyRoute[] {
  return [
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
  ] as AnyRoute[];
}
