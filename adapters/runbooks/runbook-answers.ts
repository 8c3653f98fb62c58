/**
 * What the runbook routes answer (SPEC.md "Runbook", "Runbooks and runs"), as the
 * valibot schemas `/openapi.json` declares: the store's answer types are inferred from
 * them, so tsc holds runbook-store.ts to the document.
 */
import * as v from 'valibot';

const scalar = v.union([v.string(), v.number(), v.boolean()]);

/** How a run starts (domain/runbooks/model.ts `Trigger`). */
const triggerSchema = v.variant('type', [
  v.strictObject({ type: v.literal('alert'), conditions: v.record(v.string(), v.union([scalar, v.array(scalar)])) }),
  v.strictObject({ type: v.literal('manual') }),
  v.strictObject({ type: v.literal('schedule'), cron: v.nullable(v.string()), interval_s: v.nullable(v.number()) }),
]);

/** A step with every default applied (domain/runbooks/model.ts `StepDefinition`). */
const stepDefinitionSchema = v.strictObject({
  id: v.string(),
  kind: v.picklist(['action', 'branch']),
  action: v.nullable(v.string()),
  when: v.nullable(v.string()),
  needs: v.array(v.string()),
  when_branch: v.nullable(v.picklist(['true', 'false'])),
  with: v.record(v.string(), v.unknown()),
  timeout_s: v.number(),
  retries: v.number(),
  on_error: v.variant('kind', [
    v.strictObject({ kind: v.literal('fail') }),
    v.strictObject({ kind: v.literal('continue') }),
    v.strictObject({ kind: v.literal('goto'), target: v.string() }),
  ]),
  approval: v.nullable(v.strictObject({ roles: v.array(v.string()), timeout_h: v.nullable(v.number()), message: v.nullable(v.string()) })),
  autonomous: v.boolean(),
  for_each: v.nullable(v.string()),
  ui: v.nullable(v.strictObject({ x: v.number(), y: v.number() })),
});

/** One validation problem: `loc` is the path into the YAML document (`[]` for the whole). */
export const runbookErrorSchema = v.strictObject({ loc: v.array(v.union([v.string(), v.number()])), msg: v.string() });

/** A `GET /runbooks` item: the runbook's identity, trigger and stored state. */
const runbookSummaryObject = v.strictObject({
  id: v.string(),
  name: v.string(),
  description: v.string(),
  version: v.number(),
  enabled: v.boolean(),
  trigger: triggerSchema,
  source: v.string(),
  updated_at: v.string(),
  next_fire_at: v.nullable(v.string()),
});
/** `runbookSummaryObject` as the document's component schema `RunbookSummary`. */
export const runbookSummarySchema = v.pipe(runbookSummaryObject, v.metadata({ ref: 'RunbookSummary' }));
export type RunbookSummary = v.InferOutput<typeof runbookSummarySchema>;

/** `GET /runbooks/<slug>`: the parsed definition, its stored state, its YAML and the version history (newest first). */
export const runbookDetailSchema = v.pipe(
  v.strictObject({
    ...runbookSummaryObject.entries,
    inputs: v.array(
      v.strictObject({ name: v.string(), type: v.picklist(['string', 'number', 'boolean', 'list', 'object']), required: v.boolean(), description: v.string() }),
    ),
    steps: v.array(stepDefinitionSchema),
    yaml_text: v.string(),
    versions: v.array(v.strictObject({ version: v.number(), saved_at: v.string(), saved_by: v.nullable(v.string()) })),
  }),
  v.metadata({ ref: 'Runbook' }),
);
export type RunbookDetail = v.InferOutput<typeof runbookDetailSchema>;

/** `GET /runbooks/<slug>/versions/<version>` (ours): one saved version's YAML, for the console's diff between versions. */
export const runbookVersionSchema = v.pipe(
  v.strictObject({ version: v.number(), saved_at: v.string(), saved_by: v.nullable(v.string()), yaml_text: v.string() }),
  v.metadata({ ref: 'RunbookVersion' }),
);
export type RunbookVersion = v.InferOutput<typeof runbookVersionSchema>;

/** `POST /runbooks/<slug>`: whether the slug was new, whether anything changed, and the runbook as stored. */
export const runbookSavedSchema = v.strictObject({ created: v.boolean(), changed: v.boolean(), runbook: runbookDetailSchema });
export type RunbookSaved = v.InferOutput<typeof runbookSavedSchema>;

/** `POST /runbooks/sync`: slugs created and updated, files skipped, files refused. */
export const syncReportSchema = v.strictObject({
  created: v.array(v.string()),
  updated: v.array(v.string()),
  skipped: v.array(v.strictObject({ file: v.string(), id: v.string(), reason: v.picklist(['unchanged', 'product_not_installed']), detail: v.string() })),
  errors: v.array(v.strictObject({ file: v.string(), errors: v.array(runbookErrorSchema) })),
});
export type SyncReport = v.InferOutput<typeof syncReportSchema>;
