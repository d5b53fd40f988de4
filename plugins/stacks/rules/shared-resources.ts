// Platform rules about what other stacks and installations hold on the same engine: named volumes and networks, external secrets, container names and host ports.
import { perService } from './compose.ts';
import type { PlatformRule, RuleIssue, RuleOptions } from './types.ts';

/** what a stack may be named (the routes' StackName): the part of a volume or network name before its first "_" that could be one is that stack's */
const stackNamePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function sharedResourceRules(opts: RuleOptions): PlatformRule[] {
  return [
    {
      id: 'stack-owned-resources', enabled: false, description: "volumes, networks, secrets and configs belong to the stack: no external or explicitly named volumes and networks, no external secrets or configs; off by default (no-external-resources keeps other stacks' out)",
      check: ({ loaded, stack }) => [
        ...loaded.volumes.filter((v) => v.external || v.name !== `${stack}_${v.key}`).map((v) => ({ path: `volumes.${v.key}`, message: `volume ${v.key} is ${v.external ? 'external' : `named ${v.name}`}` })),
        ...loaded.networks.filter((n) => n.external || n.name !== `${stack}_${n.key}`).map((n) => ({ path: `networks.${n.key}`, message: `network ${n.key} is ${n.external ? 'external' : `named ${n.name}`}` })),
        ...[...loaded.secrets, ...loaded.configs].filter((o) => o.external).map((o) => ({ path: `${o.kind}s.${o.key}`, message: `${o.kind} ${o.key} is external (${o.name})` })),
      ],
    },
    {
      id: 'no-external-resources', description: "an external or explicitly named volume or network is not another stack's nor another installation's (one made outside Dockwright, like a shared proxy network, may be joined); no external secrets or configs (a swarm's are anyone's)",
      async check({ loaded, stack }) {
        const whose = { stack: 'another stack', installation: 'another Dockwright installation on this engine' };
        const judge = async (kind: 'volume' | 'network', list: readonly { key: string; name: string; external: boolean }[]) => {
          const named = list.filter((r) => r.external || r.name !== `${stack}_${r.key}`);
          if (!named.length) return [];
          const held = (await opts.resourcesHeld(stack, kind, named.map((r) => r.name))) ?? [];
          return held.flatMap((h) => named.filter((r) => r.name === h.name)
            .map((r) => ({ path: `${kind}s.${r.key}`, message: `the ${kind} ${h.name} is held by ${whose[h.holder]}` })));
        };
        return [
          ...await judge('volume', loaded.volumes),
          ...await judge('network', loaded.networks),
          // a swarm's secrets are the engine's, whoever made them: an external one could be another stack's or installation's
          ...[...loaded.secrets, ...loaded.configs].filter((o) => o.external).map((o) => ({ path: `${o.kind}s.${o.key}`, message: `${o.kind} ${o.key} is external (${o.name})` })),
        ];
      },
    },
    {
      id: 'own-resource-names', atDeploy: true, description: "a volume or network the stack creates under an explicit name is not named as another stack's own (`<stack>_…`): a name another stack will need is never taken first",
      check: ({ loaded, stack }) => [...loaded.volumes.map((v) => ({ kind: 'volume', ...v })), ...loaded.networks.map((n) => ({ kind: 'network', ...n }))].flatMap((r) => {
        const prefix = r.name.includes('_') ? r.name.slice(0, r.name.indexOf('_')) : null;
        if (r.external || prefix === null || prefix === stack || !stackNamePattern.test(prefix)) return [];
        return [{ path: `${r.kind}s.${r.key}`, message: `the ${r.kind} name ${r.name} is in the namespace of the stack ${prefix} (the names Dockwright gives a stack's own ${r.kind}s): name it ${stack}_… or without "_"` }];
      }),
    },
    {
      id: 'no-container-name', enabled: false, description: 'no container_name (names are the platform\'s, so stacks cannot collide); off by default',
      check: ({ loaded }) => perService(loaded, 'container_name', () => true, (n) => `service ${n} sets container_name`),
    },
    {
      id: 'container-name-available', description: 'a container_name is not held on the engine by another stack, another installation or a container made outside Dockwright',
      async check({ loaded, stack }) {
        const named = loaded.services.filter((s) => s.containerName !== null);
        if (!named.length) return [];
        const held = await opts.containerNamesHeld(stack, named.map((s) => s.containerName!));
        // a stack is not named: the caller may not see it
        const whose = { stack: 'another stack', installation: 'another Dockwright installation on this engine', outside: 'a container made outside Dockwright' };
        return (held ?? []).flatMap((h) => named.filter((s) => s.containerName === h.name)
          .map((s) => ({ path: `services.${s.name}.container_name`, message: `the container name ${h.name} is held by ${whose[h.holder]}` })));
      },
    },
    {
      id: 'ports-available', description: 'published host ports are not used by another stack or twice in this one',
      async check({ loaded, stack, principal }) {
        const issues: RuleIssue[] = [];
        // judged on the loader's ports, which are bounded: never re-expanded from what the user wrote
        const mine = new Map<string, string>();
        for (const s of loaded.services) {
          for (const p of s.ports) {
            if (p.published === null) continue;
            const key = `${p.published}/${p.protocol}`;
            const path = `services.${s.name}.ports[${p.entry}]`;
            const first = mine.get(key);
            if (first) issues.push({ path, message: `host port ${key} is published twice in this file (also at ${first})` });
            else mine.set(key, path);
          }
        }
        if (!mine.size) return issues;
        const used = (await opts.portsInUse(stack)) ?? [];
        const clashes = used.filter((u) => mine.has(`${u.hostPort}/${u.protocol}`));
        const seen = await opts.visibleStacks(principal, [...new Set(clashes.flatMap((u) => (u.project ? [u.project] : [])))]);
        for (const u of clashes) {
          const key = `${u.hostPort}/${u.protocol}`;
          const holder = !u.project ? 'a container outside Dockwright' : seen.has(u.project) ? `stack ${u.project}` : 'another stack';
          issues.push({ path: mine.get(key)!, message: `host port ${key} is already published by ${holder}` });
        }
        return issues;
      },
    },
  ];
}
