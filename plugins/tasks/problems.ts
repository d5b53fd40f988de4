// The problem codes the tasks plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'revision-stale': { status: 412, title: 'the task changed since it was read (If-Match names an older revision)' },
  'task-declared': { status: 409, title: 'the task is declared in the stack\'s compose file (x-dockwright.tasks): change it there' },
  'task-exists': { status: 409, title: 'the stack already has a task of that name' },
  'unknown-service': { status: 422, title: 'the stack has no service of that name' },
};
