// The sites plugin: static sites from a git source (optionally built) or uploads, with drafts, immutable versions and atomic publishing through the edge.
import { definePlugin, Type, type AttentionItem } from '../../sdk/index.ts';
import { problems } from './problems.ts';
import { backupsPlugin, backupTargets } from '../backups/api.ts';
import { dockerPlugin, imageUsers } from '../docker/api.ts';
import { edgePlugin } from '../edge/api.ts';
import { gitPlugin } from '../git/api.ts';
import { sitesBackupTarget } from './backup-target.ts';
import { createFiles } from './files.ts';
import { checkWebhook, siteRoutes } from './routes.ts';
import { createSites, previewPrefix, siteOwner } from './sites.ts';
import { createStore } from './store.ts';
import { syncJob } from './sync.ts';

const Options = Type.Object({
  previewDomain: Type.Union([Type.String({ pattern: '^[A-Za-z0-9.-]+$', minLength: 1, maxLength: 190 }), Type.Null()], {
    default: null, description: 'drafts are previewed at draft--<site>.<previewDomain> (basic auth: user "preview", the site\'s preview token); null: no preview host',
  }),
  keepVersions: Type.Integer({ minimum: 1, maximum: 10_000, default: 20, description: 'versions kept per site (the published one always is)' }),
  checkIntervalMs: Type.Integer({ minimum: 1000, default: 300_000, description: 'how often sites with a source fetch it on their own' }),
  webhookWindowSeconds: Type.Integer({ minimum: 1, default: 30, description: 'one check webhook call accepted per site in this window' }),
  buildTimeoutMs: Type.Integer({ minimum: 1000, default: 600_000, description: 'how long a build container may run' }),
  archiveMaxEntries: Type.Optional(Type.Integer({ minimum: 1, description: 'entries of an uploaded site archive, below the install\'s limit (plugins.git.options.archiveMaxEntries, 20000); unset: that limit' })),
  archiveMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, description: 'unpacked bytes of an uploaded site archive, below the install\'s limit (plugins.git.options.archiveMaxBytes, 1 GiB); unset: that limit' })),
}, { additionalProperties: false });

export default definePlugin({
  name: 'sites',
  version: '1.0.0',
  services: ['db', 'actionTokens', 'secrets', 'events'],
  description: 'Static sites: synced from git (optionally built in a container) or uploaded, with drafts, versions, restore and a check webhook',
  requires: [edgePlugin, gitPlugin, dockerPlugin, backupsPlugin],
  options: Options,
  settings: { previewDomain: { label: 'Preview domain (draft--<site>.<domain>)', group: 'Sites' } },
  problems,
  setup(ctx) {
    const options = ctx.options;
    const { edge, git, docker: runtime } = ctx.deps;
    ctx.scopes.define({
      'sites:read': { description: 'read sites, their versions, files and drafts', role: 'viewer' },
      'sites:write': { description: 'define and remove sites, write and discard drafts, manage the check webhook and preview token', role: 'operator' },
      'sites:publish': { description: 'publish: upload content, publish drafts, restore versions, check sources', role: 'operator' },
    });
    ctx.migrations.from(new URL('./migrations', import.meta.url));
    const reserved = new Set<string>();
    /** the preview domain as the settings have it now; draft--<site>.<previewDomain> is that site's, whether it exists yet or not: no other site or stack takes it */
    const previewDomainOf = (value: string | null): string | null => {
      const domain = value === null ? null : edge.normalizeHostname(value);
      if (domain && !domain.ok) throw new Error(`plugins.sites.options.previewDomain: ${domain.reason}`);
      if (domain?.ok && !reserved.has(domain.hostname)) {
        edge.reserveNamespace({ prefix: previewPrefix, domain: domain.hostname, owner: siteOwner, purpose: 'the draft preview' });
        reserved.add(domain.hostname);
      }
      return domain?.ok ? domain.hostname : null;
    };
    const previewDomain = previewDomainOf(options.previewDomain);

    // one set of archive limits per install (the git plugin's); this plugin may only lower them
    const ceiling = git.archiveLimits;
    for (const [option, value, max] of [['archiveMaxEntries', options.archiveMaxEntries, ceiling.maxEntries], ['archiveMaxBytes', options.archiveMaxBytes, ceiling.maxBytes]] as const) {
      if (value !== undefined && value > max) throw new Error(`plugins.sites.options.${option} (${value}) is above the install's archive limit (plugins.git.options.${option}, ${max}): a plugin may only lower it`);
    }
    const archive = { maxEntries: options.archiveMaxEntries ?? ceiling.maxEntries, maxBytes: options.archiveMaxBytes ?? ceiling.maxBytes };
    const store = createStore(ctx.db);
    // a site's build image stays for its next sync
    ctx.extensions.add(imageUsers, {
      kind: 'sites',
      uses: async () => (await store.list()).flatMap((site) => (site.source?.build ? [{ image: site.source.build.image, owner: `site:${site.name}`, keep: true }] : [])),
    });
    const files = createFiles(ctx.dataDir);
    const siteSettings = { previewDomain, keepVersions: options.keepVersions };
    // a preview domain changed through the settings applies to the next answer (a domain once reserved stays so until a restart)
    ctx.settings.onChange((changed) => {
      if (!changed.includes('plugins.sites.options.previewDomain')) return;
      try {
        siteSettings.previewDomain = previewDomainOf(ctx.settings.options().previewDomain);
      } catch (err) {
        ctx.log.warn({ err }, 'the new preview domain cannot be used: the previous one stays');
      }
    });
    const sites = createSites({
      ctx, store, files, edge,
      git: { ...git, unpack: (buf, dest, o) => git.unpack(buf, dest, { ...o, ...archive }) },
      settings: siteSettings,
    });
    // backups: { targets: { sites: true } }, restored with target "site"
    ctx.extensions.add(backupTargets, sitesBackupTarget({ store, files, sites }));
    const sync = syncJob({ ctx, store, files, sites, git, runtime: () => runtime ?? null, buildTimeoutMs: options.buildTimeoutMs });
    for (const route of siteRoutes({ ctx, sites, store, files, sync, git })) ctx.routes.add(route);
    for (const route of checkWebhook({ ctx, sites, sync, windowSeconds: options.webhookWindowSeconds })) ctx.webhooks.add(route);
    ctx.schedule.every('check', options.checkIntervalMs, () => sync.checkAll());

    ctx.overview.add({
      scope: 'sites:read',
      async summary() {
        const rows = await store.list();
        return { sites: { total: rows.length, failing: rows.filter((r) => r.lastError).length } };
      },
      async attention() {
        return (await store.list()).filter((r) => r.lastError).map((r): AttentionItem => ({
          severity: 'warning', kind: 'site-sync-failed', resource: `site:${r.name}`, message: `the last sync of site ${r.name} failed: ${r.lastError}`, since: r.updatedAt,
        }));
      },
    });

    ctx.onStart(() => sites.repair());
  },
});
