// The problem codes the swarm plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'not-a-swarm-manager': { status: 409, title: 'the engine is not a manager of a Docker Swarm' },
};
