// The shape of a dw verb (its words, options, positionals and run) and what a run is handed.
import type { ParseArgsConfig } from 'node:util';
import type { Client } from './client.ts';
import type { Output } from './output.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Context {
  args: string[];
  values: Values;
  out: Output;
  /** the configured client (a usage error when no server or token is set) */
  client(): Client;
  /** every verb of dw (for the shell completion) */
  verbs: readonly Verb[];
}

export interface Verb {
  words: string[];
  summary: string;
  /** positional names as shown in the usage: `<name>`, `[service]`, `<key=value…>` */
  usage: string;
  options?: Options;
  run(ctx: Context): Promise<void>;
}

export const waitOptions: Options = {
  wait: { type: 'boolean', short: 'w' },
  timeout: { type: 'string' },
};

/** --timeout in seconds (default 600) */
export function timeoutOf(values: Values, fallback = 600): number {
  const raw = values.timeout;
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw Object.assign(new Error(`--timeout must be a number of seconds, got ${String(raw)}`), { usage: true });
  return n;
}
