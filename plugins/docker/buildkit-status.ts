// BuildKit's progress over the Engine API: the protobuf StatusResponse in each `moby.buildkit.trace` message, decoded by hand (the few fields a log needs), and turned into plain-progress lines like `docker build --progress=plain`.

/** moby.buildkit.v1.Vertex: one step of the build graph */
export interface Vertex { digest: string; name: string; cached: boolean; started: number | null; completed: number | null; error: string }
/** moby.buildkit.v1.VertexStatus: a sub-task of a step (a layer being extracted, a context being sent) */
export interface VertexStatus { id: string; vertex: string; current: number; total: number; completed: boolean }
/** moby.buildkit.v1.VertexLog: output of a step's process */
export interface VertexLog { vertex: string; msg: Uint8Array }
/** moby.buildkit.v1.VertexWarning (BuildKit ≥ 0.10) */
export interface VertexWarning { vertex: string; short: string }
export interface StatusResponse { vertexes: Vertex[]; statuses: VertexStatus[]; logs: VertexLog[]; warnings: VertexWarning[] }

/** a protobuf wire-format reader over one message; unknown fields are skipped, as protobuf readers must */
class Reader {
  pos: number;
  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) { this.pos = start; }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buf[this.pos++];
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
      if (scale > 2 ** 70) throw new Error('varint too long');
    }
  }

  /** the bounds of a length-delimited field's payload */
  bytes(): [start: number, end: number] {
    const length = this.varint();
    const start = this.pos;
    if (start + length > this.end) throw new Error('truncated field');
    this.pos += length;
    return [start, start + length];
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`wire type ${wireType} is not supported`);
    if (this.pos > this.end) throw new Error('truncated field');
  }

  /** calls `field` for each field of the message; it answers false for fields it does not read, which are skipped */
  fields(field: (number: number, wireType: number) => boolean): void {
    while (this.pos < this.end) {
      const key = this.varint();
      const wireType = key % 8;
      if (!field(Math.floor(key / 8), wireType)) this.skip(wireType);
    }
  }
}

const text = new TextDecoder();
const str = (r: Reader): string => { const [s, e] = r.bytes(); return text.decode(r.buf.subarray(s, e)); };
/** a sub-message's reader, positioned over its payload */
const sub = (r: Reader): Reader => { const [s, e] = r.bytes(); return new Reader(r.buf, s, e); };
/** a google.protobuf.Timestamp, in milliseconds */
function time(r: Reader): number {
  let ms = 0;
  r.fields((n, w) => {
    if (n === 1 && w === 0) ms += r.varint() * 1000;
    else if (n === 2 && w === 0) ms += r.varint() / 1e6;
    else return false;
    return true;
  });
  return ms;
}

function vertex(r: Reader): Vertex {
  const v: Vertex = { digest: '', name: '', cached: false, started: null, completed: null, error: '' };
  r.fields((n, w) => {
    if (n === 1 && w === 2) v.digest = str(r);
    else if (n === 3 && w === 2) v.name = str(r);
    else if (n === 4 && w === 0) v.cached = r.varint() !== 0;
    else if (n === 5 && w === 2) v.started = time(sub(r));
    else if (n === 6 && w === 2) v.completed = time(sub(r));
    else if (n === 7 && w === 2) v.error = str(r);
    else return false;
    return true;
  });
  return v;
}

function vertexStatus(r: Reader): VertexStatus {
  const s: VertexStatus = { id: '', vertex: '', current: 0, total: 0, completed: false };
  r.fields((n, w) => {
    if (n === 1 && w === 2) s.id = str(r);
    else if (n === 2 && w === 2) s.vertex = str(r);
    else if (n === 4 && w === 0) s.current = r.varint();
    else if (n === 5 && w === 0) s.total = r.varint();
    else if (n === 8 && w === 2) { r.bytes(); s.completed = true; }
    else return false;
    return true;
  });
  return s;
}

function vertexLog(r: Reader): VertexLog {
  const l: VertexLog = { vertex: '', msg: new Uint8Array() };
  r.fields((n, w) => {
    if (n === 1 && w === 2) l.vertex = str(r);
    else if (n === 4 && w === 2) { const [s, e] = r.bytes(); l.msg = r.buf.subarray(s, e); }
    else return false;
    return true;
  });
  return l;
}

function vertexWarning(r: Reader): VertexWarning {
  const w: VertexWarning = { vertex: '', short: '' };
  r.fields((n, wt) => {
    if (n === 1 && wt === 2) w.vertex = str(r);
    else if (n === 3 && wt === 2) w.short = str(r);
    else return false;
    return true;
  });
  return w;
}

/** decodes the base64 `aux` of a `moby.buildkit.trace` message */
export function decodeStatus(aux: string): StatusResponse {
  const r = new Reader(Buffer.from(aux, 'base64'));
  const out: StatusResponse = { vertexes: [], statuses: [], logs: [], warnings: [] };
  r.fields((n, w) => {
    if (w !== 2) return false;
    if (n === 1) out.vertexes.push(vertex(sub(r)));
    else if (n === 2) out.statuses.push(vertexStatus(sub(r)));
    else if (n === 3) out.logs.push(vertexLog(sub(r)));
    else if (n === 4) out.warnings.push(vertexWarning(sub(r)));
    else return false;
    return true;
  });
  return out;
}

/** number: 0 until its first line, then numbered in the order steps are first shown */
interface Step { number: number; name: string; done: boolean; partial: string }

/**
 * Turns the status messages of one build into lines as `docker build --progress=plain` prints them: `#3 [2/4] RUN …`,
 * `#3 CACHED`, the step's output `#3 hello`, `#3 DONE 0.4s`, `#3 ERROR: …`. Steps are numbered in the order they are
 * first shown (started, cached or with output). Remembers the step that failed, for the job's error.
 */
export class BuildProgress {
  private readonly steps = new Map<string, Step>();
  private readonly finishedTasks = new Set<string>();
  private shown = 0;
  /** the name of the step that failed first (`[2/4] RUN make`), with BuildKit's error */
  failed: { name: string; error: string } | null = null;

  constructor(private readonly line: (text: string) => void) {}

  private step(digest: string, name = ''): Step {
    let s = this.steps.get(digest);
    if (!s) {
      s = { number: 0, name, done: false, partial: '' };
      this.steps.set(digest, s);
    }
    if (name) s.name = name;
    return s;
  }

  private announce(s: Step): void {
    if (s.number) return;
    s.number = ++this.shown;
    this.line(`#${s.number} ${s.name}`);
  }

  private flush(s: Step): void {
    if (s.partial) this.line(`#${s.number} ${s.partial}`);
    s.partial = '';
  }

  /** one `moby.buildkit.trace` message */
  add(status: StatusResponse): void {
    for (const v of status.vertexes) {
      const s = this.step(v.digest, v.name);
      if (s.done) continue;
      if (v.cached) {
        this.announce(s);
        this.line(`#${s.number} CACHED`);
        s.done = true;
      } else if (v.error) {
        this.announce(s);
        this.flush(s);
        this.line(`#${s.number} ERROR: ${v.error}`);
        this.failed ??= { name: s.name, error: v.error };
        s.done = true;
      } else if (v.completed !== null) {
        this.announce(s);
        this.flush(s);
        this.line(`#${s.number} DONE ${((v.completed - (v.started ?? v.completed)) / 1000).toFixed(1)}s`);
        s.done = true;
      } else if (v.started !== null) this.announce(s);
    }
    for (const t of status.statuses) {
      if (!t.completed || this.finishedTasks.has(`${t.vertex} ${t.id}`)) continue;
      this.finishedTasks.add(`${t.vertex} ${t.id}`);
      const s = this.step(t.vertex);
      this.announce(s);
      this.line(`#${s.number} ${t.id}${t.total ? ` ${t.current}/${t.total}` : ''} done`);
    }
    for (const l of status.logs) {
      const s = this.step(l.vertex);
      this.announce(s);
      const lines = (s.partial + text.decode(l.msg)).split(/\r?\n|\r/);
      s.partial = lines.pop() ?? '';
      for (const out of lines) if (out.trim()) this.line(`#${s.number} ${out.trimEnd()}`);
    }
    for (const w of status.warnings) {
      const s = this.step(w.vertex);
      this.announce(s);
      this.line(`#${s.number} WARNING: ${w.short}`);
    }
  }

  /** the output of steps whose last line had no newline */
  end(): void {
    for (const s of this.steps.values()) this.flush(s);
  }
}
