// The template gallery: every source's templates, searched by words, category and source, each a tile leading to its form.
import { useState } from 'preact/hooks';
import { api, Empty, enc, Link, Loading, naturally, ok, PageTitle, useLoad } from '../../../sdk/portal/kit.tsx';

export function Gallery() {
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const [source, setSource] = useState('');
  const all = useLoad(() => ok(api.GET('/api/v1/templates', { params: { query: { limit: 1000 } } })), []);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const items = (all.data ?? []).filter((t) => (!category || t.categories.includes(category)) && (!source || t.source === source)
    && words.every((w) => `${t.id} ${t.name} ${t.description}`.toLowerCase().includes(w))).sort((a, b) => naturally(a.name, b.name));
  const sources = [...new Set((all.data ?? []).map((t) => t.source))].sort();
  const categories = [...new Set((all.data ?? []).flatMap((t) => t.categories))].sort(naturally);
  return (
    <>
      <PageTitle title="Templates" />
      <div class="filters" role="search">
        <label>Search <input type="search" value={q} placeholder="name or description" onInput={(e) => setQ(e.currentTarget.value)} /></label>
        <label>Category <select value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
          <option value="">all</option>
          {categories.map((c) => <option value={c}>{c}</option>)}
        </select></label>
        <label>Source <select value={source} onChange={(e) => setSource(e.currentTarget.value)}>
          <option value="">all</option>
          {sources.map((s) => <option value={s}>{s}</option>)}
        </select></label>
        {all.data && <span class="muted" data-testid="template-count">{items.length} of {all.data.length}</span>}
      </div>
      <Loading what={all} />
      {all.data && (items.length === 0 ? <Empty>No template matches.</Empty> : (
        <div class="tiles" data-testid="templates">
          {items.map((t) => (
            <Link class="card-tile" href={`/templates/${enc(t.source)}/${enc(t.id)}`} aria-label={`${t.name} (${t.source})`}>
              <h3>{t.name} <span class="muted">{t.version}</span></h3>
              <p>{t.description}</p>
              <p class="muted">{t.source}{t.categories.length ? ` · ${t.categories.join(', ')}` : ''}</p>
            </Link>
          ))}
        </div>
      ))}
    </>
  );
}
