// Platform rules about networks: never the host's, the edge's or Docker's own, and only the drivers, options and IPAM drivers an admin allows.
import { dockerNetworkNames, edgeNetworkName } from '../../docker/api.ts';
import type { LoadedCompose } from '../../docker/types.ts';
import { listOrNone, normalized } from './compose.ts';
import type { PlatformRule, RuleOptions } from './types.ts';

/**
 * The networks of the file the engine would resolve to a reserved one (`edge` or `docker`): by the name written (an
 * external network, a top-level key, an explicit name), then as the engine resolves it (an id or an id's prefix).
 */
async function reservedOf(opts: RuleOptions, loaded: LoadedCompose, stack: string, kind: 'edge' | 'docker'): Promise<{ key: string; network: string }[]> {
  const named = loaded.networks.filter((n) => n.external || n.name !== `${stack}_${n.key}`);
  const byName = (n: { name: string }) => (kind === 'edge' ? n.name === edgeNetworkName : dockerNetworkNames.includes(n.name));
  const found = named.filter(byName).map((n) => ({ key: n.key, network: n.name }));
  const rest = named.filter((n) => !byName(n));
  if (!rest.length) return found;
  const resolved = ((await opts.reservedNetworks(rest.map((n) => n.name))) ?? []).filter((r) => r.reserved === kind);
  return [...found, ...rest.flatMap((n) => resolved.filter((r) => r.name === n.name).map((r) => ({ key: n.key, network: r.network })))];
}

export function networkRules(opts: RuleOptions): PlatformRule[] {
  const networkDrivers = new Set(opts.allowedNetworkDrivers);
  const networkOptions = new Set(opts.allowedNetworkOptions);
  const ipamDrivers = new Set(opts.allowedIpamDrivers);
  const list = listOrNone;
  return [
    {
      id: 'no-host-network', description: "no network_mode: host (nor another container's network), nor a build on the host's network",
      check: ({ loaded }) => normalized(loaded).flatMap(({ s }) => [
        ...(s.networkMode === 'host' || s.networkMode?.startsWith('container:')
          ? [{ path: `services.${s.name}.network_mode`, message: `service ${s.name} asks for the network of ${s.networkMode === 'host' ? 'the host' : s.networkMode}` }] : []),
        ...(s.build?.network === 'host' ? [{ path: `services.${s.name}.build.network`, message: `the build of service ${s.name} asks for the network of the host` }] : []),
      ]),
    },
    {
      id: 'no-edge-network', atDeploy: true, description: `never the edge's network (${edgeNetworkName}), by any name, nor a build on it: the edge joins what it routes itself, and a stack on its network would reach every routed container`,
      async check({ loaded, stack }) {
        const message = (what: string) => `${what} the edge's network (${edgeNetworkName}): a stack never joins it; the edge routes a service by its dockwright.http.host label`;
        return [
          ...(await reservedOf(opts, loaded, stack, 'edge')).map(({ key }) => ({ path: `networks.${key}`, message: message(`network ${key} is`) })),
          ...normalized(loaded).filter(({ s }) => s.build?.network === edgeNetworkName).map(({ s }) => ({ path: `services.${s.name}.build.network`, message: message(`the build of service ${s.name} asks for`) })),
        ];
      },
    },
    {
      id: 'no-docker-networks', atDeploy: true, description: `none of Docker's own networks (${dockerNetworkNames.join(', ')}) as a stack's network, by any name, nor network_mode: bridge: they are shared with the host, every container outside a network, or a swarm's routing mesh`,
      async check({ loaded, stack }) {
        return [
          ...(await reservedOf(opts, loaded, stack, 'docker')).map(({ key, network }) => ({ path: `networks.${key}`, message: `network ${key} is Docker's own network ${network}, which a stack never joins${network === 'none' ? ' (network_mode: none gives a service no network)' : ''}` })),
          ...normalized(loaded).filter(({ s }) => s.networkMode === 'bridge').map(({ s }) => ({ path: `services.${s.name}.network_mode`, message: `service ${s.name} asks for Docker's default bridge, shared with every container started without a network` })),
        ];
      },
    },
    {
      id: 'allowed-network-drivers', description: `network drivers only of ${list(networkDrivers)} (macvlan, ipvlan and host put containers on the host's own network)`,
      check: ({ loaded }) => loaded.networks.filter((n) => !n.external && !networkDrivers.has(n.driver))
        .map((n) => ({ path: `networks.${n.key}.driver`, message: `network ${n.key} uses the ${n.driver} driver, which an admin has not allowed` })),
    },
    {
      id: 'allowed-network-options', description: `network driver_opts only of ${list(networkOptions)} (others can take over a host bridge or interface)`,
      check: ({ loaded }) => loaded.networks.flatMap((n) => Object.keys(n.driverOpts).filter((o) => !networkOptions.has(o))
        .map((o) => ({ path: `networks.${n.key}.driver_opts.${o}`, message: `network ${n.key} sets the driver option ${o}, which an admin has not allowed` }))),
    },
    {
      id: 'allowed-ipam-drivers', description: `IPAM drivers of the stack's networks only of ${list(ipamDrivers)}`,
      check: ({ loaded }) => loaded.networks.filter((n) => !n.external && n.ipam && !ipamDrivers.has(n.ipam.driver))
        .map((n) => ({ path: `networks.${n.key}.ipam.driver`, message: `network ${n.key} uses the ${n.ipam!.driver} IPAM driver, which an admin has not allowed` })),
    },
  ];
}
