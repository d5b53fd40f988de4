// Stack templates: a compose file plus a JSON Schema of inputs (from config or other plugins); settings are validated and become variables.
import { compareText } from '../../sdk/index.ts';
import { Ajv } from 'ajv';

export interface StackTemplate {
  name: string;
  description: string;
  compose: string;
  /** JSON Schema (a TypeBox schema is one) of the settings object */
  inputs: Record<string, unknown>;
}

export class Templates {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
  private readonly byName = new Map<string, { template: StackTemplate; validate: ReturnType<Ajv['compile']> }>();

  add(template: StackTemplate): void {
    if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(template.name)) throw new Error(`template name "${template.name}" must be lowercase letters, digits, - or _`);
    if (this.byName.has(template.name)) throw new Error(`template "${template.name}" is defined twice`);
    const schema = { type: 'object', ...template.inputs };
    this.byName.set(template.name, { template: { ...template, inputs: schema }, validate: this.ajv.compile(schema) });
  }

  get(name: string): StackTemplate | undefined {
    return this.byName.get(name)?.template;
  }

  list(): StackTemplate[] {
    return [...this.byName.values()].map((t) => t.template).sort((a, b) => compareText(a.name, b.name));
  }

  /** validates (and fills defaults into) settings; the errors, or null when they fit. */
  check(name: string, settings: Record<string, unknown>): { path: string; message: string }[] | null {
    const entry = this.byName.get(name)!;
    if (entry.validate(settings)) return null;
    return (entry.validate.errors ?? []).map((e) => ({
      path: `/settings${e.instancePath}${e.keyword === 'required' ? `/${(e.params as { missingProperty: string }).missingProperty}` : ''}`,
      message: e.message ?? 'is invalid',
    }));
  }
}

/** settings become ${NAME} variables of the template's compose file; they win over variables of the same name. */
export function templateVariables(settings: Record<string, unknown>, env: Record<string, string>): Record<string, string> {
  const fromSettings = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return { ...env, ...fromSettings };
}
