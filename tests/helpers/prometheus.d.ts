// The types of parse-prometheus-text-format (it ships none): families of samples, as Prometheus reads the text format.
declare module 'parse-prometheus-text-format' {
  interface Sample { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }
  interface Family { name: string; help: string; type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'; metrics: Sample[] }
  export default function parse(text: string): Family[];
}
