/**
 * The record of a retention purge (docs/architecture.md "Event sourcing": nothing in the event store is
 * deleted except by retention, and the purge is itself recorded). One `retention.case_purged` event
 * per purged case, in its own `retention-<case_id>` stream, appended in the same
 * transaction that deletes the case's streams; the projector removes the case's read
 * models when it applies it. It carries ids and counts only: the point of the purge is
 * that the case's content is gone.
 */
import type { Event } from '../shared/messages.ts';

export const CASE_PURGED = 'retention.case_purged';

export type CasePurged = Event<
  typeof CASE_PURGED,
  {
    case_id: string;
    case_key: string;
    team: string | null;
    /** RFC 3339 time the case was closed. */
    closed_at: string;
    /** RFC 3339 time of the purge. */
    purged_at: string;
    retention_days: number;
    /** The streams deleted, the case's own first. */
    streams: string[];
    alert_ids: string[];
    task_ids: string[];
    /** sha256 keys of the case's attachment files, removed once nothing else refers to them. */
    attachment_keys: string[];
  }
>;
