// A site as the API answers it: hostnames, source (the kind of its credentials only), version, draft and preview, webhook.
import type { Credentials } from '../git/index.ts';
import type { DraftRow, SiteRow } from './store.ts';
import { checkKind, type SiteContext } from './site-context.ts';

export function siteViews({ ctx, store, previewUrl, rowOf }: SiteContext) {
  function view(row: SiteRow, draft: DraftRow | null, webhook: boolean) {
    // only the kind of the credentials is shown; opening the seal is the one way to learn it without storing it twice
    const credentials = row.credentialsSealed ? { kind: (JSON.parse(ctx.secrets.open(row.credentialsSealed)) as Credentials).kind } : null;
    return {
      name: row.name,
      hostnames: row.hostnames,
      source: row.source && { url: row.source.display, branch: row.source.branch, path: row.source.path, build: row.source.build ?? null, credentials },
      version: row.version,
      lastDeploy: row.lastDeploy,
      lastError: row.lastError,
      syncedCommit: row.syncedCommit,
      draft: draft && { files: Object.keys(draft.manifest).length, changedAt: draft.changedAt, basedOn: draft.basedOn, previewUrl: previewUrl(row.name) },
      previewUrl: previewUrl(row.name),
      webhook: { enabled: webhook },
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  }

  async function viewOf(name: string) {
    const [row, draft, hooks] = await Promise.all([rowOf(name), store.draft(name), ctx.actionTokens.enabled(checkKind, [name])]);
    return view(row, draft, hooks.has(name));
  }

  async function listViews(after: string | undefined, limit: number) {
    const rows = (await store.list()).filter((r) => after === undefined || r.name > after);
    const page = rows.slice(0, limit);
    const names = page.map((r) => r.name);
    const [drafts, hooks] = await Promise.all([store.drafts(names), ctx.actionTokens.enabled(checkKind, names)]);
    return { items: page.map((r) => view(r, drafts.get(r.name) ?? null, hooks.has(r.name))), next: rows.length > limit ? page.at(-1)!.name : undefined };
  }

  return { view, viewOf, listViews };
}
