// The progress lines of a backup job from restic's JSON status messages: throttled, and ended by the summary's final counts even when restic's last status said 100% early.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLogger } from '../../../plugins/backups/run.ts';

test('a status at 100% with counts still behind is not the last word: the summary\'s end line is, once', () => {
  const lines: string[] = [];
  const progress = progressLogger((l) => lines.push(l), 0);
  progress({ percent_done: 0, files_done: 0, total_files: 1, bytes_done: 0, total_bytes: 13 });
  // restic 0.14 can report 100% of the bytes while one of two files is counted
  progress({ percent_done: 1, files_done: 1, total_files: 2, bytes_done: 200_000, total_bytes: 200_000 });
  progress({ percent_done: 1, files_done: 2, total_files: 2, bytes_done: 200_013, total_bytes: 200_013 }, true);
  progress({ percent_done: 1, files_done: 2, total_files: 2, bytes_done: 200_013, total_bytes: 200_013 });
  assert.deepEqual(lines, ['progress 0% · 0/1 files · 0 B/13 B', 'progress 100% · 2/2 files · 195.3 KiB/195.3 KiB']);
});

test('status lines are throttled to one per interval; the end line always comes', () => {
  const lines: string[] = [];
  const progress = progressLogger((l) => lines.push(l), 60_000);
  progress({ percent_done: 0.1, files_done: 1, total_files: 10 });
  progress({ percent_done: 0.5, files_done: 5, total_files: 10 });
  progress({ percent_done: 1, files_done: 10, total_files: 10 }, true);
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^progress 10% · 1\/10 files/);
  assert.match(lines[1], /^progress 100% · 10\/10 files/);
});
