// What dw prints: results on stdout (JSON with --json), progress (job output) on stderr when stdout is JSON, errors on stderr.
import { CliError } from './errors.ts';

export class Output {
  constructor(readonly json: boolean, private readonly stdout: NodeJS.WritableStream = process.stdout, private readonly stderr: NodeJS.WritableStream = process.stderr) {}

  /** the result of a verb: the value as JSON with --json, else the text */
  result(value: unknown, text: () => string): void {
    if (this.json) this.stdout.write(JSON.stringify(value, null, 2) + '\n');
    else { const t = text(); if (t) this.stdout.write(t.endsWith('\n') ? t : t + '\n'); }
  }

  /** streamed text (job output, logs): stdout, or stderr when stdout carries JSON */
  progress(text: string): void {
    (this.json ? this.stderr : this.stdout).write(text);
  }

  note(text: string): void {
    this.stderr.write(text + '\n');
  }

  error(err: CliError): void {
    if (this.json) {
      this.stdout.write(JSON.stringify({ error: { message: err.message, exitCode: err.code, hint: err.hint, details: err.details } }, null, 2) + '\n');
    }
    this.stderr.write(`dw: ${err.message}\n${err.hint ? `  → ${err.hint}\n` : ''}`);
  }
}

/** rows as aligned columns with a header */
export function table(head: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [head, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}
