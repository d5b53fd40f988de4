// The problem codes the backups plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'backup-changed': { status: 412, title: 'the backup changed since it was read, or If-None-Match: * found it exists (its `ETag` is the current one)' },
  'missing-credentials': { status: 422, title: 'the database service\'s environment holds no credentials the strategy can use' },
  'no-service': { status: 409, title: 'the stack has no container of that service: deploy it first (or restore into a new stack)' },
  'no-target': { status: 422, title: 'a backup needs at least one target with something in it' },
  'nothing-to-verify': { status: 422, title: 'the backup holds no database dumps: a verification test-restores those only' },
  'not-a-dump': { status: 422, title: 'the snapshot or upload is not a database dump the strategy restores' },
  'repository-refused': { status: 422, title: 'the repository is not one a backup may use (its URL, environment or key)' },
  'repository-unreadable': { status: 502, title: 'restic could not read the repository' },
  'restore-running': { status: 409, title: 'a restore of the backup is queued or running' },
  'stack-role': { status: 403, title: 'your role on the backup\'s stacks does not allow acting on it' },
  'strategy-unavailable': { status: 422, title: 'the strategy (named or suggested) is not available in this version' },
  'unknown-target': { status: 422, title: 'no backup target of that name (is the plugin that provides it enabled?)' },
  'would-overwrite': { status: 409, title: 'restoring would replace data that is there: restore with `overwrite: true`' },
  'wrong-strategy': { status: 422, title: 'the strategy does not fit the service or the snapshot' },
};
