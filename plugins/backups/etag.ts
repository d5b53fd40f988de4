// A backup definition's ETag (its updatedAt, quoted) and the If-Match / If-None-Match: * check of a write against it.
import { problem } from '../../sdk/index.ts';

export const backupTag = (updatedAt: string | Date): string => `"${new Date(updatedAt).toISOString()}"`;

/** If-Match (an ETag as GET answered it) or If-None-Match: * ('absent'); undefined: the write is unconditional */
export function expectedOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const ifMatch = headers['if-match'];
  if (typeof ifMatch === 'string') return ifMatch.trim();
  return headers['if-none-match'] === '*' ? 'absent' : undefined;
}

/** 412 when the backup is not as the caller read it (nothing is written) */
export function checkExpected(name: string, before: { updatedAt: string | Date } | null | undefined, expected: string | undefined): void {
  if (expected === undefined) return;
  if (expected === 'absent') {
    if (before) throw problem(412, `backup "${name}" exists already (If-None-Match: *)`, { code: 'backup-changed', headers: { ETag: backupTag(before.updatedAt) } });
    return;
  }
  if (!before) throw problem(412, `backup "${name}" does not exist (If-Match)`, { code: 'backup-changed' });
  if (backupTag(before.updatedAt) !== expected) throw problem(412, `backup "${name}" changed since it was read: read it again (its ETag is now ${backupTag(before.updatedAt)})`, { code: 'backup-changed', headers: { ETag: backupTag(before.updatedAt) } });
}
