/**
 * Error counts by class for `GET /diagnostics` (SPEC.md: "errors are counts by code-named
 * class, never messages, outputs or target hosts"). Process-local: each process counts
 * what it saw since it started. Only the class name, a count and two times are kept.
 */
import * as v from 'valibot';

/** The classes this build counts. */
const errorClasses = [
  'http.internal_error',
  'projector.batch_failed',
  'worker.step_failed',
  'schedule.tick_failed',
  'runbooks.refresh_failed',
  'retention.sweep_failed',
  'tickets.poll_failed',
  'live.bus_failed',
  'database.vacuum_failed',
  'database.connection_lost',
] as const;
export type ErrorClass = (typeof errorClasses)[number];

/** One class's count and when it was first and last seen (RFC 3339), as `GET /diagnostics` lists it under `errors`. */
export const errorCountSchema = v.strictObject({ type: v.picklist(errorClasses), count: v.number(), firstSeenAt: v.string(), lastSeenAt: v.string() });
export type ErrorCount = v.InferOutput<typeof errorCountSchema>;

export type ErrorCounts = {
  record: (type: ErrorClass) => void;
  /** The counts, sorted by class name, so equal states give equal documents. */
  snapshot: () => ErrorCount[];
};

/** An empty, process-local counter; `now` stamps `firstSeenAt`/`lastSeenAt` (RFC 3339). */
export function createErrorCounts(now: () => Date): ErrorCounts {
  const counts = new Map<ErrorClass, ErrorCount>();
  return {
    record: (type) => {
      const at = now().toISOString();
      const seen = counts.get(type);
      if (seen) {
        seen.count += 1;
        seen.lastSeenAt = at;
      } else counts.set(type, { type, count: 1, firstSeenAt: at, lastSeenAt: at });
    },
    snapshot: () => [...counts.values()].map((c) => ({ ...c })).sort((a, b) => a.type.localeCompare(b.type)),
  };
}
