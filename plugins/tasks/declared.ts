// Tasks declared in a stack's compose file (x-dockwright.tasks): checked and written with each saved revision, in its transaction, so they change only with the file.
import { Value } from '@sinclair/typebox/value';
import { isProblem, problem, type Db } from '../../sdk/index.ts';
import { DefinitionSchema, definitionOf, TaskName } from './routes.ts';
import { nextSlot } from './schedule.ts';
import type { TaskDefinition, TaskStore } from './store.ts';

const same = (a: TaskDefinition, b: TaskDefinition) => JSON.stringify([a.service, a.command, a.schedule, a.timezone, a.mode, a.overlap, a.timeoutMs, a.enabled])
  === JSON.stringify([b.service, b.command, b.schedule, b.timezone, b.mode, b.overlap, b.timeoutMs, b.enabled]);

/** the tasks a compose document declares, each checked as an API write would be: a 422 naming the first one that is not */
export function declaredIn(raw: Record<string, unknown>, services: readonly string[]): Map<string, TaskDefinition> {
  const ext = raw['x-dockwright'];
  const tasks = ext && typeof ext === 'object' && !Array.isArray(ext) ? (ext as Record<string, unknown>).tasks : undefined;
  const found = new Map<string, TaskDefinition>();
  if (tasks === undefined || tasks === null) return found;
  const refuse = (path: string, message: string) => problem(422, `x-dockwright.tasks: ${message}; nothing was saved`, { code: 'compose-refused', errors: [{ path, message }] });
  if (typeof tasks !== 'object' || Array.isArray(tasks)) throw refuse('x-dockwright.tasks', 'a mapping of task names to tasks');
  for (const [name, value] of Object.entries(tasks as Record<string, unknown>)) {
    const at = `x-dockwright.tasks.${name}`;
    if (!Value.Check(TaskName, name)) throw refuse(at, `"${name}" is not a task name (lowercase letters, digits, _ and -)`);
    const first = [...Value.Errors(DefinitionSchema, value)][0];
    if (first) throw refuse(`${at}${first.path.replace(/\//g, '.')}`, first.message);
    try {
      found.set(name, definitionOf(value as typeof DefinitionSchema.static, services, at));
    } catch (err) {
      if (!isProblem(err)) throw err;
      throw refuse(at, err.message);
    }
  }
  return found;
}

/** the stack's declared tasks made to match the saved file: added, changed (the slot kept when the schedule is), removed */
export async function syncDeclared(store: TaskStore, tx: Db, stack: string, declared: ReadonlyMap<string, TaskDefinition>, now: Date): Promise<boolean> {
  const existing = new Map((await store.list(stack, tx)).map((t) => [t.name, t]));
  let changed = false;
  for (const [name, def] of declared) {
    const before = existing.get(name);
    if (before && !before.declared) {
      throw problem(422, `x-dockwright.tasks.${name}: the stack has a task "${name}" made through the API; remove it or rename this one; nothing was saved`, { code: 'compose-refused', errors: [{ path: `x-dockwright.tasks.${name}`, message: 'the name is taken' }] });
    }
    if (!before) {
      await store.create(stack, name, def, true, def.enabled ? nextSlot(def.schedule, def.timezone, now) : null, tx);
      changed = true;
    } else if (!same(before, def)) {
      const keep = before.nextRunAt && before.schedule === def.schedule && before.timezone === def.timezone && before.enabled && def.enabled;
      await store.update(stack, name, def, keep ? new Date(before.nextRunAt!) : nextSlot(def.schedule, def.timezone, now), undefined, tx);
      changed = true;
    }
  }
  for (const t of existing.values()) {
    if (t.declared && !declared.has(t.name)) {
      await store.remove(stack, t.name, undefined, tx);
      changed = true;
    }
  }
  return changed;
}
