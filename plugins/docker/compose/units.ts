// Compose value syntaxes: durations ("1m30s"), byte sizes ("512m"), shell-like word splitting of string commands.

const durationUnits: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** "1m30s", "500ms", "10s", or a number of seconds → nanoseconds; null when malformed. */
export function durationNs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value * 1e9);
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * durationUnits[m[2]];
    at = re.lastIndex;
  }
  return at === text.length && at > 0 ? Math.round(total) : null;
}

const byteUnits: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4 };

/** "512m", "1g", "100k", "1024" or a number → bytes; null when malformed. */
export function bytes(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value !== 'string') return null;
  // trimmed first: blanks on both sides of an optional unit made the pattern backtrack quadratically
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  if (!m) return null;
  const unit = byteUnits[m[2].toLowerCase()];
  return unit === undefined ? null : Math.round(Number(m[1]) * unit);
}

/** splits a command string into words like a POSIX shell would (quotes and backslashes), without running anything. */
export function splitWords(text: string): string[] | null {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return null;
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`\n'.includes(text[j + 1])) j++;
        word += text[j];
      }
      if (j >= text.length) return null;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 < text.length) word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
