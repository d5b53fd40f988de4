// The problem codes the edge plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'compose-refused': { status: 422, title: 'the compose file breaks platform rules (`errors` names each)' },
  'edge-hostname-taken': { status: 409, title: 'a hostname asked for is routed by another stack or site (`owners` names them)' },
  'edge-refused': { status: 502, title: 'the edge (Caddy) refused the new configuration' },
};
