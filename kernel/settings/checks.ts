// What a settings write must pass before anything is stored: known paths (422), none the operator's files or environment set (409), values their schemas and the outbound policy accept (422 naming the path).
import { isProblem, problem } from '../../sdk/index.ts';
import type { FieldError } from '../http/validate.ts';
import { compilePolicy } from '../services/outbound.ts';
import type { SettingsCatalogue } from './catalogue.ts';

export type SettingSource = 'default' | 'file' | 'env' | 'portal';
/** a source the operator owns (the config file, the environment): it wins over the Settings API */
export const operators = (s: SettingSource) => s === 'file' || s === 'env';

/** what the checks read of the live settings */
export interface Checked {
  catalogue: SettingsCatalogue;
  source(path: string): SettingSource;
  /** the value of the config files and environment (what applies without a stored one) */
  base(path: string): unknown;
  /** the errors of a plugin's whole options with these stored values on top */
  optionErrors(plugin: string, stored: ReadonlyMap<string, unknown>): FieldError[] | null;
}

export function invalid(errors: FieldError[]) {
  return problem(422, `invalid settings: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { code: 'invalid-settings', errors });
}

/** 422 for a path that is no live setting, 409 for one the config file or environment sets (naming it) */
export function refuseUnknownOrLocked(paths: readonly string[], s: Checked): void {
  const unknown = paths.filter((p) => !s.catalogue.get(p));
  if (unknown.length) throw invalid(unknown.map((path) => ({ path, message: 'is not a setting that can be changed at run time' })));
  const locked = paths.filter((p) => operators(s.source(p)));
  if (!locked.length) return;
  throw problem(409, `${locked.map((p) => `${p} is set by ${s.source(p) === 'env' ? 'the environment' : 'the config file'}`).join('; ')}: change it there`, {
    code: 'setting-locked', extra: { paths: Object.fromEntries(locked.map((p) => [p, s.source(p)])) },
  });
}

/** the schema of each changed path, then each touched plugin's whole options and the outbound policy */
export function checkValues(paths: readonly string[], next: ReadonlyMap<string, unknown>, s: Checked): void {
  const errors: FieldError[] = [];
  for (const path of paths) {
    if (!next.has(path)) continue;
    for (const e of s.catalogue.get(path)!.check(next.get(path)) ?? []) errors.push({ path: `${path}${e.path}`, message: e.message });
  }
  if (errors.length) throw invalid(errors);
  for (const plugin of new Set(paths.map((p) => s.catalogue.get(p)!.plugin).filter((p): p is string => p !== null))) {
    for (const e of s.optionErrors(plugin, next) ?? []) errors.push({ path: `plugins.${plugin}.options${e.path.replace(/^\/([^/]+)/, '.$1')}`, message: e.message });
  }
  if (paths.some((p) => p.startsWith('outbound.'))) {
    const value = (p: string) => (next.has(p) && !operators(s.source(p)) ? next.get(p) : s.base(p));
    try {
      compilePolicy({ allow: value('outbound.allow') as string[], allowHostnames: value('outbound.allowHostnames') as boolean | string[] });
    } catch (err) {
      const message = (err as Error).message.replace(/^config: /, '');
      errors.push({ path: message.startsWith('outbound.allowHostnames') ? 'outbound.allowHostnames' : 'outbound.allow', message });
    }
  }
  if (errors.length) throw invalid(errors);
}

/** the revisions' refusals as the settings' own: revision 0 is "never changed", a stale base like any other once they were */
export function asStale(err: unknown): never {
  if (isProblem(err) && (err.status === 404 || err.status === 412 || err.code === 'exists')) {
    const current = err.status === 404 ? 0 : (err.extra as { currentRevision?: number } | undefined)?.currentRevision;
    throw problem(412, `the settings are at revision ${current}; read them again and retry`, { code: 'stale-revision', extra: { currentRevision: current } });
  }
  throw err;
}
