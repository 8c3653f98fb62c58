/**
 * Observables of an alert (CONTRACTS.md section 5): those the detector sent plus
 * the ones found in well-known ECS fields of the matched log.
 */
/**
 * `normalized` is set by intake when the value is valid for its type (the case
 * observable rules); an alert observable without it stays on the alert only.
 */
export type Observable = { type: string; value: string; normalized?: string };

/** ECS field -> observable type. */
const ecsFields: ReadonlyArray<[string, string]> = [
  ['source.ip', 'ip'],
  ['destination.ip', 'ip'],
  ['host.name', 'hostname'],
  ['user.name', 'user'],
  ['url.full', 'url'],
  ['dns.question.name', 'domain'],
  ['file.hash.sha256', 'sha256'],
];

/**
 * Merges explicit observables with those extracted from the flattened matched log,
 * de-duplicated on (type, trimmed value); order: explicit first, then ECS field order.
 */
export function collectObservables(explicit: Observable[], flatLog: Record<string, unknown>): Observable[] {
  const found: Observable[] = [...explicit];
  for (const [field, type] of ecsFields) {
    const value = flatLog[field];
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string' && v.trim() !== '') found.push({ type, value: v.trim() });
    }
  }
  const seen = new Set<string>();
  return found.filter((o) => {
    const key = `${o.type}\u0000${o.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
