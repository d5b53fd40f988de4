// A deploy's variable values: what the caller gives, checked by type, pattern and range; defaults; generated values made once.
import { generate, type RandomSource } from './generators.ts';
import type { FieldError, Template, TemplateVariable } from './format.ts';

const hostname = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const email = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,63}$/;

/** why `value` does not fit the variable, or null */
export function misfit(v: TemplateVariable, value: string): string | null {
  if (value.length > 65536) return 'is longer than 65536 characters';
  if (v.type === 'hostname' && !hostname.test(value)) return `"${value.slice(0, 80)}" is not a host name`;
  if (v.type === 'email' && !email.test(value)) return 'is not an email address';
  if (v.type === 'enum' && !v.values!.includes(value)) return `must be one of ${v.values!.join(', ')}`;
  if (v.type === 'port') {
    const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
    const [min, max] = v.range ?? [1, 65535];
    if (!(n >= Math.max(1, min) && n <= Math.min(65535, max))) return `must be a port number from ${Math.max(1, min)} to ${Math.min(65535, max)}`;
  } else if (v.range) {
    const n = /^-?\d+$/.test(value) ? Number(value) : NaN;
    if (!(n >= v.range[0] && n <= v.range[1])) return `must be an integer from ${v.range[0]} to ${v.range[1]}`;
  }
  if (v.pattern && !new RegExp(`^(?:${v.pattern})$`, 'u').test(value)) return `must match ${v.pattern}`;
  return null;
}

/** the variables whose values are never answered: generated ones and those typed secret */
export const secretNames = (t: Template) => t.variables.filter((v) => v.type === 'secret' || v.generator).map((v) => v.name);

/**
 * Every variable's value for a deploy: given, else its default, else generated (a jwt after the secret it signs with).
 * Unknown names, missing values and misfits are errors at `/body/variables/NAME`; nothing is generated then.
 */
export async function resolveValues(t: Template, given: Record<string, string>, random: RandomSource, known: Record<string, string> = {}): Promise<{ values: Record<string, string>; generated: string[] } | { errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const byName = new Map(t.variables.map((v) => [v.name, v]));
  for (const name of Object.keys(given)) if (!byName.has(name)) errors.push({ path: `/body/variables/${name}`, message: `template ${t.source}/${t.id} has no variable ${name}` });
  const values: Record<string, string> = {};
  const toGenerate: TemplateVariable[] = [];
  for (const v of t.variables) {
    const value = given[v.name] ?? (v.generator ? undefined : v.default);
    if (value === undefined) {
      if (v.generator) toGenerate.push(v);
      else errors.push({ path: `/body/variables/${v.name}`, message: `is required${v.description ? ` (${v.description})` : ''}` });
      continue;
    }
    const wrong = misfit(v, value);
    if (wrong) errors.push({ path: `/body/variables/${v.name}`, message: wrong });
    else values[v.name] = value;
  }
  if (errors.length) return { errors };
  // a jwt signs with a value that must exist first
  toGenerate.sort((a, b) => Number(a.generator!.kind === 'jwt') - Number(b.generator!.kind === 'jwt'));
  // a jwt may sign with a value the stack already has (an update adding it)
  for (const v of toGenerate) values[v.name] = await generate(v.generator!, random, { ...known, ...values });
  return { values, generated: toGenerate.map((v) => v.name) };
}
