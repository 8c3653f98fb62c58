/**
 * Writing audit entries (SPEC.md "Audit entry"; domain/audit/events.ts). A change that
 * is itself an event takes its entry into the same `appendMany` (`write`), so the two
 * land together or not at all. A change to a table outside the event store (a
 * connection, a webhook source, a runbook) is recorded right after it commits
 * (`record`): if that append fails the request answers 500 and the error is logged,
 * so an operator sees the gap (docs/operations.md "Audit log").
 */
import type { TriageRecord } from '../../domain/ai/triage.ts';
import type { AuditActor, AuditEntry } from '../../domain/audit/events.ts';
import { AUDIT_RECORDED } from '../../domain/audit/events.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { CaseRow } from '../../projections/cases/cases.queries.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import type { Principal } from '../identity/principal.ts';

/** An entry before it gets its id and time. */
export type AuditInput = Omit<AuditEntry, 'id' | 'at'>;

export type AuditLog = {
  /** The new stream write that records `input` (expected version 0: the entry's own stream). */
  write: (input: AuditInput) => StreamWrite;
  /** Appends `input` alone; resolves with its global position (for read-your-writes). */
  record: (input: AuditInput) => Promise<number>;
};

/** The audit log writer over `store`; entry ids from `ids`, times from `now` (RFC 3339). Never throws while building a write; `record` rejects when the append fails. */
export function createAuditLog(deps: { store: EventStore; ids: () => string; now: () => Date }): AuditLog {
  const write = (input: AuditInput): StreamWrite => {
    const entry: AuditEntry = { id: deps.ids(), at: deps.now().toISOString(), ...input };
    return {
      streamId: streams.audit(entry.id),
      expectedVersion: 0,
      events: [{ type: AUDIT_RECORDED, data: entry, metadata: { actor: { id: entry.actor.id, email: entry.actor.email, kind: entry.actor.kind } } }],
    };
  };
  return {
    write,
    record: async (input) => (await deps.store.appendMany([write(input)])).lastPosition,
  };
}

/** A person (their user row) as the audit actor; `via` names what they acted through, else null. */
export function personActor(user: { id: string; email: string; subject: string }, via: string | null): AuditActor {
  return { id: user.id, email: user.email, subject: user.subject, kind: 'user', via };
}

/** The service itself as the audit actor; `via` names the job (`ticket_poll`), else null. */
export function systemActor(via: string | null): AuditActor {
  return { id: null, email: null, subject: null, kind: 'system', via };
}

/** A webhook source as the audit actor (`via: webhook_source:<slug>`), with the person it named when one matched. */
export function webhookSourceActor(slug: string, person: { id: string | null; email: string | null } = { id: null, email: null }): AuditActor {
  return { id: person.id, email: person.email, subject: null, kind: 'webhook', via: `webhook_source:${slug}` };
}

/** The audit actor of an authenticated caller: a person when the token acts for one, else its workload. */
export function auditActorOf(principal: Principal): AuditActor {
  const person = principal.userId !== null;
  return {
    id: principal.userId,
    email: principal.email,
    subject: principal.subject,
    kind: person ? 'user' : 'workload',
    via: person ? principal.workload : null,
  };
}

/** The `ai.triage` audit entry of a verdict recorded on the case `row` (operations.md "Audit log"). */
export function triageAuditEntry(
  audit: Pick<AuditLog, 'write'>,
  row: Pick<CaseRow, 'id' | 'key' | 'team'>,
  actor: AuditActor,
  invocationId: string,
  record: TriageRecord,
): StreamWrite {
  return audit.write({
    action: 'ai.triage',
    actor,
    target: { type: 'case', id: row.id },
    team: row.team,
    detail: {
      case_key: row.key,
      invocation_id: invocationId,
      verdict: record.verdict,
      confidence: record.confidence,
      suggested_runbook: record.suggested_runbook,
      error_code: record.error_code,
    },
  });
}
