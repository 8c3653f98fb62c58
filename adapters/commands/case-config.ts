/**
 * Case vocabulary from configuration (CONTRACTS.md section 3): severities, statuses,
 * which statuses stop the acknowledgement clock and end correlation, the initial status,
 * the status a merged case takes, and the key prefix of `SVC-<n>`.
 */
export type CaseConfig = {
  severities: readonly string[];
  statuses: readonly string[];
  closedStatuses: ReadonlySet<string>;
  initialStatus: string;
  /** The status a case merged into another takes: the first of SVC_CASE_MERGED_STATUSES, else the last closed status. */
  mergedStatus: string;
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
  mergedStatuses: readonly string[];
  initialStatus: string;
  correlationWindowMs: number;
}): CaseConfig {
  return {
    severities: config.severities,
    statuses: config.statuses,
    closedStatuses: new Set(config.closedStatuses),
    initialStatus: config.initialStatus,
    mergedStatus: config.mergedStatuses[0] ?? config.closedStatuses.at(-1) ?? config.initialStatus,
    keyPrefix: CASE_KEY_PREFIX,
    correlationWindowMs: config.correlationWindowMs,
  };
}
