// The source endpoint that takes a stack's source tree as an uploaded archive (and can create the stack from it).
import { defineRoute, problem, Type, type AnyRoute } from '../../sdk/index.ts';
import { invalid } from './remote.ts';
import { treePath } from './validate.ts';
import { Deploy, MaybeDeployed, SourceView, Warnings, type SourceRouteDeps, type SourceRouteKit } from './source-answer.ts';

export function uploadRoutes({ stacks, sources }: SourceRouteDeps, { Params, mayDeploy, answer }: SourceRouteKit): AnyRoute[] {
  return [
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
  ] as AnyRoute[];
}
