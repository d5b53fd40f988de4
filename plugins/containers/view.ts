// How a container is answered: the schema and the mapping from the engine's list entry (never an inspect per container).
import type { ContainerInfo } from 'dockerode';
import { Type, type Static } from '../../sdk/index.ts';
import type { Ownership } from '../docker/types.ts';

export const ContainerSchema = Type.Object({
  id: Type.String({ description: 'full container id' }),
  name: Type.String(),
  project: Type.Union([Type.String(), Type.Null()], { description: 'the stack that owns it, or null' }),
  service: Type.Union([Type.String(), Type.Null()]),
  image: Type.String(),
  state: Type.String({ description: 'created, running, paused, restarting, removing, exited or dead' }),
  status: Type.String({ description: 'the engine\'s words, e.g. "Up 2 minutes (healthy)"' }),
  health: Type.Union([Type.String(), Type.Null()], { description: 'healthy, unhealthy, starting, or null without a healthcheck' }),
  createdAt: Type.String({ format: 'date-time' }),
  ports: Type.Array(Type.Object({
    hostIp: Type.Union([Type.String(), Type.Null()]),
    hostPort: Type.Union([Type.Integer(), Type.Null()]),
    containerPort: Type.Integer(),
    protocol: Type.String(),
  })),
});
export type ContainerView = Static<typeof ContainerSchema>;

function healthOf(status: string): string | null {
  const m = /\((healthy|unhealthy|health: starting)\)/.exec(status);
  return m ? (m[1] === 'health: starting' ? 'starting' : m[1]) : null;
}

export function toView(c: ContainerInfo, owner: Ownership): ContainerView {
  const seen = new Set<string>();
  const ports = (c.Ports ?? []).map((p) => ({ hostIp: p.IP ?? null, hostPort: p.PublicPort ?? null, containerPort: p.PrivatePort, protocol: p.Type }))
    .filter((p) => { const k = JSON.stringify(p); return !seen.has(k) && !!seen.add(k); })
    .sort((a, b) => a.containerPort - b.containerPort || (a.hostPort ?? 0) - (b.hostPort ?? 0));
  return {
    id: c.Id,
    name: (c.Names?.[0] ?? '').replace(/^\//, ''),
    project: owner.owner === 'this' ? owner.project : null,
    service: owner.owner === 'this' ? owner.service : null,
    image: c.Image,
    state: c.State,
    status: c.Status,
    health: healthOf(c.Status),
    createdAt: new Date(c.Created * 1000).toISOString(),
    ports,
  };
}
