// The compose editor: line numbers, validate-as-you-type against the platform rules, each rule's error pinned to its line.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ok, isProblem, type Problem } from '../../../sdk/portal/kit.tsx';

export interface Issue { rule?: string; path: string; message: string }

/** the 1-based line of a rule's path (`services.web.volumes[1]`) in the YAML text, when it can be found by indentation */
export function lineOf(text: string, path: string): number | undefined {
  const segments = path.split(/\.|(?=\[)/).filter(Boolean);
  const lines = text.split('\n');
  let from = 0;
  let parentIndent = -1;
  let found: number | undefined;
  for (const segment of segments) {
    const index = /^\[(\d+)\]$/.exec(segment);
    let hit = -1;
    let seen = 0;
    for (let i = from; i < lines.length; i++) {
      const line = lines[i];
      if (!line.trim() || line.trim().startsWith('#')) continue;
      const indent = line.length - line.trimStart().length;
      if (indent <= parentIndent && i > from) break;
      if (index) {
        if (line.trimStart().startsWith('- ') || line.trim() === '-') {
          if (seen++ === Number(index[1])) { hit = i; break; }
        }
      } else {
        const key = line.trimStart().replace(/^- /, '');
        if (key.startsWith(`${segment}:`) || key.startsWith(`"${segment}":`) || key.startsWith(`'${segment}':`)) { hit = i; break; }
      }
    }
    if (hit < 0) break;
    found = hit + 1;
    parentIndent = lines[hit].length - lines[hit].trimStart().length;
    from = hit + 1;
  }
  return found;
}

/** validates `text` a moment after the last keystroke; answers the rule errors with their lines */
export function useValidation(stack: string, text: string, delayMs = 300) {
  const [state, setState] = useState<{ issues: (Issue & { line?: number })[]; warnings: Issue[]; checking: boolean; problem?: Problem }>({ issues: [], warnings: [], checking: false });
  useEffect(() => {
    if (!text.trim() || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(stack)) { setState({ issues: [], warnings: [], checking: false }); return; }
    let current = true;
    setState((s) => ({ ...s, checking: true }));
    const timer = setTimeout(async () => {
      try {
        const out = await ok(api.POST('/api/v1/stacks/{name}/validate', { params: { path: { name: stack } }, body: { content: text } }));
        if (current) setState({ issues: out.errors.map((e) => ({ ...e, line: lineOf(text, e.path) })), warnings: out.warnings, checking: false });
      } catch (err) {
        if (current) setState({ issues: [], warnings: [], checking: false, problem: isProblem(err) ? err : undefined });
      }
    }, delayMs);
    return () => { current = false; clearTimeout(timer); };
  }, [stack, text]);
  return state;
}

export function ComposeEditor({ value, onInput, issues, label = 'Compose file', readOnly = false }: { value: string; onInput(v: string): void; issues: (Issue & { line?: number })[]; label?: string; readOnly?: boolean }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const lines = value.split('\n').length;
  const bad = useMemo(() => new Set(issues.map((i) => i.line).filter(Boolean)), [issues]);
  const goTo = (line: number) => {
    const el = area.current!;
    const offset = value.split('\n').slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
    el.focus();
    el.setSelectionRange(offset, offset + (value.split('\n')[line - 1]?.length ?? 0));
  };
  const onKeyDown = (e: KeyboardEvent) => {
    // Tab indents (two spaces); Escape then Tab leaves the editor, so the keyboard is never trapped
    if (e.key === 'Tab' && !e.shiftKey && !(area.current as HTMLTextAreaElement & { escaped?: boolean }).escaped) {
      e.preventDefault();
      const el = area.current!;
      const { selectionStart: s, selectionEnd: t } = el;
      onInput(value.slice(0, s) + '  ' + value.slice(t));
      requestAnimationFrame(() => el.setSelectionRange(s + 2, s + 2));
    }
    (area.current as HTMLTextAreaElement & { escaped?: boolean }).escaped = e.key === 'Escape';
  };
  return (
    <div>
      <div class="editor">
        <div class="gutter" aria-hidden="true">{Array.from({ length: lines }, (_, i) => <div class={bad.has(i + 1) ? 'bad' : ''}>{i + 1}</div>)}</div>
        <textarea ref={area} aria-label={label} aria-describedby="compose-issues" spellcheck={false} readOnly={readOnly} rows={lines + 1} value={value}
          data-testid="compose" onInput={(e) => onInput(e.currentTarget.value)} onKeyDown={onKeyDown} aria-invalid={issues.length > 0} />
      </div>
      <p class="muted">Tab indents; press Escape, then Tab, to leave the editor.</p>
      <div id="compose-issues" aria-live="polite">
        {issues.length > 0 && (
          <ul class="issues problem" data-testid="issues">
            {issues.map((i) => (
              <li>{i.line ? <button type="button" class="link" onClick={() => goTo(i.line!)}>line {i.line}</button> : <code>{i.path}</code>}: {i.message} {i.rule && <code class="muted">{i.rule}</code>}</li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

/** a line diff (longest common subsequence): what changed between two texts */
export function lineDiff(a: string, b: string): { kind: ' ' | '+' | '-'; text: string }[] {
  const x = a.split('\n').slice(0, 3000);
  const y = b.split('\n').slice(0, 3000);
  const n = x.length, m = y.length;
  const lcs: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: { kind: ' ' | '+' | '-'; text: string }[] = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { out.push({ kind: ' ', text: x[i] }); i++; j++; }
    else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ kind: '-', text: x[i++] });
    else out.push({ kind: '+', text: y[j++] });
  }
  while (i < n) out.push({ kind: '-', text: x[i++] });
  while (j < m) out.push({ kind: '+', text: y[j++] });
  return out;
}

export function Diff({ from, to, label }: { from: string; to: string; label: string }) {
  const rows = lineDiff(from, to);
  return (
    <pre class="diff" aria-label={label} data-testid="diff">
      {rows.map((r) => <div class={r.kind === '+' ? 'add' : r.kind === '-' ? 'del' : ''}>{r.kind} {r.text}</div>)}
    </pre>
  );
}
