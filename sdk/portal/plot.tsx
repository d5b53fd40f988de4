// The portal SDK's live plots: a uPlot line chart of values over time (loaded on first use), the history of live samples a page keeps in memory, and the CPU, memory and network plots of containers and stacks.
import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { bytes } from './kit.tsx';

export interface Sample { at: number; values: number[] }

/** the samples of the last `windowMs` (15 minutes by default), appended as they come */
export function useHistory(windowMs = 15 * 60_000): [Sample[], (s: Sample) => void, () => void] {
  const [samples, setSamples] = useState<Sample[]>([]);
  const add = (s: Sample) => setSamples((h) => [...h.filter((x) => x.at >= s.at - windowMs), s]);
  return [samples, add, () => setSamples([])];
}

/** the time axis spans at least the last minute: a first sample is not drawn across the years uPlot would pick for it */
function showTime(u: uPlot): void {
  const xs = u.data[0];
  const max = xs.length ? xs[xs.length - 1] : Date.now() / 1000;
  u.setScale('x', { min: Math.min(xs.length ? xs[0] : max, max - 60), max });
}

/** a line per series over time; `format` writes the axis and the legend values (bytes, percent) */
export function LivePlot({ title, series, samples, format, height = 160, span = 'the last 15 minutes' }: { title: string; series: string[]; samples: Sample[]; format(v: number): string; height?: number; span?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data = (): uPlot.AlignedData => [samples.map((s) => s.at / 1000), ...series.map((_, i) => samples.map((s) => s.values[i]))];
  useEffect(() => {
    let gone = false;
    let observer: ResizeObserver | undefined;
    import('uplot').then(({ default: UPlot }) => {
      if (gone || !box.current) return;
      const colours = ['#0b5cad', '#b42318', '#116329'];
      const axis = { stroke: 'currentColor', grid: { stroke: 'rgba(127,127,127,.2)' }, ticks: { stroke: 'rgba(127,127,127,.4)' } };
      plot.current = new UPlot({
        width: box.current.clientWidth || 300, height,
        series: [{}, ...series.map((label, i) => ({ label, stroke: colours[i % colours.length], width: 1.5, value: (_: uPlot, v: number | null) => (v === null ? '—' : format(v)) }))],
        axes: [axis, { ...axis, size: 84, values: (_: uPlot, ticks: number[]) => ticks.map(format) }],
        // the y axis starts at 0 and is never thinner than 1
        scales: { y: { range: (_: uPlot, _min: number, max: number) => [0, Math.max(max, 1) * 1.1] } },
        legend: { live: true },
      }, data(), box.current);
      showTime(plot.current);
      observer = new ResizeObserver(() => { if (box.current && plot.current) plot.current.setSize({ width: box.current.clientWidth, height }); });
      observer.observe(box.current);
    });
    return () => { gone = true; observer?.disconnect(); plot.current?.destroy(); plot.current = undefined; };
  }, [series.join('\n')]);
  useEffect(() => { if (plot.current) { plot.current.setData(data()); showTime(plot.current); } }, [samples]);
  const last = samples.at(-1);
  return (
    <figure class="plot" aria-label={title}>
      <figcaption>{title}{last && <span class="muted"> — now {series.map((label, i) => `${series.length > 1 ? `${label} ` : ''}${format(last.values[i])}`).join(', ')}</span>}</figcaption>
      <div ref={box} role="img" aria-label={`${title} over ${span}`} />
    </figure>
  );
}

/** the plots of resource use, from samples of [cpu %, memory bytes, received bytes, sent bytes]: CPU, memory, network received and sent per second (from the counters of consecutive samples) */
export function ResourcePlots({ samples }: { samples: Sample[] }) {
  const rates: Sample[] = samples.slice(1).map((s, i) => {
    const seconds = Math.max(0.001, (s.at - samples[i].at) / 1000);
    return { at: s.at, values: [Math.max(0, (s.values[2] - samples[i].values[2]) / seconds), Math.max(0, (s.values[3] - samples[i].values[3]) / seconds)] };
  });
  return (
    <div class="plots" data-testid="plots">
      <LivePlot title="CPU" series={['CPU']} samples={samples.map((s) => ({ at: s.at, values: [s.values[0]] }))} format={(v) => `${v.toFixed(1)} %`} />
      <LivePlot title="Memory" series={['memory']} samples={samples.map((s) => ({ at: s.at, values: [s.values[1]] }))} format={bytes} />
      <LivePlot title="Network" series={['received', 'sent']} samples={rates} format={(v) => `${bytes(v)}/s`} />
    </div>
  );
}
