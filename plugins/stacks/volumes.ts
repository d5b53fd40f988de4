// The volume endpoints of /api/v1: this installation's named volumes with their stack (sizes on request), and removing an unused one.
import { defineRoute, Nullable, problem, Type, type AnyRoute, type Principal } from '../../sdk/index.ts';
import type { DockerRuntime } from '../docker/types.ts';
import { assertAccess, canSee } from './access.ts';
import { Flag, isOn } from './routes.ts';
import type { StackStore } from './store.ts';

const VolumeName = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$', description: 'the engine\'s name of the volume (<stack>_<key> for a stack\'s own)' });

const VolumeSchema = Type.Object({
  name: Type.String(),
  stack: Type.String({ description: 'the stack that created it (it may have been deleted since: see stackExists)' }),
  stackExists: Type.Boolean({ description: 'false for a volume kept when its stack was deleted (admins only see and remove those)' }),
  driver: Type.String(),
  createdAt: Nullable(Type.String()),
  size: Nullable(Type.Integer({ description: 'bytes; null unless ?size=1 (or when the engine cannot measure it)' })),
  containers: Nullable(Type.Integer({ description: 'how many containers use it; null unless ?size=1' })),
});

export function volumeRoutes({ runtime, store }: { runtime: DockerRuntime; store: StackStore }): AnyRoute[] {
  /**
   * A volume is as visible as its stack (its access list); one whose stack is gone, for admins. Answers the caller's
   * view of each project: visible and whether the stack exists.
   */
  async function visibility(principal: Principal, projects: readonly string[]) {
    const access = await store.accessOf([...new Set(projects)]);
    return (project: string) => {
      const entries = access.get(project);
      return { visible: entries ? canSee(principal, entries, project) : principal.role === 'admin' && !principal.stacks, exists: entries !== undefined, access: entries };
    };
  }

  return [
    defineRoute({
      method: 'GET', path: '/volumes', scopes: ['stacks:read'],
      summary: "This installation's named volumes with their stack; sizes only with ?size=1",
      description: "The volumes made by this installation's stacks (kept ones of deleted stacks included, shown to admins). Sizes come from the engine's `GET /system/df`, which reads every volume's data: ask for them with ?size=1 only when needed.",
      query: Type.Object({ size: Flag('also measure each volume (slow on large volumes)') }),
      response: Type.Array(VolumeSchema),
      handler: async ({ query, principal }) => {
        const volumes = await runtime.installationVolumes({ size: isOn(query.size) });
        const of = await visibility(principal, volumes.map((v) => v.project));
        return volumes.flatMap((v) => {
          const seen = of(v.project);
          return seen.visible ? [{ name: v.name, stack: v.project, stackExists: seen.exists, driver: v.driver, createdAt: v.createdAt, size: v.size, containers: v.containers }] : [];
        });
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/volumes/:name', scopes: ['stacks:write'], params: Type.Object({ name: VolumeName }), status: 204, errors: [404, 409],
      summary: 'Remove an unused named volume of this installation (its data is lost)',
      description: "A stack's volume needs manager on the stack's access list (or no list); a volume whose stack is gone, an admin. 409 while a container uses it (stop or delete the stack first). Another installation's volume, one not made by Dockwright and one of a stack hidden from the caller are 404.",
      activity: 'volume.delete', resource: 'volume:{name}',
      handler: async ({ params, principal }) => {
        const missing = () => problem(404, `no volume "${params.name}"`);
        const project = await runtime.volumeProject(params.name);
        if (project === null) throw missing();
        const seen = (await visibility(principal, [project]))(project);
        if (!seen.visible) throw missing();
        if (seen.access) assertAccess(principal, project, seen.access, 'write');
        const result = await runtime.removeVolume(params.name);
        if (result === 'absent') throw missing();
        if (result === 'in-use') throw problem(409, `the volume "${params.name}" is in use by a container: stop or delete stack "${project}" first`, { code: 'volume-in-use' });
      },
    }),
  ];
}
