// The documentation holds together: README.md stays short, and every relative link and #anchor in README.md and docs/**/*.md leads to a file and heading that exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { root } from '../helpers/harness.ts';

const readmeMaxBytes = 15_000;

/** README.md and every .md file under docs/, as paths relative to the repository */
function documents(): string[] {
  const walk = (dir: string): string[] => readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? walk(path) : name.endsWith('.md') ? [path] : [];
  });
  return ['README.md', ...(existsSync(join(root, 'docs')) ? walk('docs') : [])];
}

/** the text outside fenced code blocks, line by line (a fenced line becomes empty, so line numbers stay) */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker) { fence = marker; return ''; }
    return line;
  });
}

/** GitHub's anchor of a heading: its text without markup, lowercase, punctuation dropped, each space a '-' */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** the anchors of a markdown file's headings; a repeated one gets -1, -2, … as GitHub numbers them */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** the link targets of a markdown text (inline links, images and reference definitions), outside code */
function links(text: string): { target: string; line: number }[] {
  return prose(text).flatMap((line, i) => {
    const bare = line.replace(/(`+)[^`]*?\1/g, '');
    const inline = [...bare.matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
    const reference = [.../^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$/.exec(bare)?.slice(1) ?? []];
    return [...inline, ...reference].map((target) => ({ target, line: i + 1 }));
  });
}

/** why a link of file does not resolve, or undefined when it does; external links (a scheme, or //host) are not judged */
function broken(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const full = path === '' ? join(root, file) : path.startsWith('/') ? join(root, path) : resolve(root, dirname(file), path);
  if (relative(root, full).startsWith('..')) return `leads out of the repository (${relative(root, full)})`;
  if (!existsSync(full)) return `no file ${relative(root, full)}`;
  if (anchor === undefined) return undefined;
  if (!full.endsWith('.md') || statSync(full).isDirectory()) return `an anchor into ${relative(root, full)}, which is no markdown file`;
  return anchors(readFileSync(full, 'utf8')).has(anchor) ? undefined : `no heading #${anchor} in ${relative(root, full)}`;
}

test('slug makes the anchors GitHub makes', () => {
  assert.equal(slug('Compose files: limits and platform rules'), 'compose-files-limits-and-platform-rules');
  assert.equal(slug('Installing, enabling and listing plugins'), 'installing-enabling-and-listing-plugins');
  assert.equal(slug('Releases, rollback, updates and images'), 'releases-rollback-updates-and-images');
  assert.equal(slug('The `ctx.jobs` API (since SDK 1.7)'), 'the-ctxjobs-api-since-sdk-17');
  assert.equal(slug('A -- b'), 'a----b');
  assert.deepEqual([...anchors('# Notes\n## Notes\n```\n# not a heading\n```\n## Notes\n')], ['notes', 'notes-1', 'notes-2']);
  assert.equal(broken('README.md', '#no-such-heading-anywhere'), 'no heading #no-such-heading-anywhere in README.md');
});

test(`README.md is under ${readmeMaxBytes} bytes`, () => {
  const size = statSync(join(root, 'README.md')).size;
  assert.ok(size < readmeMaxBytes, `README.md has ${size} bytes; move detail into docs/`);
});

test('every relative link and #anchor in README.md and docs/**/*.md resolves to a file and a heading', () => {
  const problems: string[] = [];
  let checked = 0;
  for (const file of documents()) {
    for (const { target, line } of links(readFileSync(join(root, file), 'utf8'))) {
      checked++;
      const why = broken(file, target);
      if (why) problems.push(`${file}:${line}: (${target}) ${why}`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked > 100, `only ${checked} links found: the link reader is broken`);
});

test('every page of docs/ is linked from docs/README.md, and docs/README.md from README.md', () => {
  const linked = (file: string) => new Set(links(readFileSync(join(root, file), 'utf8'))
    .map(({ target }) => target.split('#')[0])
    .filter((path) => path && !/^[a-z][a-z0-9+.-]*:/i.test(path))
    .map((path) => relative(root, resolve(root, dirname(file), path))));
  assert.ok(linked('README.md').has('docs/README.md'), 'README.md links docs/README.md');
  const index = linked('docs/README.md');
  assert.deepEqual(documents().filter((f) => f.startsWith('docs/') && f !== 'docs/README.md' && !index.has(f)), []);
});
