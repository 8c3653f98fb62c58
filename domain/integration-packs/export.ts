/**
 * `GET /integration-packs/export` (SPEC.md "Integration packs": "credential-free YAML of
 * authored custom actions"): the given custom actions as one pack document with its
 * integrity block, ready for `svc pack sign` and `svc pack index`. Credential-free by
 * construction: a spec holds templates over declared inputs only, and the default
 * connection is dropped, since a pack names connection kinds, never connections.
 */
import { stringify } from 'yaml';
import type { StoredCustomActionSpec } from '../custom-actions/spec.ts';
import { withIntegrity } from './integrity.ts';

export type ExportMeta = { name: string; version: string; title: string; publisher: string };

/** The pack YAML of `actions` (at least one); throws an Error only if the document cannot be built, which valid specs never cause. */
export function exportPack(actions: readonly { spec: StoredCustomActionSpec; enabled: boolean }[], meta: ExportMeta): string {
  const document = {
    format: 'integration-pack',
    format_version: 1,
    name: meta.name,
    version: meta.version,
    title: meta.title,
    publisher: meta.publisher,
    connection_kinds: [...new Set(actions.map((a) => a.spec.transport))].sort(),
    actions: actions.map((a) => ({ spec: { ...a.spec, default_connection: null, enabled: a.enabled } })),
  };
  const built = withIntegrity(stringify(document, { lineWidth: 0 }));
  if (!built.ok) throw new Error(`export: ${built.msg}`);
  return built.text;
}
