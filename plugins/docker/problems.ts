// The problem codes the docker plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'docker-unavailable': { status: 503, title: 'the Docker engine cannot be reached' },
  'docker-timeout': { status: 503, title: 'the Docker engine did not answer in time' },
};
