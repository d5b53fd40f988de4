// A run's output as it is kept: the first and the last half MiB (1 MiB in all), what lies between counted and left out, known secret values masked.

const half = 512 * 1024;

export class HeadTail {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly limit = half) {}

  add(chunk: Buffer): void {
    if (this.headBytes < this.limit) {
      const room = this.limit - this.headBytes;
      const part = chunk.subarray(0, room);
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
      if (!chunk.length) return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.limit) {
      this.tailBytes -= this.tail[0].length;
      this.dropped += this.tail.shift()!.length;
    }
    if (this.tailBytes > this.limit) {
      const cut = this.tailBytes - this.limit;
      this.tail[0] = this.tail[0].subarray(cut);
      this.tailBytes -= cut;
      this.dropped += cut;
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    return this.dropped ? `${head}\n[… ${this.dropped} bytes left out …]\n${tail}` : head + tail;
  }
}

/** every known secret value replaced by *** (longest first, so one that contains another is masked whole) */
export function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (s) out = out.split(s).join('***');
  return out;
}
