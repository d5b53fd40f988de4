// The Plugins page (admins): what GET /plugins answers, one card per plugin, and how to change it (the CLI; a restart applies it).
import { api, Empty, Loading, ok, PageTitle, Status, useLoad, type PortalPage } from '../../../sdk/portal/kit.tsx';

type Plugin = NonNullable<Awaited<ReturnType<typeof load>>>[number];
const load = () => ok(api.GET('/api/v1/plugins'));

function source(p: Plugin) {
  const s = p.source;
  if (s.kind === 'built-in') return 'built-in';
  if (s.kind === 'path') return <>path <code>{s.path}</code></>;
  return <>package <code>{s.package}</code>{s.version && <> {s.version}</>}{s.path && <> in <code>{s.path}</code></>}</>;
}

const none = <span class="muted">none</span>;
const list = (items: readonly string[]) => (items.length ? items.map((i, n) => <>{n > 0 && ', '}<code>{i}</code></>) : none);

/** one plugin as a card: what GET /plugins says of it, under its names */
function PluginCard({ p }: { p: Plugin }) {
  const id = `plugin-${p.name}`;
  const offered = p.extensionPoints.offered;
  return (
    <section class="card" aria-labelledby={id} data-testid={id}>
      <h2 id={id}>{p.name}{p.version && <span class="muted"> {p.version}</span>} <Status value={p.enabled ? 'enabled' : 'disabled'} /></h2>
      {p.description && <p>{p.description}</p>}
      {!p.enabled && <dl class="summary">
        <div><dt>Source</dt><dd>{source(p)}</dd></div>
        {p.requires.length > 0 && <div><dt>Requires</dt><dd>{list(p.requires)}</dd></div>}
        {p.reason && <div><dt>Why</dt><dd>{p.reason}</dd></div>}
      </dl>}
      {p.enabled && <dl class="summary">
        <div><dt>Source</dt><dd>{source(p)}</dd></div>
        <div><dt>Requires</dt><dd>{list(p.requires)}</dd></div>
        <div><dt>Services</dt><dd>{list(p.services)}</dd></div>
        <div><dt>Scopes</dt><dd>{list(p.scopes)}</dd></div>
        <div><dt>Routes</dt><dd>{p.routes}</dd></div>
        <div><dt>Job types</dt><dd>{list(p.jobTypes)}</dd></div>
        <div><dt>Extension points offered</dt><dd>{offered.length ? offered.map((e) => <div><code>{e.name}</code>{e.resource && <> ({e.resource} provider)</>}: {e.contributions} plugged in</div>) : none}</dd></div>
        <div><dt>Extension points used</dt><dd>{list(p.extensionPoints.used)}</dd></div>
        <div><dt>Migrations</dt><dd>{p.migrations ? `${p.migrations.applied} of ${p.migrations.files} applied` : none}</dd></div>
      </dl>}
    </section>
  );
}

function Plugins() {
  const plugins = useLoad(load, []);
  return (
    <>
      <PageTitle title="Plugins" />
      <p class="muted">Add a plugin with <code>npm run cli -- plugins add &lt;package&gt;</code>, switch one on or off with <code>npm run cli -- plugins enable|disable &lt;name&gt;</code>; a restart applies it.</p>
      <Loading what={plugins} />
      {plugins.data && (plugins.data.length === 0 ? <Empty>No plugins.</Empty> : plugins.data.map((p) => <PluginCard p={p} />))}
    </>
  );
}

export const pluginPages: PortalPage[] = [{ path: '/plugins', title: 'Plugins', nav: 99.5, group: 'settings', scope: 'plugins:read', component: Plugins }];
