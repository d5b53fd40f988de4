// A stack's update to the newer version of its template: the three-way plan, and applying it as a new revision (new variables resolved, generated ones made once) deployed as a release.
import { problem, type Principal } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/api.ts';
import type { Catalogue } from './catalogue.ts';
import type { RandomSource } from './generators.ts';
import { threeWay, type Conflict } from './merge.ts';
import type { Provenance, ProvenanceStore } from './store.ts';
import { resolveValues, secretNames } from './variables.ts';

export interface UpdatePlan {
  from: string;
  to: string;
  compose: string;
  conflicts: Conflict[];
  /** variables the new version adds (their values are made or asked for when it is applied), and those it no longer has */
  variables: { added: string[]; removed: string[] };
}

export class TemplateUpdates {
  constructor(private readonly deps: { stacks: StacksApi; store: ProvenanceStore; catalogue: Catalogue; random: () => RandomSource; sync(): Promise<void> }) {}

  private async provenance(stack: string, principal: Principal, need: 'read' | 'write'): Promise<Provenance> {
    await this.deps.stacks.access(stack, principal, need);
    const p = await this.deps.store.get(stack);
    if (!p) throw problem(404, `stack "${stack}" was not made from a catalogue template`, { code: 'no-template' });
    return p;
  }

  /** the three-way result of updating the stack to its template's current version */
  async plan(stack: string, principal: Principal, need: 'read' | 'write' = 'read') {
    const p = await this.provenance(stack, principal, need);
    await this.deps.sync();
    const t = this.deps.catalogue.get(p.source, p.id);
    if (!t) throw problem(409, `template ${p.source}/${p.id} is no longer offered by its source`, { code: 'template-gone' });
    const content = (await this.deps.stacks.content(stack))!;
    const merged = threeWay(p.base, content.compose, t.compose, { from: p.version, to: t.version });
    const names = t.variables.map((v) => v.name);
    const plan: UpdatePlan = { from: p.version, to: t.version, ...merged, variables: { added: names.filter((n) => !p.variables.includes(n)), removed: p.variables.filter((n) => !names.includes(n)) } };
    return { plan, p, t, content };
  }

  /**
   * Applies the update as a new revision (after `expected`, or the stack's current one) and deploys it: 409 while the
   * merge has conflicts and no resolved `compose` is given; new variables take `variables`, defaults or generators.
   */
  async apply(stack: string, principal: Principal, body: { revision?: number; compose?: string; variables?: Record<string, string> }) {
    const { plan, p, t, content } = await this.plan(stack, principal, 'write');
    if (plan.conflicts.length && body.compose === undefined) {
      throw problem(409, `updating ${stack} from ${plan.from} to ${plan.to} conflicts with its compose file at ${plan.conflicts.length} place${plan.conflicts.length > 1 ? 's' : ''}; resolve them and send the compose file`, { code: 'update-conflicts', extra: { conflicts: plan.conflicts } });
    }
    const added = { ...t, variables: t.variables.filter((v) => plan.variables.added.includes(v.name)) };
    const resolved = await resolveValues(added, body.variables ?? {}, this.deps.random(), content.variables);
    if ('errors' in resolved) throw problem(422, `template ${t.source}/${t.id} ${t.version}: ${resolved.errors.map((e) => `${e.path.split('/').pop()} ${e.message}`).join('; ')}`, { code: 'invalid-variables', errors: resolved.errors.map((e) => ({ ...e, template: `${t.source}/${t.id}` })) });
    const state = (await this.deps.stacks.state(stack))!;
    await this.deps.stacks.write(stack, principal, body.revision ?? state.revision, {
      compose: body.compose ?? plan.compose, env: { ...content.variables, ...resolved.values }, message: `template ${t.source}/${t.id} ${plan.from} → ${plan.to}`,
    }, (tx) => this.deps.store.put(tx, {
      ...p, version: t.version, base: t.compose,
      variables: [...new Set([...p.variables, ...t.variables.map((v) => v.name)])], hidden: [...new Set([...p.hidden, ...secretNames(t)])],
    }));
    const job = await this.deps.stacks.deploy(stack, principal.actor);
    return { job, plan };
  }
}
