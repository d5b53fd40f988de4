// The problem codes the git plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'archive-refused': { status: [413, 415, 422], title: 'the uploaded archive is too large, of an unknown format or unreadable' },
  'compose-missing': { status: 422, title: 'the source holds no compose file where the stack expects it' },
  'git-failed': { status: 502, title: 'a git command against the repository failed' },
  'invalid-source': { status: 400, title: 'the source\'s URL or ref is not one git can use' },
  'no-deploy-key': { status: [404, 422], title: 'the stack has no deploy key (make one first)' },
  'no-source': { status: 404, title: 'the stack has no source' },
  'not-git': { status: 409, title: 'the stack\'s source is an uploaded archive, not a git repository' },
  'source-not-found': { status: 422, title: 'the repository, ref or path of the source does not exist' },
};
