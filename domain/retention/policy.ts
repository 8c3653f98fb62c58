/**
 * The retention policy (SPEC.md "Retention policy", `GET /retention`): how long a closed
 * case is kept, resolved from configured bounds and an optional override
 * (docs/operations.md "Retention").
 *
 * The window is `override_days` when it lies within `[min_days, max_days]`, else
 * unavailable: `retention_days` is then null (never 0) and `cause` says which bound the
 * override broke. Without an override the window is `default_days`. Nothing is swept
 * while the policy is disabled or its window unavailable.
 */
import * as v from 'valibot';

/** The policy document version (SPEC.md "Versioning": retention policy carries `contract_version`). */
export const RETENTION_CONTRACT_VERSION = 1;

/** What the sweeper removes: closed cases and what hangs off them. */
export const RETENTION_RESOURCE = 'cases';

/** Configured retention (SVC_RETENTION_*); days and hours are whole numbers. */
export type RetentionSettings = {
  enabled: boolean;
  /** The data class the policy governs, as the suite's settings name it. */
  class: string;
  realm: string;
  defaultDays: number;
  minDays: number;
  maxDays: number;
  /** SVC_RETENTION_DAYS, kept as given even when out of bounds; null: not set. */
  overrideDays: number | null;
  sweepIntervalHours: number;
  batchLimit: number;
};

/** Why the window is unavailable; null while it is a number of days. */
export type RetentionCause = v.InferOutput<typeof retentionPolicySchema>['cause'];

/** The policy object of `GET /retention` (SPEC.md "Retention policy" field names). */
export const retentionPolicySchema = v.strictObject({
  enabled: v.boolean(),
  class: v.string(),
  contract_version: v.literal(RETENTION_CONTRACT_VERSION),
  realm: v.string(),
  resource: v.string(),
  retention_days: v.nullable(v.number()),
  default_days: v.number(),
  min_days: v.number(),
  max_days: v.number(),
  provenance: v.picklist(['default', 'override']),
  override_days: v.nullable(v.number()),
  cause: v.nullable(v.picklist(['override_below_min', 'override_above_max'])),
  sweep_interval_hours: v.number(),
  batch_limit: v.number(),
});
export type RetentionPolicy = v.InferOutput<typeof retentionPolicySchema>;

/** Resolves the effective window from `settings`; pure, never throws. */
export function resolveRetentionPolicy(settings: RetentionSettings): RetentionPolicy {
  const override = settings.overrideDays;
  const cause: RetentionCause =
    override === null ? null : override < settings.minDays ? 'override_below_min' : override > settings.maxDays ? 'override_above_max' : null;
  return {
    enabled: settings.enabled,
    class: settings.class,
    contract_version: RETENTION_CONTRACT_VERSION,
    realm: settings.realm,
    resource: RETENTION_RESOURCE,
    retention_days: override === null ? settings.defaultDays : cause === null ? override : null,
    default_days: settings.defaultDays,
    min_days: settings.minDays,
    max_days: settings.maxDays,
    provenance: override === null ? 'default' : 'override',
    override_days: override,
    cause,
    sweep_interval_hours: settings.sweepIntervalHours,
    batch_limit: settings.batchLimit,
  };
}

/**
 * The newest close time a case may have and still be swept at `now`: `retention_days`
 * before `now`; null when nothing may be swept (disabled, or window unavailable).
 */
export function retentionCutoff(policy: RetentionPolicy, now: Date): Date | null {
  if (!policy.enabled || policy.retention_days === null) return null;
  return new Date(now.getTime() - policy.retention_days * 86_400_000);
}
