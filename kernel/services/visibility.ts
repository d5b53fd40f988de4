// Resource visibility: the rules plugins give (a stack's access list) applied to what the kernel lists, jobs and activity.
import type { Db, Principal, VisibilityRule } from '../../sdk/index.ts';

export class Visibility {
  private readonly rules: VisibilityRule[] = [];

  add(owner: string, rule: VisibilityRule): void {
    if (this.rules.some((r) => r.prefix === rule.prefix)) throw new Error(`${owner}: resources "${rule.prefix}…" already have a visibility rule`);
    this.rules.push(rule);
  }

  /** a test for these resources, decided with one call per rule: resources no rule claims are visible to everyone */
  async filter(principal: Principal, resources: readonly (string | null)[], need: 'read' | 'act'): Promise<(resource: string | null) => boolean> {
    const allowed = new Set<string>();
    const claimed = (r: string) => this.rules.find((rule) => r.startsWith(rule.prefix));
    await Promise.all(this.rules.map(async (rule) => {
      const keys = [...new Set(resources.filter((r): r is string => r !== null && r.startsWith(rule.prefix)).map((r) => r.slice(rule.prefix.length)))];
      if (!keys.length) return;
      for (const key of await rule.visible(principal, keys, need)) allowed.add(rule.prefix + key);
    }));
    return (resource) => resource === null || !claimed(resource) || allowed.has(resource);
  }

  /** a user or team is being removed (inside its transaction): every rule that grants by name forgets it */
  async forget(principal: string, tx: Db): Promise<void> {
    for (const rule of this.rules) await rule.forget?.(principal, tx);
  }
}
