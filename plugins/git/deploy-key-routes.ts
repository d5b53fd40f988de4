// The deploy key endpoints of /api/v1: make (or replace) the SSH key pair of a stack name and read its public half; the private half is never answered.
import { defineRoute, Nullable, problem, reply, Type, type AnyRoute, type Principal } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/index.ts';
import type { DeployKeys } from './deploy-keys.ts';
import type { Credentials } from './git.ts';
import { invalid } from './remote.ts';
import { Invalid } from './validate.ts';

export const DeployKeyRef = Type.Object({
  kind: Type.Literal('deploy-key', { description: 'the key made for this stack by POST /api/v1/stacks/{name}/source/deploy-key (ssh URLs only)' }),
}, { additionalProperties: false });

export const isDeployKeyRef = (credentials: unknown): boolean =>
  typeof credentials === 'object' && credentials !== null && (credentials as { kind?: unknown }).kind === 'deploy-key';

const noKey = (stack: string) => problem(404, `no deploy key for stack "${stack}"; POST /api/v1/stacks/${stack}/source/deploy-key makes one`, { code: 'no-deploy-key' });

/** the credentials of a source write that asks for the stack's deploy key: 400 for a URL that is not ssh, 422 when none was made (or it expired unused) */
export async function deployKeyCredentials(keys: DeployKeys, stack: string, urlKind: string): Promise<Credentials> {
  if (urlKind !== 'ssh') throw invalid(new Invalid('credentials', 'a deploy key works with ssh URLs (ssh://… or git@host:path); https URLs take credentials.token'));
  const sshKey = await keys.privateKey(stack);
  if (!sshKey) {
    throw problem(422, `no deploy key was made for stack "${stack}" (or it expired before a source used it): POST /api/v1/stacks/${stack}/source/deploy-key makes one; nothing was changed`,
      { code: 'no-deploy-key', errors: [{ path: '/body/credentials', message: 'no deploy key for this stack' }] });
  }
  return { kind: 'ssh-key', sshKey };
}

const DeployKeyView = Type.Object({
  stack: Type.String(),
  publicKey: Type.String({ description: 'the public key in OpenSSH format (ssh-ed25519 …): add it to the repository as a read-only deploy key' }),
  fingerprint: Type.String({ description: 'its SHA256 fingerprint, as ssh-keygen -l and the hosting services show it' }),
  createdAt: Type.String(),
  expiresAt: Nullable(Type.String({ description: 'when the key goes unless a source uses it first; null once one does' })),
});

export function deployKeyRoutes({ stacks, keys }: { stacks: StacksApi; keys: DeployKeys }): AnyRoute[] {
  const Params = Type.Object({ name: stacks.nameSchema });
  /** an existing stack is the caller's to write; a name without a stack may get a key before the stack is made from it */
  async function mayWrite(stack: string, principal: Principal) {
    if (await stacks.exists(stack)) await stacks.access(stack, principal, 'write');
  }
  return [
    defineRoute({
      method: 'POST', path: '/stacks/:name/source/deploy-key', scopes: ['stacks:write'], params: Params, status: 201,
      summary: 'Make an SSH deploy key (ed25519) for the stack, which may not exist yet: the public half is answered, the private half is kept sealed for its git source',
      description: 'Add the public key to the repository as a read-only deploy key (GitHub, Gitea, Forgejo: Settings → Deploy keys; GitLab: Settings → Repository → Deploy keys), '
        + "then set the source with credentials: { kind: 'deploy-key' } and an ssh URL (PUT /api/v1/stacks/{name}/source, with If-None-Match: * to create the stack). "
        + 'A key no source uses expires (plugins.git.options.deployKeyExpiryMs, a day by default); the next POST replaces the key, also for a source that uses it; '
        + 'removing the stack removes its key. The private key is never answered, logged or passed on a command line.',
      response: DeployKeyView,
      activity: 'stack.source.deploy-key', resource: 'stack:{name}',
      handler: async ({ params, principal }) => {
        await mayWrite(params.name, principal);
        return reply(201, await keys.make(params.name));
      },
    }),
    defineRoute({
      method: 'GET', path: '/stacks/:name/source/deploy-key', scopes: ['stacks:write'], params: Params,
      summary: "The public half of the stack's deploy key again (404 when none was made, or it expired unused)",
      response: DeployKeyView,
      handler: async ({ params, principal }) => {
        // a stack hidden from the caller answers as a name without a key
        await mayWrite(params.name, principal).catch((err) => { throw err?.status === 404 ? noKey(params.name) : err; });
        const key = await keys.get(params.name);
        if (!key) throw noKey(params.name);
        return key;
      },
    }),
  ] as AnyRoute[];
}
