/**
 * The native detector alert shape (CONTRACTS.md section 5) as a valibot schema, and its
 * mapping to an IncomingAlert, shared by `POST /webhooks/detector` and
 * `POST /alerts/backfill` so both spell the de-duplication key `(detector, alert_id)` alike.
 * Fields the shape does not name are kept in the payload (the `trigger` of runbooks) and
 * otherwise ignored, as the original interface ignores undeclared keys: no alert is lost
 * to an extra field.
 */
import * as v from 'valibot';
import { jsonRecord } from '../shared/shapes.ts';
import type { IncomingAlert } from '../../domain/alerts/intake.ts';
import type { ValidationIssue } from '../../domain/shared/errors.ts';
import { withObservables } from './intake.ts';

const nonEmpty = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max));

export const observableSchema = v.object({ type: nonEmpty(64), value: nonEmpty(4096) });

export const detectorAlertSchema = v.looseObject({
  alert_id: nonEmpty(256),
  rule: v.looseObject({ id: nonEmpty(256), title: nonEmpty(500), severity: nonEmpty(32) }),
  severity: v.optional(nonEmpty(32)),
  detected_at: v.optional(v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 timestamp'))),
  url: v.optional(v.nullable(v.pipe(v.string(), v.url('must be a URL'), v.maxLength(4096)))),
  correlation_root: v.optional(v.nullable(nonEmpty(512))),
  suite_correlation_id: v.optional(v.nullable(nonEmpty(256))),
  team: v.optional(v.nullable(nonEmpty(256))),
  matched_log: v.optional(jsonRecord(v.unknown()), {}),
  observables: v.optional(v.array(observableSchema), []),
});

export type DetectorAlert = v.InferOutput<typeof detectorAlertSchema>;

/** One alert or a JSON array of them (1..500). */
export const detectorIntakeSchema = v.union([detectorAlertSchema, v.pipe(v.array(detectorAlertSchema), v.minLength(1), v.maxLength(500))]);

/** The intake `source` of every detector alert, whichever way it arrived. */
export const DETECTOR_SOURCE = 'detector';

/**
 * `alert` as an IncomingAlert, or the problems found, each at `loc` below `at`: the
 * severity (`severity`, else `rule.severity`, lower-cased) must be one of `severities`;
 * `sourceTeam` is the team of an alert that names none, and the only team an alert of
 * that source may name: a team's source never opens or joins another team's cases
 * (issue 46). Null for the install-wide intake, whose alerts name any team.
 */
export function detectorIncoming(
  alert: DetectorAlert,
  severities: ReadonlySet<string>,
  sourceTeam: string | null,
  at: (string | number)[],
): { ok: true; alert: IncomingAlert } | { ok: false; problems: ValidationIssue[] } {
  const severity = (alert.severity ?? alert.rule.severity).toLowerCase();
  if (!severities.has(severity)) {
    const field = alert.severity ? ['severity'] : ['rule', 'severity'];
    return { ok: false, problems: [{ loc: [...at, ...field], msg: `must be one of ${[...severities].join(', ')}`, type: 'value_error' }] };
  }
  if (sourceTeam !== null && alert.team != null && alert.team !== sourceTeam) {
    return { ok: false, problems: [{ loc: [...at, 'team'], msg: `this source takes alerts of team ${sourceTeam} only`, type: 'value_error' }] };
  }
  return {
    ok: true,
    alert: withObservables({
      source: DETECTOR_SOURCE,
      external_id: alert.alert_id,
      rule_id: alert.rule.id,
      title: alert.rule.title,
      severity,
      detected_at: alert.detected_at ?? null,
      url: alert.url ?? null,
      correlation_root: alert.correlation_root ?? null,
      suite_correlation_id: alert.suite_correlation_id ?? null,
      team: alert.team ?? sourceTeam,
      matched_log: alert.matched_log,
      observables: alert.observables,
      payload: alert as unknown as Record<string, unknown>,
    }),
  };
}
