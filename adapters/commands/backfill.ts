/**
 * Alert backfill (SPEC.md "Alerts", `POST /alerts/backfill`): pages the detector's
 * external alerts list (adapters/detector/client.ts) from `since` until `limit` alerts
 * were read or the list ends, and takes each alert in through the same intake as
 * `POST /webhooks/detector`, so correlation and alert-triggered runbooks apply alike.
 *
 * De-duplication: an alert whose `(detector, alert_id)` intake already holds is skipped
 * and not counted as a repeat (reading it again is no new detection). An item that is not
 * a valid native alert is skipped and reported; the rest of the page still lands.
 * Each alert lands atomically on its own, so a failure part-way keeps what came before
 * and a second backfill over the same window finishes the job without doubles.
 */
import * as v from 'valibot';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { DETECTOR_LIST_DEFAULTS, type DetectorClient } from '../detector/client.ts';
import type { ValidationIssue } from '../../domain/shared/errors.ts';
import { detectorAlertSchema, detectorIncoming } from './detector-alert.ts';
import type { AlertIntake } from './intake.ts';
import { issuesAt } from '../shared/issues.ts';

/** The action name backfill failures carry (ActionFailure messages start with it). */
export const BACKFILL_ACTION = 'alerts.backfill';

/** Most rejected items a report lists; `rejected_count` counts them all. */
const MAX_REPORTED_REJECTIONS = 20;

export type BackfillRequest = { connection: ResolvedConnection; since: string; limit: number };

/** One skipped item: where it was in the list and why, as validation issues. */
const rejectedItemSchema = v.strictObject({
  page: v.number(),
  index: v.number(),
  alert_id: v.nullable(v.string()),
  detail: v.array(v.strictObject({ loc: v.array(v.union([v.string(), v.number()])), msg: v.string(), type: v.string() })),
});

export type RejectedItem = v.InferOutput<typeof rejectedItemSchema>;

/** The report of a backfill: what was read, taken in, skipped as known or rejected, and the cases and runs it led to. */
export const backfillReportSchema = v.strictObject({
  detector_connection_id: v.string(),
  since: v.string(),
  pages: v.number(),
  fetched: v.number(),
  created: v.number(),
  duplicates: v.number(),
  rejected_count: v.number(),
  rejected: v.array(rejectedItemSchema),
  /** New alerts' case ids, each once, in the order they were first used. */
  cases: v.array(v.string()),
  runs: v.number(),
  /** False when `limit` stopped the paging while the detector had more. */
  complete: v.boolean(),
});

export type BackfillReport = v.InferOutput<typeof backfillReportSchema>;

/** What has landed when a backfill stops on a failure; the route reports it with the failure. */
export class BackfillFailed extends Error {
  constructor(
    readonly failure: ActionFailure,
    readonly report: BackfillReport,
    /** The last event position written before the failure (null: none). */
    readonly position: number | null,
  ) {
    super(failure.message);
    this.name = 'BackfillFailed';
  }
}

export type BackfillDeps = {
  intake: AlertIntake;
  detector: DetectorClient;
  severities: readonly string[];
  /** Longest wait for one page of the detector's list, ms. */
  pageTimeoutMs: number;
};

export type Backfill = {
  /** Runs one backfill; returns its report and the last event position written (null: none). Throws BackfillFailed. */
  run: (request: BackfillRequest) => Promise<{ report: BackfillReport; position: number | null }>;
};

/** The backfill over `deps.intake` and `deps.detector`; see the module comment for de-duplication and failures. */
export function createBackfill(deps: BackfillDeps): Backfill {
  const severities = new Set(deps.severities);
  return {
    async run({ connection, since, limit }) {
      const pageSize = typeof connection.config.page_size === 'number' ? connection.config.page_size : DETECTOR_LIST_DEFAULTS.pageSize;
      const report: BackfillReport = {
        detector_connection_id: connection.id,
        since,
        pages: 0,
        fetched: 0,
        created: 0,
        duplicates: 0,
        rejected_count: 0,
        rejected: [],
        cases: [],
        runs: 0,
        complete: true,
      };
      const cases = new Set<string>();
      let position: number | null = null;
      let cursor: string | null = null;
      try {
        do {
          const want = Math.min(pageSize, limit - report.fetched);
          const page = await deps.detector.listAlerts(BACKFILL_ACTION, connection, { since, limit: want, cursor }, AbortSignal.timeout(deps.pageTimeoutMs));
          report.pages++;
          const items = page.items.slice(0, want);
          for (const [index, item] of items.entries()) {
            report.fetched++;
            const incoming = toIncoming(item, report.pages, index, severities);
            if (!incoming.ok) {
              report.rejected_count++;
              if (report.rejected.length < MAX_REPORTED_REJECTIONS) report.rejected.push(incoming.rejected);
              continue;
            }
            if (await deps.intake.holds(incoming.alert)) {
              report.duplicates++;
              continue;
            }
            const outcome = await deps.intake.ingest(incoming.alert);
            position = Math.max(position ?? 0, outcome.position);
            if (outcome.result.deduplicated) {
              report.duplicates++;
              continue;
            }
            report.created++;
            report.runs += outcome.result.runs.length;
            if (!cases.has(outcome.result.case_id)) {
              cases.add(outcome.result.case_id);
              report.cases.push(outcome.result.case_id);
            }
          }
          cursor = page.next_cursor;
          // An empty page that still hands out a cursor would page forever; it ends the run as incomplete.
          if (items.length === 0) break;
        } while (cursor !== null && report.fetched < limit);
        report.complete = cursor === null;
      } catch (error) {
        if (error instanceof ActionFailure) throw new BackfillFailed(error, { ...report, complete: false }, position);
        throw error;
      }
      return { report, position };
    },
  };
}

function toIncoming(item: unknown, page: number, index: number, severities: ReadonlySet<string>) {
  const alertId =
    typeof item === 'object' && item !== null && typeof (item as { alert_id?: unknown }).alert_id === 'string' ? (item as { alert_id: string }).alert_id : null;
  const reject = (detail: ValidationIssue[]) => ({ ok: false as const, rejected: { page, index, alert_id: alertId, detail } });
  const parsed = v.safeParse(detectorAlertSchema, item);
  if (!parsed.success) {
    return reject(issuesAt([], parsed.issues));
  }
  const mapped = detectorIncoming(parsed.output, severities, null, []);
  return mapped.ok ? mapped : reject(mapped.problems);
}
