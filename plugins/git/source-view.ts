// A stack's source as the API answers it: where it comes from, what was seen and deployed, the last push (never its credentials).
import type { Delivery, SourceRow } from './store.ts';

export function sourceView(row: SourceRow, lastPush: Delivery | null) {
  return {
    stack: row.stack,
    kind: row.kind,
    url: row.url,
    branch: row.branch,
    path: row.composePath,
    autodeploy: row.autodeploy,
    credentials: row.credentialsKind ? { kind: row.credentialsKind } : null,
    pinnedCommit: row.pinnedCommit,
    remoteHead: row.remoteHead,
    remoteSubject: row.remoteSubject,
    deployedCommit: row.deployedCommit,
    deployedAt: row.deployedAt,
    lastCheckedAt: row.lastCheckedAt,
    lastError: row.lastError,
    upload: row.upload,
    lastPush: lastPush && {
      deliveryId: lastPush.deliveryId, provider: lastPush.provider, event: lastPush.event, ref: lastPush.ref, commit: lastPush.afterCommit,
      outcome: lastPush.outcome, reason: lastPush.reason, jobId: lastPush.jobId, at: lastPush.receivedAt,
    },
    updatedAt: row.updatedAt,
  };
}
