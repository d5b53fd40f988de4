// The three-way merge of a template update: the template as deployed (base), the stack's compose file now (ours) and the new template (theirs), line by line.
import { diff3Merge } from 'node-diff3';

export interface Conflict {
  /** the first line of the conflict in the merged text (1-based, at its <<<<<<< marker) */
  line: number;
  current: string[];
  base: string[];
  template: string[];
}

const lines = (text: string) => text.split('\n');

/** the merged text (conflicts written between markers, as git does) and the conflicts */
export function threeWay(base: string, current: string, next: string, labels: { from: string; to: string }): { compose: string; conflicts: Conflict[] } {
  const out: string[] = [];
  const conflicts: Conflict[] = [];
  for (const block of diff3Merge(lines(current), lines(base), lines(next), { excludeFalseConflicts: true }) as ({ ok: string[] } | { conflict: { a: string[]; o: string[]; b: string[] } })[]) {
    if ('ok' in block) { out.push(...block.ok); continue; }
    const { a, o, b } = block.conflict;
    conflicts.push({ line: out.length + 1, current: a, base: o, template: b });
    out.push('<<<<<<< current', ...a, `||||||| template ${labels.from}`, ...o, '=======', ...b, `>>>>>>> template ${labels.to}`);
  }
  return { compose: out.join('\n'), conflicts };
}
