// The problem codes the containers plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'console-limit': { status: 429, title: 'as many console sessions are open as the user, or the installation, may have: close one first' },
  'docker-error': { status: 502, title: 'the Docker engine refused the request (its reason is in the detail)' },
  'other-installation': { status: 403, title: 'the container belongs to another Dockwright installation on this engine' },
  'swarm-task': { status: 409, title: 'the container is a task of a swarm service: act on its stack instead' },
};
