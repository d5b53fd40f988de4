// Reconcile on start: what a crash left half-done (containers created but never started, containers set aside for a recreate, successors a start-first deploy started beside the old) is put back as the last completed deploy left it.
import type { Logger } from '../../sdk/index.ts';
import { reasonOf, statusOf } from './client.ts';
import { bareName, filterFor, isOurs, isReplacedName, isStartingName, nameBeforeStarting, originalName, ranBeforeReplaced } from './labels.ts';
import { removeContainer, type ResourceDeps } from './resources.ts';

export interface ReconcileReport { removed: string[]; restored: string[] }

/** how often a container put back is looked at while a stop may still be under way */
const settlePollMs = 250;

/**
 * Starts a container put back that ran before its recreate. A stop the crashed process had asked for is not ended by its
 * death: the engine finishes it (up to the container's stop timeout), and a start meanwhile answers 304 "already
 * running". So a container found running is watched until that stop could have ended, and started again if it stopped.
 */
async function runAgain(deps: ResourceDeps, id: string): Promise<void> {
  const container = deps.docker.getContainer(id);
  const start = () => container.start().catch((err) => { if (statusOf(err) !== 304) throw err; });
  const info = await container.inspect();
  if (!info.State.Running) return start();
  const graceMs = ((info.Config as { StopTimeout?: number }).StopTimeout ?? deps.stopSeconds) * 1000;
  const until = Date.now() + graceMs + 2000;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, settlePollMs));
    const now = await container.inspect();
    if (!now.State.Running) return start();
  }
}

/**
 * Only this installation's containers are touched. `bootedAt` (unix seconds) protects what deploys of this process
 * create while reconcile runs: only containers older than it can be left over from a crash.
 */
export async function reconcile(deps: ResourceDeps, log: Logger, bootedAt: number): Promise<ReconcileReport> {
  const { docker } = deps;
  const report: ReconcileReport = { removed: [], restored: [] };
  // a swarm task's container is the swarm's to replace, not a half-done deploy of ours
  const list = (await docker.listContainers({ all: true, size: false, filters: filterFor.managed() }))
    .filter((c) => isOurs(c.Labels, deps.installation) && !c.Labels['com.docker.swarm.task.id']);
  const byName = new Map(list.map((c) => [bareName(c.Names), c]));
  const leftOver = list.filter((c) => c.Created < bootedAt);
  const remove = async (id: string, name: string, why: string) => {
    await removeContainer(deps, id, { volumes: true });
    byName.delete(name);
    report.removed.push(name);
    log.info({ container: name }, `reconcile: removed ${why}`);
  };

  // a recreate stopped here: its successor decides whether the old container or the new one is the service's
  const settling: Promise<void>[] = [];
  for (const c of leftOver.filter((x) => isReplacedName(bareName(x.Names)))) {
    const name = bareName(c.Names);
    const original = originalName(name);
    const successor = byName.get(original);
    try {
      if (successor && successor.Created >= bootedAt) continue; // a deploy of this process is at work on it
      if (successor && successor.State !== 'created') {
        await remove(c.Id, name, 'a container replaced by a recreate that completed but for removing it');
        continue;
      }
      if (successor) await remove(successor.Id, original, 'the successor a recreate created but never started');
      // the replacement never completed: the old container is the service's, in the state the last deploy left it
      await docker.getContainer(c.Id).rename({ name: original });
      if (ranBeforeReplaced(name)) {
        settling.push(runAgain(deps, c.Id).catch((err) => log.warn({ container: original, error: reasonOf(err) }, 'reconcile: could not start a container put back after an interrupted recreate')));
      }
      byName.set(original, c);
      report.restored.push(original);
      log.info({ container: original, was: name }, 'reconcile: restored a container set aside by an interrupted recreate');
    } catch (err) {
      log.warn({ container: name, error: reasonOf(err) }, 'reconcile: could not put back a container set aside by a recreate');
    }
  }
  // a start-first deploy stopped before its new container took the service's name: the one that has the name serves;
  // a new container alone (its old one gone) takes the name
  for (const c of leftOver.filter((x) => isStartingName(bareName(x.Names)))) {
    const name = bareName(c.Names);
    const original = nameBeforeStarting(name);
    try {
      if (byName.has(original) || c.State !== 'running') {
        await remove(c.Id, name, 'a new container a start-first deploy started but never switched to');
        continue;
      }
      await docker.getContainer(c.Id).rename({ name: original });
      byName.delete(name);
      byName.set(original, c);
      report.restored.push(original);
      log.info({ container: original, was: name }, 'reconcile: a new container a start-first deploy started, whose old one is gone, took its name');
    } catch (err) {
      log.warn({ container: name, error: reasonOf(err) }, 'reconcile: could not clean up a container a start-first deploy started');
    }
  }
  for (const c of leftOver.filter((x) => x.State === 'created' && !isReplacedName(bareName(x.Names)) && !isStartingName(bareName(x.Names)))) {
    const name = bareName(c.Names);
    if (byName.get(name) !== c) continue; // already dealt with above
    try {
      await remove(c.Id, name, 'a container whose creation was interrupted (created, never started)');
    } catch (err) {
      log.warn({ container: name, error: reasonOf(err) }, 'reconcile: could not clean up a container');
    }
  }
  // the containers put back run again (each watched, in parallel, while a stop of the crashed process may be under way)
  await Promise.all(settling);
  return report;
}
