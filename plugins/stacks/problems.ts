// The problem codes the stacks plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'deploy-failed': { status: 502, title: 'the deploy a webhook call waited for failed (its job is in the answer)' },
  'stack-outside-token': { status: 403, title: 'the token (exchanged through a trust policy) may reach only its policy\'s stacks' },
  'volume-in-use': { status: 409, title: 'the volume is in use by a container: stop or delete its stack first' },
};
