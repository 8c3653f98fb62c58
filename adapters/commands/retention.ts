/**
 * The retention purge of one case (SPEC.md "Retention policy"; docs/operations.md
 * "Retention"): the case's stream, its tasks', its observables', its ticket links' and its
 * current alerts' streams are deleted, and a `retention.case_purged` event and a
 * `retention.case_purge` audit entry are appended, all in one transaction. The purge is
 * decided on the case's read-model version: a case that changed since it was read is
 * left for the next sweep.
 */
import { CASE_PURGED, type CasePurged } from '../../domain/retention/events.ts';
import { systemMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../projections/database.ts';
import { caseDependents, type PurgeCandidate } from '../../projections/retention/retention.queries.ts';
import { StreamVersionConflict, type EventStore } from '../event-store/port.ts';
import { systemActor, type AuditLog } from './audit.ts';
import { alertStreamOf } from './intake.ts';
import { observableStreamOf } from './observables.ts';

export type CasePurgeResult = { position: number; eventsDeleted: number; attachmentKeys: string[] };

export type RetentionCommands = {
  /** Purges `candidate` under a `retentionDays` window; null when the case moved since it was read (nothing changed). */
  purgeCase: (candidate: PurgeCandidate, retentionDays: number) => Promise<CasePurgeResult | null>;
};

const SWEEPER = systemActor(null);

/** The purge command over `store` (EventStore.purge) and the read models; audit entries through `audit`, times from `now`. */
export function createRetentionCommands(deps: { db: Kysely<Database>; store: EventStore; audit: AuditLog; now: () => Date }): RetentionCommands {
  return {
    purgeCase: async (candidate, retentionDays) => {
      const dependents = await caseDependents(deps.db, candidate.id);
      const streamIds = [
        streams.case(candidate.id),
        ...dependents.taskIds.map(streams.task),
        ...dependents.alerts.map((a) => alertStreamOf(a)),
        ...dependents.observables.map((o) => observableStreamOf(candidate.id, o.type, o.normalized)),
        ...dependents.ticketLinkIds.map(streams.ticket),
      ];
      const purgedAt = deps.now().toISOString();
      const closedAt = candidate.closed_at.toISOString();
      const record: CasePurged = {
        type: CASE_PURGED,
        data: {
          case_id: candidate.id,
          case_key: candidate.key,
          team: candidate.team,
          closed_at: closedAt,
          purged_at: purgedAt,
          retention_days: retentionDays,
          streams: streamIds,
          alert_ids: dependents.alerts.map((a) => a.id),
          task_ids: dependents.taskIds,
          attachment_keys: dependents.attachmentKeys,
        },
      };
      const audited = deps.audit.write({
        action: 'retention.case_purge',
        actor: SWEEPER,
        target: { type: 'case', id: candidate.id },
        team: candidate.team,
        detail: { case_key: candidate.key, closed_at: closedAt, retention_days: retentionDays, streams: streamIds.length },
      });
      try {
        const purged = await deps.store.purge({
          guard: { streamId: streams.case(candidate.id), expectedVersion: candidate.version },
          streamIds,
          record: [
            {
              streamId: streams.retention(candidate.id),
              events: [{ ...record, metadata: systemMetadata }],
              expectedVersion: 0,
            },
            audited,
          ],
        });
        return { position: purged.lastPosition, eventsDeleted: purged.eventsDeleted, attachmentKeys: dependents.attachmentKeys };
      } catch (error) {
        if (error instanceof StreamVersionConflict) return null;
        throw error;
      }
    },
  };
}
