/**
 * The native detector alert shape (CONTRACTS.md section 5) as a valibot schema.
 * The shape is fixed, so unknown top-level fields are refused.
 */
import * as v from 'valibot';

const nonEmpty = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max));

export const observableSchema = v.strictObject({ type: nonEmpty(64), value: nonEmpty(4096) });

export const detectorAlertSchema = v.strictObject({
  alert_id: nonEmpty(256),
  rule: v.strictObject({ id: nonEmpty(256), title: nonEmpty(500), severity: nonEmpty(32) }),
  severity: v.optional(nonEmpty(32)),
  detected_at: v.optional(v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 timestamp'))),
  url: v.optional(v.nullable(v.pipe(v.string(), v.url('must be a URL'), v.maxLength(4096)))),
  correlation_root: v.optional(v.nullable(nonEmpty(512))),
  suite_correlation_id: v.optional(v.nullable(nonEmpty(256))),
  team: v.optional(v.nullable(nonEmpty(256))),
  matched_log: v.optional(v.record(v.string(), v.unknown()), {}),
  observables: v.optional(v.array(observableSchema), []),
});

export type DetectorAlert = v.InferOutput<typeof detectorAlertSchema>;

/** One alert or a JSON array of them (1..500). */
export const detectorIntakeSchema = v.union([detectorAlertSchema, v.pipe(v.array(detectorAlertSchema), v.minLength(1), v.maxLength(500))]);
