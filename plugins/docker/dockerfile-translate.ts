// Dockerfile syntax newer than an engine's built-in frontend (heredocs, COPY --link, RUN --network=default…) rewritten line for line into what Docker Engine 20.10's frontend reads, as BuildKit's own frontend would run it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type Dockerode from 'dockerode';
import { baseImages, syntaxImage } from './dockerfile.ts';
import { expandWord, extractFlags, heredocOf, patternExpansions, splitWords, type Env, type Flag, type HeredocWord } from './dockerfile-words.ts';
import type { DeployIo, NormalizedBuild } from './types.ts';

/** a file the translation adds to the build context */
export interface ContextFile { path: string; content: string; mode: number }

export interface Translation {
  /** the Dockerfile to send: the same number of lines, each instruction on the line it started on */
  text: string;
  files: ContextFile[];
  /** what was rewritten, for the job output: `RUN heredoc (line 3)`… */
  rewritten: string[];
  /** `COPY --link` / `ADD --link` dropped (it only changes caching), with their lines */
  linkDropped: number[];
}

/** what the translation needs to know of the build: its args and the base images' config (from the engine) */
export interface TranslateOptions {
  args: Record<string, string>;
  /** `Config.Env` and `Config.Shell` of a base image as the engine has it; undefined when absent */
  image: (ref: string) => { Env?: string[] | null; Shell?: string[] | null } | undefined;
  /** the platform the build targets (`linux/amd64`) */
  platform: string;
  /** whether the context already holds a top-level entry of this name */
  inContext: (name: string) => boolean;
}

/** the newer syntax, the Dockerfile syntax that brought it into the built-in frontend and the first Docker Engine shipping it */
const newer = {
  heredoc: ['heredocs', '1.4', '23.0'],
  network: ['RUN --network', '1.3', '23.0'],
  security: ['RUN --security', '1.20', '29.1'],
  device: ['RUN --device', '1.14-labs', 'none yet'],
  keepGitDir: ['ADD --keep-git-dir', '1.5', '24.0'],
  checksum: ['ADD --checksum', '1.6', '25.0'],
  unpack: ['ADD --unpack', '1.17', '28.3'],
  exclude: ['COPY --exclude / ADD --exclude', '1.19', '29.0'],
  parents: ['COPY --parents', '1.20', '29.1'],
  startInterval: ['HEALTHCHECK --start-interval', '1.6', '25.0'],
  patterns: ['${VAR#pattern}, ${VAR%pattern} and ${VAR/pattern/replacement}', '1.7', '26.0'],
} as const;

/** the error for syntax this engine's frontend lacks and that has no exact equivalent in what it has */
export class NewerSyntax extends Error {
  constructor(feature: keyof typeof newer, line: number, engine: string, detail = '') {
    const [what, syntax, since] = newer[feature];
    super(`${what} (Dockerfile line ${line}${detail ? `, ${detail}` : ''}) needs Dockerfile syntax ${syntax} (Docker Engine ${since}${since === 'none yet' ? '' : ' or later'}); the built-in frontend of Docker Engine ${engine} lacks it and it has no exact equivalent there`);
  }
}

/** whether an engine's built-in Dockerfile frontend reads heredocs and the other syntax of Dockerfile 1.4 (Docker Engine 23 and later) */
export function frontendIsCurrent(engineVersion: string): boolean {
  return Number(/^(\d+)\./.exec(engineVersion)?.[1] ?? 0) >= 23;
}

interface Heredoc extends HeredocWord { content: string }
interface Parsed { keyword: string; flags: Flag[]; rest: string; json: boolean; heredocs: Heredoc[]; start: number; end: number }

const defaultShell = ['/bin/sh', '-c'];
const defaultPath = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** names safe as a file name in the context and as a COPY source (no glob, no path) */
const plainName = /^[A-Za-z0-9_][A-Za-z0-9_.+@%=,:-]*$/;
/** the instructions whose words the frontend expands (of RUN only its flags: the shell expands the command) */
const expanding = new Set(['FROM', 'ENV', 'ARG', 'WORKDIR', 'COPY', 'ADD', 'LABEL', 'USER', 'EXPOSE', 'VOLUME', 'STOPSIGNAL', 'RUN']);
/** a value the old frontend reads back as itself wherever it stands: no quotes, blanks, escapes or variables */
const literal = /^[\p{L}\p{N}_.\-/:+@=,]*$/u;
/** the old frontend reads lines of at most 64 KiB */
const maxLine = 65535;

/** the parser directives at the top (`# syntax=`, `# escape=`, `# check=`): how many lines they take and the escape character */
function directives(lines: string[]): { count: number; escape: string } {
  let escape = '\\';
  let count = 0;
  for (const line of lines) {
    const m = /^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$/.exec(line.replace(/^\uFEFF/, '').trimStart().replace(/\r$/, ''));
    if (!m || !['syntax', 'escape', 'check'].includes(m[1].toLowerCase())) break;
    if (m[1].toLowerCase() === 'escape') escape = m[2];
    count++;
  }
  return { count, escape };
}

/** the instructions of a Dockerfile as BuildKit's parser reads them: continuations joined, comments skipped, heredoc bodies read */
function parse(lines: string[], escape: string): Parsed[] {
  const e = escape === '`' ? '`' : '\\\\';
  const continuation = new RegExp(`([^${e}])${e}[ \\t]*$|^${e}[ \\t]*$`);
  const trim = (l: string) => l.replace(/\r?$/, '');
  const isComment = (l: string) => /^\s*#/.test(l);
  const cont = (l: string): [string, boolean] => (continuation.test(l) ? [l.replace(continuation, '$1'), false] : [l, true]);
  const out: Parsed[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = trim(i === 0 ? lines[i].replace(/^\uFEFF/, '') : lines[i]).trimStart();
    if (isComment(first) || first === '') continue;
    const start = i;
    let [line, done] = cont(first);
    if (done && line === '') continue;
    while (!done && i + 1 < lines.length) {
      const next = trim(lines[++i]);
      if (isComment(next) || next.trim() === '') continue;
      const [part, end] = cont(next);
      line += part;
      done = end;
    }
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/s.exec(line.trim()) ?? [];
    const { flags, rest } = extractFlags(args, escape);
    const upper = keyword.toUpperCase();
    const json = /^\[/.test(rest) && (() => { try { return Array.isArray(JSON.parse(rest)); } catch { return false; } })();
    const parsed: Parsed = { keyword: upper, flags, rest, json, heredocs: [], start, end: i };
    const inner = upper === 'ONBUILD' ? /^(\S+)/.exec(rest)?.[1]?.toUpperCase() : upper;
    if (['RUN', 'COPY', 'ADD'].includes(inner ?? '') && !json && line.includes('<<')) {
      for (const word of splitWords(line, '\\')) {
        const doc = heredocOf(word);
        if (!doc) continue;
        let content = '';
        let terminated = false;
        while (i + 1 < lines.length) {
          const raw = lines[++i];
          const candidate = trim(raw);
          if ((doc.chomp ? candidate.replace(/^\t+/, '') : candidate) === doc.name) { terminated = true; break; }
          content += i + 1 < lines.length ? `${raw}\n` : raw;
        }
        if (!terminated) throw new Error(`Dockerfile line ${start + 1}: unterminated heredoc ${doc.name}`);
        parsed.heredocs.push({ ...doc, content });
      }
      parsed.end = i;
    }
    out.push(parsed);
  }
  return out;
}

const chompTabs = (text: string) => text.replace(/^\t+/gm, '');
const envOf = (list: string[]): Env => Object.fromEntries(list.map((kv) => { const at = kv.indexOf('='); return at < 0 ? [kv, ''] : [kv.slice(0, at), kv.slice(at + 1)]; }));

/** a stage's state as the frontend tracks it: the environment (ENV and ARG values) and the shell */
interface StageState { env: Env; shell: string[] }

/**
 * Rewrites what the engine's older frontend cannot read into its exact equivalent, keeping every instruction on its line;
 * null when the Dockerfile needs nothing. Throws NewerSyntax for what has no equivalent there.
 */
/** what the translation of one Dockerfile knows as it reads the instructions in order */
interface TranslateState {
  engine: string;
  opts: TranslateOptions;
  escape: string;
  /** the args before the first FROM (and the platform's) */
  globals: Env;
  /** each stage by index and name: its env and shell */
  stages: Map<string, StageState>;
  index: number;
  stage: StageState | null;
  rewritten: string[];
  linkDropped: number[];
  /** replaces the instruction's lines with one */
  put(p: Parsed, line: string): void;
  /** a file added to the build context: its path there */
  addFile(name: string, content: string, mode: number): string;
}

const envOfState = (t: TranslateState) => t.stage?.env ?? t.globals;
const keptFlags = (p: Parsed, drop: (f: Flag) => boolean) => p.flags.filter((f) => !drop(f)).map((f) => `${f.raw} `).join('');

/** the frontend's pattern expansions (`${VAR#…}`, `${VAR%…}`, `${VAR/…}`): their values, which the build's args and env settle here */
function expandPatterns(t: TranslateState, p: Parsed, line: number): void {
  const scope = p.keyword === 'FROM' ? t.globals : envOfState(t);
  const fill = (text: string) => {
    let out = text;
    for (const e of patternExpansions(text, scope, t.escape).reverse()) {
      if (!literal.test(e.value)) throw new NewerSyntax('patterns', line, t.engine, `${text.slice(e.at, e.at + e.length)} is ${JSON.stringify(e.value)}, which cannot be written as a plain word`);
      out = out.slice(0, e.at) + e.value + out.slice(e.at + e.length);
    }
    return out;
  };
  const flagsText = p.flags.map((f) => fill(f.raw)).join(' ');
  const rest = p.keyword === 'RUN' ? p.rest : fill(p.rest);
  if (flagsText !== p.flags.map((f) => f.raw).join(' ') || rest !== p.rest) {
    Object.assign(p, extractFlags(`${flagsText} ${rest}`, t.escape));
    t.put(p, `${p.keyword} ${p.flags.map((f) => `${f.raw} `).join('')}${p.rest}`);
    t.rewritten.push(`\${VAR#…}, \${VAR%…} or \${VAR/…} (line ${line})`);
  }
}

/** FROM: a new stage, with the env and shell of its base image or of the stage it builds on */
function enterStage(t: TranslateState, p: Parsed): void {
  const words = p.rest.split(/\s+/);
  const base = expandWord(words[0] ?? '', t.globals, t.escape, 'word');
  const name = words.length >= 3 && words[1].toUpperCase() === 'AS' ? words[2].toLowerCase() : null;
  const parent = t.stages.get(base.toLowerCase());
  if (parent) t.stage = { env: { ...parent.env }, shell: [...parent.shell] };
  else {
    const config = base === 'scratch' ? undefined : t.opts.image(base);
    const imageEnv = config?.Env ?? [];
    t.stage = { env: envOf(imageEnv.some((kv) => kv.startsWith('PATH=')) ? imageEnv : [...imageEnv, defaultPath]), shell: config?.Shell?.length ? config.Shell : defaultShell };
  }
  t.stages.set(String(t.index++), t.stage);
  if (name) t.stages.set(name, t.stage);
}

/** ARG: its value from the build's args, its default, or the global of that name */
function declareArgs(t: TranslateState, p: Parsed): void {
  for (const word of splitWords(p.rest, t.escape)) {
    const [, key = '', def] = /^([^=]*)(?:=(.*))?$/s.exec(word) ?? [];
    let value: string | undefined = t.opts.args[key];
    if (value === undefined && def !== undefined) value = expandWord(def, envOfState(t), t.escape, 'word');
    if (value === undefined && t.stage) value = t.globals[key];
    if (value !== undefined) envOfState(t)[key] = value;
  }
}

/** ENV: `KEY value` or `KEY=value …`, each expanded with the env before it */
function setEnv(stage: StageState, p: Parsed, escape: string): void {
  const before = { ...stage.env };
  const words = splitWords(p.rest, escape);
  if (words.length && !words[0].includes('=')) {
    stage.env[words[0]] = expandWord(p.rest.slice(p.rest.indexOf(words[0]) + words[0].length).trim(), before, escape, 'word');
  } else {
    for (const word of words) {
      const at = word.indexOf('=');
      stage.env[expandWord(word.slice(0, at), before, escape, 'word')] = expandWord(word.slice(at + 1), before, escape, 'word');
    }
  }
}

/** RUN: heredocs become the shell's argument (or a script file), default --network and --security go; newer flags are refused */
function translateRun(t: TranslateState, stage: StageState, p: Parsed, line: number): void {
  for (const f of p.flags) {
    if (f.name === 'network' && f.value !== 'default') throw new NewerSyntax('network', line, t.engine, `--network=${f.value}`);
    if (f.name === 'security' && f.value !== 'sandbox') throw new NewerSyntax('security', line, t.engine, `--security=${f.value}`);
    if (f.name === 'device') throw new NewerSyntax('device', line, t.engine);
  }
  // the default network and the sandbox are what a RUN without those flags gets
  const drop = (f: Flag) => (f.name === 'network' && f.value === 'default') || (f.name === 'security' && f.value === 'sandbox');
  const flags = keptFlags(p, drop);
  if (p.heredocs.length) {
    const single = heredocOf(p.rest);
    if (single && p.heredocs.length === 1) {
      const doc = p.heredocs[0];
      const data = doc.chomp ? chompTabs(doc.content) : doc.content;
      if (data.startsWith('#!')) {
        // as BuildKit does: the script is a file of its own, mounted read-only at /dev/pipes/, run by the stage's shell
        if (!plainName.test(doc.name)) throw new NewerSyntax('heredoc', line, t.engine, `a script named ${JSON.stringify(doc.name)}`);
        const path = t.addFile(doc.name, data, 0o755);
        t.put(p, `RUN ${flags}--mount=type=bind,source=${path.slice(0, path.lastIndexOf('/'))},target=/dev/pipes ${JSON.stringify([...stage.shell, `/dev/pipes/${doc.name}`])}`);
      } else t.put(p, `RUN ${flags}${JSON.stringify([...stage.shell, data])}`);
    } else {
      // a command fed by heredocs: the shell reads them itself, so it gets the whole text
      t.put(p, `RUN ${flags}${JSON.stringify([...stage.shell, p.rest + p.heredocs.map((d) => `\n${d.content}${d.name}`).join('')])}`);
    }
    t.rewritten.push(`RUN heredoc (line ${line})`);
  } else if (p.flags.some(drop)) {
    t.put(p, `RUN ${flags}${p.rest}`);
    t.rewritten.push(`RUN ${p.flags.filter(drop).map((f) => f.raw).join(' ')} (line ${line}, what a RUN gets without it)`);
  }
}

/** COPY and ADD: heredocs become files of the context, --link and --parents go; newer flags are refused */
function translateCopy(t: TranslateState, stage: StageState, p: Parsed, line: number): void {
  for (const f of p.flags) {
    if (f.name === 'parents' && f.value !== 'false') throw new NewerSyntax('parents', line, t.engine);
    if (f.name === 'exclude') throw new NewerSyntax('exclude', line, t.engine);
    if (f.name === 'checksum') throw new NewerSyntax('checksum', line, t.engine);
    if (f.name === 'keep-git-dir') throw new NewerSyntax('keepGitDir', line, t.engine);
    if (f.name === 'unpack') throw new NewerSyntax('unpack', line, t.engine);
  }
  const link = (f: Flag) => f.name === 'link' || f.name === 'parents';
  const hasLink = p.flags.some((f) => f.name === 'link' && f.value !== 'false');
  if (!p.heredocs.length && !p.flags.some(link)) return;
  if (p.heredocs.length && p.flags.some((f) => f.name === 'from')) throw new NewerSyntax('heredoc', line, t.engine, 'beside --from');
  const flags = keptFlags(p, link);
  let args = p.rest;
  if (p.heredocs.length) {
    const byName = new Map(p.heredocs.map((d) => [d.name, d]));
    const words = p.rest.split(/[\t\v\f\r ]+/);
    args = words.map((word, at) => {
      const doc = at < words.length - 1 ? heredocOf(word) : null;
      if (!doc) return word;
      if (!plainName.test(doc.name)) throw new NewerSyntax('heredoc', line, t.engine, `a file named ${JSON.stringify(doc.name)}`);
      const content = byName.get(doc.name)?.content ?? '';
      const data = doc.chomp ? chompTabs(content) : content;
      return t.addFile(doc.name, doc.expand ? expandWord(data, stage.env, '\\', 'raw') : data, 0o644);
    }).join(' ');
    t.rewritten.push(`${p.keyword} heredoc (line ${line})`);
  }
  if (hasLink) t.linkDropped.push(line);
  t.put(p, `${p.keyword} ${flags}${args}`);
}

export function translateDockerfile(text: string, engine: string, opts: TranslateOptions): Translation | null {
  const lines = text.split('\n');
  const { count, escape } = directives(lines);
  const parsed = parse(lines, escape);
  const files: ContextFile[] = [];
  let dir = '.dockwright';
  for (let n = 2; opts.inContext(dir); n++) dir = `.dockwright-${n}`;
  const [os, arch = 'amd64', variant = ''] = opts.platform.split('/');
  const platformArgs: Env = {
    TARGETPLATFORM: opts.platform, TARGETOS: os, TARGETARCH: arch, TARGETVARIANT: variant,
    BUILDPLATFORM: opts.platform, BUILDOS: os, BUILDARCH: arch, BUILDVARIANT: variant,
  };
  const out = [...lines];
  const t: TranslateState = {
    engine, opts, escape, globals: { ...platformArgs }, stages: new Map(), index: 0, stage: null, rewritten: [], linkDropped: [],
    put: (p, line) => {
      if (Buffer.byteLength(line) > maxLine) throw new Error(`Dockerfile line ${p.start + 1}: the ${p.keyword} rewritten for the engine's older frontend would be a line of ${Buffer.byteLength(line)} bytes, more than the 65535 it reads`);
      out[p.start] = line;
      for (let i = p.start + 1; i <= p.end; i++) out[i] = '';
    },
    addFile: (name, content, mode) => {
      const path = `${dir}/heredoc-${files.length + 1}/${name}`;
      files.push({ path, content, mode });
      return path;
    },
  };

  for (const p of parsed) {
    const line = p.start + 1;
    if (expanding.has(p.keyword) && (p.rest + p.flags.map((f) => f.raw).join('')).includes('${')) expandPatterns(t, p, line);
    if (p.keyword === 'FROM') { enterStage(t, p); continue; }
    if (p.keyword === 'ARG') { declareArgs(t, p); continue; }
    const stage = t.stage;
    if (!stage) continue;
    if (p.keyword === 'ENV') setEnv(stage, p, escape);
    else if (p.keyword === 'SHELL') { if (p.json) stage.shell = JSON.parse(p.rest) as string[]; }
    else if (p.keyword === 'HEALTHCHECK' && p.flags.some((f) => f.name === 'start-interval')) throw new NewerSyntax('startInterval', line, engine);
    else if (p.keyword === 'ONBUILD' && p.heredocs.length) throw new NewerSyntax('heredoc', line, engine, 'in an ONBUILD trigger, which runs in the builds of other images');
    else if (p.keyword === 'RUN') translateRun(t, stage, p, line);
    else if (p.keyword === 'COPY' || p.keyword === 'ADD') translateCopy(t, stage, p, line);
  }
  const { rewritten, linkDropped } = t;
  // of the directives only `# escape=` stays, first: the old frontend would run the `# syntax=` image instead of itself,
  // and it ends its directives at a `# check=` it does not know
  const directive = (l: string) => /^\s*#\s*(\w+)/.exec(l)?.[1]?.toLowerCase();
  const syntax = lines.slice(0, count).find((l) => directive(l) === 'syntax');
  if (syntax) rewritten.unshift(`${syntax.trim()} left out`);
  if (!rewritten.length && !linkDropped.length) return null;
  const kept = lines.slice(0, count).filter((l) => directive(l) === 'escape');
  for (let i = 0; i < count; i++) out[i] = kept[i] ?? '#';
  return { text: out.join('\n'), files, rewritten, linkDropped };
}

const versions = new WeakMap<Dockerode, Promise<string>>();
/** the engine's version (asked once), or null when it does not answer */
function engineVersion(docker: Dockerode): Promise<string | null> {
  let version = versions.get(docker);
  if (!version) {
    version = docker.version().then((v) => v.Version);
    versions.set(docker, version);
    version.catch(() => versions.delete(docker));
  }
  return version.catch(() => null);
}
const present = (docker: Dockerode, ref: string) => docker.getImage(ref).inspect().then(() => true, () => false);

/**
 * The version of the engine when a build's Dockerfile is to be translated for it: BuildKit of an engine whose built-in
 * frontend predates Dockerfile 1.4, and no `# syntax=` frontend image present there (that frontend reads the file as
 * it is); null otherwise.
 */
export async function olderFrontend(docker: Dockerode, builder: 'buildkit' | 'classic', text: string | null): Promise<string | null> {
  if (builder !== 'buildkit' || !text) return null;
  const version = await engineVersion(docker);
  if (!version || frontendIsCurrent(version)) return null;
  const syntax = syntaxImage(text);
  return syntax && await present(docker, syntax) ? null : version;
}

/**
 * The images a build pulls (baseImages), less a `# syntax=` frontend the engine lacks when its own frontend is older:
 * that Dockerfile is translated instead. An engine that does not answer keeps the whole list.
 */
export async function pulledImages(docker: Dockerode, text: string, args: Record<string, string>): Promise<string[]> {
  const all = baseImages(text, args);
  const syntax = syntaxImage(text);
  if (!syntax) return all;
  const version = await engineVersion(docker);
  return version && !frontendIsCurrent(version) && !(await present(docker, syntax)) ? all.filter((ref) => ref !== syntax) : all;
}

const engineArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' };

/**
 * The build as sent to an engine with an older frontend: the translated Dockerfile as an inline one, and the files it adds
 * to the context; the job output says once what was rewritten. The base images are on the engine by now: their
 * environment and shell are read there, as BuildKit reads them.
 */
export async function translateForEngine(docker: Dockerode, b: NormalizedBuild, text: string, engine: string, io: DeployIo, service: string): Promise<{ build: NormalizedBuild; files: ContextFile[] }> {
  const configs = new Map<string, { Env?: string[] | null; Shell?: string[] | null }>();
  for (const ref of baseImages(text, b.args)) {
    const config = await docker.getImage(ref).inspect().then((i) => i.Config as { Env?: string[]; Shell?: string[] }, () => undefined);
    if (config) configs.set(ref, config);
  }
  let t: Translation | null;
  try {
    t = translateDockerfile(text, engine, {
      args: b.args,
      image: (ref) => configs.get(ref),
      platform: b.platform ?? `linux/${engineArch[process.arch] ?? process.arch}`,
      inContext: (name) => existsSync(join(b.context, name)),
    });
  } catch (err) {
    throw new Error(`building the image of "${service}" failed: ${(err as Error).message}`);
  }
  if (!t) return { build: b, files: [] };
  if (t.rewritten.length) io.log(`${service}: the Dockerfile was translated for the older built-in frontend of Docker Engine ${engine} (no heredocs, Dockerfile syntax 1.2): ${t.rewritten.join(', ')}`);
  if (t.linkDropped.length) io.log(`${service}: --link left out of COPY/ADD (Dockerfile line${t.linkDropped.length > 1 ? 's' : ''} ${t.linkDropped.join(', ')}): Docker Engine ${engine}'s frontend lacks it, and it only changes how the layers are cached`);
  return { build: { ...b, dockerfileInline: t.text }, files: t.files };
}
