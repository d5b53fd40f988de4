// The metrics kept per sample: their names (the API's), their order in a stored row, their units, and how a stack sums its containers.

/** a container's row, in this order */
export const containerMetrics = ['cpu', 'memory', 'memory-percent', 'network-rx', 'network-tx', 'block-read', 'block-write', 'restarts', 'unhealthy', 'oom-kills'] as const;
/** the host's row (Dockwright's own process included), in this order */
export const hostMetrics = [
  'cpu', 'cpu-percent', 'memory', 'memory-percent', 'network-rx', 'network-tx', 'load',
  'disk-used', 'disk-free', 'disk-used-percent', 'engine-disk-used', 'engine-disk-free', 'event-loop-delay', 'rss',
] as const;
export type ContainerMetric = typeof containerMetrics[number];
export type HostMetric = typeof hostMetrics[number];
export const allMetrics: readonly string[] = [...new Set<string>([...hostMetrics, ...containerMetrics])];

export const units: Record<string, string> = {
  cpu: 'percent of one core', 'cpu-percent': 'percent of all cores', memory: 'bytes', 'memory-percent': 'percent of the limit (the host\'s memory without one)',
  'network-rx': 'bytes per second', 'network-tx': 'bytes per second', 'block-read': 'bytes per second', 'block-write': 'bytes per second',
  restarts: 'starts of a running container within the step', unhealthy: '1 while the health check fails, else 0', 'oom-kills': 'OOM kills within the step',
  load: '1-minute load average', 'disk-used': 'bytes (the data folder)', 'disk-free': 'bytes (the data folder)', 'disk-used-percent': 'percent (the data folder)',
  'engine-disk-used': 'bytes (the engine\'s root)', 'engine-disk-free': 'bytes (the engine\'s root)', 'event-loop-delay': 'milliseconds (Dockwright\'s, p99)', rss: 'bytes (Dockwright\'s resident memory)',
};

/** a stack's value of a metric at one time: its containers' sum, the highest percent for percentages */
export const stackAggregate = (metric: string): 'sum' | 'max' => (metric.endsWith('-percent') || metric === 'unhealthy' ? 'max' : 'sum');

/** what a sample holds */
export interface ContainerSample { id: string; name: string; stack: string; service: string | null; values: (number | null)[] }
export interface Sample { at: Date; host: (number | null)[]; containers: ContainerSample[] }

export const hostIndex = (m: string) => (hostMetrics as readonly string[]).indexOf(m);
export const containerIndex = (m: string) => (containerMetrics as readonly string[]).indexOf(m);

/** a stack's row of a sample: its containers' values summed, percentages and health their highest (null where none has one) */
export function stackRow(containers: readonly ContainerSample[]): (number | null)[] {
  return containerMetrics.map((m, i) => {
    const values = containers.map((c) => c.values[i]).filter((v): v is number => v !== null);
    if (!values.length) return null;
    return stackAggregate(m) === 'max' ? Math.max(...values) : Math.round(values.reduce((a, b) => a + b, 0) * 100) / 100;
  });
}
