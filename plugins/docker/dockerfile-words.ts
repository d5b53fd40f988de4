// The words of a Dockerfile line as BuildKit's lexer reads them: splitting on blanks, an instruction's --flags, and variable expansion ($VAR, ${VAR:-default}, ${VAR#pattern}…).
export type Env = Record<string, string>;

/** splits on blanks outside quotes, keeping quotes and escapes as written; `<< EOF` stays one word, as BuildKit's lexer keeps it */
export function splitWords(text: string, escape: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === escape && i + 1 < text.length) { word += ch + text[++i]; continue; }
    if (ch === '"' || ch === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== ch) end += ch === '"' && text[end] === escape ? 2 : 1;
      word += text.slice(i, end + 1);
      i = end;
      continue;
    }
    if (ch === '<' && text[i + 1] === '<') {
      let end = i + 2;
      while (end < text.length && /[ \t]/.test(text[end])) end++;
      word += text.slice(i, end);
      i = end - 1;
      continue;
    }
    word += ch;
  }
  if (inWord) words.push(word);
  return words;
}

export interface HeredocWord { name: string; chomp: boolean; expand: boolean }

/** a heredoc word (`<<EOF`, `<<-'EOF'`, `<< EOF`, `2<<"END"`) as BuildKit reads it, or null */
export function heredocOf(word: string): HeredocWord | null {
  const m = /^(\d*)<<(-?)\s*([^<]*)$/.exec(word);
  if (!m || !m[3]) return null;
  const words = splitWords(m[3], '\\');
  if (words.length !== 1) return null;
  try {
    return { name: expandWord(words[0], {}, '\\', 'word'), chomp: m[2] === '-', expand: !/["']/.test(words[0]) };
  } catch {
    return null; // as BuildKit's MustParseHeredoc: a word it cannot read is no heredoc
  }
}

export interface Flag { raw: string; name: string; value: string }

/** an instruction's leading `--name=value` flags (quotes and escapes read as BuildKit reads them) and the rest of its line */
export function extractFlags(line: string, escape: string): { flags: Flag[]; rest: string } {
  const flags: Flag[] = [];
  let pos = 0;
  for (;;) {
    while (pos < line.length && /\s/.test(line[pos])) pos++;
    if (!line.startsWith('--', pos)) break;
    const start = pos;
    let word = '';
    let quote = '';
    for (; pos < line.length; pos++) {
      const ch = line[pos];
      if (!quote && /\s/.test(ch)) break;
      if (!quote && (ch === '"' || ch === "'")) { quote = ch; continue; }
      if (quote && ch === quote) { quote = ''; continue; }
      if (ch === escape && pos + 1 < line.length) { word += line[++pos]; continue; }
      if (ch === escape) continue;
      word += ch;
    }
    if (word === '--') break;
    const at = word.indexOf('=');
    flags.push({ raw: line.slice(start, pos), name: (at < 0 ? word.slice(2) : word.slice(2, at)).toLowerCase(), value: at < 0 ? 'true' : word.slice(at + 1) });
  }
  return { flags, rest: line.slice(pos).trim() };
}

/** a shell pattern (`*`, `?`, `[…]`) as a regular expression */
function patternRegex(pattern: string, anchor: 'start' | 'full' | 'none', greedy: boolean): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') source += greedy ? '.*' : '.*?';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) { source += '\\['; continue; }
      source += `[${pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (ch === '\\' && i + 1 < pattern.length) source += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(anchor === 'start' ? `^(?:${source})` : anchor === 'full' ? `^(?:${source})$` : source, 's');
}

function trimPattern(value: string, pattern: string, suffix: boolean, greedy: boolean): string {
  if (!suffix) {
    const m = patternRegex(pattern, 'start', greedy).exec(value);
    return m ? value.slice(m[0].length) : value;
  }
  // the shortest suffix is the match that starts last
  for (let at = greedy ? 0 : value.length; greedy ? at <= value.length : at >= 0; at += greedy ? 1 : -1) {
    if (patternRegex(pattern, 'full', true).test(value.slice(at))) return value.slice(0, at);
  }
  return value;
}

/**
 * Expands variables in a word as BuildKit does: `word` mode also reads quotes (single: literal; double: expanded) and
 * escapes; `raw` mode (a COPY heredoc's content) leaves quotes as they are but still reads escapes. Unset variables
 * are empty.
 */
export function expandWord(text: string, env: Env, escape: string, mode: 'word' | 'raw'): string {
  let i = 0;
  const name = (): string => {
    if (/\d/.test(text[i] ?? '')) { const m = /^\d+/.exec(text.slice(i))![0]; i += m.length; return m; }
    if (/[@*#?\-$!0]/.test(text[i] ?? '')) return text[i++];
    const m = /^[\p{L}\p{N}_]*/u.exec(text.slice(i))![0];
    i += m.length;
    return m;
  };
  const until = (stop: string, rawEscapes: boolean): string => {
    let out = '';
    while (i < text.length && text[i] !== stop) out += step(rawEscapes);
    if (i >= text.length) throw new Error(`syntax error in ${JSON.stringify(text)}: missing '${stop}'`);
    i++;
    return out;
  };
  const dollar = (): string => {
    i++;
    if (text[i] !== '{') {
      const n = name();
      return n === '' ? '$' : env[n] ?? '';
    }
    i++;
    if (i >= text.length || '{}:'.includes(text[i])) throw new Error(`bad substitution in ${JSON.stringify(text)}`);
    const n = name();
    let op = text[i++];
    const value = env[n];
    if (op === '}') return value ?? '';
    if (op === '/') {
      const all = text[i] === '/';
      if (all) i++;
      const pattern = until('/', true);
      const replacement = until('}', true);
      if (value === undefined) return '';
      const re = patternRegex(pattern, 'none', true);
      return all ? value.replace(new RegExp(re.source, 'gs'), () => replacement) : value.replace(re, () => replacement);
    }
    let nullIsUnset = false;
    if (op === ':') { nullIsUnset = true; op = text[i++]; }
    if (!'+-?#%'.includes(op ?? '') || (nullIsUnset && '#%'.includes(op))) throw new Error(`unsupported modifier in ${JSON.stringify(text)}`);
    let word = until('}', op === '#' || op === '%');
    const unset = value === undefined || (nullIsUnset && value === '');
    if (op === '-') return unset ? word : value!;
    if (op === '+') return unset ? '' : word;
    if (op === '?') {
      if (unset) throw new Error(`${n}: ${word || (value === undefined ? 'is not allowed to be unset' : 'is not allowed to be empty')}`);
      return value!;
    }
    const greedy = word.startsWith(op);
    if (greedy) word = word.slice(1);
    return trimPattern(value ?? '', word, op === '%', greedy);
  };
  const step = (rawEscapes: boolean): string => {
    const ch = text[i];
    if (ch === '$') return dollar();
    if (mode === 'word' && ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unmatched single quote in ${JSON.stringify(text)}`);
      const out = text.slice(i + 1, end);
      i = end + 1;
      return out;
    }
    if (mode === 'word' && ch === '"') {
      i++;
      let out = '';
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '$') { out += dollar(); continue; }
        if (text[i] === escape && i + 1 < text.length && ['"', '$', escape].includes(text[i + 1])) { out += (rawEscapes ? escape : '') + text[i + 1]; i += 2; continue; }
        out += text[i++];
      }
      if (i >= text.length) throw new Error(`unmatched double quote in ${JSON.stringify(text)}`);
      i++;
      return out;
    }
    i++;
    if (ch === escape) {
      if (i >= text.length) return rawEscapes ? ch : '';
      return (rawEscapes ? ch : '') + text[i++];
    }
    return ch;
  };
  let out = '';
  while (i < text.length) out += step(false);
  return out;
}

/**
 * The `${VAR#pattern}`, `${VAR%pattern}` and `${VAR/pattern/replacement}` expansions of a word (Dockerfile syntax 1.7),
 * outside single quotes and escapes, each with its place and value.
 */
export function patternExpansions(text: string, env: Env, escape: string): { at: number; length: number; value: string }[] {
  const found: { at: number; length: number; value: string }[] = [];
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === escape && quote !== "'") { i++; continue; }
    if ((ch === "'" || ch === '"') && (!quote || quote === ch)) { quote = quote ? '' : ch; continue; }
    if (quote === "'" || ch !== '$') continue;
    const m = /^\$\{[\p{L}\p{N}_]+(?:##?|%%?|\/\/?)[^}]*\}/u.exec(text.slice(i));
    if (!m) continue;
    found.push({ at: i, length: m[0].length, value: expandWord(m[0], env, escape, 'word') });
    i += m[0].length - 1;
  }
  return found;
}
