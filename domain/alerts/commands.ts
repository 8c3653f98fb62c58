/**
 * Alert commands (SPEC.md "Alert", "Alerts", "Webhook intake"). Ids, the case key and the
 * time come in with the command (docs/architecture.md "Habits" 3): the caller read or opened the case.
 */
import type { IncomingAlert } from './intake.ts';

/** The case an alert is put in, and whether correlation (not a person) chose it. */
export type AlertLink = { caseId: string; caseKey: string; correlated: boolean };

export type AlertCommand =
  /** First on the stream: the alert as received, put in `link` (intake) or in no case (entered by hand). */
  | { type: 'receive'; alertId: string; alert: IncomingAlert; link: AlertLink | null; now: string }
  /** A delivery of an alert already received (same source and external id). */
  | { type: 'repeat'; now: string }
  /** Puts the alert in the case by hand, taking it out of the case that holds it. */
  | { type: 'link'; caseId: string; caseKey: string; now: string }
  | { type: 'unlink'; caseId: string; now: string }
  /** Dismisses the alert from the inbox; `by` names the analyst. */
  | { type: 'dismiss'; reason: string | null; by: string | null; now: string };
