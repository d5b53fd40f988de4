// Reconcile on start: what a crash left half-done (containers created but never started, containers set aside for a recreate) is adopted or removed.
import type Dockerode from 'dockerode';
import type { Logger } from '../../sdk/index.ts';
import { reasonOf, statusOf } from './client.ts';
import { bareName, filterFor, isReplacedName, originalName } from './labels.ts';
import { removeContainer } from './resources.ts';

export interface ReconcileReport { removed: string[]; adopted: string[] }

/**
 * `bootedAt` (unix seconds) protects what deploys of this process create while reconcile runs:
 * only containers older than it can be left over from a crash.
 */
export async function reconcile(docker: Dockerode, log: Logger, bootedAt: number, stopSeconds: number): Promise<ReconcileReport> {
  const report: ReconcileReport = { removed: [], adopted: [] };
  const list = await docker.listContainers({ all: true, size: false, filters: filterFor.managed() });
  const names = new Set(list.map((c) => bareName(c.Names)));
  for (const c of list) {
    if (c.Created >= bootedAt) continue;
    const name = bareName(c.Names);
    try {
      if (isReplacedName(name)) {
        const original = originalName(name);
        if (!names.has(original)) {
          // its successor was never created: the old container is the service's, as before the crash
          await docker.getContainer(c.Id).rename({ name: original });
          await docker.getContainer(c.Id).start().catch((err) => { if (statusOf(err) !== 304) throw err; });
          names.add(original);
          report.adopted.push(original);
          log.info({ container: original, was: name }, 'reconcile: adopted a container set aside by an interrupted recreate');
        } else {
          await removeContainer({ docker, stopSeconds }, c.Id, { volumes: true });
          report.removed.push(name);
          log.info({ container: name }, 'reconcile: removed a container replaced by an interrupted recreate');
        }
      } else if (c.State === 'created') {
        await removeContainer({ docker, stopSeconds }, c.Id, { volumes: true });
        report.removed.push(name);
        log.info({ container: name }, 'reconcile: removed a container whose creation was interrupted (created, never started)');
      }
    } catch (err) {
      log.warn({ container: name, error: reasonOf(err) }, 'reconcile: could not clean up a container');
    }
  }
  return report;
}
