/**
 * Case command handlers (SPEC.md "Cases"): each validates nothing itself (routes
 * validate the request shape), decides against the Case aggregate and appends.
 * They return the last position written so the caller can wait for projections.
 */
import { sql, type Kysely } from 'kysely';
import { caseDecider, type Actor, type CaseCommand, type CaseState } from '../../domain/cases/index.ts';
import type { CaseChanges, Pager, PageVia } from '../../domain/cases/events.ts';
import type { CommentMentions } from '../../domain/cases/mentions.ts';
import type { ScopedCase } from '../../projections/cases/case-scope.ts';
import type { PermissionMatrix } from '../identity/permissions.ts';
import { resolveMentions } from './mentions.ts';
import type { EventMetadata } from '../../domain/shared/messages.ts';
import { streams } from '../../domain/shared/streams.ts';
import type { Database } from '../../projections/database.ts';
import type { EventStore, StreamWrite } from '../event-store/port.ts';
import type { TriageRecord, TriageVerdict } from '../../domain/ai/triage.ts';
import { decideAndAppend, decideAndAppendBatch, type AlsoAppend, type BatchOutcome } from './aggregate.ts';
import type { AuditLog } from './audit.ts';
import type { AuditActor } from '../../domain/audit/events.ts';
import type { CaseEvent } from '../../domain/cases/events.ts';
import type { CaseConfig } from './case-config.ts';
import type { CustomFieldValue, FieldRules } from '../../domain/custom-fields/fields.ts';

export type CaseCommandDeps = {
  store: EventStore;
  db: Kysely<Database>;
  config: CaseConfig;
  ids: () => string;
  now: () => Date;
  /** The role matrix: who a mention may notify depends on the mentioned user's grants. */
  permissions: PermissionMatrix;
  audit: AuditLog;
  /** The custom field rules a status change is checked against (adapters/custom-fields/store.ts `rules`). */
  fieldRules: () => Promise<FieldRules>;
};

export type CaseResult = { caseId: string; position: number | null; state: CaseState };

/** Allocates the next case number from a database sequence: unique under any concurrency. */
export async function nextCaseNumber(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select nextval('case_number_seq')::integer as n`.execute(db);
  const n = rows[0]?.n;
  if (n === undefined) throw new Error('case number sequence returned nothing');
  return Number(n);
}

/** What a new case is opened with; the command adds the key prefix and initial status of `config`. */
export type CaseOpening = {
  caseId: string;
  number: number;
  title: string;
  description: string | null;
  severity: string;
  tags: string[];
  team: string | null;
  private: boolean;
};

/** The `open_case` command for `opening` under `config`, by `actor` at `now`. */
export function openCaseCommand(config: CaseConfig, opening: CaseOpening, actor: Actor | null, now: string): CaseCommand {
  return { type: 'open_case', ...opening, keyPrefix: config.keyPrefix, initialStatus: config.initialStatus, correlationKey: null, actor, now };
}

export function actorMetadata(actor: Actor | null, kind: 'user' | 'workload' | 'system' | 'webhook'): EventMetadata {
  return { actor: { id: actor?.userId ?? null, email: actor?.email ?? null, kind } };
}

export function createCaseCommands(deps: CaseCommandDeps) {
  const { store, config } = deps;
  const on = async (
    caseId: string,
    actor: Actor | null,
    build: (now: string) => CaseCommand | Promise<CaseCommand>,
    also?: AlsoAppend<CaseEvent, CaseState>,
  ): Promise<CaseResult> => {
    const now = deps.now().toISOString();
    const r = await decideAndAppend(store, streams.case(caseId), caseDecider, () => build(now), actorMetadata(actor, 'user'), also);
    return { caseId, position: r.position, state: r.state };
  };
  /** The `case.acknowledge` audit entry (SPEC.md "Audit entry") beside the event that stamps the case. */
  const auditAcknowledgement =
    (caseId: string, by: AuditActor): AlsoAppend<CaseEvent, CaseState> =>
    (events, before) =>
      events
        .flatMap((e) => (e.type === 'case.acknowledged' ? [e.data.via ?? null] : []))
        .map((via) =>
          deps.audit.write({
            action: 'case.acknowledge',
            actor: by,
            target: { type: 'case', id: caseId },
            team: before.exists ? before.team : null,
            detail: {
              case_key: before.exists ? before.key : null,
              status: before.exists ? before.status : null,
              ...(via && { pager: via.pager, agent: via.agent }),
            },
          }),
        );
  return {
    open: async (
      input: { title: string; description: string | null; severity: string; tags: string[]; team: string | null; private: boolean },
      actor: Actor,
    ): Promise<CaseResult> => {
      const caseId = deps.ids();
      const number = await nextCaseNumber(deps.db);
      return on(caseId, actor, (now) => openCaseCommand(config, { caseId, number, ...input }, actor, now));
    },
    /**
     * `viaTicketLink`: the ticket link whose remote status asked for it (not mirrored back
     * there). The custom fields required for `status` are read on every try, so a field
     * made required meanwhile is enforced; 422 `custom_field_required` names a missing one.
     */
    changeStatus: (caseId: string, status: string, note: string | null, actor: Actor, viaTicketLink?: string) =>
      on(caseId, actor, async (now) => ({
        type: 'change_status',
        status,
        note,
        ...(viaTicketLink !== undefined && { viaTicketLink }),
        fields: await deps.fieldRules(),
        now,
      })),
    assign: (caseId: string, owner: { id: string; email: string } | null, actor: Actor) =>
      on(caseId, actor, (now) => ({ type: 'assign', ownerId: owner?.id ?? null, ownerEmail: owner?.email ?? null, now })),
    /**
     * Stamps the first acknowledgement and audits it as `case.acknowledge` by `by`; a repeat
     * changes nothing. `via` names the page when a pager's webhook acknowledges.
     */
    acknowledge: (caseId: string, actor: Actor, by: AuditActor, via: PageVia | null = null) =>
      on(caseId, actor, (now) => ({ type: 'acknowledge', actor, via, now }), auditAcknowledgement(caseId, by)),
    /** Links a page sent for the case (SPEC.md "Webhook intake"), so its acknowledgement finds the case. */
    linkPage: (caseId: string, page: { pager: Pager; key: string; connection: string; runId: string | null; stepId: string | null }, actor: Actor | null) =>
      on(caseId, actor, (now) => ({ type: 'link_page', ...page, now })),
    /** Adds a comment; `theCase` (its scope columns) decides who a mention may notify. */
    comment: async (
      caseId: string,
      body: string,
      actor: Actor,
      theCase: ScopedCase,
    ): Promise<CaseResult & { commentId: string; mentions: CommentMentions }> => {
      const commentId = deps.ids();
      const mentions = await resolveMentions(deps.db, body, theCase, actor.userId, deps.permissions);
      const r = await on(caseId, actor, (now) => ({ type: 'add_comment', commentId, body, actor, mentions, now }));
      return { ...r, commentId, mentions };
    },
    deleteComment: (caseId: string, commentId: string, actor: Actor, actorIsAdmin: boolean) =>
      on(caseId, actor, (now) => ({ type: 'delete_comment', commentId, actor, actorIsAdmin, now })),
    /**
     * Records an advisory AI triage on the case; `audit` are the rows that go with it (the
     * call's `ai.invocation` and the `ai.triage` entry), appended in the same write.
     */
    recordAiTriage: (caseId: string, record: TriageRecord, actor: Actor | null, audit: StreamWrite[]) =>
      on(
        caseId,
        actor,
        (now) => ({ type: 'record_ai_triage', record, requestedBy: actor?.email ?? null, now }),
        () => audit,
      ),
    /** One analyst's judgement of the case's AI verdict; a repeat replaces theirs. 409 `ai_triage_missing` before any verdict. */
    aiTriageFeedback: (caseId: string, actor: Actor & { userId: string }, verdict: TriageVerdict, note: string | null) =>
      on(caseId, actor, (now) => ({ type: 'give_ai_triage_feedback', actor, verdict, note, now })),
    /**
     * One command on each of many cases, appended in one transaction (the bulk routes, in
     * batches they bound): each case gets exactly the events its single command would give,
     * and a refusal fails only its case. `build` is given the case's state and the time.
     */
    batch: async (
      items: { caseId: string; build: (state: CaseState, now: string) => CaseCommand }[],
      actor: Actor,
    ): Promise<{ outcomes: BatchOutcome<CaseEvent, CaseState>[]; position: number | null }> => {
      const now = deps.now().toISOString();
      return decideAndAppendBatch(
        store,
        caseDecider,
        items.map((item) => ({ streamId: streams.case(item.caseId), command: (state: CaseState) => item.build(state, now) })),
        actorMetadata(actor, 'user'),
      );
    },
    /**
     * Field changes and, when given, the full new list of ATT&CK technique ids (already
     * normalized) and custom field values (already checked; null clears), in one decision.
     */
    update: (caseId: string, changes: CaseChanges, actor: Actor | null, attackTechniques?: string[], customFields?: Record<string, CustomFieldValue | null>) =>
      on(caseId, actor, (now) => ({
        type: 'update_case',
        changes,
        ...(attackTechniques !== undefined && { attackTechniques }),
        ...(customFields !== undefined && { customFields }),
        now,
      })),
  };
}

export type CaseCommands = ReturnType<typeof createCaseCommands>;
