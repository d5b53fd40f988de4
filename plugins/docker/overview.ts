// The docker plugin's part of the overview: the engine reachable or not, this installation's containers, the engine's disk and the address pool's use, and what needs attention (unhealthy or restarting containers, a filling pool); one snapshot shared with the health check and the metrics.
import { statfs } from 'node:fs/promises';
import type Dockerode from 'dockerode';
import type { ContainerInfo } from 'dockerode';
import type { AttentionItem, OverviewContributor } from '../../sdk/index.ts';
import type { AddressPool, PoolUsage } from './address-pool.ts';
import { bareName, label } from './labels.ts';
import { engineState, healthOf } from './status.ts';
import type { DockerRuntime } from './types.ts';
import type { ContainerWatch } from './watch.ts';

export type EngineSnapshot = { engine: Awaited<ReturnType<typeof engineState>>; list: readonly ContainerInfo[] };

export interface EngineOverviewDeps {
  /** a client with a short bound: the overview answers quickly even when the engine hangs */
  probe: Dockerode;
  endpoint: string;
  watch: ContainerWatch;
  runtime: Pick<DockerRuntime, 'ownership'>;
  addresses: AddressPool;
  /** the share of the address pool in use at which the overview warns */
  warnAtPercent: number;
}

export function engineOverview({ probe, endpoint, watch, runtime, addresses, warnAtPercent }: EngineOverviewDeps): { snapshot(): Promise<EngineSnapshot>; contributor: OverviewContributor } {
  // without the live table, the engine is asked at most every 2 s
  let cached: { at: number; value: Promise<EngineSnapshot> } | undefined;
  const snapshot = async (): Promise<EngineSnapshot> => {
    const version = watch.version();
    const known = watch.containers();
    const list = (all: readonly ContainerInfo[]) => all.filter((c) => runtime.ownership(c.Labels).owner !== 'other');
    if (version && known) return { engine: { ok: true, version }, list: list(known) };
    if (cached && Date.now() - cached.at < 2000) return cached.value;
    const value = (async () => {
      const engine = await engineState(probe, endpoint);
      return { engine, list: engine.ok ? list(await probe.listContainers({ all: true, size: false }).catch(() => [])) : [] };
    })();
    cached = { at: Date.now(), value };
    return value;
  };

  // the engine's root folder is asked once; its free space at each read (a remote engine's disk is not this machine's)
  let rootDir: Promise<string | null> | undefined;
  const engineDisk = async () => {
    if (!endpoint.startsWith('unix:')) return null;
    rootDir ??= probe.info().then((info: { DockerRootDir?: string }) => info.DockerRootDir ?? null, () => { rootDir = undefined; return null; });
    const dir = await rootDir;
    const fs = dir ? await statfs(dir).catch(() => null) : null;
    return fs && dir ? { path: dir, totalBytes: fs.blocks * fs.bsize, freeBytes: fs.bavail * fs.bsize } : null;
  };

  // the pool's use, read at most every 30 s (one list of the engine's networks)
  let pooled: { at: number; value: Promise<PoolUsage | null> } | undefined;
  const poolUsage = () => {
    if (!pooled || Date.now() - pooled.at > 30_000) pooled = { at: Date.now(), value: addresses.usage().catch(() => null) };
    return pooled.value;
  };

  const contributor: OverviewContributor = {
    scope: 'containers:read',
    async summary() {
      const { engine, list } = await snapshot();
      const disk = engine.ok ? await engineDisk() : null;
      return {
        // eventsFollowed: container states are known from the engine's events (else every read asks the engine)
        engine: engine.ok ? { reachable: true, version: engine.version, endpoint, eventsFollowed: watch.version() !== null, disk } : { reachable: false, endpoint, eventsFollowed: false },
        containers: { running: list.filter((c) => c.State === 'running').length, stopped: list.filter((c) => c.State !== 'running').length },
      };
    },
    async attention() {
      const { engine, list } = await snapshot();
      if (!engine.ok) return [{ severity: 'critical', kind: 'docker-unreachable', resource: `docker:${endpoint}`, message: engine.reason }];
      const items: AttentionItem[] = [];
      const pool = await poolUsage();
      if (pool && pool.usedAddresses >= (pool.totalAddresses * warnAtPercent) / 100) {
        items.push({
          severity: 'warning', kind: 'address-pool-filling', resource: `docker:${endpoint}`,
          message: `the networks of stacks and previews take ${Math.round((100 * pool.usedAddresses) / pool.totalAddresses)} % of the address pool ${pool.range} (${pool.networks} networks): `
            + 'remove what you no longer need, or give a larger range in plugins.docker.options.addressPool.range',
        });
      }
      for (const c of list.filter((x) => runtime.ownership(x.Labels).owner === 'this')) {
        const health = healthOf(c.Status);
        const name = bareName(c.Names);
        if (health === 'unhealthy') items.push({ severity: 'warning', kind: 'container-unhealthy', resource: `container:${name}`, message: `${name} (stack ${c.Labels[label.project]}) is unhealthy` });
        else if (c.State === 'restarting') items.push({ severity: 'warning', kind: 'container-restarting', resource: `container:${name}`, message: `${name} (stack ${c.Labels[label.project]}) keeps restarting` });
      }
      return items;
    },
  };
  return { snapshot, contributor };
}
