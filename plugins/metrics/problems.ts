// The problem codes the metrics plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'built-in-rule': { status: 409, title: 'a built-in alert rule cannot be deleted: disable it (PUT with `enabled: false`)' },
};
