/**
 * Where a connection sends what the service gives it (docs/configuration.md "Connections",
 * "Tickets"; issue 46): its `base_url` and the kind's DESTINATION_CONFIG_KEYS. A move of
 * the destination is audited field by field as `connection.destination_changed`, and turns
 * a ticket connection's `mirror_private_cases` off unless the same change sets it, so a
 * realm admin's consent to mirror private cases never follows the connection elsewhere.
 */
import { DESTINATION_CONFIG_KEYS, MIRROR_PRIVATE_CASES, MIRRORING_KINDS } from './config-rules.ts';

/** The parts of a connection that say where it sends. */
export type Destination = { base_url: string | null; config: Record<string, unknown> };

/** One moved field: `base_url` or `config.<key>`, with values fit for the audit log (no credential). */
export type DestinationChange = { field: string; old: unknown; new: unknown };

/**
 * The destination fields of a connection of `kind` that differ between `before` and
 * `after`, `base_url` first, then the config keys in DESTINATION_CONFIG_KEYS order. URLs
 * are given without userinfo, query or fragment, where credentials may sit.
 * @example destinationChanges('ssh', {base_url: null, config: {host: 'a'}}, {base_url: null, config: {host: 'b'}})
 *   // [{field: 'config.host', old: 'a', new: 'b'}]
 */
export function destinationChanges(kind: string, before: Destination, after: Destination): DestinationChange[] {
  const changes: DestinationChange[] = [];
  if (before.base_url !== after.base_url) changes.push({ field: 'base_url', old: auditable(before.base_url), new: auditable(after.base_url) });
  for (const key of DESTINATION_CONFIG_KEYS[kind] ?? []) {
    const old = before.config[key] ?? null;
    const now = after.config[key] ?? null;
    if (JSON.stringify(old) !== JSON.stringify(now)) changes.push({ field: `config.${key}`, old: auditable(old), new: auditable(now) });
  }
  return changes;
}

/**
 * The config to store when a connection of `kind` goes from `before` to `after` (`after.config`
 * already checked and defaulted) on a request whose own `config` is `requested`: `after.config`
 * itself, or, for a ticket kind whose destination moves while the request does not name
 * `mirror_private_cases`, a copy with the flag false.
 */
export function configAfterMove(
  kind: string,
  before: Destination,
  after: Destination,
  requested: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const named = requested !== undefined && Object.hasOwn(requested, MIRROR_PRIVATE_CASES);
  if (!MIRRORING_KINDS.includes(kind) || named || after.config[MIRROR_PRIVATE_CASES] === false) return after.config;
  return destinationChanges(kind, before, after).length === 0 ? after.config : { ...after.config, [MIRROR_PRIVATE_CASES]: false };
}

/** A URL without userinfo, query and fragment (they may carry credentials); any other value as it is. */
function auditable(value: unknown): unknown {
  if (typeof value !== 'string' || !URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.username === '' && url.password === '' && url.search === '' && url.hash === '') return value;
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString();
}
