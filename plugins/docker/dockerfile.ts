// Reading a Dockerfile without building it: its instructions with their lines and stages, the images it pulls, the step a BuildKit progress name stands for, and what in it needs a BuildKit session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { heredocOf, splitWords } from './dockerfile-words.ts';
import type { NormalizedBuild } from './types.ts';

/** the Dockerfile's text (its inline text, or the file in the context), or null when it cannot be read (the engine then says why) */
export function dockerfileText(b: NormalizedBuild): string | null {
  if (b.dockerfileInline !== undefined) return b.dockerfileInline;
  try { return readFileSync(join(b.context, b.dockerfile), 'utf8'); } catch { return null; }
}

export interface Instruction {
  /** upper case: FROM, RUN, COPY… */
  keyword: string;
  /** the arguments, continuation lines joined */
  args: string;
  /** 1-based line where the instruction starts */
  line: number;
  /** index of its stage (the FROM before it); -1 before the first FROM */
  stage: number;
}

export interface Stage { index: number; name: string | null; instructions: Instruction[] }

/** the escape character of the `# escape=` parser directive (default `\`) */
function escapeOf(lines: string[]): string {
  for (const line of lines) {
    const directive = /^\s*#\s*(\w+)\s*=\s*(\S*)\s*$/.exec(line);
    if (!directive) break;
    if (directive[1].toLowerCase() === 'escape' && (directive[2] === '`' || directive[2] === '\\')) return directive[2];
  }
  return '\\';
}

/** the instructions of a Dockerfile with the lines they start on; comments, continuations and heredoc bodies are handled as the parser does */
export function instructions(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  const escape = escapeOf(lines);
  const out: Instruction[] = [];
  let stage = -1;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(#|$)/.test(lines[i])) continue;
    const start = i;
    let joined = lines[i].trimEnd();
    while (joined.endsWith(escape) && i + 1 < lines.length) {
      joined = joined.slice(0, -1);
      i++;
      while (i < lines.length && /^\s*#/.test(lines[i])) i++;
      joined += ` ${(lines[i] ?? '').trim()}`;
    }
    const [, keyword = '', args = ''] = /^\s*(\S+)\s*(.*)$/.exec(joined) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') stage++;
    out.push({ keyword: upper, args: args.trim(), line: start + 1, stage });
    // heredocs (`RUN <<EOF`, `COPY <<a <<b /dir/`): their bodies follow the instruction, one after another
    if (['RUN', 'COPY', 'ADD'].includes(upper) && !/^(--\S+\s+)*\[/.test(args)) {
      for (const doc of splitWords(joined, '\\').map(heredocOf)) {
        while (doc && i + 1 < lines.length) {
          i++;
          const body = doc.chomp ? lines[i].replace(/^\t+/, '') : lines[i];
          if (body.replace(/\r$/, '') === doc.name) break;
        }
      }
    }
  }
  return out;
}

/** the stages of a Dockerfile: FROM … [AS name] and what follows it */
export function stages(text: string): Stage[] {
  const out: Stage[] = [];
  for (const ins of instructions(text)) {
    if (ins.keyword === 'FROM') {
      const name = /(?:^|\s)AS\s+(\S+)\s*$/i.exec(ins.args)?.[1]?.toLowerCase() ?? null;
      out.push({ index: out.length, name, instructions: [] });
    }
    out.at(-1)?.instructions.push(ins);
  }
  return out;
}

/** the image of the `# syntax=` parser directive (a Dockerfile frontend BuildKit runs instead of its built-in one), or null */
export function syntaxImage(text: string): string | null {
  for (const line of text.split(/\r?\n/)) {
    const directive = /^\s*#\s*(\w+)\s*=\s*(\S*)\s*$/.exec(line);
    if (!directive) return null;
    if (directive[1].toLowerCase() === 'syntax') return directive[2] || null;
  }
  return null;
}

/**
 * The images a Dockerfile pulls while building (its `# syntax=` frontend, FROM and COPY --from), with build args and global
 * ARG defaults filled in; references still holding a variable, earlier stages and scratch are left out.
 */
export function baseImages(dockerfileText: string, args: Record<string, string>): string[] {
  const vars: Record<string, string> = {};
  const stageNames = new Set<string>();
  const refs = new Set<string>();
  const fill = (text: string) => text.replace(/\$\{(\w+)(?::?-([^}]*))?\}|\$(\w+)/g, (whole, a, fallback, b) => args[a ?? b] ?? vars[a ?? b] ?? fallback ?? whole);
  const add = (ref: string) => { if (!ref.includes('$') && ref !== 'scratch' && !stageNames.has(ref.toLowerCase())) refs.add(ref); };
  const syntax = syntaxImage(dockerfileText);
  if (syntax) add(syntax);
  for (const ins of instructions(dockerfileText)) {
    const arg = ins.stage < 0 && ins.keyword === 'ARG' && /^(\w+)(?:=(\S*))?/.exec(ins.args);
    if (arg && arg[2] !== undefined) vars[arg[1]] = arg[2].replace(/^(["'])(.*)\1$/, '$2');
    if (ins.keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(ins.args);
      if (!from) continue;
      add(fill(from[1]));
      if (from[2]) stageNames.add(from[2].toLowerCase());
    }
    const copy = ins.keyword === 'COPY' && /(?:^|\s)--from=(\S+)/i.exec(ins.args);
    if (copy && !/^\d+$/.test(copy[1])) add(fill(copy[1]));
  }
  return [...refs];
}

/** the instructions that make a numbered step in BuildKit's progress (`[2/4] RUN …`), besides a FROM of an image */
const stepKeywords = new Set(['RUN', 'COPY', 'ADD', 'WORKDIR']);

/**
 * The Dockerfile line of a step as BuildKit's progress names it: `[2/4] RUN make` (one stage), `[build 3/5] COPY …` (a
 * named stage), `[stage-1 2/3] …` (an unnamed one of several), possibly after a platform. Null when it names no step of
 * this Dockerfile (an `[internal]` step, a frontend other than the built-in one).
 */
export function stepLine(text: string, stepName: string): number | null {
  const m = /^\[(?:(\S+)\s+)?(?:(\S+)\s+)?(\d+)\/(\d+)\]\s+(\S+)/.exec(stepName);
  if (!m) return null;
  const label = (m[2] ?? (m[1]?.includes('/') ? undefined : m[1]))?.toLowerCase();
  const [index, keyword] = [Number(m[3]), m[5].toUpperCase()];
  const all = stages(text);
  const stage = label === undefined ? (all.length === 1 ? all[0] : undefined)
    : all.find((s) => s.name === label) ?? all.find((s) => `stage-${s.index}` === label);
  // FROM is a step of its own only when it names an image: not scratch, nor an earlier stage
  const earlier = new Set(all.slice(0, stage?.index ?? 0).flatMap((s) => [s.name, `${s.index}`]));
  const fromImage = (i: Instruction) => i.keyword === 'FROM' && !['scratch', ...earlier].includes(/^(?:--\S+\s+)*(\S+)/.exec(i.args)?.[1]?.toLowerCase() ?? '');
  const step = stage?.instructions.filter((i) => stepKeywords.has(i.keyword) || fromImage(i))[index - 1];
  return step && step.keyword === keyword ? step.line : null;
}

/** what a Dockerfile asks for that BuildKit can give only through a client session: build secrets and SSH forwarding */
export function sessionFeatures(text: string): string[] {
  const found = new Set<string>();
  for (const ins of instructions(text)) {
    if (ins.keyword !== 'RUN') continue;
    for (const mount of ins.args.matchAll(/--mount=(\S+)/g)) {
      const type = /(?:^|,)type=(\w+)/.exec(mount[1])?.[1];
      if (type === 'secret') found.add(`build secrets (RUN --mount=type=secret, line ${ins.line})`);
      if (type === 'ssh') found.add(`SSH forwarding (RUN --mount=type=ssh, line ${ins.line})`);
    }
  }
  return [...found];
}
