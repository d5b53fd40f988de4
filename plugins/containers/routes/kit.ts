// What the container routes share: the id parameter and flags, the refusals they document, who sees a container's activity, and finding a container the caller may read or act on.
import type Dockerode from 'dockerode';
import { Problem, problem, Type, type Principal, type VisibilityRule } from '../../../sdk/index.ts';
import type { DockerRuntime } from '../../docker/api.ts';
import { toView, type ContainerView } from '../view.ts';

export const Id = Type.Object({
  id: Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$', description: 'full or short container id, or container name' }),
});
export const Flag = Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')]);
export const on = (flag: string | undefined) => flag === '1' || flag === 'true';
export const refusals = '403 also when the container is not managed by Dockwright and the caller is no admin, or when it belongs to another Dockwright installation on the same engine (problem type `other-installation`).';

/** what was done to a container (activity `container:<id or name>`) is as visible as the container: its stack's access
 * list decides; one Dockwright did not make, or that is gone (or was named ambiguously), is for admins */
export function containerVisibility(runtime: DockerRuntime): VisibilityRule {
  return {
    prefix: 'container:',
    async visible(principal, keys, need) {
      if (principal.role === 'admin') return new Set(keys);
      const all = await runtime.containers().catch(() => []);
      const projectOf = new Map<string, string>();
      for (const key of keys) {
        const found = all.filter((c) => c.Id.startsWith(key) || (c.Names ?? []).some((n) => n.replace(/^\//, '') === key));
        const owner = found.length === 1 ? runtime.ownership(found[0].Labels) : null;
        if (owner?.owner === 'this') projectOf.set(key, owner.project);
      }
      const allowed = await runtime.allowedProjects(principal, [...new Set(projectOf.values())], need === 'act' ? 'deploy' : 'read');
      return new Set(keys.filter((k) => projectOf.has(k) && allowed.has(projectOf.get(k)!)));
    },
  };
}

/** the engine, with the lookups every container route starts with */
export function containerKit(runtime: DockerRuntime) {
  const docker: Dockerode = runtime.docker;

  /** engine errors other than "unreachable" (already a 503 problem) as problems naming the container. */
  const fail = (err: unknown, id: string): never => {
    if (err instanceof Problem) throw err;
    const { status, reason } = runtime.errorOf(err);
    if (status === 404) throw problem(404, `there is no container "${id}"`);
    if (status === 409) throw problem(409, `container "${id}": ${reason}`);
    if (/multiple IDs found/i.test(reason)) throw problem(409, `"${id}" is the start of several container ids: give more of it`);
    throw problem(502, `the Docker engine refused the request for "${id}": ${reason}`, { code: 'docker-error' });
  };

  const inspect = async (id: string) => {
    try {
      return await docker.getContainer(id).inspect();
    } catch (err) {
      return fail(err, id);
    }
  };

  /**
   * The container, when this caller may act on it: a stack's containers as the stack's access list allows (404 when
   * the stack is hidden from them), containers outside Dockwright only for admins, another installation's never.
   */
  const actOn = async (id: string, principal: Principal) => {
    const info = await inspect(id);
    const owner = runtime.ownership(info.Config.Labels);
    if (owner.owner === 'other') {
      throw problem(403, `container "${id}" belongs to another Dockwright installation on this engine (${owner.installation}): only that installation acts on it`, { code: 'other-installation' });
    }
    if (owner.owner === 'none') {
      if (principal.role !== 'admin') throw problem(403, `container "${id}" is not managed by Dockwright: only admins may act on it`);
      return info;
    }
    const { project } = owner;
    if ((await runtime.allowedProjects(principal, [project], 'read')).size === 0) throw problem(404, `there is no container "${id}"`);
    if ((await runtime.allowedProjects(principal, [project], 'deploy')).size === 0) throw problem(403, `your role on stack "${project}" does not allow acting on its containers`);
    return info;
  };

  /** the container, when this caller may see it: as actOn, with reading the stack enough */
  const readable = async (id: string, principal: Principal) => {
    const info = await inspect(id);
    const owner = runtime.ownership(info.Config.Labels);
    if (owner.owner === 'other') {
      throw problem(403, `container "${id}" belongs to another Dockwright installation on this engine (${owner.installation}): only that installation reads it`, { code: 'other-installation' });
    }
    if (owner.owner === 'none') {
      if (principal.role !== 'admin') throw problem(403, `container "${id}" is not managed by Dockwright: only admins may read it`);
      return info;
    }
    if ((await runtime.allowedProjects(principal, [owner.project], 'read')).size === 0) throw problem(404, `there is no container "${id}"`);
    return info;
  };

  /** the list entry of one container after acting on it: the same answer as the list, straight from the engine. */
  const view = async (fullId: string, asked: string): Promise<ContainerView> => {
    const c = await runtime.listed(fullId);
    if (!c) throw problem(404, `there is no container "${asked}" any more`);
    return toView(c, runtime.ownership(c.Labels));
  };

  return { runtime, docker, fail, actOn, readable, view };
}
export type ContainerKit = ReturnType<typeof containerKit>;
