/**
 * Flattens a nested document to dotted keys (`{host: {name: "a"}}` -> `{"host.name": "a"}`),
 * as `trigger.matched_log` exposes it (SPEC.md "Template context"). Arrays stay values;
 * keys that already contain dots (Elastic's `kibana.alert.*` style) are kept as written.
 */
export function flattenDocument(doc: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, value] of Object.entries(doc)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      flattenDocument(value as Record<string, unknown>, path, out);
    } else {
      out[path] = value;
    }
  }
  return out;
}
