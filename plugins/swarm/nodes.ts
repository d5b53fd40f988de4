// The swarm's nodes as the API shows them (by id): role, availability, state, resources and task counts, from two engine calls.
import type Dockerode from 'dockerode';
import { problem, Type, type Static } from '../../sdk/index.ts';

export const NodeView = Type.Object({
  id: Type.String(),
  hostname: Type.String(),
  role: Type.Union([Type.Literal('manager'), Type.Literal('worker')]),
  leader: Type.Boolean(),
  availability: Type.String({ description: 'active, pause or drain' }),
  state: Type.String({ description: 'ready, down, disconnected or unknown' }),
  address: Type.Union([Type.String(), Type.Null()]),
  engineVersion: Type.Union([Type.String(), Type.Null()]),
  resources: Type.Object({ cpus: Type.Number(), memoryBytes: Type.Integer() }),
  tasks: Type.Object({ running: Type.Integer(), total: Type.Integer({ description: 'tasks the swarm wants on this node (desired state running)' }) }),
});
export type NodeView = Static<typeof NodeView>;

interface EngineNode {
  ID: string;
  Description?: { Hostname?: string; Resources?: { NanoCPUs?: number; MemoryBytes?: number }; Engine?: { EngineVersion?: string } };
  Spec?: { Role?: string; Availability?: string };
  Status?: { State?: string; Addr?: string };
  ManagerStatus?: { Leader?: boolean; Addr?: string };
}

interface EngineTask { NodeID?: string; DesiredState?: string; Status?: { State?: string } }

/** 409 when the engine is not a swarm manager: only a manager can list nodes and run services */
export async function assertManager(docker: Dockerode): Promise<void> {
  let info: { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean } };
  try {
    info = await docker.info();
  } catch (err) {
    throw problem(503, `the Docker engine cannot be reached: ${(err as Error).message}`);
  }
  if (info.Swarm?.LocalNodeState !== 'active' || !info.Swarm.ControlAvailable) {
    throw problem(409, `the Docker engine is not a swarm manager (swarm state ${info.Swarm?.LocalNodeState ?? 'unknown'}): run "docker swarm init" on it, or point Dockwright at a manager`, { code: 'not-a-swarm-manager' });
  }
}

export async function listNodes(docker: Dockerode): Promise<NodeView[]> {
  await assertManager(docker);
  const [nodes, tasks] = await Promise.all([
    docker.listNodes() as Promise<EngineNode[]>,
    docker.listTasks({ filters: { 'desired-state': ['running'] } }) as Promise<EngineTask[]>,
  ]);
  const counts = new Map<string, { running: number; total: number }>();
  for (const t of tasks) {
    if (!t.NodeID) continue;
    const c = counts.get(t.NodeID) ?? { running: 0, total: 0 };
    c.total++;
    if (t.Status?.State === 'running') c.running++;
    counts.set(t.NodeID, c);
  }
  return nodes.map((n): NodeView => ({
    id: n.ID,
    hostname: n.Description?.Hostname ?? '',
    role: n.Spec?.Role === 'manager' ? 'manager' : 'worker',
    leader: Boolean(n.ManagerStatus?.Leader),
    availability: n.Spec?.Availability ?? 'unknown',
    state: n.Status?.State ?? 'unknown',
    address: n.Status?.Addr ?? n.ManagerStatus?.Addr ?? null,
    engineVersion: n.Description?.Engine?.EngineVersion ?? null,
    resources: { cpus: (n.Description?.Resources?.NanoCPUs ?? 0) / 1e9, memoryBytes: n.Description?.Resources?.MemoryBytes ?? 0 },
    tasks: counts.get(n.ID) ?? { running: 0, total: 0 },
  })).sort((a, b) => (a.id < b.id ? -1 : 1));
}
