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
