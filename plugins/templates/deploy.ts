// Deploying a template: its variables resolved (generated values made once), the stack created with them as its variables and its provenance, then a deploy job.
import { Problem, problem, type Principal } from '../../sdk/index.ts';
import type { StacksApi } from '../stacks/api.ts';
import type { Template } from './format.ts';
import type { RandomSource } from './generators.ts';
import type { ProvenanceStore } from './store.ts';
import { resolveValues, secretNames } from './variables.ts';

export interface DeployRequest { stack: string; variables: Record<string, string | number | boolean> }

/** the template's instructions with the values of its variables filled in, except those no answer shows */
export function instructionsOf(t: Template, values: Record<string, string>): string | null {
  if (t.instructions === null) return null;
  const hidden = new Set(secretNames(t));
  return t.instructions.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => (hidden.has(name) || values[name] === undefined ? whole : values[name]));
}

export class TemplateDeployer {
  constructor(private readonly stacks: StacksApi, private readonly store: ProvenanceStore, private readonly random: () => RandomSource) {}

  /** creates the stack from the template and queues its deploy: the job; problems name the template and the field */
  async deploy(t: Template, req: DeployRequest, principal: Principal) {
    const name = `${t.source}/${t.id}`;
    await this.stacks.assertNew(req.stack, principal).catch((err: unknown) => {
      throw err instanceof Problem && err.code === 'exists' ? problem(409, `stack "${req.stack}" already exists; pick another name`, { code: 'exists' }) : err;
    });
    const given = Object.fromEntries(Object.entries(req.variables).map(([k, v]) => [k, String(v)]));
    const resolved = await resolveValues(t, given, this.random());
    if ('errors' in resolved) {
      throw problem(422, `template ${name}: ${resolved.errors.map((e) => `${e.path.split('/').pop()} ${e.message}`).join('; ')}`, { code: 'invalid-variables', errors: resolved.errors.map((e) => ({ ...e, template: name })) });
    }
    try {
      await this.stacks.create(req.stack, principal, { compose: t.compose, env: resolved.values, message: `from template ${name} ${t.version}` }, (tx) => this.store.put(tx, {
        stack: req.stack, source: t.source, id: t.id, version: t.version, variables: t.variables.map((v) => v.name), hidden: secretNames(t), base: t.compose,
      }));
    } catch (err) {
      if (err instanceof Problem && err.code === 'compose-refused') {
        throw problem(422, `template ${name}: its compose file breaks the platform rules of this install; nothing was created`, { code: 'compose-refused', errors: (err.errors ?? []).map((e) => ({ ...(e as object), template: name })) });
      }
      throw err;
    }
    const job = await this.stacks.deploy(req.stack, principal.actor);
    return { job, instructions: instructionsOf(t, resolved.values) };
  }
}
