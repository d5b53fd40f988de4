// The containers a backup run stopped (consistency stop), written down before they are stopped: a run whose process died (kill -9, a crash, a restart) leaves its note, and the containers it names are started again at the next start.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DockerRuntime } from '../docker/types.ts';

export interface StoppedContainer { id: string; name: string }

export function stoppedJournal(dir: string) {
  const fileOf = (runId: string) => join(dir, `${runId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
  return {
    /** written before the containers are stopped */
    async record(runId: string, containers: readonly StoppedContainer[]): Promise<void> {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(fileOf(runId), JSON.stringify({ runId, containers }), { mode: 0o600 });
    },
    /** removed once the run started them again */
    clear: (runId: string) => rm(fileOf(runId), { force: true }),
    /** the containers of the notes of runs that are over (`done`) started again (those started already or gone are skipped); answers their names */
    async restartLeft(runtime: DockerRuntime, done: (runId: string) => Promise<boolean>): Promise<string[]> {
      const started: string[] = [];
      for (const name of (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.json'))) {
        const note = await readFile(join(dir, name), 'utf8').then((t) => JSON.parse(t) as { runId: string; containers: StoppedContainer[] }, () => null);
        if (note && !(await done(note.runId))) continue;
        for (const c of note?.containers ?? []) {
          try {
            await runtime.docker.getContainer(c.id).start();
            started.push(c.name);
          } catch (err) {
            const { status } = runtime.errorOf(err);
            if (status !== 304 && status !== 404) throw err;
          }
        }
        await rm(join(dir, name), { force: true });
      }
      return started;
    },
  };
}
export type StoppedJournal = ReturnType<typeof stoppedJournal>;
