// Platform rules about mounts and volumes: bind mounts only below allowed roots, volume drivers and options that bind nothing of the host, volumes_from only within the stack.
import { isWithin } from '../../../sdk/index.ts';
import { listOrNone, listed, normalized, volumePaths } from './compose.ts';
import type { PlatformRule, RuleOptions } from './types.ts';

/** a "local" volume in memory: type and device tmpfs, options that bind nothing */
const tmpfsVolume = (driver: string, opts: Readonly<Record<string, string>>) => driver === 'local' && opts.type === 'tmpfs' && (opts.device ?? 'tmpfs') === 'tmpfs'
  && !(opts.o ?? '').split(',').some((o) => ['bind', 'rbind'].includes(o.trim())) && Object.keys(opts).every((k) => ['type', 'device', 'o'].includes(k));

export function volumeRules(opts: RuleOptions): PlatformRule[] {
  const volumeDrivers = new Set(opts.allowedVolumeDrivers);
  const underRoot = (path: string) => opts.allowedBindRoots.some((root) => isWithin(root, path));
  const list = listOrNone;
  return [
    {
      id: 'allowed-bind-mounts', description: `bind mounts only below the allowed roots${opts.allowedBindRoots.length ? ` (${opts.allowedBindRoots.join(', ')})` : ''}, or inside the stack's source tree`,
      check: ({ loaded, workdir }) => normalized(loaded).flatMap(({ s, raw }) => {
        const outside = s.mounts.filter((m) => m.type === 'bind' && m.source && !(workdir !== undefined && isWithin(workdir, m.source)) && !underRoot(m.source));
        const paths = outside.length ? volumePaths(raw, s.name) : new Map<string, string>();
        return outside.map((m) => ({ path: paths.get(m.target) ?? `services.${s.name}.volumes`, message: `service ${s.name} mounts the host path ${m.source}, which is not below an allowed root` }));
      }),
    },
    {
      id: 'no-host-volume-options', description: 'named volumes without driver options, but for a "local" tmpfs volume (a "local" volume with o=bind is a bind mount of any host path, one with a device type mounts a host device)',
      check: ({ loaded }) => loaded.volumes.filter((v) => Object.keys(v.driverOpts).length > 0 && !tmpfsVolume(v.driver, v.driverOpts))
        .map((v) => ({ path: `volumes.${v.key}.driver_opts`, message: `volume ${v.key} sets driver options` })),
    },
    {
      id: 'allowed-volume-drivers', description: `volume drivers only of ${list(volumeDrivers)}`,
      check: ({ loaded }) => loaded.volumes.filter((v) => !volumeDrivers.has(v.driver))
        .map((v) => ({ path: `volumes.${v.key}.driver`, message: `volume ${v.key} uses the ${v.driver} driver, which an admin has not allowed` })),
    },
    {
      id: 'volumes-from-own-stack', description: 'volumes_from only of services (or containers) of the stack itself',
      check: ({ loaded }) => normalized(loaded).flatMap(({ s, raw }) => {
        const paths = listed(raw, s.name, 'volumes_from');
        return s.volumesFrom.filter((v) => v.container !== null).map((v) => ({
          path: paths.find((p) => p.value.split(':').includes(v.container!))?.path ?? `services.${s.name}.volumes_from`,
          message: `service ${s.name} mounts the volumes of the container ${v.container}, which is not one of this stack's`,
        }));
      }),
    },
  ];
}
