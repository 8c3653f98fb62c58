/**
 * Case vocabulary from configuration (CONTRACTS.md section 3): severities, statuses,
 * which statuses stop the acknowledgement clock and end correlation, the initial status,
 * and the key prefix of `SVC-<n>`.
 */
export type CaseConfig = {
  severities: readonly string[];
  statuses: readonly string[];
  closedStatuses: ReadonlySet<string>;
  initialStatus: string;
  keyPrefix: string;
  correlationWindowMs: number;
};

/** SPEC.md "Case": a case key reads `SVC-<number>`. */
export const CASE_KEY_PREFIX = 'SVC';

/** The case vocabulary of the configuration (runtime/config.ts), with the spec's key prefix. */
export function caseConfigFrom(config: {
  severities: readonly string[];
  statuses: readonly string[];
  closedStatuses: readonly string[];
  initialStatus: string;
  correlationWindowMs: number;
}): CaseConfig {
  return {
    severities: config.severities,
    statuses: config.statuses,
    closedStatuses: new Set(config.closedStatuses),
    initialStatus: config.initialStatus,
    keyPrefix: CASE_KEY_PREFIX,
    correlationWindowMs: config.correlationWindowMs,
  };
}
