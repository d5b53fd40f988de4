// network_mode service:<name>: a service that joins the network namespace of another service of the stack (after it, through the container it has).
import type { NormalizedService } from './model.ts';
import type { Issues } from './issues.ts';

/** the service a `service:<name>` network mode joins; null for any other mode */
export const joinedService = (s: Pick<NormalizedService, 'networkMode'>): string | null => s.networkMode?.startsWith('service:') ? s.networkMode.slice('service:'.length) : null;

/**
 * Each joining service names the first container of the service it joins (the engine's `container:<name>`), starts
 * after it, and publishes no ports of its own (they are the joined service's to publish), as compose has it.
 */
export function resolveNetworkModes(services: NormalizedService[], project: string, issues: Issues): void {
  const byName = new Map(services.map((s) => [s.name, s]));
  for (const s of services) {
    const target = joinedService(s);
    if (target === null) continue;
    const path = `services.${s.name}.network_mode`;
    const joined = byName.get(target);
    if (!joined) { issues.error(path, `"${target}" is not a service of this file (or its profiles are not active)`); continue; }
    if (joined === s) { issues.error(path, 'a service cannot join its own network namespace'); continue; }
    if (s.ports.length) issues.error(`services.${s.name}.ports`, `a service in the network namespace of ${target} cannot publish ports: publish them on ${target}`);
    s.networkContainer = joined.containerName ?? `${project}-${target}-1`;
    if (!s.dependsOn.some((d) => d.service === target)) s.dependsOn.push({ service: target, condition: 'service_started', required: true });
  }
}
