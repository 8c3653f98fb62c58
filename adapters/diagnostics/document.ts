/**
 * The shape of the `suite-diagnostics/v1` document (SPEC.md `GET /diagnostics`), which
 * runtime/diagnostics.ts builds and the route declares. It lives here rather than beside
 * the builder because adapters may not import runtime.
 */
import * as v from 'valibot';
import { errorCountSchema } from './error-counts.ts';

/** The declared types of a setting; `secret` marks a secret-bearing one. */
export const settingTypes = ['string', 'integer', 'number', 'boolean', 'list', 'json', 'path', 'url', 'secret'] as const;

/** The diagnostics document: versions, migrations, the state of each fixed health component, every setting by presence and type, error counts by class. */
export const diagnosticsDocumentSchema = v.strictObject({
  schema: v.literal('suite-diagnostics/v1'),
  module: v.string(),
  generatedAt: v.string(),
  versions: v.strictObject({ module: v.string(), dependencies: v.record(v.string(), v.string()) }),
  migrations: v.strictObject({ current: v.nullable(v.string()), pending: v.array(v.string()) }),
  health: v.strictObject({
    database: v.picklist(['ok', 'unavailable']),
    projector: v.picklist(['ok', 'catching_up', 'unavailable']),
    worker: v.picklist(['ok', 'stalled', 'not_running']),
  }),
  configShape: v.record(v.string(), v.strictObject({ present: v.boolean(), type: v.picklist(settingTypes) })),
  errors: v.array(errorCountSchema),
});
export type DiagnosticsDocument = v.InferOutput<typeof diagnosticsDocumentSchema>;
