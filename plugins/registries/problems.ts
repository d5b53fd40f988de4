// The problem codes the registries plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'registry-login-refused': { status: 422, title: 'the registry refused the login; nothing was saved' },
  'registry-unreachable': { status: 422, title: 'the login could not be checked with the registry; nothing was saved' },
};
