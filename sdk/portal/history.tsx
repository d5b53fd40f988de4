// The portal SDK's history plots: CPU, memory and network of the host, a stack or a container over 1 h, 24 h, 7 d or 90 d, read from GET /metrics/series.
import { useState } from 'preact/hooks';
import { api, bytes, Loading, ok, useLoad } from './kit.tsx';
import { LivePlot, type Sample } from './plot.tsx';

const ranges = [
  { key: '1h', label: '1 h', ms: 3_600_000, span: 'the last hour' },
  { key: '24h', label: '24 h', ms: 86_400_000, span: 'the last 24 hours' },
  { key: '7d', label: '7 d', ms: 7 * 86_400_000, span: 'the last 7 days' },
  { key: '90d', label: '90 d', ms: 90 * 86_400_000, span: 'the last 90 days' },
] as const;
type Metric = 'cpu' | 'memory' | 'network-rx' | 'network-tx';
const metrics: Metric[] = ['cpu', 'memory', 'network-rx', 'network-tx'];

/** points of several series on one time axis (a time one series lacks is a gap) */
function aligned(all: [number, number][][]): Sample[] {
  const times = [...new Set(all.flatMap((points) => points.map(([t]) => t)))].sort((a, b) => a - b);
  const maps = all.map((points) => new Map(points));
  return times.map((t) => ({ at: t * 1000, values: maps.map((m) => m.get(t) ?? (null as unknown as number)) }));
}

/** the history of `scope` (host, stack:<name>, container:<id>) with a choice of range; nothing when there is none */
export function HistoryPlots({ scope, title = 'History' }: { scope: string; title?: string }) {
  const [range, setRange] = useState<typeof ranges[number]>(ranges[0]);
  const series = useLoad(async () => {
    const to = new Date();
    const from = new Date(to.getTime() - range.ms);
    const answers = await Promise.all(metrics.map(async (metric) => {
      const { data, error, response } = await api.GET('/api/v1/metrics/series', { params: { query: { scope, metric, from: from.toISOString(), to: to.toISOString() } } });
      if (response.status === 404) return null;
      return ok(Promise.resolve({ data, error, response }));
    }));
    if (answers.some((a) => a === null)) return null;
    return { step: answers[0]!.step, points: answers.map((a) => a!.points as [number, number][]) };
  }, [scope, range.key], range.ms > 86_400_000 ? 300_000 : 30_000);
  const s = series.data;
  return (
    <section aria-label={title} class="history" data-testid="history">
      <h2>{title}</h2>
      <div class="actions" role="group" aria-label="Range">
        {ranges.map((r) => <button type="button" aria-pressed={r.key === range.key} onClick={() => setRange(r)}>{r.label}</button>)}
      </div>
      <Loading what={series} />
      {series.data === null && <p class="muted">No history yet.</p>}
      {s && (
        <div class="plots">
          <LivePlot title="CPU" span={range.span} series={['CPU']} samples={aligned([s.points[0]])} format={(v) => `${v.toFixed(1)} %`} />
          <LivePlot title="Memory" span={range.span} series={['memory']} samples={aligned([s.points[1]])} format={bytes} />
          <LivePlot title="Network" span={range.span} series={['received', 'sent']} samples={aligned([s.points[2], s.points[3]])} format={(v) => `${bytes(v)}/s`} />
          <p class="muted">One point every {s.step >= 3600 ? `${Number((s.step / 3600).toFixed(2))} h` : s.step % 60 === 0 ? `${s.step / 60} min` : `${s.step} s`}, the average over it.</p>
        </div>
      )}
    </section>
  );
}
