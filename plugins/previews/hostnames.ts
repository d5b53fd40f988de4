// Preview hostnames: the settings' template with {key}, {stack} and {service} filled in, as the edge stores hostnames.
type Normalize = (hostname: string) => { ok: true; hostname: string } | { ok: false; reason: string };

export const placeholders = ['{key}', '{stack}', '{service}'] as const;

export function hostnameOf(template: string, values: { key: string; stack: string; service: string }, normalize: Normalize): string {
  const filled = template.replaceAll('{key}', values.key).replaceAll('{stack}', values.stack).replaceAll('{service}', values.service);
  const n = normalize(filled);
  if (!n.ok) throw new Error(`the preview hostname ${filled} is refused: ${n.reason}`);
  return n.hostname;
}

/** why a template is no hostname template (null when it is one): it names {key}, and filled in it is a hostname */
export function templateProblem(template: string, stack: string, normalize: Normalize): string | null {
  if (!template.includes('{key}')) return 'the hostname template must contain {key}: each preview has hostnames of its own';
  const rest = template.replaceAll(/\{(key|stack|service)\}/g, '');
  if (/[{}]/.test(rest)) return `the hostname template may name only ${placeholders.join(', ')}`;
  const n = normalize(template.replaceAll('{key}', 'pr-1').replaceAll('{stack}', stack).replaceAll('{service}', 'web'));
  return n.ok ? null : `the hostname template does not make a hostname: ${n.reason}`;
}
