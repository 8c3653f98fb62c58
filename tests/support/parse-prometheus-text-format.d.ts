/** Types for parse-prometheus-text-format (a Prometheus text-format parser; ships none). */
declare module 'parse-prometheus-text-format' {
  export type ParsedSample = { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string };
  export type ParsedFamily = { name: string; help: string; type: string; metrics: ParsedSample[] };
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
