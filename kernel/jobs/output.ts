// A job's output as it is written: each entry stamped with its UTC time, secrets redacted, capped by keeping the head and the newest tail.
export class Redactor {
  private secrets: string[] = [];

  add(secret: string): void {
    // very short values would blank out ordinary words; such values are not secrets worth the name
    if (secret.length >= 4 && !this.secrets.includes(secret)) this.secrets.push(secret);
    this.secrets.sort((a, b) => b.length - a.length);
  }

  apply(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out;
  }
}

export class OutputBuffer {
  private head = '';
  private tail: string[] = [];
  private tailSize = 0;
  private omitted = 0;
  dirty = false;

  constructor(private readonly limit: number, private readonly redactor: Redactor, initial = '', private readonly now: () => Date = () => new Date()) {
    if (initial) this.push(this.redactor.apply(initial.replace(/\n$/, '')) + '\n');
  }

  /** one entry (a line, or several lines written at once), prefixed with when it was written: `2026-01-31T12:00:00.000Z ` */
  append(line: string): void {
    this.push(`${this.now().toISOString()} ${this.redactor.apply(line.replace(/\r?\n$/, ''))}\n`);
  }

  private push(text: string): void {
    this.dirty = true;
    const half = Math.floor(this.limit / 2);
    if (this.head.length + text.length <= half && this.tail.length === 0) {
      this.head += text;
      return;
    }
    this.tail.push(text);
    this.tailSize += text.length;
    while (this.tailSize > half && this.tail.length > 1) {
      const dropped = this.tail.shift()!;
      this.tailSize -= dropped.length;
      this.omitted += dropped.length;
    }
  }

  toString(): string {
    const gap = this.omitted ? `… ${this.omitted} bytes of output omitted …\n` : '';
    return this.head + gap + this.tail.join('');
  }
}
